/**
 * Route tests gate publishing (issue 28): a publish (apply, approved review) whose changes can
 * move requests (route configurations, listeners, runtime layers) runs every stored route test
 * on the configuration it is about to publish, inside the publish transaction; one failing case
 * refuses it, naming the test, the request and what differs. An admin may publish anyway with a
 * reason, which the audit log records with the failures. Rollbacks are not gated: going back is
 * how a bad version is undone.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import type { ConfigSpec, SourceChange } from "@switchyard/snapshot";
import type { Principal } from "../auth/principal.js";
import { listRouteTests, type RouteTestRunResult, runRouteTests } from "../store/route-tests.js";
import type { ApiIssue } from "./errors.js";
import { refusedText } from "./route-test-messages.js";

/** The kinds whose change can change where a request goes. */
const ROUTING_KINDS: ReadonlySet<SourceChange["kind"]> = new Set([
  "routeConfiguration",
  "listener",
  "runtimeLayer",
]);

/** Failures listed in a refusal at most; the rest are counted. */
const LISTED_FAILURES = 10;

export interface RouteTestFailure {
  readonly test: string;
  readonly team: string | null;
  readonly case: string;
  readonly request: string;
  /** What differs: `cluster_name: expected "a", got "b"`, or why the case could not run. */
  readonly differences: readonly string[];
}

export function routeTestFailures(runs: readonly RouteTestRunResult[]): RouteTestFailure[] {
  return runs.flatMap(({ test, cases }) =>
    cases
      .filter(({ result }) => !result.passed)
      .map(({ request, result }) => ({
        test: test.name,
        team: test.team?.name ?? null,
        case: result.name,
        request,
        differences: result.refused
          ? [`cannot run: ${refusedText(result.refused)}`]
          : result.mismatches.map(
              (m) =>
                `${m.field}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)}`,
            ),
      })),
  );
}

/** Which case of which test failed, on what request, as refusals and dry runs name it. */
function failedCase(f: RouteTestFailure): string {
  return `route test "${f.test}"${f.team ? ` (team ${f.team})` : ""}, case "${f.case}": ${f.request}`;
}

/** The refusal's text: every failure (up to LISTED_FAILURES) on its own lines. */
export function routeTestRefusalText(failures: readonly RouteTestFailure[]): string {
  const lines = [
    `this change breaks ${failures.length} route test case(s); fix the change or the tests (an admin may publish anyway with a reason):`,
  ];
  for (const f of failures.slice(0, LISTED_FAILURES)) {
    lines.push(`  ${failedCase(f)}`);
    for (const d of f.differences) lines.push(`    ${d}`);
  }
  if (failures.length > LISTED_FAILURES)
    lines.push(`  and ${failures.length - LISTED_FAILURES} more`);
  return lines.join("\n");
}

/** An override that took effect: recorded with the publish. */
export interface RouteTestOverride {
  readonly reason: string;
  readonly failures: readonly RouteTestFailure[];
}

/** Refuses an override from anyone but an admin, before anything else is checked. */
export function refuseOverrideUnlessAdmin(caller: Principal, override: string): void {
  if (override !== "" && caller.role !== "ADMIN")
    throw new ConnectError(
      "route_test_override: only an admin may publish past failing route tests",
      Code.PermissionDenied,
    );
}

/** Whether `changes` can move requests, so that a publish of them runs the route tests. */
function movesRequests(changes: readonly SourceChange[]): boolean {
  return changes.some((c) => ROUTING_KINDS.has(c.kind));
}

/**
 * What the route tests would say of a publish of `draft` with `changes`, as issues (one error per
 * failing case, named as the refusal names it): for a dry run, which must say every issue a
 * publish would raise (Import's dry run, `switchyard diff -f`).
 */
export async function routeTestIssues(
  db: TransactionClient | PrismaClient,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
): Promise<ApiIssue[]> {
  if (!movesRequests(changes)) return [];
  const tests = await listRouteTests(db);
  if (tests.length === 0) return [];
  return routeTestFailures(runRouteTests(draft, tests)).map((f) => ({
    severity: "error",
    code: "route-test-failed",
    path: "",
    message: `${failedCase(f)}: ${f.differences.join("; ")}`,
    hint: "a publish of this would be refused: fix the change or the test (an admin may publish anyway with a reason)",
  }));
}

/**
 * Runs the stored route tests on `draft` when `changes` can move requests; throws
 * FailedPrecondition when one fails, unless `override` (an admin's reason) is given: then the
 * override is returned, to be recorded.
 */
export async function gateOnRouteTests(
  tx: TransactionClient,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  override: string,
): Promise<RouteTestOverride | undefined> {
  if (!movesRequests(changes)) return undefined;
  const tests = await listRouteTests(tx);
  if (tests.length === 0) return undefined;
  const failures = routeTestFailures(runRouteTests(draft, tests));
  if (failures.length === 0) return undefined;
  if (override === "")
    throw new ConnectError(routeTestRefusalText(failures), Code.FailedPrecondition);
  return { reason: override, failures };
}
