import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import type {
  RouteTest,
  RouteTestMismatch,
  RouteTestSchema,
  RunRouteTestsResponse,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { z } from "zod";
import type { Writer } from "./write-access";

/**
 * The Route tests page (RoutingService's stored route tests, routing.proto): the form that
 * creates or replaces one and the request it sends, where a refusal of it belongs, the stored
 * tests as rows, and a run's results as rows. A test's cases are Envoy's router_check_tool file;
 * the server parses and checks them (packages/snapshot, routing/router-check-format.ts).
 */

/** As the server's (route-test-handlers.ts, NAME). */
const NAME = /^[A-Za-z0-9._-]+$/;

/** RouteTest.content's limit, in UTF-8 bytes. */
const MAX_CONTENT_BYTES = 768 * 1024;

export const routeTestSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "A name is required.")
    .max(100, "At most 100 characters.")
    .regex(NAME, "Letters, digits, '.', '_' and '-' only."),
  /** The owning team's name; "" for an admin's test (admins choose; a member's is their team). */
  team: z.string(),
  /** "listener:NAME", "route-configuration:NAME", or "": the only route configuration there is. */
  through: z
    .string()
    .regex(/^((listener|route-configuration):.+)?$/, "Choose a listener or a route configuration."),
  content: z
    .string()
    .refine((text) => text.trim() !== "", "Write the cases: tests: [{test_name, input, validate}].")
    .refine(
      (text) => new TextEncoder().encode(text).length <= MAX_CONTENT_BYTES,
      "At most 768 KiB of cases.",
    ),
  /**
   * Store the cases that fail on the latest published version as known failing (they gate
   * nothing) rather than be refused (RouteTest.known_failing).
   */
  knownFailing: z.boolean(),
});

export type RouteTestValues = z.input<typeof routeTestSchema>;
export type RouteTestField = keyof RouteTestValues;

export const routeTestDefaults: RouteTestValues = {
  name: "",
  team: "",
  through: "",
  content: "",
  knownFailing: false,
};

/** An example for the cases' textarea: one case in router_check_tool's format. */
export const routeTestExample = `tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: api-v2, path_rewrite: /orders }`;

/** A stored test as the form edits it (to replace it): known failing still, if it was. */
export function routeTestValues(test: RouteTest): RouteTestValues {
  return {
    name: test.name,
    team: test.team,
    through: test.listener
      ? `listener:${test.listener}`
      : test.routeConfiguration
        ? `route-configuration:${test.routeConfiguration}`
        : "",
    content: test.content,
    knownFailing: test.knownFailingCases.length > 0,
  };
}

/**
 * PutRouteTest's request. A member's test is their team's whatever the form holds (the server
 * refuses another team), so `team` is sent for admins only.
 */
export function putRouteTestRequest(
  values: z.output<typeof routeTestSchema>,
  writer: Writer,
): MessageInitShape<typeof RouteTestSchema> {
  const [kind, ...rest] = values.through.split(":");
  const name = rest.join(":");
  return {
    name: values.name,
    team: writer.role === "admin" ? values.team : "",
    content: values.content,
    ...(kind === "listener" ? { listener: name } : {}),
    ...(kind === "route-configuration" ? { routeConfiguration: name } : {}),
    ...(values.knownFailing ? { knownFailing: true } : {}),
  };
}

/**
 * PutRouteTest's request that promotes `test`: stored again as it is, without known failing. The
 * server refuses it unless every case passes on the latest version; then every case gates.
 */
export function promoteRouteTestRequest(test: RouteTest): MessageInitShape<typeof RouteTestSchema> {
  return {
    name: test.name,
    team: test.team,
    content: test.content,
    listener: test.listener,
    routeConfiguration: test.routeConfiguration,
  };
}

/**
 * Whether `writer` may create a test (`test` undefined) or change this one: an admin any, a member
 * of a team their team's (the server also checks each case's host is the team's), a viewer none.
 */
export function mayWriteRouteTest(writer: Writer, test?: Pick<RouteTest, "team">): boolean {
  if (writer.role === "admin") return true;
  if (writer.role !== "member" || writer.team === undefined) return false;
  return test === undefined || test.team === writer.team.name;
}

export interface KeyedText {
  readonly key: string;
  readonly text: string;
}

