/**
 * Stored route tests (RouteTest rows): read, written and deleted, and run on a configuration.
 * A test's cases are kept as written (router_check_tool YAML or JSON) and parsed when run.
 */
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ConfigSpec,
  checkRouteTest,
  parseRouterCheckTests,
  type RouterCheckTest,
  type RouteTestResult,
} from "@switchyard/snapshot";

export interface StoredRouteTest {
  readonly name: string;
  /** The owning team's name; null: an admin's test. */
  readonly team: { readonly id: string; readonly name: string } | null;
  readonly content: string;
  readonly listener: string;
  readonly routeConfiguration: string;
  /**
   * The cases (by name) stored as known failing: they failed on the latest version when the test
   * was stored, and gate nothing (route-test-gate.ts).
   */
  readonly knownFailing: readonly string[];
  readonly author: string;
  readonly updatedAt: Date;
}

const select = {
  name: true,
  content: true,
  listener: true,
  routeConfiguration: true,
  knownFailing: true,
  author: true,
  updatedAt: true,
  team: { select: { id: true, name: true } },
} as const;

export async function listRouteTests(
  db: PrismaClient | TransactionClient,
): Promise<StoredRouteTest[]> {
  return db.routeTest.findMany({ select, orderBy: { name: "asc" } });
}

export async function getRouteTest(
  db: PrismaClient | TransactionClient,
  name: string,
): Promise<StoredRouteTest | null> {
  return db.routeTest.findUnique({ where: { name }, select });
}

export async function putRouteTest(
  db: PrismaClient | TransactionClient,
  test: Omit<StoredRouteTest, "team" | "updatedAt" | "knownFailing"> & {
    readonly teamId: string | null;
    readonly knownFailing?: readonly string[];
  },
): Promise<StoredRouteTest> {
  const data = {
    teamId: test.teamId,
    content: test.content,
    listener: test.listener,
    routeConfiguration: test.routeConfiguration,
    knownFailing: [...(test.knownFailing ?? [])],
    author: test.author,
  };
  return db.routeTest.upsert({
    where: { name: test.name },
    create: { name: test.name, ...data },
    update: data,
    select,
  });
}

export async function deleteRouteTest(
  db: PrismaClient | TransactionClient,
  name: string,
): Promise<boolean> {
  const { count } = await db.routeTest.deleteMany({ where: { name } });
  return count > 0;
}

/** One stored test run on a configuration: each case, its request in words, and its result. */
export interface RouteTestRunResult {
  readonly test: StoredRouteTest;
  readonly cases: readonly { readonly request: string; readonly result: RouteTestResult }[];
}

/**
 * Runs `tests` on `spec`. A test whose stored cases no longer parse (it was stored by an older
 * version with other rules) fails as one result saying why.
 */
export function runRouteTests(
  spec: ConfigSpec,
  tests: readonly StoredRouteTest[],
): RouteTestRunResult[] {
  return tests.map((test) => {
    const parsed = parseRouterCheckTests(test.content);
    if (parsed.t === "invalid")
      return {
        test,
        cases: [
          {
            request: "",
            result: {
              name: "(the test's cases)",
              passed: false,
              mismatches: [],
              refused: {
                t: "refused",
                code: "bad-request",
                path: parsed.problems[0]?.path ?? "",
                message: parsed.problems[0]?.message ?? "the cases cannot be read",
              },
            },
          },
        ],
      };
    const target = targetOf(test);
    return {
      test,
      cases: parsed.tests.map((c: RouterCheckTest) => ({
        request: `${c.input.method} ${c.input.ssl ? "https" : "http"}://${c.input.authority}${c.input.path}`,
        result: checkRouteTest(spec, c, target),
      })),
    };
  });
}

/** What cases route through: a listener, a route configuration, or (neither) the only one. */
export function targetOf(
  test: Pick<StoredRouteTest, "listener" | "routeConfiguration">,
): { listener: string } | { routeConfiguration: string } | undefined {
  if (test.listener !== "") return { listener: test.listener };
  if (test.routeConfiguration !== "") return { routeConfiguration: test.routeConfiguration };
  return undefined;
}
