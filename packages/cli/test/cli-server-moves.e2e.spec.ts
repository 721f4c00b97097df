/**
 * Bootstraps and the CLI follow the server (issue 46, point 2): a real `switchyard serve` on
 * non-default ports set as the README's settings table says (SWITCHYARD_HTTP_PORT,
 * SWITCHYARD_XDS_PORT), and the README's quick start run against it word for word after one
 * `switchyard login --server`: every later command talks to the server logged in to, and the
 * bootstrap `switchyard bootstrap` prints dials the xDS port the server really serves (a real
 * gRPC xDS client's RPC reaches the backend through it). When the server moves, the login says
 * which server it is for and how to follow it; `--advertise-xds-address` wins over the bind.
 */
import { mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { ADMIN_PASSWORD } from "@switchyard/server/testing";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type Run, run, waitFor } from "./processes.js";

const example = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "examples",
  "grpc-echo.yaml",
);

describe("bootstraps and the CLI follow the server", () => {
  const work = mkdtempSync(path.join(os.tmpdir(), "switchyard-server-moves-"));
  /** The CLI's environment: its own config folder, no token or server but what a command gives. */
  const env = {
    XDG_CONFIG_HOME: path.join(work, "config"),
    SWITCHYARD_TOKEN: "",
    SWITCHYARD_SERVER: "",
  };
  let backend: EchoBackend;
  let serving: Run | undefined;
  let httpPort: number;
  let xdsPort: number;

  /** `switchyard ARGS` as a user runs it, to its end. */
  const sy = async (args: string[], stdin?: string) => {
    const child = run(args, env, stdin);
    const closed = new Promise((resolve) => child.child.on("close", resolve));
    const code = await child.exited;
    await closed;
    return { code, output: child.output() };
  };

  /** `switchyard serve` configured by the environment only, as `npm start` is. */
  const serve = async (settings: Record<string, string>) => {
    const started = run(["serve", "--no-console", "--data-dir", path.join(work, "data")], {
      ...env,
      ...settings,
    });
    serving = started;
    await waitFor(() => started.output().includes("Press Ctrl-C"), "the server to start", 120_000);
    return started;
  };
  const stop = async () => {
    serving?.child.kill("SIGTERM");
    await serving?.exited;
    serving = undefined;
  };

  beforeAll(async () => {
    backend = await startEchoBackend("echo-1");
    httpPort = await freePort();
    xdsPort = await freePort();
    await serve({ SWITCHYARD_HTTP_PORT: String(httpPort), SWITCHYARD_XDS_PORT: String(xdsPort) });
  }, 150_000);

  afterAll(async () => {
    await stop();
    await backend?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("after `switchyard login --server`, the quick start's commands talk to that server, and the bootstrap dials the xDS port it serves on", async () => {
    const server = `http://localhost:${httpPort}`;
    const login = await sy(
      ["login", "--server", server, "--username", "admin", "--password-stdin"],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(login.output).toContain(`Logged in to ${server} as admin`);
    expect(login.code).toBe(0);

    const applied = await sy(["apply", "-f", example]);
    expect(applied.output).toMatch(/version 1/);
    expect(applied.code).toBe(0);
    const moved = await sy(["endpoints", "set", "echo-backend", `127.0.0.1:${backend.port}`]);
    expect(moved.code).toBe(0);

    const grpc = await sy(["bootstrap", "--grpc", "--node-id", "demo-1"]);
    expect(grpc.code).toBe(0);
    const bootstrap = JSON.parse(grpc.output) as { xds_servers: { server_uri: string }[] };
    expect(bootstrap.xds_servers[0]?.server_uri).toBe(`127.0.0.1:${xdsPort}`);
    const client = createXdsEchoClient("echo", { server: "", nodeId: "", bootstrap });
    try {
      expect(await callUntilReady(client, 30_000)).toBe("echo-1");
    } finally {
      client.close();
    }
    const nodes = await sy(["nodes"]);
    expect(nodes.output).toMatch(/demo-1/);

    const envoy = await sy(["bootstrap", "--node-id", "edge-1"]);
    expect(envoy.code).toBe(0);
    expect(envoy.output).toContain(`"portValue": ${xdsPort}`);
    expect(envoy.output).not.toContain("18000");
  }, 120_000);

  it("a server that moved: commands say which server the login is for and how to follow it; bootstrap says to pass --xds-address or --server; --advertise-xds-address wins", async () => {
    const old = `http://localhost:${httpPort}`;
    await stop();

    const gone = await sy(["nodes"]);
    expect(gone.code).toBe(1);
    expect(gone.output).toContain(
      `cannot reach the Switchyard server at ${old}, the one \`switchyard login\` signed in to (admin, logged in `,
    );
    expect(gone.output).toContain("`switchyard login --server NEW_URL`");

    const unasked = await sy(["bootstrap", "--node-id", "edge-1"]);
    expect(unasked.code).toBe(1);
    expect(unasked.output.trim().split("\n")).toHaveLength(1);
    expect(unasked.output).toContain(
      `cannot ask the server at ${old} where proxies reach its xDS port`,
    );
    expect(unasked.output).toContain("pass --xds-address HOST:PORT, or --server URL");
    const told = await sy([
      "bootstrap",
      "--node-id",
      "edge-1",
      "--xds-address",
      "xds.internal:18100",
    ]);
    expect(told.code).toBe(0);
    expect(told.output).toContain('"address": "xds.internal"');

    const newPort = await freePort();
    await serve({
      SWITCHYARD_HTTP_PORT: String(newPort),
      SWITCHYARD_XDS_PORT: String(await freePort()),
      SWITCHYARD_ADVERTISE_XDS_ADDRESS: "xds.example.com:443",
    });
    const moved = `http://localhost:${newPort}`;
    const elsewhere = await sy(["--server", moved, "nodes"]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.output).toContain(
      `not logged in to ${moved} (from --server): your login is for ${old} (admin, logged in `,
    );
    expect(elsewhere.output).toContain(`run \`switchyard login --server ${moved}\``);

    const again = await sy(
      ["login", "--server", moved, "--username", "admin", "--password-stdin"],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(again.code).toBe(0);
    expect((await sy(["nodes"])).code).toBe(0);
    const advertised = await sy(["bootstrap", "--grpc", "--node-id", "demo-2"]);
    expect(advertised.code).toBe(0);
    expect(advertised.output).toContain('"server_uri": "xds.example.com:443"');
  }, 240_000);

  it("serve refuses an --advertise-xds-address that is not HOST:PORT, before starting anything", async () => {
    const refused = await sy(["serve", "--advertise-xds-address", "xds.example.com"]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('--advertise-xds-address: "xds.example.com" is not HOST:PORT');
  });
});
