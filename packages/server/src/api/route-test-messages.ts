/**
 * RoutingService.TestRoute's messages: the request checked and turned into the routing core's
 * question (@switchyard/snapshot routeRequest), and its answer as the API's TestRouteResponse.
 * Pure.
 */
import { create, fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  DomainMatch,
  type HeaderEntry,
  type HeaderMutationsSchema,
  type OutcomeSchema,
  type TestRouteRequest,
  type TestRouteResponse,
  TestRouteResponseSchema,
  WeightedOutcomeSchema,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import type {
  DomainMatchKind,
  Forwarding,
  HeaderMutations,
  MatchedRoute,
  Outcome,
  RouteRefusal,
  RouteRequest,
  RouteResult,
  RouterCheckProblem,
  RouteTestResult,
} from "@switchyard/snapshot";
import { shownPath } from "@switchyard/snapshot";
import { invalidArgument } from "./errors.js";

/** Bounds of a question: a request is small, and its answer's work grows with it. */
export const TEST_ROUTE_LIMITS = {
  authorityBytes: 1_024,
  pathBytes: 8_192,
  headers: 100,
  headerBytes: 8_192,
} as const;

const invalid = (field: string, problem: string) =>
  new ConnectError(`${field}: ${problem}`, Code.InvalidArgument);

function checkedHeaders(field: string, entries: readonly HeaderEntry[]): [string, string][] {
  if (entries.length > TEST_ROUTE_LIMITS.headers)
    throw invalid(field, `${entries.length} headers, at most ${TEST_ROUTE_LIMITS.headers}`);
  return entries.map((entry, i) => {
    if (entry.name === "") throw invalid(`${field}[${i}].name`, "a header name is required");
    if (entry.name.length + entry.value.length > TEST_ROUTE_LIMITS.headerBytes)
      throw invalid(`${field}[${i}]`, `longer than ${TEST_ROUTE_LIMITS.headerBytes} bytes`);
    return [entry.name, entry.value];
  });
}

/** The routing core's question; InvalidArgument naming the field for a malformed request. */
export function routeQuestion(request: TestRouteRequest): RouteRequest {
  const byListener = request.listener !== "";
  if (byListener === (request.routeConfiguration !== ""))
    throw invalid(
      "listener",
      "name a listener or a route configuration (route_configuration), exactly one",
    );
  if (request.filterChain !== "" && !byListener)
    throw invalid("filter_chain", "only with a listener");
  if (request.authority === "") throw invalid("authority", "a host (authority) is required");
  if (request.authority.length > TEST_ROUTE_LIMITS.authorityBytes)
    throw invalid("authority", `longer than ${TEST_ROUTE_LIMITS.authorityBytes} bytes`);
  if (request.path.length > TEST_ROUTE_LIMITS.pathBytes)
    throw invalid("path", `longer than ${TEST_ROUTE_LIMITS.pathBytes} bytes`);
  if (request.scheme !== "" && request.scheme !== "http" && request.scheme !== "https")
    throw invalid("scheme", `"${request.scheme}": use http or https`);
  const chain = request.filterChain;
  return {
    ...(byListener
      ? { listener: request.listener }
      : { routeConfiguration: request.routeConfiguration }),
    ...(chain === "" ? {} : { filterChain: /^\d+$/.test(chain) ? Number(chain) : chain }),
    authority: request.authority,
    path: request.path,
    method: request.method || "GET",
    headers: checkedHeaders("headers", request.headers),
    responseHeaders: checkedHeaders("response_headers", request.responseHeaders),
    randomValue: request.randomValue,
    scheme: request.scheme === "https" ? "https" : "http",
    internal: request.internal,
  };
}

/** The core's refusal as the API's error: what and where. */
export function refusalError(refusal: RouteRefusal): ConnectError {
  const code =
    refusal.code === "bad-request"
      ? Code.InvalidArgument
      : refusal.code === "unknown-listener" || refusal.code === "unknown-route-configuration"
        ? Code.NotFound
        : Code.FailedPrecondition;
  return new ConnectError(
    refusal.path === "" ? refusal.message : `${shownPath(refusal.path)}: ${refusal.message}`,
    code,
  );
}

const domainMatch: Record<DomainMatchKind, DomainMatch> = {
  exact: DomainMatch.EXACT,
  "suffix-wildcard": DomainMatch.SUFFIX_WILDCARD,
  "prefix-wildcard": DomainMatch.PREFIX_WILDCARD,
  any: DomainMatch.ANY,
};

function mutations(m: HeaderMutations) {
  return {
    operations: m.operations.map((op) => ({
      level: op.level,
      op: op.op,
      name: op.name,
      value: op.value ?? "",
      appendAction: op.appendAction ?? "",
      dynamic: op.dynamic ?? false,
      skipped: op.skipped ?? false,
    })),
    result: m.result.map(([name, value]) => ({ name, value })),
  } satisfies MessageInitShape<typeof HeaderMutationsSchema>;
}

function matchedRoute(route: MatchedRoute) {
  const fraction = route.runtimeFraction;
  return {
    index: route.index,
    name: route.name,
    matchKind: route.why.kind,
    matchValue: route.why.value,
    caseSensitive: route.why.caseSensitive,
    conditions: [...route.why.conditions],
    ...(fraction === undefined
      ? {}
      : { runtimeFraction: { ...fraction, layer: fraction.layer ?? "" } }),
  };
}

function outcome(o: Outcome): MessageInitShape<typeof OutcomeSchema> {
  switch (o.t) {
    case "cluster":
      return { kind: { case: "cluster", value: o.cluster } };
    case "weighted-clusters":
      return {
        kind: {
          case: "weightedClusters",
          value: create(WeightedOutcomeSchema, {
            clusters: o.clusters.map((c) => ({
              name: c.name,
              clusterHeader: c.clusterHeader ?? "",
              weight: c.weight,
              percent: c.percent,
              runtimeKey: c.runtimeKey ?? "",
            })),
            totalWeight: BigInt(o.totalWeight),
            selectionValue: o.selectionValue,
            selectionSource: o.selectionSource,
            selectedIndex: o.selectedIndex,
            cluster: o.cluster ?? "",
          }),
        },
      };
    default:
      return otherOutcome(o);
  }
}

function otherOutcome(
  o: Exclude<Outcome, { t: "cluster" | "weighted-clusters" }>,
): MessageInitShape<typeof OutcomeSchema> {
  switch (o.t) {
    case "cluster-header":
      return {
        kind: {
          case: "clusterHeader" as const,
          value: {
            header: o.header,
            cluster: o.cluster ?? "",
            clusterNotFoundStatus: o.clusterNotFoundStatus,
          },
        },
      };
    case "cluster-specifier-plugin":
      return { kind: { case: "clusterSpecifierPlugin" as const, value: o.plugin } };
    case "redirect":
      return {
        kind: { case: "redirect" as const, value: { location: o.location, status: o.status } },
      };
    case "tls-redirect":
      return {
        kind: { case: "tlsRedirect" as const, value: { location: o.location, status: o.status } },
      };
    case "direct-response": {
      const body = o.body;
      return {
        kind: {
          case: "directResponse" as const,
          value: {
            status: o.status,
            body:
              body === undefined
                ? ""
                : body.t === "inline"
                  ? body.text
                  : body.t === "file"
                    ? body.filename
                    : body.name,
            bodySource:
              body === undefined
                ? ""
                : body.t === "inline"
                  ? "inline"
                  : body.t === "file"
                    ? "file"
                    : "environment variable",
          },
        },
      };
    }
    case "non-forwarding":
      return { kind: { case: "nonForwarding" as const, value: true } };
    case "filter-action":
      return { kind: { case: "filterAction" as const, value: o.actionType } };
  }
}

function forwarding(f: Forwarding) {
  const policy = (p: Forwarding["retryPolicy"]) =>
    p === null
      ? undefined
      : { source: p.source, policy: fromJson(ValueSchema, p.policy as JsonValue) };
  const retry = policy(f.retryPolicy);
  const hedge = policy(f.hedgePolicy);
  return {
    pathRewrite: f.path.kind,
    path: f.path.path,
    hostRewrite: f.host.kind,
    host: f.host.host,
    appendedXForwardedHost: "appendedXForwardedHost" in f.host && f.host.appendedXForwardedHost,
    timeoutMs: f.timeouts.timeoutMs,
    timeoutSource: f.timeouts.timeoutSource,
    ...(f.timeouts.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: f.timeouts.idleTimeoutMs }),
    ...(f.timeouts.maxStreamDurationMs === undefined
      ? {}
      : { maxStreamDurationMs: f.timeouts.maxStreamDurationMs }),
    ...(retry ? { retryPolicy: retry } : {}),
    ...(hedge ? { hedgePolicy: hedge } : {}),
  };
}

