/**
 * RoutingService's stored route tests: list, put, delete and run. A member's tests are their
 * team's, and each case's host must be a domain the team owns (auth/ownership.ts): a team pins
 * its own traffic, not another's. Admins write any test, for a team or for none. A test stored
 * passes on the latest version, or its failing cases are stored as known failing
 * (route-test-baseline.ts).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type RouteTest,
  RouteTestSchema,
  type RoutingService,
  RunRouteTestsResponseSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { type ConfigSpec, parseRouterCheckTests, quotedInput } from "@switchyard/snapshot";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor, recordAudit } from "../auth/index.js";
import { domainOwner, loadDomainOwnership } from "../auth/ownership.js";
import {
  deleteRouteTest,
  getRouteTest,
  listRouteTests,
  putRouteTest,
  type StoredRouteTest,
} from "../store/route-tests.js";
import { version } from "./publishing.js";
import { checkOnLatest, duplicateCaseNames } from "./route-test-baseline.js";
import type { StoredTestRunner } from "./route-test-gate.js";
import { checkedTarget, routeTestProblems, routeTestResultMessage } from "./route-test-messages.js";

const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * How many cases may be stored: every case runs inside every publish that touches routing (about
 * a millisecond each, publish-transaction.ts), so the total bounds what stored tests add to a
 * publish, and a team's share keeps one team from taking all of it. Admins' tests count in the
 * total only.
 */
export const ROUTE_TEST_CASE_LIMITS = { total: 10_000, perTeam: 2_000 } as const;
/**
 * How large a route test's content may be, and all stored contents together: ListRouteTests
 * answers every stored test, and every publish that touches routing reads them all, so their
 * size is bounded as their cases are (test/route-test-bounds.e2e.spec.ts). A content over the
 * first is InvalidArgument, a put past the second ResourceExhausted, both naming `content`.
 */
export const ROUTE_TEST_CONTENT_LIMITS = {
  bytes: 768 * 1024,
  totalBytes: 8 * 1024 * 1024,
} as const;

/** Puts of route tests take turns (pg_advisory_xact_lock), so the limits hold against concurrent puts. */
const ROUTE_TESTS_LOCK = 0x53_57_52_54; // "SWRT"

/** Cases per stored content, so that a put does not parse every stored test again. */
const casesByContent = new Map<string, number>();
const CONTENTS_COUNTED = 1_000;

function casesOf(content: string): number {
  let cases = casesByContent.get(content);
  if (cases === undefined) {
    const parsed = parseRouterCheckTests(content);
    cases = parsed.t === "tests" ? parsed.tests.length : 0;
    countedCases(content, cases);
  }
  return cases;
}

function countedCases(content: string, cases: number): void {
  if (casesByContent.size >= CONTENTS_COUNTED) casesByContent.clear();
  casesByContent.set(content, cases);
}

/**
 * Refuses a put that would store more cases than ROUTE_TEST_CASE_LIMITS allows, or more bytes
 * than ROUTE_TEST_CONTENT_LIMITS.
 */
function checkCaseLimits(
  stored: readonly StoredRouteTest[],
  put: {
    readonly name: string;
    readonly teamId: string | null;
    readonly cases: number;
    readonly bytes: number;
  },
  teamName: string,
): void {
  const others = stored.filter((test) => test.name !== put.name);
  const total = others.reduce((n, test) => n + casesOf(test.content), put.cases);
  const advice = "every case runs in every publish that touches routing: delete some first";
  if (total > ROUTE_TEST_CASE_LIMITS.total)
    throw new ConnectError(
      `content: the stored route tests would hold ${total} cases, more than the ${ROUTE_TEST_CASE_LIMITS.total} allowed (${advice})`,
      Code.ResourceExhausted,
    );
  const bytes = others.reduce((n, test) => n + Buffer.byteLength(test.content, "utf8"), put.bytes);
  if (bytes > ROUTE_TEST_CONTENT_LIMITS.totalBytes)
    throw new ConnectError(
      `content: the stored route tests would hold ${bytes} bytes, more than the ${ROUTE_TEST_CONTENT_LIMITS.totalBytes} allowed (delete some, or shorten them, first)`,
      Code.ResourceExhausted,
    );
  if (put.teamId === null) return;
  const team = others
    .filter((test) => test.team?.id === put.teamId)
    .reduce((n, test) => n + casesOf(test.content), put.cases);
  if (team > ROUTE_TEST_CASE_LIMITS.perTeam)
    throw new ConnectError(
      `content: team ${teamName}'s route tests would hold ${team} cases, more than the ${ROUTE_TEST_CASE_LIMITS.perTeam} a team may store (${advice})`,
      Code.ResourceExhausted,
    );
}

function message(test: StoredRouteTest): RouteTest {
  return create(RouteTestSchema, {
    name: test.name,
    team: test.team?.name ?? "",
    content: test.content,
    listener: test.listener,
    routeConfiguration: test.routeConfiguration,
    author: test.author,
    updateTime: timestampFromDate(test.updatedAt),
    cases: casesOf(test.content),
    knownFailing: test.knownFailing.length > 0,
    knownFailingCases: [...test.knownFailing],
  });
}

