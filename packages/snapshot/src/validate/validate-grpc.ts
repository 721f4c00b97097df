/**
 * Warnings where a proxyless gRPC client (@grpc/grpc-js-xds 1.14, as observed against this
 * server) would NACK or ignore what it is sent. Only for what an api_listener reaches: the
 * listener, its route configuration, the clusters its routes use and their endpoints. Envoy itself
 * accepts all of these, so they are warnings; what both reject (router not last, host names in an
 * EDS assignment) is an error elsewhere.
 *
 * Not repeated here: RDS over ADS is what the compiler always emits, and a route specifier in
 * hcmExtra that would change it is an `invalid-route-specifier` error.
 */

import { quotedInput } from "../bounded-text.js";
import type {
  ClusterSpec,
  JsonObject,
  JsonValue,
  ListenerSpec,
  RouteConfigurationSpec,
} from "../model.js";
import { nth } from "../nth.js";
import {
  describeRoute,
  routeConfigurationName,
  routeTargets,
  type ValidationContext,
} from "./validate-context.js";
import {
  clusterPath,
  endpointPath,
  filterChainPath,
  localityPath,
  routePath,
  virtualHostPath,
} from "./validate-path.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/** HTTP filters grpc-js-xds runs on the client side (its filter registry); others must be optional. */
const GRPC_CLIENT_FILTER_TYPES = new Set([
  "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
  "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault",
]);
const TYPED_STRUCT_TYPES = new Set([
  "type.googleapis.com/udpa.type.v1.TypedStruct",
  "type.googleapis.com/xds.type.v3.TypedStruct",
]);

/** What the api_listeners reach, each object with the first api_listener that reaches it. */
interface GrpcReach {
  readonly routeConfigurations: Map<RouteConfigurationSpec, string>;
  readonly clusters: Map<ClusterSpec, string>;
}

function reach(ctx: ValidationContext): GrpcReach {
  const routeConfigurations = new Map<RouteConfigurationSpec, string>();
  const clusters = new Map<ClusterSpec, string>();
  for (const listener of ctx.spec.listeners) {
    const chain = listener.apiListener ? listener.filterChains[0] : undefined;
    const name = chain ? routeConfigurationName(chain) : null;
    const routeConfiguration = name === null ? undefined : ctx.routeConfigurations.get(name);
    if (!routeConfiguration || routeConfigurations.has(routeConfiguration)) continue;
    routeConfigurations.set(routeConfiguration, listener.name);
    for (const virtualHost of routeConfiguration.virtualHosts) {
      for (const route of virtualHost.routes) {
        for (const target of routeTargets(route)) {
          const cluster = ctx.clusters.get(target.cluster);
          if (cluster && !clusters.has(cluster)) clusters.set(cluster, listener.name);
        }
      }
    }
  }
  return { routeConfigurations, clusters };
}

const via = (listener: string) => `(reached from api_listener ${quote(listener)})`;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The filter's config type, looking inside a TypedStruct as grpc-js-xds does. */
function filterType(filter: JsonObject): string | undefined {
  const typedConfig = filter.typedConfig ?? filter.typed_config;
  if (!isObject(typedConfig)) return undefined;
  const type = typedConfig["@type"];
  if (typeof type === "string" && TYPED_STRUCT_TYPES.has(type)) {
    const inner = typedConfig.typeUrl ?? typedConfig.type_url;
    return typeof inner === "string" ? inner : undefined;
  }
  return typeof type === "string" ? type : undefined;
}

/** The HTTP filters of an api_listener are ones the gRPC client implements, or optional. */
function checkListenerFilters(ctx: ValidationContext, listener: ListenerSpec): void {
  const chain = listener.filterChains[0];
  if (!chain) return;
  chain.httpFilters.forEach((filter, index) => {
    if (!isObject(filter) || typeof filter.name !== "string") return; // invalid-http-filter
    if (filter.isOptional === true || filter.is_optional === true) return;
    const type = filterType(filter);
    if (type !== undefined && GRPC_CLIENT_FILTER_TYPES.has(type)) return;
    ctx.issues.add(
      "grpc-unsupported-http-filter",
      `${filterChainPath(listener.name, 0)}.httpFilters[${index}]`,
      `a proxyless gRPC client would reject api_listener ${quote(listener.name)}: HTTP filter ${quote(filter.name)} (${type ?? "no typedConfig"}) is not one it implements`,
      'remove it, or mark it "isOptional": true so clients that lack it skip it',
    );
  });
}

