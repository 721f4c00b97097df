import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  CALL_DEADLINE_MS,
  grpcBootstrap,
  type XdsClientOptions,
  type XdsEchoClient,
} from "./xds-client.js";

const SCRIPT = fileURLToPath(new URL("../python/ccore_echo_client.py", import.meta.url));

/**
 * The Python whose `grpc` is Debian's python3-grpcio (gRPC C-core, the core under gRPC C++,
 * Python, Ruby and PHP): /usr/bin/python3 unless SWITCHYARD_TEST_PYTHON names another.
 */
export const CCORE_PYTHON = process.env.SWITCHYARD_TEST_PYTHON ?? "/usr/bin/python3";

const INSTALL_HINT =
  "the gRPC C-core xDS client needs Debian's python3-grpcio: apt-get install -y python3-grpcio python3-protobuf (.ci/run installs it)";

export interface CcoreClientOptions extends XdsClientOptions {
  /** Extra environment, e.g. GRPC_TRACE=xds_client GRPC_VERBOSITY=debug to see its xDS traffic. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A C-core client: the same calls as the Node client, and what its process printed. */
export interface CcoreEchoClient extends XdsEchoClient {
  /** gRPC's version, as the client reports it (1.51.1 on Debian 12). */
  readonly version: string;
  /** Everything the client wrote on stderr (its logs and traces). */
  stderr(): string;
}

interface Pending {
  readonly resolve: (backend: string) => void;
  readonly reject: (error: Error) => void;
}

/**
 * An RPC the C-core client saw fail: `code` is gRPC's status number, as @grpc/grpc-js's errors
 * carry it (14 for UNAVAILABLE), `codeName` its name.
 */
export class CcoreCallError extends Error {
  readonly code: number;
  readonly codeName: string;
  constructor(code: number, codeName: string, details: string) {
    super(`${code} ${codeName}: ${details}`);
    this.name = "CcoreCallError";
    this.code = code;
    this.codeName = codeName;
  }
}

/**
 * A real proxyless gRPC client on gRPC C-core, in a Python process of its own (one channel,
 * `xds:///target` or `xds://AUTHORITY/target`, its bootstrap in GRPC_XDS_BOOTSTRAP_CONFIG),
 * sending the echo RPC when asked: the second real xDS client beside `createXdsEchoClient`.
 * Resolves once the process is up; rejects, saying what to install, when it cannot start.
 */
export async function startCcoreEchoClient(
  target: string,
  options: CcoreClientOptions,
): Promise<CcoreEchoClient> {
  const uri = `xds://${options.targetAuthority ?? ""}/${target}`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GRPC_XDS_BOOTSTRAP_CONFIG: JSON.stringify(options.bootstrap ?? grpcBootstrap(options)),
    // xdstp:// names (gRFC A47) are experimental in 1.51.
    GRPC_EXPERIMENTAL_XDS_FEDERATION: "true",
    // In Python, C-core reads what the xDS server sends only while something polls its
    // completion queues: an RPC in flight, or the backup poller, every 5 s by default. A client
    // idle between a test's calls would take each update up to 5 s late; under traffic it would
    // not. Poll as a busy client does.
    GRPC_CLIENT_CHANNEL_BACKUP_POLL_INTERVAL_MS: "50",
    // Nothing of this test goes through a proxy.
    no_proxy: "*",
    no_grpc_proxy: "*",
    ...options.env,
  };
  const child = spawn(CCORE_PYTHON, [SCRIPT, uri], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const pending = new Map<number, Pending>();
  let exited: Error | undefined;
  const failAll = (error: Error) => {
    exited = error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };
  const ready = new Promise<string>((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`${INSTALL_HINT} (${error.message})`)));
    child.once("exit", (code, signal) => {
      const error = new Error(
        `the gRPC C-core client exited (${signal ?? `code ${code}`}): ${stderr.trim().split("\n").slice(-5).join(" | ")}`,
      );
      reject(new Error(`${INSTALL_HINT}; ${error.message}`));
      failAll(error);
    });
    createInterface({ input: child.stdout as NonNullable<ChildProcess["stdout"]> }).on(
      "line",
      (line) => {
        const message = JSON.parse(line) as {
          ready?: boolean;
          grpc?: string;
          id?: number;
          ok?: string;
          code?: string;
          status?: number;
          error?: string;
        };
        if (message.ready) {
          resolve(message.grpc ?? "");
          return;
        }
        const call = message.id === undefined ? undefined : pending.get(message.id);
        if (call === undefined || message.id === undefined) return;
        pending.delete(message.id);
        if (message.ok !== undefined) call.resolve(message.ok);
        else
          call.reject(
            new CcoreCallError(message.status ?? 2, message.code ?? "UNKNOWN", message.error ?? ""),
          );
      },
    );
  });
  const version = await ready;
  let next = 0;
  return {
    version,
    stderr: () => stderr,
    call: (deadlineMs = CALL_DEADLINE_MS, callOptions = {}) =>
      new Promise((resolve, reject) => {
        if (exited) {
          reject(exited);
          return;
        }
        next += 1;
        pending.set(next, { resolve, reject });
        child.stdin?.write(
          `${JSON.stringify({
            id: next,
            deadline_ms: deadlineMs,
            ...(callOptions.method === undefined ? {} : { method: callOptions.method }),
            ...(callOptions.metadata === undefined
              ? {}
              : { metadata: Object.entries(callOptions.metadata) }),
          })}\n`,
        );
      }),
    close: () => {
      child.stdin?.end();
      child.kill("SIGKILL");
    },
  };
}
