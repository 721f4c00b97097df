/**
 * Where a field of a compiled Envoy resource lives in the stored model: the inverse of the mapping
 * in envoy-json.ts, path for path. A check that runs on the Envoy resources (validate.rules, RE2,
 * references) reports its findings here at the model field a user edits
 * (`listeners["edge"].filterChains[0].networkFilters[1].typedConfig.statPrefix`), in the syntax of
 * validate-path.ts. Paths arrive as canonical proto3 JSON keys (camelCase) and list indexes.
 */
import type { Segment } from "../import/envoy-import-json.js";
import type {
  ClusterSpec,
  FilterChainSpec,
  ListenerSpec,
  LocalitySpec,
  RouteConfigurationSpec,
  VirtualHostSpec,
} from "../model.js";
import {
  clusterPath,
  filterChainPath,
  jsonKey,
  listenerPath,
  localityPath,
  routeConfigurationPath,
  routePath,
  virtualHostPath,
} from "../validate/validate-path.js";

/** `.a.b[0]["c d"]`: steps into stored JSON. */
function jsonSteps(segments: readonly Segment[]): string {
  let out = "";
  for (const segment of segments)
    out += typeof segment === "number" ? `[${segment}]` : jsonKey(segment);
  return out;
}

/** The model path of a field; `rest` is the Envoy path below what was matched. */
function at(base: string, rest: readonly Segment[]): string {
  return `${base}${jsonSteps(rest)}`;
}

/** Envoy fields of a message that map to model fields of the same object, by Envoy key. */
type FieldMap = Readonly<Record<string, string>>;

function mapped(base: string, fields: FieldMap, extra: string, path: readonly Segment[]): string {
  const [head, ...rest] = path;
  if (head === undefined) return base;
  const field = typeof head === "string" ? fields[head] : undefined;
  return field === undefined ? at(`${base}.${extra}`, path) : at(`${base}.${field}`, rest);
}

// --- clusters and their endpoints --------------------------------------------------------

function endpointPathOf(base: string, path: readonly Segment[]): string {
  // LbEndpoint { endpoint: { address: { socketAddress: { address, portValue } } }, ... }
  const [head, ...rest] = path;
  if (head === "loadBalancingWeight") return at(`${base}.weight`, rest);
  if (head === "healthStatus") return at(`${base}.healthStatus`, rest);
  if (head === "endpoint" && rest[0] === "address" && rest[1] === "socketAddress") {
    if (rest[2] === "address") return at(`${base}.address`, rest.slice(3));
    if (rest[2] === "portValue") return at(`${base}.port`, rest.slice(3));
  }
  // A Unix socket's path and an internal listener's name are the model's address text too.
  if (
    head === "endpoint" &&
    rest[0] === "address" &&
    ((rest[1] === "pipe" && rest[2] === "path") ||
      (rest[1] === "envoyInternalAddress" && rest[2] === "serverListenerName"))
  ) {
    return at(`${base}.address`, rest.slice(3));
  }
  return at(`${base}.extra`, path);
}

function localityPathOf(
  cluster: string,
  index: number,
  locality: LocalitySpec | undefined,
  path: readonly Segment[],
): string {
  const base = localityPath(cluster, index);
  const [head, ...rest] = path;
  if (head === "locality" && typeof rest[0] === "string") {
    return at(`${base}.${rest[0]}`, rest.slice(1));
  }
  if (head === "loadBalancingWeight") return at(`${base}.weight`, rest);
  if (head === "priority") return at(`${base}.priority`, rest);
  if (head === "lbEndpoints" && typeof rest[0] === "number" && locality) {
    return endpointPathOf(`${base}.endpoints[${rest[0]}]`, rest.slice(1));
  }
  return at(`${base}.extra`, path);
}

/** A field of a cluster's ClusterLoadAssignment (EDS, or its inline load_assignment). */
export function assignmentModelPath(cluster: ClusterSpec, path: readonly Segment[]): string {
  const [head, ...rest] = path;
  if (head === "endpoints" && typeof rest[0] === "number") {
    return localityPathOf(cluster.name, rest[0], cluster.localities[rest[0]], rest.slice(1));
  }
  if (head === "clusterName") return `${clusterPath(cluster.name)}.edsServiceName`;
  return at(`${clusterPath(cluster.name)}.assignmentExtra`, path);
}

