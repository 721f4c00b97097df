// Runs in a worker thread (route-test-runner.ts): checking route test cases compiles the caller's
// header regexes and walks every route for every case, a cost the caller chooses, so it runs where
// it cannot stall xDS and the API, under a heap and a time limit.
import { create, toBinary } from "@bufbuild/protobuf";
import { CheckRouteTestsResponseSchema } from "@switchyard/proto/switchyard/v1/routing_pb";
import {
  type ConfigSpec,
  checkRouteTest,
  type RouterCheckTest,
  setRegexMaxProgramSize,
} from "@switchyard/snapshot";
import { routeTestResultMessage } from "../api/route-test-messages.js";

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
