/**
 * Normalized Envoy JSON → the stored model: ClusterSpec, ListenerSpec and RouteConfigurationSpec
 * with every modelled field extracted and every other field kept in the matching `extra` as
 * canonical proto3 JSON. What the model cannot describe throws Unrepresentable with the path of
 * the field; envoy-import-assemble.ts turns it into an error about that resource.
 *
 * Long because the kinds share their pieces (TLS contexts, durations, localities), and the file
 * mirrors envoy/envoy-json.ts, the way back, so a field's two mappings can be read side by side.
 */

import { enumValueNames } from "@switchyard/proto/enum-names";
import * as api from "@switchyard/proto/switchyard/v1/config_pb";
import { quotedInput } from "../bounded-text.js";
import { addressFrom } from "../envoy/envoy-address.js";
import { configSourceExtra } from "../envoy/envoy-json.js";
import type {
  ClusterSpec,
  DiscoveryType,
  EndpointSpec,
  FilterChainSpec,
  HealthStatus,
  JsonObject,
  JsonValue,
  LbPolicy,
  ListenerSpec,
  LocalitySpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  VirtualHostSpec,
  WeightedClusterSpec,
} from "../model.js";
import { snakeCase } from "./envoy-import-issue.js";
import {
  asArray,
  asNumber,
  asObject,
  asString,
  compact,
  describe,
  isObject,
  jsonEqual,
  nonEmpty,
  type Segment,
} from "./envoy-import-json.js";
import { ADS, DEFAULT_ROUTER, HCM_TYPE, TYPE_PREFIX } from "./envoy-import-normalize.js";

/** Thrown inside one resource's mapping: the resource cannot be stored as it is. */
export class Unrepresentable extends Error {
  constructor(
    readonly at: readonly Segment[],
    message: string,
  ) {
    super(message);
  }
}

function reject(at: readonly Segment[], message: string): never {
  throw new Unrepresentable(at, message);
}

// Typed as the model's unions: a value added to the proto fails to compile until the model has it.
/** Envoy's `type`s: CUSTOM is no `type` but a `cluster_type` extension (clusterFrom). */
const DISCOVERY_TYPES: readonly DiscoveryType[] = enumValueNames(
  api.DiscoveryTypeSchema,
  api.DiscoveryType,
).filter((name) => name !== "CUSTOM");
const LB_POLICIES: readonly LbPolicy[] = enumValueNames(api.LbPolicySchema, api.LbPolicy);
const HEALTH_STATUSES: readonly HealthStatus[] = enumValueNames(
  api.HealthStatusSchema,
  api.HealthStatus,
);
const TLS_SOCKET_NAME = "envoy.transport_sockets.tls";
const TLS_CONTEXT_PREFIX = `${TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.`;
const HTTP_PROTOCOL_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
const MAX_MILLISECONDS = 2147483647;

function oneOf<T extends string>(
  value: JsonValue | undefined,
  allowed: readonly T[],
  fallback: T,
  at: readonly Segment[],
  what: string,
): T {
  const given = value ?? fallback;
  if (typeof given === "string" && (allowed as readonly string[]).includes(given))
    return given as T;
  return reject(
    at,
    `${what} ${quotedInput(given)} cannot be stored: Switchyard models ${allowed.join(", ")}`,
  );
}

/** A canonical Duration ("0.250s") in whole milliseconds, as the model stores it. */
function milliseconds(value: JsonValue | undefined, at: readonly Segment[]): number {
  const match = typeof value === "string" ? /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(value) : null;
  if (!match) return reject(at, `expected a duration, got ${describe(value)}`);
  const nanos = Number((match[3] ?? "").padEnd(9, "0"));
  if (nanos % 1_000_000 !== 0) {
    return reject(
      at,
      `${String(value)} cannot be stored: Switchyard keeps durations in whole milliseconds`,
    );
  }
  const ms = Number(match[2]) * 1000 + nanos / 1_000_000;
  if (ms > MAX_MILLISECONDS)
    return reject(at, `${String(value)} is longer than Switchyard can store`);
  return match[1] === "-" ? -ms : ms;
}