const CLUSTER_FIELDS: FieldMap = {
  name: "name",
  type: "discoveryType",
  connectTimeout: "connectTimeoutMs",
  lbPolicy: "lbPolicy",
  healthChecks: "healthChecks",
  circuitBreakers: "circuitBreakers",
  outlierDetection: "outlierDetection",
};

export function clusterModelPath(cluster: ClusterSpec, path: readonly Segment[]): string {
  const base = clusterPath(cluster.name);
  const [head, ...rest] = path;
  if (head === "loadAssignment") return assignmentModelPath(cluster, rest);
  if (head === "edsClusterConfig" && rest[0] === "serviceName") return `${base}.edsServiceName`;
  if (head === "transportSocket" && cluster.tlsSecretName !== null && sdsStep(rest)) {
    return `${base}.tlsSecretName`;
  }
  return mapped(base, CLUSTER_FIELDS, "extra", path);
}

/** A path into a TLS transport socket that ends in the modelled SDS secret reference. */
function sdsStep(path: readonly Segment[]): boolean {
  return (
    path[0] === "typedConfig" &&
    path[1] === "commonTlsContext" &&
    (path[2] === "validationContextSdsSecretConfig" || path[2] === "tlsCertificateSdsSecretConfigs")
  );
}

// --- route configurations ----------------------------------------------------------------

function routeMatchPath(base: string, path: readonly Segment[]): string {
  const [head, ...rest] = path;
  switch (head) {
    case "prefix":
    case "path":
    case "pathSeparatedPrefix":
      return at(`${base}.matchValue`, rest);
    case "safeRegex":
      return rest[0] === "regex"
        ? at(`${base}.matchValue`, rest.slice(1))
        : at(`${base}.extra.match`, path);
    case "caseSensitive":
      return `${base}.caseSensitive`;
    case "headers":
    case "queryParameters":
      return at(`${base}.${head}`, rest);
    default:
      return at(`${base}.extra.match`, path);
  }
}

function routeActionPath(base: string, path: readonly Segment[]): string {
  const [head, ...rest] = path;
  switch (head) {
    case "cluster":
      return `${base}.cluster`;
    case "timeout":
      return `${base}.timeoutMs`;
    case "retryPolicy":
    case "prefixRewrite":
      return at(`${base}.${head}`, rest);
    case "weightedClusters":
      if (rest[0] === "clusters" && typeof rest[1] === "number") {
        const entry = `${base}.weightedClusters[${rest[1]}]`;
        const [field, ...below] = rest.slice(2);
        if (field === "name" || field === "weight") return at(`${entry}.${field}`, below);
        return field === undefined ? entry : at(`${entry}.extra`, rest.slice(2));
      }
      return at(`${base}.extra.route`, path);
    default:
      return at(`${base}.extra.route`, path);
  }
}

function routeModelPath(base: string, path: readonly Segment[]): string {
  const [head, ...rest] = path;
  switch (head) {
    case undefined:
      return base;
    case "name":
      return `${base}.name`;
    case "match":
      return rest.length === 0 ? `${base}.matchKind` : routeMatchPath(base, rest);
    case "route":
      return rest.length === 0 ? `${base}.actionKind` : routeActionPath(base, rest);
    case "redirect":
    case "directResponse":
      return at(`${base}.${head}`, rest);
    default:
      return at(`${base}.extra`, path);
  }
}

/** A field of a virtual host: in its route configuration, or an on-demand (VHDS) resource. */
export function virtualHostModelPath(
  routeConfiguration: string,
  virtualHost: VirtualHostSpec,
  path: readonly Segment[],
): string {
  const base = virtualHostPath(routeConfiguration, virtualHost.name);
  const [head, ...rest] = path;
  if (head === "routes" && typeof rest[0] === "number") {
    return routeModelPath(routePath(routeConfiguration, virtualHost.name, rest[0]), rest.slice(1));
  }
  if (head === "name" || head === "domains") return at(`${base}.${head}`, rest);
  return head === undefined ? base : at(`${base}.extra`, path);
}