/**
 * Where a refused PutRouteTest belongs. The server names the field first in its message
 * (`name: ...`, `team: ...`, `listener: ...`, `content: ...`; route-test-handlers.ts) and lists
 * malformed cases as ValidationErrors issues at `content: tests[0].input.authority`, and cases
 * that fail on the latest version (FailedPrecondition, route-test-baseline.ts) at
 * `content: tests[0]`; a test that belongs to another team is the name's problem. `message` is
 * shown at `field`, or for the whole form when there is none; `issues` under the cases, each with
 * its path in the file.
 */
export interface RouteTestSaveFailure {
  readonly field: RouteTestField | undefined;
  readonly message: string;
  readonly issues: readonly KeyedText[];
  /**
   * The cases are well formed but `issues` fail on the latest published version: saving again
   * with known failing stores them so.
   */
  readonly failingOnLatest: boolean;
}

const FIELD_OF: Readonly<Record<string, RouteTestField>> = {
  name: "name",
  team: "team",
  listener: "through",
  route_configuration: "through",
  content: "content",
};

export function routeTestSaveFailure(error: unknown): RouteTestSaveFailure {
  const e = ConnectError.from(error);
  const issues = e
    .findDetails(ValidationErrorsSchema)
    .flatMap((d) => d.issues)
    .map((issue, i) => {
      const path = issue.path.replace(/^content: ?/, "");
      return { key: `${i}:${path}`, text: path ? `${path}: ${issue.message}` : issue.message };
    });
  const aboutInput =
    e.code === Code.InvalidArgument ||
    e.code === Code.PermissionDenied ||
    e.code === Code.NotFound ||
    e.code === Code.FailedPrecondition;
  const prefixed = /^([a-z_]+): ([\s\S]*)$/.exec(e.rawMessage);
  const field = prefixed?.[1] === undefined ? undefined : FIELD_OF[prefixed[1]];
  if (aboutInput && field !== undefined && prefixed?.[2] !== undefined)
    return {
      field,
      message: prefixed[2],
      issues,
      failingOnLatest:
        e.code === Code.FailedPrecondition && field === "content" && issues.length > 0,
    };
  if (e.code === Code.PermissionDenied && /^route test ".*" belongs to /.test(e.rawMessage))
    return { field: "name", message: e.rawMessage, issues, failingOnLatest: false };
  return {
    field: undefined,
    message: e.rawMessage || "The request failed.",
    issues,
    failingOnLatest: false,
  };
}

export interface RouteTestRow {
  readonly key: string;
  readonly name: string;
  /** The team's name, or "admins" for a test of no team. */
  readonly team: string;
  readonly cases: number;
  /** How many of its cases are stored as known failing (they gate nothing). */
  readonly knownFailing: number;
  /** "listener edge", "route configuration edge-routes" or "the only route configuration". */
  readonly through: string;
  readonly author: string;
  readonly updated: Date | undefined;
  readonly test: RouteTest;
}

export function throughText(test: Pick<RouteTest, "listener" | "routeConfiguration">): string {
  if (test.listener) return `listener ${test.listener}`;
  if (test.routeConfiguration) return `route configuration ${test.routeConfiguration}`;
  return "the only route configuration";
}

/** The stored tests as the list's rows, in the server's order (by name). */
export function routeTestRows(tests: readonly RouteTest[]): RouteTestRow[] {
  return tests.map((test) => ({
    key: test.name,
    name: test.name,
    team: test.team || "admins",
    cases: test.cases,
    knownFailing: test.knownFailingCases.length,
    through: throughText(test),
    author: test.author,
    updated: test.updateTime ? timestampDate(test.updateTime) : undefined,
    test,
  }));
}

/** What differs, as the CLI and the publish refusal word it: `cluster_name: expected "a", got "b"`. */
export function mismatchText(m: RouteTestMismatch): string {
  return `${m.field}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)}`;
}

export interface FailedCase {
  readonly key: string;
  readonly name: string;
  /** Stored as known failing: its failure gates nothing. */
  readonly knownFailing: boolean;
  /** What differs, or why the case could not be asked. */
  readonly differences: readonly KeyedText[];
}

export interface RunRow {
  readonly key: string;
  readonly name: string;
  /** The team's name, or "admins". */
  readonly team: string;
  /** No case failed but those known failing. */
  readonly passed: boolean;
  /** "2 cases passed", "1 of 3 cases failed", "1 of 3 cases failed, known failing". */
  readonly summary: string;
  readonly failures: readonly FailedCase[];
  /** The cases stored as known failing that pass: the test may be promoted. */
  readonly nowPassing: readonly string[];
}