/** Refuses a test the caller may not write: another team's, or a host their team does not own. */
async function authorizeTest(
  prisma: PrismaClient,
  context: HandlerContext,
  name: string,
  team: string,
  hosts: readonly string[],
): Promise<string | null> {
  const caller = callerOf(context);
  const stored = await getRouteTest(prisma, name);
  if (caller.role === "ADMIN") {
    if (team === "") return null;
    const row = await prisma.team.findUnique({ where: { name: team }, select: { id: true } });
    if (row === null) throw new ConnectError(`team: team "${team}" does not exist`, Code.NotFound);
    return row.id;
  }
  const own = caller.team;
  if (own === null)
    throw new ConnectError("a member in no team writes no route tests", Code.PermissionDenied);
  if (team !== "" && team !== own.name)
    throw new ConnectError(
      `team: a member writes their own team's route tests (${own.name}), not team "${team}"'s`,
      Code.PermissionDenied,
    );
  if (stored !== null && stored.team?.id !== own.id)
    throw new ConnectError(
      `route test "${name}" belongs to ${stored.team ? `team ${stored.team.name}` : "the admins"}`,
      Code.PermissionDenied,
    );
  const ownership = await loadDomainOwnership(prisma);
  for (const host of hosts) {
    const owner = domainOwner(host, ownership);
    if (owner?.teamId !== own.id)
      throw new ConnectError(
        `content: a case asks for host "${host}", which ${owner ? `team ${owner.teamName} owns` : "no team owns"}: team ${own.name} pins only its own domains`,
        Code.PermissionDenied,
      );
  }
  return own.id;
}

export function routeTestHandlers(options: {
  readonly prisma: PrismaClient;
  readonly specAt: (version: number) => Promise<ConfigSpec>;
  /** Where stored tests run, off the event loop (routing/route-test-runner.ts). */
  readonly routeTests: StoredTestRunner;
}): Pick<
  ServiceImpl<typeof RoutingService>,
  "listRouteTests" | "putRouteTest" | "deleteRouteTest" | "runRouteTests"
> {
  const { prisma, specAt, routeTests } = options;
  return {
    async listRouteTests() {
      return { tests: (await listRouteTests(prisma)).map(message) };
    },

    async putRouteTest(request, context) {
      if (!NAME.test(request.name))
        throw new ConnectError(
          `name: ${quotedInput(request.name)} is not a route test name (letters, digits, '.', '_', '-'; at most 100)`,
          Code.InvalidArgument,
        );
      checkedTarget(request);
      const bytes = Buffer.byteLength(request.content, "utf8");
      if (bytes > ROUTE_TEST_CONTENT_LIMITS.bytes)
        throw new ConnectError(
          `content: ${bytes} bytes, more than the ${ROUTE_TEST_CONTENT_LIMITS.bytes} a route test may hold (split its cases into several tests)`,
          Code.InvalidArgument,
        );
      const parsed = parseRouterCheckTests(request.content);
      if (parsed.t === "invalid")
        throw routeTestProblems("content", "the route test's cases", parsed.problems);
      const duplicates = duplicateCaseNames(parsed.tests);
      if (duplicates.length > 0)
        throw routeTestProblems("content", "the route test's cases", duplicates);
      countedCases(request.content, parsed.tests.length);
      const hosts = [...new Set(parsed.tests.map((t) => t.input.authority))];
      const teamId = await authorizeTest(prisma, context, request.name, request.team, hosts);
      const caller = callerOf(context);
      const put = { name: request.name, teamId, cases: parsed.tests.length, bytes };
      const teamName = request.team || (caller.team?.name ?? "");
      // Past the limits is refused before the cases run on the latest version (and again below,
      // where puts take turns).
      checkCaseLimits(await listRouteTests(prisma), put, teamName);
      const knownFailing = await checkOnLatest(prisma, routeTests, request, request.knownFailing);
      const stored = await prisma.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ROUTE_TESTS_LOCK})`;
        checkCaseLimits(await listRouteTests(tx), put, teamName);
        const written = await putRouteTest(tx, {
          name: request.name,
          teamId,
          content: request.content,
          listener: request.listener,
          routeConfiguration: request.routeConfiguration,
          knownFailing,
          author: caller.username,
        });
        await recordAudit(tx, {
          ...auditActor(caller),
          action: "route-test.put",
          target: `route-test/${request.name}`,
          ip: ipOf(context),
          detail: { team: written.team?.name ?? null, cases: parsed.tests.length, knownFailing },
        });
        return written;
      });
      return message(stored);
    },

    async deleteRouteTest(request, context) {
      const stored = await getRouteTest(prisma, request.name);
      if (stored === null)
        throw new ConnectError(
          `route test ${quotedInput(request.name)} does not exist`,
          Code.NotFound,
        );
      await authorizeTest(prisma, context, request.name, stored.team?.name ?? "", []);
      const caller = callerOf(context);
      await prisma.$transaction(async (tx) => {
        await deleteRouteTest(tx, request.name);
        await recordAudit(tx, {
          ...auditActor(caller),
          action: "route-test.delete",
          target: `route-test/${request.name}`,
          ip: ipOf(context),
        });
      });
      return {};
    },

    async runRouteTests(request) {
      const at = version(request.version, "version");
      const [spec, tests] = await Promise.all([specAt(at), listRouteTests(prisma)]);
      const runs = (await routeTests.run(spec, tests)).map(({ test, cases }) => {
        const passed = cases.filter((c) => c.result.passed).length;
        const known = (name: string) => test.knownFailing.includes(name);
        return {
          name: test.name,
          team: test.team?.name ?? "",
          results: cases.map(({ result }) => ({
            ...routeTestResultMessage(result),
            knownFailing: known(result.name),
          })),
          passed,
          failed: cases.length - passed,
          knownFailing: cases.filter((c) => !c.result.passed && known(c.result.name)).length,
        };
      });
      return create(RunRouteTestsResponseSchema, {
        version: BigInt(at),
        tests: runs,
        passed: runs.reduce((n, r) => n + r.passed, 0),
        failed: runs.reduce((n, r) => n + r.failed, 0),
        knownFailing: runs.reduce((n, r) => n + r.knownFailing, 0),
      });
    },
  };
}
