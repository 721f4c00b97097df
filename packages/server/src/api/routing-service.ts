/**
 * switchyard.v1.RoutingService: where a request goes (TestRoute), and route test cases in Envoy's
 * router_check_tool format (CheckRouteTests), on the draft or a published version, answered by
 * the routing core (@switchyard/snapshot, routing/) on that version's spec. With a node group, an
 * answer is for a node of that group: it must receive the listener (or a listener loading the
 * route configuration), and the clusters it does not receive are named (Envoy answers 503 for a
 * cluster it does not have).
 */
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import type { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import {
  type ConfigSpec,
  type NodeGroupSpec,
  parseRouterCheckTests,
  quotedInput,
  type RouteResult,
  routeRequest,
} from "@switchyard/snapshot";
import type { RouteTestRunner } from "../routing/route-test-runner.js";
import { specOfVersion } from "../store/publish-transaction.js";
import { targetOf } from "../store/route-tests.js";
import type { SnapshotStore } from "../store/snapshot-store.js";
import { translated } from "./errors.js";
import { version } from "./publishing.js";
import { routeTestHandlers } from "./route-test-handlers.js";
import {
  checkedTarget,
  refusalError,
  routeQuestion,
  routeTestProblems,
  testRouteResponse,
} from "./route-test-messages.js";

export interface RoutingServiceOptions {
  readonly prisma: PrismaClient;
  readonly store: SnapshotStore;
  /** Where route test cases are checked, off the event loop (routing/route-test-runner.ts). */
  readonly routeTests: RouteTestRunner;
}

export function createRoutingService({
  prisma,
  store,
  routeTests,
}: RoutingServiceOptions): ServiceImpl<typeof RoutingService> {
  /** The draft's spec (version 0) or a published version's. */
  const specAt = (at: number): Promise<ConfigSpec> =>
    translated(() =>
      at === 0
        ? prisma
            .$transaction((tx) => store.draft.read(tx), { isolationLevel: "RepeatableRead" })
            .then((draft) => draft.spec)
        : prisma.$transaction((tx) => specOfVersion(tx, at)),
    );

  return {
    ...routeTestHandlers({ prisma, specAt, routeTests }),

    async testRoute(request) {
      const question = routeQuestion(request);
      const at = version(request.version, "version");
      const spec = await specAt(at);
      const group = request.nodeGroup === "" ? undefined : nodeGroupOf(spec, request.nodeGroup);
      const answer = routeRequest(spec, question);
      if (answer.t === "refused") throw refusalError(answer);
      const missing = group === undefined ? [] : clustersNotInGroup(spec, group, answer);
      return testRouteResponse(at, answer, missing);
    },

    async checkRouteTests(request) {
      const parsed = parseRouterCheckTests(request.content);
      if (parsed.t === "invalid")
        throw routeTestProblems(request.filename || "tests", "the route tests", parsed.problems);
      checkedTarget(request);
      const target = targetOf(request);
      const at = version(request.version, "version");
      const spec = await specAt(at);
      return routeTests.check({ spec, tests: parsed.tests, target, version: at });
    },
  };
}

function nodeGroupOf(spec: ConfigSpec, name: string): NodeGroupSpec {
  const group = spec.nodeGroups.find((g) => g.name === name);
  if (group === undefined)
    throw new ConnectError(
      `node_group: node group ${quotedInput(name)} does not exist`,
      Code.NotFound,
    );
  return group;
}

/**
 * The clusters the answer routes to that a node of `group` does not receive. A named group gets
 * its listeners, the route configurations they load, and its clusters (the default group gets
 * everything); a route configuration none of its listeners loads is refused.
 */
function clustersNotInGroup(spec: ConfigSpec, group: NodeGroupSpec, answer: RouteResult): string[] {
  if (group.isDefault) return [];
  const listeners = spec.listeners.filter((l) => group.listeners.includes(l.name));
  const reaches = answer.listener
    ? listeners.some((l) => l.name === answer.listener?.name)
    : listeners.some((l) =>
        l.filterChains.some(
          (chain) =>
            chain.rdsRouteConfigName === answer.routeConfiguration ||
            chain.inlineRouteConfigName === answer.routeConfiguration,
        ),
      );
  if (!reaches)
    throw new ConnectError(
      `node_group: the nodes of group "${group.name}" do not receive ${
        answer.listener
          ? `listener "${answer.listener.name}"`
          : `route configuration "${answer.routeConfiguration}" (none of its listeners loads it)`
      }`,
      Code.FailedPrecondition,
    );
  const verdict = answer.verdict;
  if (verdict.t !== "routed") return [];
  const outcome = verdict.outcome;
  const named =
    outcome.t === "cluster"
      ? [outcome.cluster]
      : outcome.t === "weighted-clusters"
        ? outcome.clusters.filter((c) => c.clusterHeader === undefined).map((c) => c.name)
        : outcome.t === "cluster-header" && outcome.cluster !== null
          ? [outcome.cluster]
          : [];
  return [...new Set(named)].filter((name) => !group.clusters.includes(name));
}