/**
 * The route actions gRPC clients take: a cluster, weighted clusters, and a cluster specifier
 * plugin (the route lookup service, gRFC A28). A redirect, a direct response, a cluster named by a
 * header and a non-forwarding action fail the RPCs they match.
 */
const GRPC_ROUTE_ACTIONS: ReadonlySet<string> = new Set([
  "CLUSTER",
  "WEIGHTED_CLUSTERS",
  "CLUSTER_SPECIFIER_PLUGIN",
]);

/** Routes of a reached route configuration forward to clusters: gRPC has no redirect or direct response. */
function checkRouteActions(
  ctx: ValidationContext,
  routeConfiguration: RouteConfigurationSpec,
  listener: string,
): void {
  for (const virtualHost of routeConfiguration.virtualHosts) {
    virtualHost.routes.forEach((route, index) => {
      if (GRPC_ROUTE_ACTIONS.has(route.actionKind)) return;
      ctx.issues.add(
        "grpc-unsupported-route-action",
        `${routePath(routeConfiguration.name, virtualHost.name, index)}.actionKind`,
        `a proxyless gRPC client would reject route configuration ${quote(routeConfiguration.name)} ${via(listener)}: ${describeRoute(virtualHost, index, route)} is a ${route.actionKind} route, and gRPC only forwards to clusters it is given (cluster, weighted_clusters, or a cluster specifier plugin, gRFC A28)`,
        "use a CLUSTER or WEIGHTED_CLUSTERS route, or a separate route configuration for Envoy",
      );
    });
  }
}

const AGGREGATE_CLUSTER = "envoy.extensions.clusters.aggregate.v3.ClusterConfig";

/** EDS, LOGICAL_DNS and the aggregate cluster extension (gRFC A37) are the types gRPC takes. */
function grpcClusterType(cluster: ClusterSpec): boolean {
  if (cluster.discoveryType === "EDS" || cluster.discoveryType === "LOGICAL_DNS") return true;
  if (cluster.discoveryType !== "CUSTOM") return false;
  const clusterType = cluster.extra.clusterType;
  const typedConfig =
    clusterType && typeof clusterType === "object" && !Array.isArray(clusterType)
      ? (clusterType as JsonObject).typedConfig
      : undefined;
  const url =
    typedConfig && typeof typedConfig === "object" && !Array.isArray(typedConfig)
      ? (typedConfig as JsonObject)["@type"]
      : undefined;
  return typeof url === "string" && url.endsWith(`/${AGGREGATE_CLUSTER}`);
}

/**
 * gRPC turns a retry policy into its own (gRFC A44: maxAttempts = num_retries + 1), which needs
 * at least 2 attempts (gRFC A6, "maxAttempts MUST be an integer value greater than 1"): a policy
 * of `num_retries: 0` is NACKed (seen with C-core), where Envoy reads it as "no retry".
 */
function checkRetryPolicies(
  ctx: ValidationContext,
  routeConfiguration: RouteConfigurationSpec,
  listener: string,
): void {
  const zeroRetries = (policy: JsonValue | undefined) =>
    policy !== null &&
    typeof policy === "object" &&
    !Array.isArray(policy) &&
    "numRetries" in policy &&
    Number((policy as JsonObject).numRetries) === 0;
  const warn = (path: string, where: string) =>
    ctx.issues.add(
      "grpc-retry-policy",
      path,
      `a proxyless gRPC client would reject route configuration ${quote(routeConfiguration.name)} ${via(listener)}: ${where} has a retry policy with num_retries 0, and gRPC needs at least one retry (gRFC A44)`,
      "remove the retry policy, or set num_retries to 1 or more",
    );
  for (const virtualHost of routeConfiguration.virtualHosts) {
    if (zeroRetries(virtualHost.extra.retryPolicy)) {
      warn(
        `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.extra.retryPolicy.numRetries`,
        `virtual host ${quote(virtualHost.name)}`,
      );
    }
    virtualHost.routes.forEach((route, index) => {
      if (zeroRetries(route.retryPolicy ?? undefined)) {
        warn(
          `${routePath(routeConfiguration.name, virtualHost.name, index)}.retryPolicy.numRetries`,
          describeRoute(virtualHost, index, route),
        );
      }
    });
  }
}

