// Reading Envoy config off the event loop. A megabyte of YAML takes the best part of a second of
// CPU to parse, decode and map, and a caller chooses how many megabytes to send: on the main
// thread that time is taken from every xDS stream and API call. Here it runs in one worker
// thread (piscina), with a heap limit, a time limit and a bounded queue; a worker that runs out of
// memory or time is ended and replaced, and the caller gets an error that says which limit it hit.
import { Code, ConnectError } from "@connectrpc/connect";
import { installedEnvoySchemas } from "@switchyard/proto";
import { type ConfigSpecFragment, regexMaxProgramSize } from "@switchyard/snapshot";
import type { Logger } from "pino";
import { Piscina } from "piscina";
import type { SecretKeyring } from "../secrets-key.js";
import type { ImportJob, ImportOutcome, ImportTypes } from "./envoy-import-worker.js";

export type { ImportOutcome } from "./envoy-import-worker.js";

export interface EnvoyImporterOptions {
  /**
   * Heap of the worker thread, in MiB. Reading the largest import accepted (8 MiB: 35,000
   * clusters) needed between 512 and 1024 MiB, and 9 s, when measured.
   */
  readonly heapMb?: number;
  /**
   * The longest one import may take to read, waiting included. Also the bound on a worker that
   * dies while starting, which piscina does not report to the task waiting for it.
   */
  readonly timeoutMs?: number;
  /** Imports that may wait while one is read; more are refused as RESOURCE_EXHAUSTED. */
  readonly maxQueue?: number;
  readonly logger?: Logger;
}

export interface EnvoyImporter {
  /**
   * Parses and maps `content` (see importEnvoyConfig), its resources without "@type" of `types`;
   * private keys and secret values found inline come back sealed with `keyring`. Rejects with a
   * ConnectError when a limit is hit.
   */
  read(
    content: string,
    filename: string,
    keyring: SecretKeyring,
    signal?: AbortSignal,
    types?: ImportTypes,
  ): Promise<ImportOutcome>;
  close(): Promise<void>;
}

const DEFAULTS = { heapMb: 1024, timeoutMs: 60_000, maxQueue: 16 } as const;

/** The worker module: its TypeScript source under tsx (tests), its build output otherwise. */
function workerModule(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith(".ts");
  return {
    filename: new URL(`./envoy-import-worker.${fromSource ? "ts" : "js"}`, import.meta.url).href,
    execArgv: fromSource ? ["--import", "tsx"] : [],
  };
}

export function createEnvoyImporter(options: EnvoyImporterOptions = {}): EnvoyImporter {
  const { heapMb, timeoutMs, maxQueue } = { ...DEFAULTS, ...options };
  const pool = new Piscina<ImportJob, ImportOutcome>({
    ...workerModule(),
    minThreads: 0,
    maxThreads: 1,
    // Kept a minute after use: starting one (loading the Envoy registry) takes a few hundred ms.
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  // A worker's death is reported to the task it ran; between tasks it would be an 'error' event,
  // which unhandled would end the process.
  pool.on("error", (error: unknown) =>
    options.logger?.error({ err: error }, "Envoy import worker failed"),
  );

  // Reads being run or waiting. Counted here: piscina's own maxQueue does not count tasks that
  // can be aborted, which every read is.
  let inFlight = 0;
  return {
    async read(content, filename, keyring, signal, types = {}) {
      if (inFlight > maxQueue) {
        throw new ConnectError(
          `${maxQueue} imports are already waiting to be read: try again once they are done`,
          Code.ResourceExhausted,
        );
      }
      const job: ImportJob = {
        ...types,
        content,
        filename,
        canSeal: keyring.keyId !== undefined,
        schemas: installedEnvoySchemas().map(({ name, sha256, bytes }) => ({
          name,
          sha256,
          bytes,
        })),
        regexMaxProgramSize: regexMaxProgramSize(),
      };
      const timeout = AbortSignal.timeout(timeoutMs);
      let outcome: ImportOutcome;
      inFlight += 1;
      try {
        outcome = await pool.run(job, {
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        throw limitHit(error, { heapMb, timeoutMs }, timeout.aborted);
      } finally {
        inFlight -= 1;
      }
      if (outcome.t === "unparsable") return outcome;
      return { ...outcome, spec: sealed(outcome.spec, keyring) };
    },
    async close() {
      await pool.close({ force: true });
    },
  };
}

/**
 * The secrets the worker found, their private keys and values sealed here, where the key is (each
 * value arrives as the base64 of its bytes, which is what a sealed value holds: secret-values.ts).
 */
function sealed(spec: ConfigSpecFragment, keyring: SecretKeyring): ConfigSpecFragment {
  if (spec.secrets.length === 0) return spec;
  return {
    ...spec,
    secrets: spec.secrets.map((secret) => ({
      ...secret,
      privateKey: secret.privateKey === null ? null : keyring.seal(secret.privateKey),
      values: secret.values.map((value) => keyring.seal(value)),
    })),
  };
}

function limitHit(
  error: unknown,
  limits: { heapMb: number; timeoutMs: number },
  timedOut: boolean,
): ConnectError {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (timedOut) {
    return new ConnectError(
      `reading the document took longer than ${limits.timeoutMs / 1000} s, the most one import may take: split it into several imports`,
      Code.DeadlineExceeded,
    );
  }
  if (code === "ERR_WORKER_OUT_OF_MEMORY") {
    return new ConnectError(
      `reading the document needed more than the ${limits.heapMb} MiB one import may use: split it into several imports`,
      Code.ResourceExhausted,
    );
  }
  if (error instanceof Error && error.name === "AbortError") {
    return new ConnectError("the import was cancelled", Code.Canceled);
  }
  return new ConnectError(`reading the document failed: ${message}`, Code.Internal);
}
