import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type Cluster,
  ClusterSchema,
  DiscoveryType,
  type FilterChainSchema,
  type Listener,
  ListenerSchema,
  RouteActionKind,
  type RouteConfiguration,
  RouteConfigurationSchema,
  type RouteSchema,
  type VirtualHostSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";

/*
 * Builders of the switchyard.v1 objects the end-to-end tests store through ConfigService. Each
 * sets the fields its comment names and nothing else: a test states the rest (a load-balancing
 * policy, a connect timeout, a TLS secret) in `overrides`, where a reader sees what it sends.
 */

export type ClusterInit = MessageInitShape<typeof ClusterSchema>;
export type RouteInit = MessageInitShape<typeof RouteSchema>;
export type VirtualHostInit = MessageInitShape<typeof VirtualHostSchema>;
export type RouteConfigurationInit = MessageInitShape<typeof RouteConfigurationSchema>;
export type FilterChainInit = MessageInitShape<typeof FilterChainSchema>;

/** Where a route sends requests: one cluster, or clusters split by weight, as `[name, weight]`. */
export type RouteTarget = string | ReadonlyArray<readonly [string, number]>;

/**
 * An EDS cluster `name` with one locality (weight 1) of one endpoint, `endpoint` as
 * "address:port". No lbPolicy, connectTimeoutMs or http2 unless `overrides` set them.
 */
export function edsCluster(
  name: string,
  endpoint: `${string}:${number}`,
  overrides: ClusterInit = {},
): Cluster {
  const colon = endpoint.lastIndexOf(":");
  const address = endpoint.slice(0, colon);
  const port = Number(endpoint.slice(colon + 1));
  return create(ClusterSchema, {
    name,
    discoveryType: DiscoveryType.EDS,
    localities: [{ weight: 1, endpoints: [{ address, port }] }],
    ...overrides,
  });
}

/**
 * Virtual host `name` on `domains` with one route, sending every path (match value "/") to
 * `target`; `route` sets more of that route's fields or replaces them (matchValue, matchKind,
 * retryPolicy, ...).
 */
export function virtualHost(
  name: string,
  domains: string[],
  target: RouteTarget,
  route: RouteInit = {},
): VirtualHostInit {
  const action =
    typeof target === "string"
      ? { actionKind: RouteActionKind.CLUSTER, cluster: target }
      : {
          actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
          weightedClusters: target.map(([cluster, weight]) => ({ name: cluster, weight })),
        };
  return { name, domains, routes: [{ matchValue: "/", ...action, ...route }] };
}

/** Route configuration `name` of `virtualHosts`; `overrides` set the rest (vhds, extra). */
export function routeConfiguration(
  name: string,
  virtualHosts: VirtualHostInit[],
  overrides: RouteConfigurationInit = {},
): RouteConfiguration {
  return create(RouteConfigurationSchema, { name, virtualHosts, ...overrides });
}

/**
 * Route configuration `name` sending every request for any host ("*") to `target`, through one
 * virtual host (named `virtualHost`, "all" unless given) and its one route, which `route` changes
 * as virtualHost's does.
 */
export function catchAllRoutes(
  name: string,
  target: RouteTarget,
  options: { virtualHost?: string; route?: RouteInit } = {},
): RouteConfiguration {
  return routeConfiguration(name, [
    virtualHost(options.virtualHost ?? "all", ["*"], target, options.route),
  ]);
}

/**
 * A proxyless gRPC client's listener `name` (api_listener, no address), whose one filter chain
 * loads route configuration `routes` over RDS; `chain` adds to that chain (httpFilters, ...).
 */
export function apiListener(name: string, routes: string, chain: FilterChainInit = {}): Listener {
  return create(ListenerSchema, {
    name,
    apiListener: true,
    filterChains: [{ rdsRouteConfigName: routes, ...chain }],
  });
}

/**
 * An Envoy listener `name` on 0.0.0.0:`port`, whose one filter chain loads route configuration
 * `routes` over RDS; `chain` adds to that chain (tlsSecretName, statPrefix, ...).
 */
export function portListener(
  name: string,
  port: number,
  routes: string,
  chain: FilterChainInit = {},
): Listener {
  return create(ListenerSchema, {
    name,
    address: "0.0.0.0",
    port,
    filterChains: [{ rdsRouteConfigName: routes, ...chain }],
  });
}
