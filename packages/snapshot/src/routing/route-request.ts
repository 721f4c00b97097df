/**
 * "Where does this request go?": Envoy's routing of one request through a stored configuration,
 * as a pure function of the ConfigSpec (no I/O). The pieces are in this folder, one rule set per
 * file; this file strings them together in Envoy's order
 * (https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/http/http_routing):
 * the HTTP connection manager normalizes the request (port stripping, merge_slashes), the route
 * configuration picks a virtual host by the host (domains.ts), the virtual host may require TLS,
 * then the first route that matches wins (route-match.ts: routes are tried in order, the longest
 * prefix is not the rule), and its action decides (route-action.ts), with header mutations
 * (header-mutations.ts) and per-route filter configuration (http-filters.ts).
 */

import { toJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { MetadataSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type {
  Route,
  VirtualHost,
  WeightedCluster_ClusterWeight,
} from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { VirtualHost_TlsRequirementType as TlsRequirement } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { quotedInput } from "../bounded-text.js";
import type { ConfigSpec, JsonObject } from "../model.js";
import { chooseVirtualHost, hostForMatching, repeatedDomain } from "./domains.js";
import { applyMutations, mutationLevels } from "./header-mutations.js";
import { httpFiltersInForce, type PerFilterLevel } from "./http-filters.js";
import { compileHeaderMatcher, HeaderMap, RoutingConfigError } from "./request-headers.js";
import { requestHeaders, requestProblem } from "./request-input.js";
import {
  chooseCluster,
  directResponseOutcome,
  policiesOf,
  redirectLocation,
  rewriteHost,
  rewritePath,
  timeoutsOf,
} from "./route-action.js";
import type {
  Forwarding,
  HttpFilterInForce,
  MatchedRoute,
  Outcome,
  RouteAnswer,
  RouteRequest,
  RouteResult,
  RouteVerdict,
} from "./route-answer.js";
import { matchRoute } from "./route-match.js";
import { isRefusal, type RouteSource, resolveRouteSource } from "./route-source.js";
import { runtimeLookup } from "./runtime-lookup.js";

function perFilterLevels(
  source: RouteSource,
  virtualHost: VirtualHost,
  route: Route | undefined,
  weighted: { typedPerFilterConfig: PerFilterLevel["configs"] } | undefined,
  at: { vh: string; route: string },
): PerFilterLevel[] {
  if (!route) return [];
  return [
    ...(weighted
      ? [
          {
            level: "weighted-cluster" as const,
            configs: weighted.typedPerFilterConfig,
            path: `${at.route}.route.weighted_clusters`,
          },
        ]
      : []),
    {
      level: "route",
      configs: route.typedPerFilterConfig,
      path: `${at.route}.typed_per_filter_config`,
    },
    {
      level: "virtual-host",
      configs: virtualHost.typedPerFilterConfig,
      path: `${at.vh}.typed_per_filter_config`,
    },
    {
      level: "route-configuration",
      configs: source.routeConfiguration.typedPerFilterConfig,
      path: `routeConfigurations[${JSON.stringify(source.spec.name)}].typed_per_filter_config`,
    },
  ];
}

/** The virtual cluster a request counts under: the first whose headers all match, else "other". */
function virtualClusterOf(virtualHost: VirtualHost, headers: HeaderMap, at: string): string | null {
  for (const [i, cluster] of virtualHost.virtualClusters.entries()) {
    const all = cluster.headers.every((m, j) =>
      compileHeaderMatcher(m, `${at}.virtual_clusters[${i}].headers[${j}]`).matches(headers),
    );
    if (all) return cluster.name;
  }
  return virtualHost.virtualClusters.length > 0 ? "other" : null;
}

/** Where Envoy sends `request` through `config`: refused, or the answer with its reasons. */
export function routeRequest(config: ConfigSpec, request: RouteRequest): RouteAnswer {
  const problem = requestProblem(request);
  if (problem) return problem;
  const source = resolveRouteSource(config, request);
  if (isRefusal(source)) return source;
  try {
    return answer(config, request, source);
  } catch (error) {
    if (error instanceof RoutingConfigError) {
      return { t: "refused", code: error.code, path: error.path, message: error.message };
    }
    throw error;
  }
}

function answer(config: ConfigSpec, request: RouteRequest, source: RouteSource): RouteResult {
  const notes: string[] = [];
  const rc = source.routeConfiguration;
  const rcPath = `routeConfigurations[${JSON.stringify(source.spec.name)}]`;
  if (source.spec.vhds) {
    notes.push(
      "the virtual hosts are served on demand (VHDS): Envoy routes so once it has requested the chosen one",
    );
  }
  const repeated = repeatedDomain(rc.virtualHosts);
  if (repeated) {
    throw new RoutingConfigError(
      `${rcPath}.virtualHosts[${repeated.index}].domains`,
      `domain ${quotedInput(repeated.domain)} is held by more than one virtual host: Envoy refuses the route configuration`,
    );
  }
  const headers = requestHeaders(request, source, notes);
  const original = headers.clone();
  const responseHeaders = new HeaderMap(request.responseHeaders ?? []);
  const matchedHost = hostForMatching(headers.get(":authority") ?? "", rc.ignorePortInHostMatching);
  const chosen = chooseVirtualHost(matchedHost, rc.virtualHosts);
  const base = {
    t: "answer" as const,
    routeConfiguration: source.spec.name,
    ...(source.hcm
      ? { listener: { name: source.hcm.listener.name, filterChain: source.hcm.chainIndex } }
      : {}),
    matchedHost,
    virtualHost: chosen,
    notes,
  };
  const filters = (levels: PerFilterLevel[]): HttpFilterInForce[] =>
    source.hcm ? httpFiltersInForce(source.hcm.message.httpFilters, levels) : [];
  const localReply = (status: number, extra: [string, string][] = []) => {
    responseHeaders.set(":status", String(status));
    for (const [name, value] of extra) responseHeaders.set(name, value);
  };
  const finish = (
    verdict: RouteVerdict,
    rest: Partial<
      Pick<
        RouteResult,
        "requestHeaders" | "responseHeaders" | "httpFilters" | "virtualCluster" | "routeMetadata"
      >
    > = {},
  ): RouteResult => ({
    ...base,
    verdict,
    virtualCluster: rest.virtualCluster ?? null,
    requestHeaders: rest.requestHeaders ?? { operations: [], result: headers.entries() },
    responseHeaders: rest.responseHeaders ?? { operations: [], result: responseHeaders.entries() },
    httpFilters: rest.httpFilters ?? filters([]),
    ...(rest.routeMetadata ? { routeMetadata: rest.routeMetadata } : {}),
  });
  const virtualHost = chosen ? rc.virtualHosts[chosen.index] : undefined;
  if (!chosen || !virtualHost) {
    localReply(404);
    return finish({ t: "no-virtual-host", status: 404 });
  }
  const vhPath = `${rcPath}.virtualHosts[${chosen.index}]`;
  // VirtualHost.require_tls, checked against x-forwarded-proto before any route (VirtualHostImpl::getRouteFromEntries).
  const https = headers.get("x-forwarded-proto") === "https";
  const internal = headers.get("x-envoy-internal") === "true";
  if (
    !https &&
    (virtualHost.requireTls === TlsRequirement.ALL ||
      (virtualHost.requireTls === TlsRequirement.EXTERNAL_ONLY && !internal))
  ) {
    const location = `https://${headers.get(":authority") ?? ""}${headers.get(":path") ?? ""}`;
    localReply(301, [["location", location]]);
    return finish({ t: "routed", outcome: { t: "tls-redirect", location, status: 301 } });
  }
  if (virtualHost.matcher) {
    throw new RoutingConfigError(
      `${vhPath}.matcher`,
      "the virtual host routes with a generic matcher tree (matcher), which is not evaluated",
      "unsupported-config",
    );
  }
  const context = {
    headers,
    randomValue: BigInt(request.randomValue ?? 0),
    runtime: runtimeLookup(config.runtimeLayers, request.runtime),
    ignorePathParameters: rc.ignorePathParametersInPathMatching,
    dynamicMetadata: request.dynamicMetadata,
  };
  for (const [index, route] of virtualHost.routes.entries()) {
    const routePath = `${vhPath}.routes[${index}]`;
    const result = matchRoute(route, routePath, context);
    if (result.t === "no") continue;
    if (result.t === "undecidable") {
      return finish({
        t: "cannot-evaluate",
        route: { index, name: route.name },
        reasons: result.reasons,
      });
    }
    const matched: MatchedRoute = {
      index,
      name: route.name,
      why: result.why,
      ...(result.runtimeFraction ? { runtimeFraction: result.runtimeFraction } : {}),
    };
    const routeMetadata = route.metadata
      ? ((toJson(MetadataSchema, route.metadata, { registry }) as JsonObject).filterMetadata as
          | JsonObject
          | undefined)
      : undefined;
    const action = route.action;
    const mostSpecificWins = rc.mostSpecificHeaderMutationsWins;
    const responseLevels = (weighted?: Parameters<typeof mutationLevels>[1]["weightedCluster"]) =>
      mutationLevels(
        "response",
        {
          routeConfiguration: rc,
          virtualHost,
          route,
          ...(weighted ? { weightedCluster: weighted } : {}),
        },
        mostSpecificWins,
      );
    const at = { vh: vhPath, route: routePath };
    if (action.case === "redirect" || action.case === "directResponse") {
      let outcome: Outcome;
      if (action.case === "redirect") {
        const { location, status } = redirectLocation(
          action.value,
          headers,
          result.matchedPath,
          routePath,
        );
        outcome = { t: "redirect", location, status };
        localReply(status, [["location", location]]);
      } else {
        outcome = directResponseOutcome(action.value);
        const text =
          outcome.t === "direct-response" && outcome.body?.t === "inline" ? outcome.body.text : "";
        localReply(
          action.value.status,
          text === ""
            ? []
            : [
                ["content-length", String(new TextEncoder().encode(text).length)],
                ["content-type", "text/plain"],
              ],
        );
      }
      const operations = applyMutations(responseHeaders, responseLevels());
      return finish(
        { t: "routed", route: matched, outcome },
        {
          responseHeaders: { operations, result: responseHeaders.entries() },
          httpFilters: filters(perFilterLevels(source, virtualHost, route, undefined, at)),
          ...(routeMetadata ? { routeMetadata } : {}),
        },
      );
    }
    let outcome: Outcome;
    let forwarding: Forwarding | undefined;
    let weighted: WeightedCluster_ClusterWeight | undefined;
    if (action.case === "route") {
      const choice = chooseCluster(
        action.value,
        original,
        context.randomValue,
        context.runtime,
        routePath,
      );
      if ("undecidable" in choice) {
        return finish({
          t: "cannot-evaluate",
          route: { index, name: route.name },
          reasons: [choice.undecidable],
        });
      }
      outcome = choice.outcome;
      weighted = choice.entry;
      if (
        action.value.clusterSpecifier.case === "weightedClusters" &&
        action.value.clusterSpecifier.value.totalWeight !== undefined
      ) {
        notes.push(
          "weighted_clusters.total_weight is deprecated and ignored: the weights' sum is the total",
        );
      }
      if (action.value.requestMirrorPolicies.length > 0) {
        notes.push(
          `the request is also mirrored to ${action.value.requestMirrorPolicies.map((m) => m.cluster || `the cluster in header ${m.clusterHeader}`).join(", ")} (request_mirror_policies)`,
        );
      }
    } else if (action.case === "nonForwardingAction") {
      outcome = { t: "non-forwarding" };
    } else if (action.case === "filterAction") {
      const typeUrl = action.value.action?.typeUrl ?? "";
      outcome = { t: "filter-action", actionType: typeUrl.slice(typeUrl.lastIndexOf("/") + 1) };
    } else {
      throw new RoutingConfigError(
        routePath,
        "a route needs an action (route, redirect, direct_response, ...)",
      );
    }
    // Request headers: the weighted cluster entry's first, then its host literal, then the route's
    // levels, the host rewrite and the path rewrite (RouteEntryImplBase::finalizeRequestHeaders).
    const requestLevels = mutationLevels(
      "request",
      {
        routeConfiguration: rc,
        virtualHost,
        route,
        ...(weighted ? { weightedCluster: weighted } : {}),
      },
      mostSpecificWins,
    );
    const operations = applyMutations(headers, requestLevels.slice(0, weighted ? 1 : 0));
    const weightedHost =
      weighted?.hostRewriteSpecifier.case === "hostRewriteLiteral" &&
      weighted.hostRewriteSpecifier.value !== ""
        ? weighted.hostRewriteSpecifier.value
        : undefined;
    if (weightedHost) headers.set(":authority", weightedHost);
    operations.push(...applyMutations(headers, requestLevels.slice(weighted ? 1 : 0)));
    if (action.case === "route") {
      let host = rewriteHost(action.value, headers, routePath);
      if (host.kind === "none" && weightedHost)
        host = {
          kind: "weighted_cluster_host_rewrite_literal",
          host: weightedHost,
          appendedXForwardedHost: false,
        };
      if (host.kind === "auto_host_rewrite") notes.push(host.note);
      const requestPath = headers.get(":path") ?? "";
      const path = rewritePath(
        action.value,
        requestPath,
        result.matchedPath,
        result.uriTemplate,
        routePath,
      );
      if (path.kind !== "none") {
        // The router keeps the original in x-envoy-original-path unless suppress_envoy_headers.
        headers.set("x-envoy-original-path", requestPath);
        headers.set(":path", path.path);
      }
      forwarding = {
        path,
        host,
        timeouts: timeoutsOf(action.value),
        ...policiesOf(action.value, virtualHost),
      };
      if (action.value.retryPolicyTypedConfig || virtualHost.retryPolicyTypedConfig) {
        notes.push("a retry_policy_typed_config (an extension) is set; it is not evaluated");
      }
    }
    if (operations.some((op) => op.dynamic)) {
      notes.push(
        "some header values hold %COMMAND% substitutions Envoy formats per request; they are shown unformatted",
      );
    }
    const responseOps = applyMutations(responseHeaders, responseLevels(weighted));
    return finish(
      { t: "routed", route: matched, outcome, ...(forwarding ? { forwarding } : {}) },
      {
        virtualCluster: virtualClusterOf(virtualHost, original, vhPath),
        requestHeaders: { operations, result: headers.entries() },
        responseHeaders: { operations: responseOps, result: responseHeaders.entries() },
        httpFilters: filters(perFilterLevels(source, virtualHost, route, weighted, at)),
        ...(routeMetadata ? { routeMetadata } : {}),
      },
    );
  }
  localReply(404);
  return finish({ t: "no-route", status: 404 });
}