function objectOrNull(value: JsonValue | undefined): JsonObject | null {
  return isObject(value) ? value : null;
}

function strings(value: JsonValue | undefined): readonly string[] {
  return asArray(value).filter((item): item is string => typeof item === "string");
}

/** The secret name of an SDS config served over ADS: `{ name, sds_config: { ads: {}, ... V3 } }`. */
function adsSecretName(value: JsonValue | undefined): string | undefined {
  if (!isObject(value) || Object.keys(value).length !== 2 || !jsonEqual(value.sdsConfig, ADS))
    return undefined;
  return typeof value.name === "string" && value.name !== "" ? value.name : undefined;
}

/**
 * Splits a TLS transport socket into the modelled SDS secret name and the rest (kept in `extra`),
 * the inverse of envoy-json.ts tlsTransportSocketJson. A socket the model cannot describe is kept
 * whole in `extra`.
 */
function tlsFrom(
  socket: JsonValue | undefined,
  contextType: string,
  takeSecret: (commonTlsContext: JsonObject) => { name: string; rest: JsonObject } | undefined,
): { secretName: string | null; extra: JsonValue | undefined } {
  const whole = { secretName: null, extra: socket };
  if (!isObject(socket) || socket.name === undefined) return whole;
  const typedConfig = asObject(socket.typedConfig);
  if (typedConfig["@type"] !== TLS_CONTEXT_PREFIX + contextType) return whole;
  const { commonTlsContext, ...contextRest } = typedConfig;
  const taken = takeSecret(asObject(commonTlsContext));
  if (!taken) return whole;
  const typedExtra = {
    ...contextRest,
    ...(nonEmpty(taken.rest) ? { commonTlsContext: taken.rest } : {}),
  };
  const { name, typedConfig: _, ...socketRest } = socket;
  const extra = compact({
    ...socketRest,
    name: name === TLS_SOCKET_NAME ? undefined : name,
    typedConfig: Object.keys(typedExtra).length > 1 ? typedExtra : undefined,
  });
  return { secretName: taken.name, extra: nonEmpty(extra) ? extra : undefined };
}

function upstreamTlsFrom(socket: JsonValue | undefined) {
  return tlsFrom(socket, "UpstreamTlsContext", (context) => {
    const { validationContextSdsSecretConfig: sds, ...rest } = context;
    const name = adsSecretName(sds);
    return name === undefined ? undefined : { name, rest };
  });
}

function downstreamTlsFrom(socket: JsonValue | undefined) {
  return tlsFrom(socket, "DownstreamTlsContext", (context) => {
    const { tlsCertificateSdsSecretConfigs: configs, ...rest } = context;
    const [only, ...others] = asArray(configs);
    const name = others.length === 0 ? adsSecretName(only) : undefined;
    return name === undefined ? undefined : { name, rest };
  });
}

/** Whether `source` is exactly `{ self: {} }` (a ConfigSource naming the server it came from). */
function isSelfConfigSource(source: JsonValue | undefined): boolean {
  if (!isObject(source)) return false;
  const keys = Object.keys(source);
  return keys.length === 1 && keys[0] === "self" && isObject(source.self) && !nonEmpty(source.self);
}

/** The inverse of envoy-json.ts http2ProtocolOptionsJson. */
function http2From(options: JsonValue | undefined): {
  enabled: boolean;
  extra: JsonValue | undefined;
} {
  const entry = asObject(asObject(options)[HTTP_PROTOCOL_OPTIONS]);
  const http2 = asObject(entry.explicitHttpConfig).http2ProtocolOptions;
  if (!isObject(options) || !isObject(http2)) return { enabled: false, extra: options };
  const { explicitHttpConfig: _, ...entryRest } = entry;
  const entryExtra = nonEmpty(http2)
    ? { ...entryRest, explicitHttpConfig: { http2ProtocolOptions: http2 } }
    : entryRest;
  const extra = compact({
    ...options,
    [HTTP_PROTOCOL_OPTIONS]: Object.keys(entryExtra).some((key) => key !== "@type")
      ? entryExtra
      : undefined,
  });
  return { enabled: true, extra: nonEmpty(extra) ? extra : undefined };
}

