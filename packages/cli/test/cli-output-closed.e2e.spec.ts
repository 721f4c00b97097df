/**
 * Issue 46: `switchyard … | head` is the end of the output, in every command: the real binary,
 * writing more than a pipe holds to a reader that closes after its first chunk, exits quietly
 * (no EPIPE stack trace) with status 0; `serve` stops as for SIGTERM, its database shut down
 * cleanly.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createTestDatabase } from "@switchyard/db/testing";
import { ADMIN_PASSWORD, type Harness, startHarness } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bin } from "./processes.js";
import { runCli } from "./run-cli.js";

/** Clusters enough that their export is several times a pipe's 64 KiB. */
const CLUSTERS = 800;

/** `switchyard ARGS`, its standard output read until the first chunk, then closed, as `head` does. */
function readFirstChunk(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; signal: string | null; first: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let first = "";
    let stderr = "";
    child.stdout.once("data", (chunk) => {
      first = String(chunk);
      child.stdout.destroy();
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("exit", (code, signal) => resolve({ code, signal, first, stderr }));
  });
}

describe("switchyard with a reader that stops early", () => {
  let harness: Harness;
  const work = mkdtempSync(path.join(os.tmpdir(), "switchyard-head-"));

  beforeAll(async () => {
    harness = await startHarness();
    const file = path.join(work, "many.yaml");
    writeFileSync(
      file,
      Array.from(
        { length: CLUSTERS },
        (_, i) => `- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: backend-${String(i).padStart(4, "0")}
  type: STATIC
  connect_timeout: 1s
  load_assignment:
    cluster_name: backend-${String(i).padStart(4, "0")}
    endpoints:
      - lb_endpoints:
          - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ${10_000 + i} } } }
`,
      ).join(""),
    );
    const applied = await runCli(harness.baseUrl, await harness.token(), "apply", "-f", file);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
  });

  afterAll(async () => {
    await harness?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it.each([
    ["export -o yaml", ["export", "-o", "yaml"]],
    ["get cluster", ["get", "cluster"]],
    ["get cluster -o json", ["get", "cluster", "-o", "json"]],
  ])(
    "`switchyard %s | head` ends quietly with status 0 once the reader is gone",
    async (_, args) => {
      const token = await harness.token();
      const result = await readFirstChunk(["--server", harness.baseUrl, ...args], {
        SWITCHYARD_TOKEN: token,
      });
      expect(result.first).not.toBe("");
      expect(result.stderr).toBe("");
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
    },
  );

  it("`switchyard serve | head -1` stops the server as SIGTERM does, with status 0 and no stack trace", async () => {
    const database = await createTestDatabase();
    try {
      const result = await readFirstChunk(
        ["serve", "--no-console", "--http-port", "0", "--xds-port", "0"],
        {
          DATABASE_URL: database.url,
          SWITCHYARD_XDS_WORKERS: "0",
          SWITCHYARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
        },
      );
      expect(result.first).not.toBe("");
      expect(result.stderr).toBe("");
      expect(result.signal).toBeNull();
      expect(result.code).toBe(0);
    } finally {
      await database.drop();
    }
  });
});