/** The core's answer as the API's TestRouteResponse. */
export function testRouteResponse(
  version: number,
  answer: RouteResult,
  clustersNotInGroup: readonly string[],
): TestRouteResponse {
  const verdict = answer.verdict;
  return create(TestRouteResponseSchema, {
    version: BigInt(version),
    routeConfiguration: answer.routeConfiguration,
    listener: answer.listener?.name ?? "",
    filterChain: answer.listener?.filterChain ?? 0,
    matchedHost: answer.matchedHost,
    ...(answer.virtualHost === null
      ? {}
      : {
          virtualHost: {
            index: answer.virtualHost.index,
            name: answer.virtualHost.name,
            domain: answer.virtualHost.domain,
            how: domainMatch[answer.virtualHost.how],
          },
        }),
    verdict:
      verdict.t === "no-virtual-host"
        ? { case: "noVirtualHost", value: true }
        : verdict.t === "no-route"
          ? { case: "noRoute", value: true }
          : verdict.t === "cannot-evaluate"
            ? {
                case: "cannotEvaluate",
                value: {
                  routeIndex: verdict.route.index,
                  routeName: verdict.route.name,
                  reasons: [...verdict.reasons],
                },
              }
            : {
                case: "routed",
                value: {
                  ...(verdict.route ? { route: matchedRoute(verdict.route) } : {}),
                  outcome: outcome(verdict.outcome),
                  ...(verdict.forwarding ? { forwarding: forwarding(verdict.forwarding) } : {}),
                },
              },
    virtualCluster: answer.virtualCluster ?? "",
    requestHeaders: mutations(answer.requestHeaders),
    responseHeaders: mutations(answer.responseHeaders),
    httpFilters: answer.httpFilters.map((f) => ({
      name: f.name,
      type: f.type,
      enabled: f.enabled,
      decidedBy: f.decidedBy,
      perRouteLevel: f.perRouteConfig?.level ?? "",
      perRouteType: f.perRouteConfig?.type ?? "",
    })),
    notes: [...answer.notes],
    clustersNotInGroup: [...clustersNotInGroup],
  });
}