function endpointFrom(json: JsonObject, at: readonly Segment[]): EndpointSpec {
  const { endpoint, healthStatus, loadBalancingWeight, ...rest } = json;
  if (rest.endpointName !== undefined) {
    reject([...at, "endpointName"], "endpoint_name cannot be stored: give the endpoint's address");
  }
  const { address, ...endpointRest } = asObject(endpoint);
  const parts = addressFrom(address);
  if ("problem" in parts) reject([...at, "endpoint", "address"], parts.problem);
  const endpointExtra = compact({ ...endpointRest, address: parts.extra });
  return {
    address: parts.address,
    port: parts.port ?? 0,
    weight: asNumber(loadBalancingWeight),
    healthStatus: oneOf(
      healthStatus,
      HEALTH_STATUSES,
      "UNKNOWN",
      [...at, "healthStatus"],
      "health_status",
    ),
    extra: compact({ ...rest, endpoint: nonEmpty(endpointExtra) ? endpointExtra : undefined }),
  };
}

function localityFrom(json: JsonObject, at: readonly Segment[]): LocalitySpec {
  const { locality, lbEndpoints, loadBalancingWeight, priority, ...extra } = json;
  const { region, zone, subZone } = asObject(locality);
  return {
    region: asString(region),
    zone: asString(zone),
    subZone: asString(subZone),
    weight: asNumber(loadBalancingWeight),
    priority: asNumber(priority) ?? 0,
    extra,
    endpoints: asArray(lbEndpoints).map((e, i) =>
      endpointFrom(asObject(e), [...at, "lbEndpoints", i]),
    ),
  };
}

/** A ClusterLoadAssignment's localities and its unmodelled fields (policy, named endpoints). */
export function assignmentFrom(json: JsonObject, at: readonly Segment[]) {
  const { clusterName, endpoints, ...extra } = json;
  return {
    clusterName: asString(clusterName),
    localities: asArray(endpoints).map((l, i) =>
      localityFrom(asObject(l), [...at, "endpoints", i]),
    ),
    extra,
  };
}

/** A cluster; an EDS cluster's localities come from its ClusterLoadAssignment (see importEnvoyConfig). */
export function clusterFrom(json: JsonObject): ClusterSpec {
  const {
    name,
    type,
    connectTimeout,
    lbPolicy,
    edsClusterConfig,
    loadAssignment,
    healthChecks,
    circuitBreakers,
    outlierDetection,
    transportSocket,
    typedExtensionProtocolOptions,
    lrsServer,
    ...rest
  } = json;
  const clusterName = asString(name);
  // lrs_server `self` is the model's reportLoad; any other config source stays as written.
  const reportLoad = isSelfConfigSource(lrsServer);
  const tls = upstreamTlsFrom(transportSocket);
  const http2 = http2From(typedExtensionProtocolOptions);
  const common = {
    name: clusterName,
    // An extension cluster (aggregate, dynamic forward proxy, ...): cluster_type stays in extra.
    discoveryType:
      rest.clusterType !== undefined
        ? ("CUSTOM" as const)
        : oneOf(type, DISCOVERY_TYPES, "STATIC", ["type"], "cluster type"),
    lbPolicy: oneOf(lbPolicy, LB_POLICIES, "ROUND_ROBIN", ["lbPolicy"], "lb_policy"),
    connectTimeoutMs: milliseconds(connectTimeout, ["connectTimeout"]),
    http2: http2.enabled,
    reportLoad,
    healthChecks: asArray(healthChecks),
    circuitBreakers: objectOrNull(circuitBreakers),
    outlierDetection: objectOrNull(outlierDetection),
    tlsSecretName: tls.secretName,
    extra: compact({
      ...rest,
      transportSocket: tls.extra,
      typedExtensionProtocolOptions: http2.extra,
      lrsServer: reportLoad ? undefined : lrsServer,
    }),
  };
  if (common.discoveryType === "EDS") {
    if (loadAssignment !== undefined) {
      reject(
        ["loadAssignment"],
        "an EDS cluster's load_assignment cannot be stored: send the endpoints as a ClusterLoadAssignment",
      );
    }
    const { serviceName, edsConfig, ...edsRest } = asObject(edsClusterConfig);
    // What of eds_cluster_config the model does not hold (its config source's
    // initial_fetch_timeout, ...), kept in extra.
    const edsExtra = compact({
      ...edsRest,
      edsConfig: nonEmpty(configSourceExtra(edsConfig)) ? configSourceExtra(edsConfig) : undefined,
    });
    return {
      ...common,
      edsServiceName: asString(serviceName) || null,
      extra: nonEmpty(edsExtra) ? { ...common.extra, edsClusterConfig: edsExtra } : common.extra,
      assignmentExtra: {},
      localities: [],
    };
  }
  // eds_cluster_config on another type: Envoy ignores it, and it is kept as written.
  const kept =
    edsClusterConfig === undefined
      ? common
      : { ...common, extra: { ...common.extra, edsClusterConfig } };
  if (loadAssignment === undefined) {
    return { ...kept, edsServiceName: null, assignmentExtra: {}, localities: [] };
  }
  const assignment = assignmentFrom(asObject(loadAssignment), ["loadAssignment"]);
  return {
    ...kept,
    // The compiler names an inline assignment edsServiceName ?? name (envoy-json.ts).
    edsServiceName: assignment.clusterName === clusterName ? null : assignment.clusterName,
    assignmentExtra: assignment.extra,
    localities: assignment.localities,
  };
}

