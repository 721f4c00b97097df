import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as net from "node:net";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { ADMIN_PASSWORD, bearer } from "@switchyard/server/testing";

/** Real `switchyard` processes for end-to-end tests. */

export const bin = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "bin",
  "switchyard.js",
);

/** The lines `pgrep` prints for `args` (a pid each, with -a its command line); none when none. */
export function pgrep(args: readonly string[]): string[] {
  try {
    return execFileSync("pgrep", args, { encoding: "utf8" }).split("\n").filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface Run {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * Node options for the processes `run` starts, from SWITCHYARD_CHILD_NODE_ARGS (space-separated):
 * how a benchmark's server is profiled, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
 * (docs/benchmarks.md). Node refuses --cpu-prof in NODE_OPTIONS.
 */
const childNodeArgs = (process.env.SWITCHYARD_CHILD_NODE_ARGS ?? "").split(" ").filter(Boolean);

/** Runs the CLI with `args`; `stdin`, when given, is its standard input (else none). */
export function run(args: string[], env: Record<string, string> = {}, stdin?: string): Run {
  return runNode([...childNodeArgs, bin, ...args], {
    env: {
      ...process.env,
      SWITCHYARD_LOG_LEVEL: "warn",
      DATABASE_URL: "",
      // xDS in the serve process itself unless a test asks for workers (xds-workers.e2e.spec.ts):
      // a worker per core in every test's server would only slow the suite on a 2-core machine.
      SWITCHYARD_XDS_WORKERS: "0",
      // The first admin's password on a fresh database (@switchyard/server/testing signs in with it).
      SWITCHYARD_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...env,
    },
    ...(stdin === undefined ? {} : { stdin }),
  });
}

/** Runs `node ...argv`, its standard output and error collected together. */
export function runNode(
  argv: string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd?: string; readonly stdin?: string },
): Run {
  let output = "";
  const child = spawn(process.execPath, argv, {
    env: options.env,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A running `switchyard serve`, with the ports it printed. */
export interface ServeProcess extends Run {
  /** The console API's base URL, e.g. http://127.0.0.1:41234 (https with --tls) */
  readonly baseUrl: string;
  readonly xdsPort: number;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `switchyard serve` on free ports (API/xDS only unless `args` say otherwise) and waits
 * until it prints its addresses.
 */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<ServeProcess> {
  const process = run(["serve", "--http-port", "0", "--xds-port", "0", ...args], env);
  await waitFor(() => process.output().includes("Press Ctrl-C"), "the server to start");
  const output = process.output();
  const [, scheme, httpPort] = /(?:Console|API):\s+(https?):\/\/[^:]+:(\d+)/.exec(output) ?? [];
  const xdsPort = /xDS:\s+[^:]+:(\d+)/.exec(output)?.[1];
  if (httpPort === undefined || xdsPort === undefined)
    throw new Error(`could not read the ports from: ${output}`);
  return {
    ...process,
    baseUrl: `${scheme}://127.0.0.1:${httpPort}`,
    xdsPort: Number(xdsPort),
    stop: async () => {
      process.child.kill("SIGTERM");
      const code = await process.exited;
      // A serve that does not stop cleanly says why in its output (and a signal, if it died of
      // one): shown with the test's failure rather than lost with the process.
      if (code !== 0)
        globalThis.process.stderr.write(
          `switchyard serve stopped with ${code ?? process.child.signalCode}; its output ended:\n${process.output().slice(-4000)}\n`,
        );
      return code;
    },
  };
}

/** The config API of `serve`, with the API token `token`. */
export function configApi(serve: ServeProcess, token: string): Client<typeof ConfigService> {
  return createClient(
    ConfigService,
    createConnectTransport({
      baseUrl: serve.baseUrl,
      httpVersion: "1.1",
      interceptors: [bearer(token)],
    }),
  );
}