export function routeConfigurationModelPath(
  routeConfiguration: RouteConfigurationSpec,
  path: readonly Segment[],
): string {
  const base = routeConfigurationPath(routeConfiguration.name);
  const [head, ...rest] = path;
  if (head === "virtualHosts" && typeof rest[0] === "number") {
    const virtualHost = routeConfiguration.virtualHosts[rest[0]];
    return virtualHost
      ? virtualHostModelPath(routeConfiguration.name, virtualHost, rest.slice(1))
      : `${base}.virtualHosts`;
  }
  if (head === "name") return `${base}.name`;
  if (head === "vhds") return `${base}.vhds`;
  return head === undefined ? base : at(`${base}.extra`, path);
}

// --- listeners ---------------------------------------------------------------------------

const HCM_FIELDS: FieldMap = {
  statPrefix: "statPrefix",
  httpFilters: "httpFilters",
  accessLog: "accessLog",
};

function hcmPath(
  base: string,
  chain: FilterChainSpec,
  path: readonly Segment[],
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): string {
  const [head, ...rest] = path;
  if (head === "rds") return `${base}.rdsRouteConfigName`;
  if (head === "routeConfig") {
    const inline =
      chain.inlineRouteConfigName === null ? undefined : inlineRoutes(chain.inlineRouteConfigName);
    return inline ? routeConfigurationModelPath(inline, rest) : `${base}.inlineRouteConfigName`;
  }
  if (
    head === "httpFilters" &&
    typeof rest[0] === "number" &&
    rest[0] >= chain.httpFilters.length
  ) {
    // The router (or on_demand filter) the compiler adds.
    return `${base}.httpFilters`;
  }
  if (head === "@type") return base;
  return mapped(base, HCM_FIELDS, "hcmExtra", path);
}

function filterChainModelPath(
  base: string,
  chain: FilterChainSpec,
  path: readonly Segment[],
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): string {
  const [head, ...rest] = path;
  switch (head) {
    case undefined:
      return base;
    case "name":
      return `${base}.name`;
    case "filters": {
      const index = rest[0];
      if (typeof index !== "number") return `${base}.networkFilters`;
      if (chain.networkOnly || index < chain.networkFilters.length) {
        return at(`${base}.networkFilters[${index}]`, rest.slice(1));
      }
      // The HTTP connection manager the compiler writes last: { name, typedConfig: HCM }.
      return rest[1] === "typedConfig" ? hcmPath(base, chain, rest.slice(2), inlineRoutes) : base;
    }
    case "filterChainMatch":
      return rest[0] === "serverNames" && chain.serverNames.length > 0
        ? at(`${base}.serverNames`, rest.slice(1))
        : at(`${base}.extra`, path);
    case "transportSocket":
      return chain.tlsSecretName !== null && sdsStep(rest)
        ? `${base}.tlsSecretName`
        : at(`${base}.extra`, path);
    default:
      return at(`${base}.extra`, path);
  }
}

export function listenerModelPath(
  listener: ListenerSpec,
  path: readonly Segment[],
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): string {
  const base = listenerPath(listener.name);
  const [head, ...rest] = path;
  switch (head) {
    case undefined:
      return base;
    case "name":
      return `${base}.name`;
    case "address":
      if (rest[0] === "socketAddress" && rest[1] === "address") return `${base}.address`;
      if (rest[0] === "socketAddress" && rest[1] === "portValue") return `${base}.port`;
      if (rest[0] === "pipe" && rest[1] === "path") return `${base}.address`;
      return at(`${base}.extra`, path);
    case "filterChains":
    case "defaultFilterChain": {
      // The model keeps the default chain among the others (isDefault); Envoy apart from them.
      const indexes = listener.filterChains.flatMap((chain, i) =>
        chain.isDefault === (head === "defaultFilterChain") ? [i] : [],
      );
      const index =
        head === "defaultFilterChain"
          ? indexes[0]
          : typeof rest[0] === "number"
            ? indexes[rest[0]]
            : undefined;
      const chain = index === undefined ? undefined : listener.filterChains[index];
      return chain && index !== undefined
        ? filterChainModelPath(
            filterChainPath(listener.name, index),
            chain,
            head === "defaultFilterChain" ? rest : rest.slice(1),
            inlineRoutes,
          )
        : `${base}.filterChains`;
    }
    case "apiListener": {
      const chain = listener.filterChains[0];
      // apiListener.apiListener: the HttpConnectionManager Any.
      return chain && rest[0] === "apiListener"
        ? hcmPath(filterChainPath(listener.name, 0), chain, rest.slice(1), inlineRoutes)
        : `${base}.filterChains`;
    }
    default:
      return at(`${base}.extra`, path);
  }
}
