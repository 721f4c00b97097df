// Reading Envoy config off the event loop. A megabyte of YAML takes the best part of a second of
// CPU to parse, decode and map, and a caller chooses how many megabytes to send: on the main
// thread that time is taken from every xDS stream and API call. Here it runs in a bounded worker
// (workers/bounded-worker.ts: a heap limit, a time limit and a bounded queue, and a refusal that
// says which limit was hit).
import { installedEnvoySchemas } from "@switchyard/proto";
import { type ConfigSpecFragment, regexMaxProgramSize } from "@switchyard/snapshot";
import type { Logger } from "pino";
import type { SecretKeyring } from "../secrets-key.js";
import { createBoundedWorker } from "../workers/bounded-worker.js";
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

export function createEnvoyImporter(options: EnvoyImporterOptions = {}): EnvoyImporter {
  const worker = createBoundedWorker<ImportJob>(
    new URL("./envoy-import-worker", import.meta.url),
    "Envoy import worker",
    { ...DEFAULTS, ...options },
    options.logger,
  );
  return {
    async read(content, filename, keyring, signal, types = {}) {
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
      const outcome = await worker.run<ImportOutcome>(
        job,
        {
          doing: "reading the document",
          one: "one import",
          fix: "split it into several imports",
          waiting: "imports",
        },
        signal === undefined ? {} : { signal },
      );
      if (outcome.t === "unparsable") return outcome;
      return { ...outcome, spec: sealed(outcome.spec, keyring) };
    },
    close: () => worker.close(),
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