/** The cluster specifiers chosen per request, kept in extra.route, by the action kind they make. */
const CLUSTER_SPECIFIERS = {
  clusterHeader: "CLUSTER_HEADER",
  clusterSpecifierPlugin: "CLUSTER_SPECIFIER_PLUGIN",
  inlineClusterSpecifierPlugin: "INLINE_CLUSTER_SPECIFIER_PLUGIN",
} as const satisfies Record<string, RouteSpec["actionKind"]>;
/** Route actions that leave the request to the filters, kept in extra. */
const OTHER_ACTIONS = {
  nonForwardingAction: "NON_FORWARDING",
  filterAction: "FILTER_ACTION",
} as const satisfies Record<string, RouteSpec["actionKind"]>;

function matchFrom(value: JsonValue | undefined, at: readonly Segment[]) {
  if (!isObject(value)) return reject(at, "a route without a match cannot be stored");
  const {
    prefix,
    path,
    safeRegex,
    pathSeparatedPrefix,
    caseSensitive,
    headers,
    queryParameters,
    ...extra
  } = value;
  let kind: RouteSpec["matchKind"];
  let matchValue = "";
  if (prefix !== undefined) [kind, matchValue] = ["PREFIX", asString(prefix)];
  else if (path !== undefined) [kind, matchValue] = ["PATH", asString(path)];
  else if (pathSeparatedPrefix !== undefined) {
    [kind, matchValue] = ["PATH_SEPARATED_PREFIX", asString(pathSeparatedPrefix)];
  } else if (extra.connectMatcher !== undefined) kind = "CONNECT";
  else if (extra.pathMatchPolicy !== undefined) kind = "PATH_MATCH_POLICY";
  else if (safeRegex !== undefined) {
    const { regex, ...regexRest } = asObject(safeRegex);
    const [other] = Object.keys(regexRest);
    if (other !== undefined) {
      reject(
        [...at, "safeRegex", other],
        `safe_regex.${snakeCase(other)} cannot be stored: Switchyard keeps only the regex`,
      );
    }
    [kind, matchValue] = ["SAFE_REGEX", asString(regex)];
  } else {
    return reject(
      at,
      "a route match needs a path specifier: prefix, path, safe_regex, path_separated_prefix, connect_matcher or path_match_policy",
    );
  }
  return {
    spec: {
      matchKind: kind,
      matchValue,
      caseSensitive: caseSensitive !== false,
      headers: asArray(headers),
      queryParameters: asArray(queryParameters),
    },
    extra,
  };
}

