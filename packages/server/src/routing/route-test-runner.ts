// Route test cases checked off the event loop (route-test-worker.ts), as Envoy imports are
// (import/envoy-importer.ts): one worker thread (piscina) with a heap limit, a time limit and a
// bounded queue; a worker that runs out of memory or time is ended and replaced, and the caller
// gets an error that says which limit it hit, never Internal. A caller's cases (check) and the
// stored tests (run) go the same way.
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type CheckRouteTestsResponse,
  CheckRouteTestsResponseSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { type ConfigSpec, regexMaxProgramSize } from "@switchyard/snapshot";
import type { Logger } from "pino";
import { Piscina } from "piscina";
import type { RouteTestRunResult, StoredRouteTest } from "../store/route-tests.js";
import type { RouteTestJob, StoredRouteTestJob } from "./route-test-worker.js";

export interface RouteTestRunnerOptions {
  /** Heap of the worker thread, in MiB. */
  readonly heapMb?: number;
  /** The longest one check may take, waiting included. */
  readonly timeoutMs?: number;
  /** Checks that may wait while one runs; more are refused as RESOURCE_EXHAUSTED. */
  readonly maxQueue?: number;
  readonly logger?: Logger;
}

export interface RouteTestRunner {
  /** A caller's cases (CheckRouteTests). */
  check(job: Omit<RouteTestJob, "regexMaxProgramSize">): Promise<CheckRouteTestsResponse>;
  /**
   * The stored `tests` run on `spec`, as store/route-tests.ts runRouteTests answers (but for each
   * result's route answer, left out).
   */
  run(spec: ConfigSpec, tests: readonly StoredRouteTest[]): Promise<RouteTestRunResult[]>;
  close(): Promise<void>;
}

/** Each job: the worker module's export that does it, and what a refusal of it says to do. */
const JOBS = {
  check: { exported: "default", fix: "send fewer cases" },
  run: {
    exported: "runStoredRouteTests",
    fix: "an admin deletes or splits the largest stored route tests",
  },
} as const;

const DEFAULTS = { heapMb: 512, timeoutMs: 30_000, maxQueue: 16 } as const;

function workerModule(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith(".ts");
  return {
    filename: new URL(`./route-test-worker.${fromSource ? "ts" : "js"}`, import.meta.url).href,
    execArgv: fromSource ? ["--import", "tsx"] : [],
  };
}

export function createRouteTestRunner(options: RouteTestRunnerOptions = {}): RouteTestRunner {
  const { heapMb, timeoutMs, maxQueue } = { ...DEFAULTS, ...options };
  const pool = new Piscina<RouteTestJob | StoredRouteTestJob, unknown>({
    ...workerModule(),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  pool.on("error", (error: unknown) =>
    options.logger?.error({ err: error }, "route test worker failed"),
  );
  let inFlight = 0;
  async function submit<T>(
    job: "check" | "run",
    task: RouteTestJob | StoredRouteTestJob,
  ): Promise<T> {
    if (inFlight > maxQueue)
      throw new ConnectError(
        `${maxQueue} route test checks are already waiting: try again once they are done`,
        Code.ResourceExhausted,
      );
    const timeout = AbortSignal.timeout(timeoutMs);
    inFlight += 1;
    try {
      return (await pool.run(task, { name: JOBS[job].exported, signal: timeout })) as T;
    } catch (error) {
      if (timeout.aborted)
        throw new ConnectError(
          `checking the route tests took longer than ${timeoutMs / 1000} s, the most one check may take: ${JOBS[job].fix}`,
          Code.DeadlineExceeded,
        );
      if ((error as { code?: unknown }).code === "ERR_WORKER_OUT_OF_MEMORY")
        throw new ConnectError(
          `checking the route tests needed more than the ${heapMb} MiB one check may use: ${JOBS[job].fix}`,
          Code.ResourceExhausted,
        );
      throw new ConnectError(
        `checking the route tests failed: ${error instanceof Error ? error.message : String(error)}`,
        Code.Internal,
        undefined,
        undefined,
        error,
      );
    } finally {
      inFlight -= 1;
    }
  }
  return {
    async check(job) {
      const bytes = await submit<Uint8Array>("check", {
        ...job,
        regexMaxProgramSize: regexMaxProgramSize(),
      });
      return fromBinary(CheckRouteTestsResponseSchema, bytes);
    },
    async run(spec, tests) {
      if (tests.length === 0) return [];
      const job: StoredRouteTestJob = {
        spec,
        tests: tests.map(({ name, content, listener, routeConfiguration }) => ({
          name,
          content,
          listener,
          routeConfiguration,
        })),
        regexMaxProgramSize: regexMaxProgramSize(),
      };
      const cases = await submit<RouteTestRunResult["cases"][]>("run", job);
      return tests.map((test, i) => ({ test, cases: cases[i] ?? [] }));
    },
    async close() {
      await pool.close({ force: true });
    },
  };
}
