/**
 * What a route test must be to be stored (issue 44): its cases pass on the latest published
 * version, or the ones that fail there are stored as known failing, which gate nothing
 * (route-test-gate.ts). So a stored test says what the published traffic does today, or says
 * openly which of its cases it does not; a put that would store failing cases unannounced is
 * refused, naming each and what differs, and stores nothing. Each case has a name of its own:
 * known-failing cases, like failures, are named by it.
 */
import { Code } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import type { RouterCheckProblem, RouterCheckTest } from "@switchyard/snapshot";
import type { RouteTestRunResult, StoredRouteTest } from "../store/route-tests.js";
import { latestVersion } from "../store/snapshot-records.js";
import { type ApiIssue, invalidArgument } from "./errors.js";
import { failingCases, type StoredTestRunner, specOfLatest } from "./route-test-gate.js";

/** The second and later cases of each name, as problems at their test_name. */
export function duplicateCaseNames(tests: readonly RouterCheckTest[]): RouterCheckProblem[] {
  const first = new Map<string, number>();
  return tests.flatMap((test, i) => {
    const seen = first.get(test.name);
    if (seen === undefined) {
      first.set(test.name, i);
      return [];
    }
    return [
      {
        path: `tests[${i}].test_name`,
        message: `"${test.name}" also names tests[${seen}]: each case needs a name of its own, which its failures (and its being known failing) are told by`,
      },
    ];
  });
}

/**
 * The cases of a test run on the latest version (`version`; 0: none published, an empty
 * configuration) to store as known failing: those that fail there, when `knownFailing` allows
 * them. Without it, a failing case refuses the put: FailedPrecondition, with each failing case and
 * what differs as an issue at `content: tests[N]`.
 */
export function knownFailingCases(
  run: RouteTestRunResult,
  version: number,
  knownFailing: boolean,
): string[] {
  const failing = failingCases(run);
  if (failing.length === 0 || knownFailing) return failing.map(({ failure }) => failure.case);
  const where =
    version === 0
      ? "the latest published version (none is yet: an empty configuration)"
      : `version ${version}, the latest published version`;
  return refuse(
    `content: ${failing.length} case(s) fail on ${where}, where a stored test must pass: fix them, or store them as known failing (known_failing; switchyard route tests put --known-failing), which gate nothing until they pass and the test is stored again without it`,
    failing.map(
      ({ index, failure }): ApiIssue => ({
        severity: "error",
        code: "route-test-failing",
        path: `content: tests[${index}]`,
        message: `case "${failure.case}": ${failure.request}: ${failure.differences.join("; ")}`,
      }),
    ),
  );
}

function refuse(message: string, issues: readonly ApiIssue[]): never {
  throw invalidArgument(message, issues, Code.FailedPrecondition);
}

/**
 * `test`'s cases (as they are about to be stored) run on the latest published version: the cases
 * to store as known failing, or the refusal (knownFailingCases).
 */
export async function checkOnLatest(
  prisma: PrismaClient,
  runner: StoredTestRunner,
  test: Pick<StoredRouteTest, "name" | "content" | "listener" | "routeConfiguration">,
  knownFailing: boolean,
): Promise<string[]> {
  const { version, spec } = await prisma.$transaction(
    async (tx) => {
      const version = (await latestVersion(tx)) ?? 0;
      return { version, spec: await specOfLatest(tx, version) };
    },
    { isolationLevel: "RepeatableRead" },
  );
  const stored: StoredRouteTest = {
    name: test.name,
    team: null,
    content: test.content,
    listener: test.listener,
    routeConfiguration: test.routeConfiguration,
    knownFailing: [],
    author: "",
    updatedAt: new Date(0),
  };
  const [run] = await runner.run(spec, [stored]);
  return run === undefined ? [] : knownFailingCases(run, version, knownFailing);
}