/** A reached cluster: EDS, LOGICAL_DNS or aggregate, ROUND_ROBIN or RING_HASH, no SDS TLS context. */
function checkCluster(ctx: ValidationContext, cluster: ClusterSpec, listener: string): void {
  const path = clusterPath(cluster.name);
  const rejects = `a proxyless gRPC client would reject cluster ${quote(cluster.name)} ${via(listener)}`;
  if (!grpcClusterType(cluster)) {
    ctx.issues.add(
      "grpc-unsupported-cluster-type",
      `${path}.discoveryType`,
      `${rejects}: type ${cluster.discoveryType} is not supported ("Unsupported type ${cluster.discoveryType}")`,
      "use EDS (or LOGICAL_DNS for one DNS name, or an aggregate cluster)",
    );
  }
  // grpc-js-xds reads load_balancing_policy instead of lb_policy when it is set.
  const customPolicy =
    "loadBalancingPolicy" in cluster.extra || "load_balancing_policy" in cluster.extra;
  if (!customPolicy && cluster.lbPolicy !== "ROUND_ROBIN" && cluster.lbPolicy !== "RING_HASH") {
    ctx.issues.add(
      "grpc-unsupported-lb-policy",
      `${path}.lbPolicy`,
      `${rejects}: lb policy ${cluster.lbPolicy} is not supported`,
      "use ROUND_ROBIN or RING_HASH",
    );
  }
  if (cluster.tlsSecretName !== null) {
    ctx.issues.add(
      "grpc-unsupported-tls",
      `${path}.tlsSecretName`,
      `${rejects}: its upstream TLS context takes the CA from SDS secret ${quote(cluster.tlsSecretName)}, and gRPC only takes certificates from its own certificate providers`,
      "clear tlsSecretName for gRPC clients; configure TLS in their bootstrap",
    );
  }
  if (cluster.discoveryType === "EDS") checkAssignment(ctx, cluster, listener);
}

/**
 * A reached EDS cluster's assignment: every locality weighted (gRPC drops a locality without a
 * weight, endpoints and all), no locality or address listed twice, priorities without gaps.
 */
function checkAssignment(ctx: ValidationContext, cluster: ClusterSpec, listener: string): void {
  const what = `cluster ${quote(cluster.name)} ${via(listener)}`;
  const localities = new Set<string>();
  const addresses = new Set<string>();
  const priorities = new Set<number>();
  cluster.localities.forEach((locality, l) => {
    priorities.add(locality.priority);
    if (locality.weight === null || locality.weight === 0) {
      ctx.issues.add(
        "grpc-locality-weight",
        `${localityPath(cluster.name, l)}.weight`,
        `a proxyless gRPC client would ignore locality ${nth(l)} of ${what}: it has no weight, so its ${locality.endpoints.length} endpoints would get no traffic`,
        "give every locality a weight, e.g. 1",
      );
    }
    const id = JSON.stringify([
      locality.region,
      locality.zone,
      locality.subZone,
      locality.priority,
    ]);
    if (localities.has(id)) {
      ctx.issues.add(
        "grpc-duplicate-locality",
        localityPath(cluster.name, l),
        `a proxyless gRPC client would reject the endpoints of ${what}: locality ${nth(l)} repeats region ${quote(locality.region)}, zone ${quote(locality.zone)}, sub-zone ${quote(locality.subZone)} at priority ${locality.priority}`,
        "merge the two localities",
      );
    }
    localities.add(id);
    locality.endpoints.forEach((endpoint, e) => {
      const address = `${endpoint.address.toLowerCase()}|${endpoint.port}`;
      if (addresses.has(address)) {
        ctx.issues.add(
          "grpc-duplicate-endpoint",
          endpointPath(cluster.name, l, e),
          `a proxyless gRPC client would reject the endpoints of ${what}: ${endpoint.address}:${endpoint.port} is listed twice`,
          "remove the duplicate endpoint",
        );
      }
      addresses.add(address);
    });
  });
  for (const priority of priorities) {
    if (priority > 0 && !priorities.has(priority - 1)) {
      const l = cluster.localities.findIndex((locality) => locality.priority === priority);
      ctx.issues.add(
        "grpc-priority-gap",
        `${localityPath(cluster.name, l)}.priority`,
        `a proxyless gRPC client would reject the endpoints of ${what}: a locality has priority ${priority} but none has ${priority - 1}`,
        "number priorities 0, 1, 2, ... without gaps",
      );
    }
  }
}

/** Every proxyless gRPC warning, for what the api_listeners reach. */
export function checkProxylessGrpc(ctx: ValidationContext): void {
  for (const listener of ctx.spec.listeners) {
    if (listener.apiListener) checkListenerFilters(ctx, listener);
  }
  const reached = reach(ctx);
  for (const [routeConfiguration, listener] of reached.routeConfigurations) {
    checkRouteActions(ctx, routeConfiguration, listener);
    checkRetryPolicies(ctx, routeConfiguration, listener);
  }
  for (const [cluster, listener] of reached.clusters) checkCluster(ctx, cluster, listener);
}
