// Route test cases checked off the event loop (route-test-worker.ts), as Envoy imports are
// (workers/bounded-worker.ts: a heap limit, a time limit and a bounded queue, and a refusal that
// says which limit was hit). A caller's cases (check) and the stored tests (run) go the same way.
import { fromBinary } from "@bufbuild/protobuf";
import {
  type CheckRouteTestsResponse,
  CheckRouteTestsResponseSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { type ConfigSpec, regexMaxProgramSize } from "@switchyard/snapshot";
import type { Logger } from "pino";
import type { RouteTestRunResult, StoredRouteTest } from "../store/route-tests.js";
import { createBoundedWorker } from "../workers/bounded-worker.js";
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

export function createRouteTestRunner(options: RouteTestRunnerOptions = {}): RouteTestRunner {
  const worker = createBoundedWorker<RouteTestJob | StoredRouteTestJob>(
    new URL("./route-test-worker", import.meta.url),
    "route test worker",
    { ...DEFAULTS, ...options },
    options.logger,
  );
  const submit = <T>(job: keyof typeof JOBS, task: RouteTestJob | StoredRouteTestJob) =>
    worker.run<T>(
      task,
      {
        doing: "checking the route tests",
        one: "one check",
        fix: JOBS[job].fix,
        waiting: "route test checks",
      },
      { name: JOBS[job].exported },
    );
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
    close: () => worker.close(),
  };
}