function weightedClusterFrom(value: JsonValue, at: readonly Segment[]): WeightedClusterSpec {
  const { name, weight, ...extra } = asObject(value);
  // Envoy's rule: WeightedClustersConfigEntry reads it with PROTOBUF_GET_WRAPPED_REQUIRED
  // (source/common/router/weighted_cluster_specifier.cc), "Field 'weight' is missing".
  if (typeof weight !== "number")
    reject(
      at,
      "a weighted cluster needs its weight: Envoy refuses one without (\"Field 'weight' is missing\")",
    );
  return nonEmpty(extra)
    ? { name: asString(name), weight, extra }
    : { name: asString(name), weight };
}

type ActionSpec = Pick<
  RouteSpec,
  | "actionKind"
  | "cluster"
  | "weightedClusters"
  | "redirect"
  | "directResponse"
  | "timeoutMs"
  | "retryPolicy"
  | "prefixRewrite"
>;

const NO_ACTION: ActionSpec = {
  actionKind: "CLUSTER",
  cluster: null,
  weightedClusters: [],
  redirect: null,
  directResponse: null,
  timeoutMs: null,
  retryPolicy: null,
  prefixRewrite: null,
};

function routeActionFrom(
  value: JsonObject,
  at: readonly Segment[],
): { spec: ActionSpec; extra: JsonObject } {
  const { cluster, weightedClusters, timeout, retryPolicy, prefixRewrite, ...rest } = value;
  const common = {
    ...NO_ACTION,
    timeoutMs: timeout === undefined ? null : milliseconds(timeout, [...at, "timeout"]),
    retryPolicy: objectOrNull(retryPolicy),
    prefixRewrite: prefixRewrite === undefined ? null : asString(prefixRewrite),
  };
  if (cluster !== undefined)
    return { spec: { ...common, cluster: asString(cluster) }, extra: rest };
  if (weightedClusters !== undefined) {
    const { clusters, ...weightedRest } = asObject(weightedClusters);
    const weighted = asArray(clusters).map((c, i) =>
      weightedClusterFrom(c, [...at, "weightedClusters", "clusters", i]),
    );
    return {
      spec: { ...common, actionKind: "WEIGHTED_CLUSTERS", weightedClusters: weighted },
      extra: compact({
        ...rest,
        weightedClusters: nonEmpty(weightedRest) ? weightedRest : undefined,
      }),
    };
  }
  const specifier = Object.entries(CLUSTER_SPECIFIERS).find(([key]) => key in rest);
  if (specifier === undefined) {
    return reject(
      at,
      "a route action needs a cluster specifier: cluster, weighted_clusters, cluster_header, cluster_specifier_plugin or inline_cluster_specifier_plugin",
    );
  }
  return { spec: { ...common, actionKind: specifier[1] }, extra: rest };
}

function routeFrom(json: JsonObject, at: readonly Segment[]): RouteSpec {
  const { name, match, route, redirect, directResponse, ...rest } = json;
  const matched = matchFrom(match, [...at, "match"]);
  let action: { spec: ActionSpec; extra: JsonObject | undefined };
  if (isObject(route)) action = routeActionFrom(route, [...at, "route"]);
  else if (isObject(redirect))
    action = { spec: { ...NO_ACTION, actionKind: "REDIRECT", redirect }, extra: undefined };
  else if (isObject(directResponse)) {
    action = {
      spec: { ...NO_ACTION, actionKind: "DIRECT_RESPONSE", directResponse },
      extra: undefined,
    };
  } else {
    const other = Object.entries(OTHER_ACTIONS).find(([key]) => key in rest);
    if (other === undefined) return reject(at, "a route without an action cannot be stored");
    action = { spec: { ...NO_ACTION, actionKind: other[1] }, extra: undefined };
  }
  return {
    name: asString(name),
    ...matched.spec,
    ...action.spec,
    extra: compact({
      ...rest,
      match: nonEmpty(matched.extra) ? matched.extra : undefined,
      route: action.extra && nonEmpty(action.extra) ? action.extra : undefined,
    }),
  };
}

function virtualHostFrom(json: JsonObject, at: readonly Segment[]): VirtualHostSpec {
  const { name, domains, routes, ...extra } = json;
  return {
    name: asString(name),
    domains: strings(domains),
    extra,
    routes: asArray(routes).map((r, i) => routeFrom(asObject(r), [...at, "routes", i])),
  };
}

