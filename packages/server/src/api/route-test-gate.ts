/**
 * Route tests protect, they don't veto (issues 28 and 44). A publish (an apply, an approved
 * review; a review request is checked as its approval would be) whose changes can move requests
 * (route configurations, listeners, runtime layers) runs every stored route test on the
 * configuration it is about to publish, inside the publish transaction. It is refused only for a
 * case whose outcome it changes from passing to failing: one that passes on the latest published
 * version and fails on what is about to be published, named with its request and what differs.
 * A case that fails on the latest version as well was failing before the change: it is reported
 * (a warning of the publish) and refuses nothing. Otherwise one test that fails, stored so or
 * broken since (by its own team's change an admin let through, by a rollback), would refuse
 * every routing publish of every team until an admin overrides: a veto over others' changes. An
 * admin may publish past the cases a change breaks with a reason, which the audit log records
 * with them. Rollbacks are not gated: going back is how a bad version is undone. The cases run in
 * the route test worker thread (routing/route-test-runner.ts), never on the event loop that
 * serves the API and xDS (test/route-test-gate-load.e2e.spec.ts).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { type ConfigSpec, type SourceChange, specFromSources } from "@switchyard/snapshot";
import type { Principal } from "../auth/principal.js";
import type { RouteTestRunner } from "../routing/route-test-runner.js";
import { specOfVersion } from "../store/publish-transaction.js";
import {
  listRouteTests,
  type RouteTestRunResult,
  type StoredRouteTest,
} from "../store/route-tests.js";
import { latestVersion, type PublishNote } from "../store/snapshot-records.js";
import type { ApiIssue } from "./errors.js";
import { refusedText } from "./route-test-messages.js";

/** The kinds whose change can change where a request goes. */
const ROUTING_KINDS: ReadonlySet<SourceChange["kind"]> = new Set([
  "routeConfiguration",
  "listener",
  "runtimeLayer",
]);

/** Where the gate's cases run: off the event loop (routing/route-test-runner.ts). */
export type StoredTestRunner = Pick<RouteTestRunner, "run">;

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

/** A failing case of a run, with its place among its test's cases. */
export function failingCases(
  run: RouteTestRunResult,
): { index: number; failure: RouteTestFailure }[] {
  return run.cases.flatMap(({ request, result }, index) =>
    result.passed
      ? []
      : [
          {
            index,
            failure: {
              test: run.test.name,
              team: run.test.team?.name ?? null,
              case: result.name,
              request,
              differences: result.refused
                ? [`cannot run: ${refusedText(result.refused)}`]
                : result.mismatches.map(
                    (m) =>
                      `${m.field}: expected ${JSON.stringify(m.expected)}, got ${JSON.stringify(m.actual)}`,
                  ),
            },
          },
        ],
  );
}

export function routeTestFailures(runs: readonly RouteTestRunResult[]): RouteTestFailure[] {
  return runs.flatMap((run) => failingCases(run).map(({ failure }) => failure));
}

/** What the stored tests say of a publish: the cases it breaks, and those failing before it. */
export interface RouteTestVerdict {
  /** Pass on the latest version, fail on what is about to be published: each refuses it. */
  readonly breaks: readonly RouteTestFailure[];
  /** Fail on the latest version too: reported, refusing nothing. */
  readonly alreadyFailing: readonly RouteTestFailure[];
}

/** Whether a case of `test` is stored as known failing: then it gates nothing. */
const knownFailing = (test: StoredRouteTest, name: string) => test.knownFailing.includes(name);

/**
 * The tests of `runs` with a failing case not known failing: those the latest version must be
 * asked about too.
 */
export function testsWithFailures(runs: readonly RouteTestRunResult[]): StoredRouteTest[] {
  return runs
    .filter((run) =>
      run.cases.some((c) => !c.result.passed && !knownFailing(run.test, c.result.name)),
    )
    .map((run) => run.test);
}

/**
 * The gate's rule, case by case. `draft`: the stored tests run on what is about to be published;
 * `latest`: run on the latest published version (at least the tests testsWithFailures names; an
 * empty configuration when none is published, where every case fails). A case stored as known
 * failing gates nothing. Any other case failing on the draft breaks the publish if it passes on
 * the latest version, and is already failing if it fails there too. A case with no run on the
 * latest version is taken as passing there: the gate protects what it was not shown.
 */
export function routeTestVerdict(
  draft: readonly RouteTestRunResult[],
  latest: readonly RouteTestRunResult[],
): RouteTestVerdict {
  const before = new Map(latest.map((run) => [run.test.name, run]));
  const breaks: RouteTestFailure[] = [];
  const alreadyFailing: RouteTestFailure[] = [];
  for (const run of draft)
    for (const { index, failure } of failingCases(run)) {
      if (knownFailing(run.test, failure.case)) continue;
      const then = before.get(run.test.name)?.cases[index]?.result;
      (then !== undefined && !then.passed ? alreadyFailing : breaks).push(failure);
    }
  return { breaks, alreadyFailing };
}

