import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, pgrep, run, waitFor } from "./processes.js";

function postgresProcessesFor(dataDir: string): string[] {
  return pgrep(["-af", "postgres"]).filter((line) => line.includes(dataDir));
}

/** The process group of `pid`. */
function processGroup(pid: number): number {
  return Number(
    execFileSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" }).trim(),
  );
}

describe("switchyard serve", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "switchyard-cli-"));
  // Postgres runs as the `postgres` user when the tests run as root: it must enter this folder.
  chmodSync(dataDir, 0o755);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("starts the console and the xDS port (two xDS workers) on an embedded Postgres in a process group of its own, prints both addresses, and stops cleanly on SIGTERM", async () => {
    const [httpPort, xdsPort] = [await freePort(), await freePort()];
    const serve = run(
      [
        "serve",
        "--http-port",
        String(httpPort),
        "--xds-port",
        String(xdsPort),
        "--data-dir",
        dataDir,
      ],
      { SWITCHYARD_XDS_WORKERS: "2" },
    );
    await waitFor(() => serve.output().includes("Press Ctrl-C"), "the server to start");
    expect(serve.output()).toContain(`http://localhost:${httpPort}`);
    expect(serve.output()).toContain(`localhost:${xdsPort}`);

    const page = await fetch(`http://127.0.0.1:${httpPort}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Switchyard");
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(xdsPort, "127.0.0.1", () => {
        socket.destroy();
        resolve();
      });
      socket.on("error", reject);
    });
    const postgres = postgresProcessesFor(dataDir);
    expect(postgres.length).toBeGreaterThan(0);
    // A terminal's Ctrl-C reaches its foreground process group: not PostgreSQL, which Switchyard
    // stops last, after its workers have drained and written their nodes' disconnects.
    const group = processGroup(serve.child.pid ?? 0);
    for (const line of postgres) expect(processGroup(Number.parseInt(line, 10))).not.toBe(group);

    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);

    // The data directory is reusable: a second start on it succeeds.
    const again = run([
      "serve",
      "--http-port",
      String(httpPort),
      "--xds-port",
      String(xdsPort),
      "--data-dir",
      dataDir,
    ]);
    await waitFor(() => again.output().includes("Press Ctrl-C"), "the second start");
    again.child.kill("SIGINT");
    expect(await again.exited).toBe(0);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  }, 120_000);

  it("refuses a busy port with one line naming the port and the flag to change it", async () => {
    const blocker = net.createServer();
    const busy = await new Promise<number>((resolve) =>
      blocker.listen(0, "127.0.0.1", () => resolve((blocker.address() as net.AddressInfo).port)),
    );
    try {
      const serve = run([
        "serve",
        "--http-port",
        String(await freePort()),
        "--xds-port",
        String(busy),
        "--data-dir",
        dataDir,
      ]);
      expect(await serve.exited).not.toBe(0);
      const lines = serve.output().trim().split("\n");
      expect(lines.at(-1)).toMatch(new RegExp(`port ${busy} .*already in use.*--xds-port`));
      expect(serve.output()).not.toMatch(/\n\s+at /); // no stack trace
      expect(postgresProcessesFor(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  }, 120_000);

  it("refuses an unreachable DATABASE_URL with one line saying what to check", async () => {
    const closed = await freePort();
    const serve = run(["serve", "--http-port", "0", "--xds-port", "0"], {
      DATABASE_URL: `postgresql://switchyard:secret@127.0.0.1:${closed}/switchyard`,
    });
    expect(await serve.exited).not.toBe(0);
    const output = serve.output().trim();
    expect(output.split("\n")).toHaveLength(1);
    expect(output).toMatch(/cannot reach the database .*DATABASE_URL/);
    expect(output).not.toContain("secret");
  }, 60_000);
});