export function routeConfigurationFrom(
  json: JsonObject,
  at: readonly Segment[],
): RouteConfigurationSpec {
  // `vhds`: on-demand virtual hosts, always over ADS here (envoy-json.ts); its config source's
  // own fields (initial_fetch_timeout, ...) are kept in extra.vhds.
  const { name, virtualHosts, vhds, ...extra } = json;
  const { configSource, ...vhdsRest } = asObject(vhds);
  const vhdsExtra = compact({
    ...vhdsRest,
    configSource: nonEmpty(configSourceExtra(configSource))
      ? configSourceExtra(configSource)
      : undefined,
  });
  return {
    name: asString(name),
    vhds: vhds !== undefined,
    extra: nonEmpty(vhdsExtra) ? { ...extra, vhds: vhdsExtra } : extra,
    virtualHosts: asArray(virtualHosts).map((v, i) =>
      virtualHostFrom(asObject(v), [...at, "virtualHosts", i]),
    ),
  };
}

type HcmParts = Pick<
  FilterChainSpec,
  | "statPrefix"
  | "rdsRouteConfigName"
  | "inlineRouteConfigName"
  | "httpFilters"
  | "accessLog"
  | "hcmExtra"
>;

/** The router the compiler appends when the stored list has none (envoy-json.ts httpFiltersJson). */
function withoutDefaultRouter(filters: readonly JsonValue[]): readonly JsonValue[] {
  const last = filters.at(-1);
  return last !== undefined && jsonEqual(last, DEFAULT_ROUTER) ? filters.slice(0, -1) : filters;
}

function hcmFrom(
  value: JsonValue | undefined,
  at: readonly Segment[],
  routes: RouteConfigurationSpec[],
): HcmParts {
  if (!isObject(value) || value["@type"] !== HCM_TYPE) {
    return reject(at, "expected an HttpConnectionManager: Switchyard models HTTP listeners");
  }
  const {
    "@type": _,
    statPrefix,
    rds,
    routeConfig,
    scopedRoutes,
    httpFilters,
    accessLog,
    ...hcmExtra
  } = value;
  if (scopedRoutes !== undefined) {
    reject(
      [...at, "scopedRoutes"],
      "scoped_routes cannot be stored: use rds or an inline route_config",
    );
  }
  let inlineRouteConfigName: string | null = null;
  if (isObject(routeConfig)) {
    const inline = routeConfigurationFrom(routeConfig, [...at, "routeConfig"]);
    routes.push(inline);
    inlineRouteConfigName = inline.name;
  }
  // What of `rds` the model does not hold (its config source's initial_fetch_timeout, ...).
  const { routeConfigName, configSource, ...rdsRest } = asObject(rds);
  const rdsExtra = compact({
    ...rdsRest,
    configSource: nonEmpty(configSourceExtra(configSource))
      ? configSourceExtra(configSource)
      : undefined,
  });
  return {
    statPrefix: asString(statPrefix),
    rdsRouteConfigName: isObject(rds) ? asString(routeConfigName) : null,
    inlineRouteConfigName,
    httpFilters: withoutDefaultRouter(asArray(httpFilters)),
    accessLog: asArray(accessLog),
    hcmExtra: nonEmpty(rdsExtra) ? { ...hcmExtra, rds: rdsExtra } : hcmExtra,
  };
}

/**
 * A chain's network filters split into those kept as written and its HTTP connection manager:
 * the last filter when it is one (Envoy requires a terminal filter to come last, and allows one).
 */
function splitFilters(
  filters: readonly JsonValue[],
  at: readonly Segment[],
): { networkFilters: readonly JsonValue[]; hcm: JsonValue | undefined } {
  const isHcm = (filter: JsonValue | undefined) =>
    asObject(asObject(filter).typedConfig)["@type"] === HCM_TYPE;
  filters.forEach((filter, i) => {
    if (isHcm(filter) && i !== filters.length - 1) {
      reject(
        [...at, i],
        `the HTTP connection manager is a terminal filter: Envoy requires it to be the last filter of its chain (filter ${i + 1} of ${filters.length})`,
      );
    }
  });
  const last = filters.at(-1);
  return isHcm(last)
    ? { networkFilters: filters.slice(0, -1), hcm: asObject(last).typedConfig }
    : { networkFilters: filters, hcm: undefined };
}