/** Which case of which test failed, on what request, as refusals and dry runs name it. */
function failedCase(f: RouteTestFailure): string {
  return `route test "${f.test}"${f.team ? ` (team ${f.team})` : ""}, case "${f.case}": ${f.request}`;
}

/** The refusal's text: every case broken (up to LISTED_FAILURES) on its own lines. */
export function routeTestRefusalText(
  failures: readonly RouteTestFailure[],
  version: number,
): string {
  const lines = [
    `this change breaks ${failures.length} route test case(s) that pass on version ${version}; fix the change or the tests (an admin may publish anyway with a reason):`,
  ];
  for (const f of failures.slice(0, LISTED_FAILURES)) {
    lines.push(`  ${failedCase(f)}`);
    for (const d of f.differences) lines.push(`    ${d}`);
  }
  if (failures.length > LISTED_FAILURES)
    lines.push(`  and ${failures.length - LISTED_FAILURES} more`);
  return lines.join("\n");
}

/** A case that failed before the publish, as the publish's warning: it refuses nothing. */
export function alreadyFailingNote(f: RouteTestFailure, version: number): PublishNote {
  return {
    severity: "warning",
    code: "route-test-already-failing",
    path: "",
    message: `${failedCase(f)}: fails on version ${version} too, so it does not refuse this change: ${f.differences.join("; ")}`,
    hint: `the test's team fixes its routes or the test (switchyard route tests run --version ${version})`,
  };
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

/** The latest published version's configuration; none published yet: an empty one. */
export function specOfLatest(db: TransactionClient, version: number): Promise<ConfigSpec> {
  return version === 0 ? Promise.resolve(specFromSources([])) : specOfVersion(db, version);
}

/**
 * The stored tests' verdict on a publish of `draft` over `version` (routeTestVerdict). The latest
 * version is read, and its cases run, only when a case fails on the draft.
 */
async function verdictOn(
  db: TransactionClient,
  runner: StoredTestRunner,
  draft: ConfigSpec,
  version: number,
): Promise<RouteTestVerdict> {
  const onDraft = await runner.run(draft, await listRouteTests(db));
  const failing = testsWithFailures(onDraft);
  if (failing.length === 0) return { breaks: [], alreadyFailing: [] };
  return routeTestVerdict(onDraft, await runner.run(await specOfLatest(db, version), failing));
}

/**
 * What the route tests would say of a publish of `draft` with `changes` over the latest version,
 * as issues (an error per case it breaks, named as the refusal names it; a warning per case
 * already failing): for a dry run, which must say every issue a publish would raise (Import's dry
 * run, `switchyard diff -f`).
 */
export async function routeTestIssues(
  prisma: PrismaClient,
  runner: StoredTestRunner,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
): Promise<ApiIssue[]> {
  if (!movesRequests(changes)) return [];
  const { version, verdict } = await prisma.$transaction(
    async (tx) => {
      const version = (await latestVersion(tx)) ?? 0;
      return { version, verdict: await verdictOn(tx, runner, draft, version) };
    },
    // As long as a publish's transaction (publish-transaction.ts): the cases may take seconds.
    { isolationLevel: "RepeatableRead", timeout: 60_000, maxWait: 10_000 },
  );
  return [
    ...verdict.breaks.map(
      (f): ApiIssue => ({
        severity: "error",
        code: "route-test-failed",
        path: "",
        message: `${failedCase(f)}: ${f.differences.join("; ")}`,
        hint: `it passes on version ${version}: a publish of this would be refused; fix the change or the test (an admin may publish anyway with a reason)`,
      }),
    ),
    ...verdict.alreadyFailing.map((f) => alreadyFailingNote(f, version)),
  ];
}

/** What the gate let through: an admin's override of the cases broken, and the notes. */
export interface RouteTestGate {
  /** To be recorded with the publish (audit). */
  readonly override: RouteTestOverride | undefined;
  /** A warning per case already failing on the latest version, for the publish's answer. */
  readonly notes: readonly PublishNote[];
}

/**
 * Runs the stored route tests on `draft` when `changes` can move requests, and throws
 * FailedPrecondition when the publish breaks a case that passes on `version` (the latest
 * version, which it replaces), unless `override` (an admin's reason) is given: then the override
 * is returned, to be recorded.
 */
export async function gateOnRouteTests(
  tx: TransactionClient,
  runner: StoredTestRunner,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  version: number,
  override: string,
): Promise<RouteTestGate> {
  if (!movesRequests(changes)) return { override: undefined, notes: [] };
  const { breaks, alreadyFailing } = await verdictOn(tx, runner, draft, version);
  const notes = alreadyFailing.map((f) => alreadyFailingNote(f, version));
  if (breaks.length === 0) return { override: undefined, notes };
  if (override === "")
    throw new ConnectError(routeTestRefusalText(breaks, version), Code.FailedPrecondition);
  return { override: { reason: override, failures: breaks }, notes };
}