const cases = (n: number) => `${n} ${n === 1 ? "case" : "cases"}`;

/**
 * A run's tests (RunRouteTests), each PASS or FAIL with its failing cases and what differs; a
 * test whose only failures are known failing passes, and its known-failing cases that pass are
 * named.
 */
export function runRows(run: RunRouteTestsResponse): RunRow[] {
  return run.tests.map((test) => ({
    key: test.name,
    name: test.name,
    team: test.team || "admins",
    passed: test.failed === test.knownFailing,
    summary:
      test.failed === 0
        ? `${cases(test.passed)} passed`
        : `${test.failed} of ${cases(test.passed + test.failed)} failed${
            test.knownFailing === 0
              ? ""
              : test.knownFailing === test.failed
                ? ", known failing"
                : ` (${test.knownFailing} known failing)`
          }`,
    nowPassing: test.results.filter((r) => r.passed && r.knownFailing).map((r) => r.name),
    failures: test.results.flatMap((result, i) =>
      result.passed
        ? []
        : [
            {
              key: `${i}:${result.name}`,
              name: result.name,
              knownFailing: result.knownFailing,
              differences: result.refused
                ? [{ key: "refused", text: `cannot run: ${result.refused}` }]
                : result.mismatches.map((m, j) => ({
                    key: `${j}:${m.field}`,
                    text: mismatchText(m),
                  })),
            },
          ],
    ),
  }));
}

/**
 * The run's totals in a line: "1 test fails, 2 pass on the draft (4 of 5 cases passed)"; a test
 * failing only known-failing cases passes.
 */
export function runSummary(run: RunRouteTestsResponse): string {
  const failedTests = run.tests.filter((t) => t.failed > t.knownFailing).length;
  const passedTests = run.tests.length - failedTests;
  const on = run.version === 0n ? "the draft" : `version ${run.version}`;
  if (run.tests.length === 0) return `No route tests stored: nothing ran on ${on}.`;
  const tests =
    failedTests === 0
      ? `${run.tests.length === 1 ? "The test passes" : `All ${run.tests.length} tests pass`}`
      : `${failedTests} ${failedTests === 1 ? "test fails" : "tests fail"}, ${passedTests} ${passedTests === 1 ? "passes" : "pass"}`;
  const known = run.knownFailing === 0 ? "" : `; ${run.knownFailing} known failing`;
  return `${tests} on ${on} (${run.passed} of ${cases(run.passed + run.failed)} passed${known}).`;
}

/**
 * A publish refused because route tests fail (route-test-gate.ts, routeTestRefusalText): the
 * headline, then each failing case (`route test "t" (team x), case "c": GET http://host/path`)
 * with what differs on the lines under it, and "and N more" past the ones listed.
 */
export interface RouteTestRefusal {
  readonly headline: string;
  /** How many cases fail, as the headline says. */
  readonly count: number;
  readonly failures: readonly {
    readonly key: string;
    readonly title: string;
    readonly request: string;
    readonly differences: readonly KeyedText[];
  }[];
  readonly more: string | undefined;
}

const BREAKS = /^this change breaks (\d+) route test case/;

export function isRouteTestRefusal(message: string): boolean {
  return BREAKS.test(message);
}

export function parseRouteTestRefusal(message: string): RouteTestRefusal {
  const [headline = "", ...lines] = message.split("\n");
  const failures: {
    key: string;
    title: string;
    request: string;
    differences: KeyedText[];
  }[] = [];
  let more: string | undefined;
  for (const [i, line] of lines.entries()) {
    const failure = /^ {2}(route test ".*?"(?: \(team .*?\))?, case ".*?"): (.*)$/.exec(line);
    const last = failures[failures.length - 1];
    if (failure?.[1] !== undefined && failure[2] !== undefined)
      failures.push({ key: `${i}`, title: failure[1], request: failure[2], differences: [] });
    else if (/^ {2}and \d+ more$/.test(line)) more = line.trim();
    else if (/^ {4}/.test(line) && last !== undefined)
      last.differences.push({ key: `${i}`, text: line.trim() });
    else if (line.trim() !== "")
      failures.push({ key: `${i}`, title: line.trim(), request: "", differences: [] });
  }
  return { headline, count: Number(BREAKS.exec(headline)?.[1] ?? failures.length), failures, more };
}
