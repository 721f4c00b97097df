import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ADMIN_PASSWORD, until } from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Run, run, runNode, type ServeProcess, startServe, waitFor } from "./processes.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const readme = readFileSync(path.join(root, "README.md"), "utf8");

/** The test's environment and `env`, with no xDS bootstrap but one `env` gives. */
function withoutBootstrap(env: Record<string, string>): NodeJS.ProcessEnv {
  const all: NodeJS.ProcessEnv = { ...process.env };
  delete all.GRPC_XDS_BOOTSTRAP;
  delete all.GRPC_XDS_BOOTSTRAP_CONFIG;
  return { ...all, ...env };
}

/** `node examples/<script> …args` from the repository's root, as the README runs it. */
const example = (script: string, args: string[], env: Record<string, string> = {}): Run =>
  runNode([`examples/${script}`, ...args], { cwd: root, env: withoutBootstrap(env) });

describe("the README's quick start with a proxyless gRPC client", () => {
  let database: TestDatabase;
  let serve: ServeProcess | undefined;
  let backend: Run | undefined;
  const work = mkdtempSync(path.join(os.tmpdir(), "switchyard-quick-start-"));
  /** The CLI as a user runs it: its own config dir (the login's), no token in the environment. */
  const cli = async (args: string[], stdin?: string) => {
    const command = run(args, { XDG_CONFIG_HOME: work, SWITCHYARD_TOKEN: "" }, stdin);
    const code = await command.exited;
    return { code, output: command.output() };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    serve = await startServe(["--no-console"], { DATABASE_URL: database.url });
  });
  afterAll(async () => {
    backend?.child.kill("SIGTERM");
    await backend?.exited;
    if (serve !== undefined) expect(await serve.stop()).toBe(0);
    await database?.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it("names the example files it runs, word for word", () => {
    expect(readme).toContain("npx switchyard apply -f examples/grpc-echo.yaml");
    expect(readme).toContain("node examples/echo-server.mjs");
    expect(readme).toContain("GRPC_XDS_BOOTSTRAP=bootstrap.json node examples/echo-client.mjs");
    expect(readme).not.toContain("your-client.js");
  });

  it("gets the echo backend's reply through xds:///echo, and demo-1 is SYNCED", async () => {
    if (serve === undefined) throw new Error("serve did not start");
    const login = await cli(
      ["login", "--server", serve.baseUrl, "--username", "admin", "--password-stdin"],
      `${ADMIN_PASSWORD}\n`,
    );
    expect(login.output).toContain("Logged in");
    expect(login.code).toBe(0);

    const applied = await cli(["apply", "-f", path.join(root, "examples", "grpc-echo.yaml")]);
    expect(applied.output).toMatch(/published version 1/);
    expect(applied.code).toBe(0);

    const bootstrap = run(["bootstrap", "--grpc", "--node-id", "demo-1"], {
      XDG_CONFIG_HOME: work,
      SWITCHYARD_TOKEN: "",
    });
    let written = "";
    bootstrap.child.stdout?.on("data", (chunk) => {
      written += chunk;
    });
    expect(await bootstrap.exited).toBe(0);
    const bootstrapFile = path.join(work, "bootstrap.json");
    writeFileSync(bootstrapFile, written);
    expect(JSON.parse(written).xds_servers[0].server_uri).toMatch(new RegExp(`:${serve.xdsPort}$`));

    backend = example("echo-server.mjs", []);
    await waitFor(
      () => /listening on 127\.0\.0\.1:50051|cannot listen/.test(backend?.output() ?? ""),
      "the echo backend to listen",
      20_000,
    );
    expect(backend.output()).toContain("echo-server: listening on 127.0.0.1:50051");

    const client = example("echo-client.mjs", [], { GRPC_XDS_BOOTSTRAP: bootstrapFile });
    const code = await client.exited;
    expect(client.output()).toBe("127.0.0.1:50051 says: hello\n");
    expect(code).toBe(0);

    // Status reaches the database in batches: the table shows it once written.
    // The client has exited by now: connected "no", its last status SYNCED on every type.
    const synced = /demo-1\s+(yes|no), since .*SYNCED\s+SYNCED\s+SYNCED\s+SYNCED/;
    const nodes = await until(
      async () => (await cli(["nodes"])).output,
      (table) => synced.test(table),
      "`switchyard nodes` never showed demo-1 SYNCED on CDS, EDS, LDS and RDS",
    );
    expect(nodes).toMatch(synced);
  });

  it("tells a user who forgot GRPC_XDS_BOOTSTRAP what to set, in one line", async () => {
    const client = example("echo-client.mjs", []);
    const code = await client.exited;
    expect(code).toBe(1);
    expect(client.output()).toBe(
      "echo-client: set GRPC_XDS_BOOTSTRAP to the file `switchyard bootstrap --grpc --node-id demo-1` wrote\n",
    );
  });
});