const NO_HCM: HcmParts = {
  statPrefix: "",
  rdsRouteConfigName: null,
  inlineRouteConfigName: null,
  httpFilters: [],
  accessLog: [],
  hcmExtra: {},
};

function filterChainFrom(
  json: JsonObject,
  at: readonly Segment[],
  routes: RouteConfigurationSpec[],
): FilterChainSpec {
  const { name, filterChainMatch, filters, transportSocket, ...rest } = json;
  const list = asArray(filters);
  const { networkFilters, hcm } = splitFilters(list, [...at, "filters"]);
  const { serverNames, ...matchRest } = asObject(filterChainMatch);
  const names = strings(serverNames);
  const tls = downstreamTlsFrom(transportSocket);
  return {
    name: asString(name),
    isDefault: false,
    serverNames: names,
    tlsSecretName: tls.secretName,
    networkFilters,
    networkOnly: hcm === undefined,
    ...(hcm === undefined
      ? NO_HCM
      : hcmFrom(hcm, [...at, "filters", list.length - 1, "typedConfig"], routes)),
    extra: compact({
      ...rest,
      filterChainMatch:
        names.length === 0 ? filterChainMatch : nonEmpty(matchRest) ? matchRest : undefined,
      transportSocket: tls.extra,
    }),
  };
}

/** A listener and the route configurations it holds inline. */
export function listenerFrom(json: JsonObject): {
  listener: ListenerSpec;
  routes: RouteConfigurationSpec[];
} {
  const routes: RouteConfigurationSpec[] = [];
  const { name, apiListener, ...rest } = json;
  if (apiListener !== undefined) {
    const at = ["apiListener", "apiListener"];
    const chain: FilterChainSpec = {
      name: "",
      isDefault: false,
      serverNames: [],
      tlsSecretName: null,
      networkFilters: [],
      networkOnly: false,
      extra: {},
      ...hcmFrom(asObject(apiListener).apiListener, at, routes),
    };
    return {
      listener: {
        name: asString(name),
        apiListener: true,
        address: null,
        port: null,
        extra: rest,
        filterChains: [chain],
      },
      routes,
    };
  }
  const { address, filterChains, defaultFilterChain, ...extra } = rest;
  // An internal listener (`internal_listener`) binds nothing: it has no address, and clusters
  // reach it by name (envoy_internal_address).
  const parts =
    address === undefined && extra.internalListener !== undefined
      ? undefined
      : addressFrom(address);
  if (parts && "problem" in parts) {
    reject(["address"], `${parts.problem}, or an api_listener or internal_listener`);
  }
  const chains = asArray(filterChains).map((c, i) =>
    filterChainFrom(asObject(c), ["filterChains", i], routes),
  );
  return {
    listener: {
      name: asString(name),
      apiListener: false,
      address: parts?.address ?? null,
      port: parts ? (parts.port ?? null) : null,
      extra: compact({ ...extra, address: parts?.extra }),
      filterChains:
        defaultFilterChain === undefined
          ? chains
          : [
              ...chains,
              {
                ...filterChainFrom(asObject(defaultFilterChain), ["defaultFilterChain"], routes),
                isDefault: true,
              },
            ],
    },
    routes,
  };
}

/** A Runtime resource (normalized: flat keys) as a runtime layer; entries sorted by key. */
export function runtimeLayerFrom(json: JsonObject): RuntimeLayerSpec {
  const entries = Object.entries(asObject(json.layer)).map(([key, value]) => {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
      return { key, value };
    const what = value === null ? "null" : Array.isArray(value) ? "a list" : "an object";
    return reject(
      ["layer", key],
      isObject(value) && ("numerator" in value || "denominator" in value)
        ? `runtime key ${quotedInput(key)} holds a FractionalPercent: Switchyard stores numbers, strings and booleans; give the percentage as a number (e.g. 10 for 10%)`
        : `runtime key ${quotedInput(key)} holds ${what}: Switchyard stores numbers, strings and booleans`,
    );
  });
  return {
    name: asString(json.name),
    entries: entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}