/** Route test cases that do not parse: InvalidArgument, each problem at `label: path`. */
export function routeTestProblems(
  label: string,
  what: string,
  problems: readonly RouterCheckProblem[],
): ConnectError {
  return invalidArgument(
    `${label}: ${problems.length} problem(s) in ${what}`,
    problems.map((p) => ({
      severity: "error",
      code: "invalid-route-test",
      path: `${label}: ${p.path}`,
      message: p.message,
    })),
  );
}

/** What the cases route through: a listener or a route configuration, never both. */
export function checkedTarget(request: { listener: string; routeConfiguration: string }): void {
  if (request.listener !== "" && request.routeConfiguration !== "")
    throw new ConnectError(
      "listener: name a listener or a route configuration (route_configuration), not both",
      Code.InvalidArgument,
    );
}

/** Why a case could not be asked, as one line: "path: message". */
export function refusedText(refused: RouteRefusal | undefined): string {
  if (refused === undefined) return "";
  return refused.path ? `${shownPath(refused.path)}: ${refused.message}` : refused.message;
}

/** One case's result as the API's RouteTestResult. */
export function routeTestResultMessage(result: RouteTestResult) {
  return {
    name: result.name,
    passed: result.passed,
    mismatches: result.mismatches.map((m) => ({ ...m })),
    refused: refusedText(result.refused),
  };
}
