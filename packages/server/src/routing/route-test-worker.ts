// Runs in a worker thread (route-test-runner.ts): checking route test cases compiles the caller's
// header regexes and walks every route for every case, a cost the caller (or whoever stored the
// tests) chooses, so it runs where it cannot stall xDS and the API, under a heap and a time limit.
// Two jobs: a caller's cases (CheckRouteTests, the default export) and the stored tests
// (runStoredRouteTests: the publish gate, RunRouteTests, a put's check on the latest version).
import { create, toBinary } from "@bufbuild/protobuf";
import { CheckRouteTestsResponseSchema } from "@switchyard/proto/switchyard/v1/routing_pb";
import {
  type ConfigSpec,
  checkRouteTest,
  type RouterCheckTest,
  setRegexMaxProgramSize,
} from "@switchyard/snapshot";
import { routeTestResultMessage } from "../api/route-test-messages.js";
import {
  type RouteTestRunResult,
  runRouteTests,
  type StoredRouteTest,
} from "../store/route-tests.js";

export interface RouteTestJob {
  readonly spec: ConfigSpec;
  readonly tests: readonly RouterCheckTest[];
  readonly target: Parameters<typeof checkRouteTest>[2];
  readonly version: number;
  /** The server's regex program size limit: this thread keeps its own. */
  readonly regexMaxProgramSize: number;
}

/** The CheckRouteTestsResponse, encoded (results hold no functions, but bytes cross cheaply). */
export default function checkRouteTests(job: RouteTestJob): Uint8Array {
  setRegexMaxProgramSize(job.regexMaxProgramSize);
  const results = job.tests.map((test) => checkRouteTest(job.spec, test, job.target));
  const passed = results.filter((r) => r.passed).length;
  return toBinary(
    CheckRouteTestsResponseSchema,
    create(CheckRouteTestsResponseSchema, {
      version: BigInt(job.version),
      results: results.map(routeTestResultMessage),
      passed,
      failed: results.length - passed,
    }),
  );
}

/** What a stored test's run needs: its cases and where they route. */
export type StoredRouteTestCases = Pick<
  StoredRouteTest,
  "name" | "content" | "listener" | "routeConfiguration"
>;

export interface StoredRouteTestJob {
  readonly spec: ConfigSpec;
  readonly tests: readonly StoredRouteTestCases[];
  readonly regexMaxProgramSize: number;
}

/**
 * Each test's cases as runRouteTests answers them, in `tests`' order, without the route answers
 * (which the callers do not read and would cost a copy each).
 */
export function runStoredRouteTests(job: StoredRouteTestJob): RouteTestRunResult["cases"][] {
  setRegexMaxProgramSize(job.regexMaxProgramSize);
  const tests = job.tests.map(
    (t): StoredRouteTest => ({
      ...t,
      team: null,
      knownFailing: [],
      author: "",
      updatedAt: new Date(0),
    }),
  );
  return runRouteTests(job.spec, tests).map((run) =>
    run.cases.map(({ request, result: { answer: _, ...result } }) => ({ request, result })),
  );
}
