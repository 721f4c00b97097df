/**
 * Stored specs to Envoy v3 resources, as canonical proto3 JSON objects.
 *
 * Building JSON (rather than messages) keeps the mapping readable next to Envoy's own docs and
 * makes merging the unmodelled `extra` fields trivial: `extra` holds only fields that are not
 * modelled, so the modelled fields are spread over it. The JSON is decoded into the generated
 * Envoy types by `compile`, which rejects anything Envoy's schema would reject.
 *
 * Long because the kinds share their pieces (TLS sockets, durations, localities), and the file
 * mirrors import/envoy-import-map.ts, the way back, so a field's two mappings can be read side by
 * side.
 */
import type {
  ClusterSpec,
  EndpointSpec,
  FilterChainSpec,
  JsonObject,
  JsonValue,
  ListenerSpec,
  LocalitySpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  SecretSpec,
  VirtualHostSpec,
} from "../model.js";
import { vhdsResourceName } from "../serving/vhds.js";
import { addressJson } from "./envoy-address.js";
import { typedConfigType } from "./envoy-proto-json.js";

const TYPE_PREFIX = "type.googleapis.com/";
export const HCM_FILTER_NAME = "envoy.filters.network.http_connection_manager";
export const ROUTER_FILTER_NAME = "envoy.filters.http.router";
const ROUTER_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.http.router.v3.Router`;
export const HTTP_PROTOCOL_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
const TLS_TRANSPORT_SOCKET = "envoy.transport_sockets.tls";

/** An `ads: {}` config source: the resource comes over the same ADS stream. */
export const ADS_CONFIG_SOURCE: JsonObject = { ads: {}, resourceApiVersion: "V3" };

/**
 * The fields of a ConfigSource that say where resources come from (its `config_source_specifier`
 * oneof) and which API version: what Switchyard sets itself, to ADS and V3. Its other fields
 * (`initial_fetch_timeout`, `authorities`) are the user's, kept in `extra`.
 */
const CONFIG_SOURCE_MODELLED = [
  "path",
  "pathConfigSource",
  "apiConfigSource",
  "ads",
  "self",
  "resourceApiVersion",
];

/** A ConfigSource's fields other than those Switchyard sets (CONFIG_SOURCE_MODELLED). */
export function configSourceExtra(source: JsonValue | undefined): JsonObject {
  return Object.fromEntries(
    Object.entries(objectOrEmpty(source)).filter(([key]) => !CONFIG_SOURCE_MODELLED.includes(key)),
  );
}

/** ADS, over the fields of a config source that `extra` keeps (configSourceExtra). */
export function adsConfigSource(extra: JsonValue | undefined): JsonObject {
  return { ...objectOrEmpty(extra), ...ADS_CONFIG_SOURCE };
}

/** Milliseconds as a proto3 JSON Duration ("1.5s"). */
export function durationJson(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, "")}s`;
}

/** The name ClusterLoadAssignments of an EDS cluster are served under. */
export function edsResourceName(cluster: ClusterSpec): string {
  return cluster.edsServiceName ?? cluster.name;
}

function definedEntries(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** `value` when it is a JSON object, else an empty one: for reading optional parts of `extra`. */
function objectOrEmpty(value: JsonValue | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}

function endpointJson(endpoint: EndpointSpec): JsonObject {
  const extraEndpoint = objectOrEmpty(endpoint.extra.endpoint);
  return definedEntries({
    ...endpoint.extra,
    endpoint: {
      ...extraEndpoint,
      address: addressJson(extraEndpoint.address, endpoint.address, endpoint.port),
    },
    healthStatus: endpoint.healthStatus === "UNKNOWN" ? undefined : endpoint.healthStatus,
    loadBalancingWeight: endpoint.weight ?? undefined,
  });
}

function localityJson(locality: LocalitySpec): JsonObject {
  return definedEntries({
    ...locality.extra,
    // Always set, even when empty: proxyless gRPC NACKs an assignment whose locality is unset.
    locality: definedEntries({
      region: locality.region || undefined,
      zone: locality.zone || undefined,
      subZone: locality.subZone || undefined,
    }),
    lbEndpoints: locality.endpoints.map(endpointJson),
    loadBalancingWeight: locality.weight ?? undefined,
    priority: locality.priority === 0 ? undefined : locality.priority,
  });
}

/** envoy.config.endpoint.v3.ClusterLoadAssignment */
export function clusterLoadAssignmentJson(cluster: ClusterSpec): JsonObject {
  return assignmentJson(edsResourceName(cluster), cluster.localities, cluster.assignmentExtra);
}

/** The ClusterLoadAssignment named `clusterName` of `localities` (and the fields in `extra`). */
export function assignmentJson(
  clusterName: string,
  localities: ClusterSpec["localities"],
  extra: JsonObject,
): JsonObject {
  return { ...extra, clusterName, endpoints: localities.map(localityJson) };
}

function sdsSecret(name: string): JsonObject {
  return { name, sdsConfig: ADS_CONFIG_SOURCE };
}

/**
 * A TLS transport socket carrying the modelled SDS secret, merged over the unmodelled parts kept
 * in `extra` (the socket's name, `sni`, ALPN, TLS parameters, ...): `commonTlsContext` receives
 * the secret reference, everything else comes from `extra`.
 */
function tlsTransportSocketJson(
  extra: JsonValue | undefined,
  contextType: string,
  withSecret: (commonTlsContext: JsonObject) => JsonObject,
): JsonObject {
  const socket = objectOrEmpty(extra);
  const typedConfig = objectOrEmpty(socket.typedConfig);
  return {
    name: TLS_TRANSPORT_SOCKET,
    ...socket,
    typedConfig: {
      ...typedConfig,
      "@type": `${TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.${contextType}`,
      commonTlsContext: withSecret(objectOrEmpty(typedConfig.commonTlsContext)),
    },
  };
}

/**
 * `typed_extension_protocol_options` of an HTTP/2 cluster: the HttpProtocolOptions entry with
 * explicit HTTP/2, merged over the entry's other settings kept in `extra` (idle timeouts,
 * `max_concurrent_streams`, ...).
 */
function http2ProtocolOptionsJson(extra: JsonValue | undefined): JsonObject {
  const options = objectOrEmpty(extra);
  const entry = objectOrEmpty(options[HTTP_PROTOCOL_OPTIONS]);
  const explicit = objectOrEmpty(entry.explicitHttpConfig);
  return {
    ...options,
    [HTTP_PROTOCOL_OPTIONS]: {
      ...entry,
      "@type": TYPE_PREFIX + HTTP_PROTOCOL_OPTIONS,
      explicitHttpConfig: { http2ProtocolOptions: objectOrEmpty(explicit.http2ProtocolOptions) },
    },
  };
}

/**
 * Whether a cluster that is not EDS carries its endpoints inline: always for the types that need
 * them (STATIC, STRICT_DNS, LOGICAL_DNS); for ORIGINAL_DST and extension clusters, which find
 * their hosts themselves, only when some were given, or an assignment named otherwise than the
 * cluster (`edsServiceName`).
 */
function inlineAssignment(cluster: ClusterSpec): boolean {
  switch (cluster.discoveryType) {
    case "EDS":
      return false;
    case "ORIGINAL_DST":
    case "CUSTOM":
      return (
        cluster.localities.length > 0 ||
        Object.keys(cluster.assignmentExtra).length > 0 ||
        cluster.edsServiceName !== null
      );
    default:
      return true;
  }
}

/** envoy.config.cluster.v3.Cluster */
export function clusterJson(cluster: ClusterSpec): JsonObject {
  const eds = cluster.discoveryType === "EDS";
  const secret = cluster.tlsSecretName;
  return definedEntries({
    ...cluster.extra,
    name: cluster.name,
    // CUSTOM: `cluster_type`, the other member of Envoy's cluster_discovery_type oneof, is in extra.
    type: cluster.discoveryType === "CUSTOM" ? undefined : cluster.discoveryType,
    connectTimeout: durationJson(cluster.connectTimeoutMs),
    lbPolicy: cluster.lbPolicy,
    // The config source's own fields (initial_fetch_timeout, ...) are kept in extra; on another
    // type (which Envoy ignores it on) eds_cluster_config is as written.
    edsClusterConfig: eds
      ? definedEntries({
          ...objectOrEmpty(cluster.extra.edsClusterConfig),
          edsConfig: adsConfigSource(objectOrEmpty(cluster.extra.edsClusterConfig).edsConfig),
          serviceName: cluster.edsServiceName ?? undefined,
        })
      : cluster.extra.edsClusterConfig,
    loadAssignment: inlineAssignment(cluster) ? clusterLoadAssignmentJson(cluster) : undefined,
    // Partly modelled fields fall back to what `extra` holds when the model leaves them unset.
    typedExtensionProtocolOptions: cluster.http2
      ? http2ProtocolOptionsJson(cluster.extra.typedExtensionProtocolOptions)
      : cluster.extra.typedExtensionProtocolOptions,
    healthChecks: cluster.healthChecks.length > 0 ? cluster.healthChecks : undefined,
    circuitBreakers: cluster.circuitBreakers ?? undefined,
    outlierDetection: cluster.outlierDetection ?? undefined,
    lrsServer: cluster.reportLoad ? { self: {} } : cluster.extra.lrsServer,
    transportSocket: secret
      ? tlsTransportSocketJson(
          cluster.extra.transportSocket,
          "UpstreamTlsContext",
          (commonTlsContext) => ({
            ...commonTlsContext,
            validationContextSdsSecretConfig: sdsSecret(secret),
          }),
        )
      : cluster.extra.transportSocket,
  });
}

/** The path specifier of a match kind that holds its pattern in `matchValue`. */
function pathSpecifierJson(route: RouteSpec): JsonObject {
  switch (route.matchKind) {
    case "PREFIX":
      return { prefix: route.matchValue };
    case "PATH":
      return { path: route.matchValue };
    case "SAFE_REGEX":
      return { safeRegex: { regex: route.matchValue } };
    case "PATH_SEPARATED_PREFIX":
      return { pathSeparatedPrefix: route.matchValue };
    // connect_matcher and path_match_policy are kept in extra.match.
    case "CONNECT":
    case "PATH_MATCH_POLICY":
      return {};
  }
}

function routeMatchJson(route: RouteSpec): JsonObject {
  const pattern = pathSpecifierJson(route);
  return definedEntries({
    ...((route.extra.match as JsonObject | undefined) ?? {}),
    ...pattern,
    caseSensitive: route.caseSensitive ? undefined : false,
    headers: route.headers.length > 0 ? route.headers : undefined,
    queryParameters: route.queryParameters.length > 0 ? route.queryParameters : undefined,
  });
}

/** The cluster specifier the model holds; the per-request ones are kept in extra.route. */
function clusterSpecifierJson(route: RouteSpec): JsonObject {
  switch (route.actionKind) {
    case "WEIGHTED_CLUSTERS":
      return {
        weightedClusters: {
          ...((route.extra.route as { weightedClusters?: JsonObject } | undefined)
            ?.weightedClusters ?? {}),
          clusters: route.weightedClusters.map((c) => ({
            ...c.extra,
            name: c.name,
            weight: c.weight,
          })),
        },
      };
    case "CLUSTER":
      return { cluster: route.cluster ?? "" };
    default:
      return {};
  }
}

function routeActionJson(route: RouteSpec): JsonObject {
  const target = clusterSpecifierJson(route);
  return definedEntries({
    ...((route.extra.route as JsonObject | undefined) ?? {}),
    ...target,
    timeout: route.timeoutMs === null ? undefined : durationJson(route.timeoutMs),
    retryPolicy: route.retryPolicy ?? undefined,
    prefixRewrite: route.prefixRewrite ?? undefined,
  });
}

/** envoy.config.route.v3.Route */
export function routeJson(route: RouteSpec): JsonObject {
  const { match: _match, route: _route, ...extra } = route.extra;
  const action: JsonObject =
    route.actionKind === "REDIRECT"
      ? { redirect: route.redirect ?? {} }
      : route.actionKind === "DIRECT_RESPONSE"
        ? { directResponse: route.directResponse ?? {} }
        : // non_forwarding_action and filter_action are kept in extra.
          route.actionKind === "NON_FORWARDING" || route.actionKind === "FILTER_ACTION"
          ? {}
          : { route: routeActionJson(route) };
  return definedEntries({
    ...extra,
    name: route.name || undefined,
    match: routeMatchJson(route),
    ...action,
  });
}

function virtualHostJson(virtualHost: VirtualHostSpec): JsonObject {
  return {
    ...virtualHost.extra,
    name: virtualHost.name,
    domains: virtualHost.domains,
    routes: virtualHost.routes.map(routeJson),
  };
}

/**
 * envoy.config.route.v3.RouteConfiguration. With on-demand virtual hosts (VHDS) the virtual hosts
 * are not inline: `vhds` tells the proxy to request them over ADS, which must then be Delta
 * (Envoy refuses VHDS over a SotW ADS stream: "vhds: ADS must use DELTA_GRPC api_type").
 */
export function routeConfigurationJson(routeConfiguration: RouteConfigurationSpec): JsonObject {
  // extra.vhds holds what of `vhds` the model does not (its config source's own fields).
  const { vhds: vhdsExtra, ...extra } = routeConfiguration.extra;
  if (routeConfiguration.vhds) {
    const kept = objectOrEmpty(vhdsExtra);
    return {
      ...extra,
      name: routeConfiguration.name,
      vhds: { ...kept, configSource: adsConfigSource(kept.configSource) },
    };
  }
  return {
    ...extra,
    name: routeConfiguration.name,
    virtualHosts: routeConfiguration.virtualHosts.map(virtualHostJson),
  };
}

/**
 * A route configuration as `get -o yaml`, export and the console show it and `apply` reads it:
 * with on-demand virtual hosts, `vhds` and the virtual hosts it serves on demand (Envoy accepts
 * both in one RouteConfiguration; import reads `vhds` as "serve these on demand").
 */
export function routeConfigurationFormJson(routeConfiguration: RouteConfigurationSpec): JsonObject {
  if (!routeConfiguration.vhds) return routeConfigurationJson(routeConfiguration);
  return {
    ...routeConfigurationJson(routeConfiguration),
    virtualHosts: routeConfiguration.virtualHosts.map(virtualHostJson),
  };
}

/**
 * envoy.config.route.v3.VirtualHost as VHDS sends it: named by its resource name
 * `<route configuration>/<virtual host>` (vhds.ts), since Envoy keys the virtual hosts it got over
 * VHDS by their `name` and drops them by the names in `removed_resources`, and a VHDS name cannot
 * clash with a virtual host named in the route configuration itself.
 */
export function vhdsVirtualHostJson(
  routeConfiguration: RouteConfigurationSpec,
  virtualHost: VirtualHostSpec,
): JsonObject {
  return {
    ...virtualHostJson(virtualHost),
    name: vhdsResourceName(routeConfiguration.name, virtualHost.name),
  };
}

/** The router, recognised by its name or, whatever it is named, by its typed config. */
/**
 * Whether an HTTP filter is the router: by its typed config's type when it has one (Envoy picks
 * the factory by type, whatever the filter is named), else by its name.
 */
export function isRouterFilter(filter: JsonValue): boolean {
  const type = typedConfigType(filter);
  if (type !== undefined) return type === ROUTER_TYPE.slice(TYPE_PREFIX.length);
  return objectOrEmpty(filter).name === ROUTER_FILTER_NAME;
}

export const ON_DEMAND_FILTER_NAME = "envoy.filters.http.on_demand";
const ON_DEMAND_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.http.on_demand.v3.OnDemand`;

/** The on_demand filter, recognised by its name or, whatever it is named, by its typed config. */
function isOnDemandFilter(filter: JsonValue): boolean {
  const object = objectOrEmpty(filter);
  return (
    object.name === ON_DEMAND_FILTER_NAME ||
    objectOrEmpty(object.typedConfig)["@type"] === ON_DEMAND_TYPE
  );
}

/**
 * The HTTP filters of a chain, with the router appended when the stored list lacks it; and, when
 * the chain loads a route configuration with on-demand virtual hosts (`onDemand`), Envoy's
 * on_demand filter before the router unless the list has one: it is what makes Envoy request the
 * virtual host of a Host it lacks ("On-demand VHDS Updates": "The filter should be placed before
 * envoy.filters.http.router"); without it such a request gets a 404 and nothing is requested.
 */
function httpFiltersJson(chain: FilterChainSpec, onDemand: boolean): readonly JsonValue[] {
  const router = { name: ROUTER_FILTER_NAME, typedConfig: { "@type": ROUTER_TYPE } };
  const filters = chain.httpFilters.some(isRouterFilter)
    ? chain.httpFilters
    : [...chain.httpFilters, router];
  return onDemand ? withOnDemandFilter(filters) : filters;
}

/**
 * HTTP filters ending in the router, with Envoy's on_demand filter before the router unless they
 * have one: what a chain loading an on-demand (VHDS) route configuration needs (httpFiltersJson).
 */
export function withOnDemandFilter(filters: readonly JsonValue[]): readonly JsonValue[] {
  if (filters.some(isOnDemandFilter)) return filters;
  const router = filters.findIndex(isRouterFilter);
  const at = router === -1 ? filters.length : router;
  return [
    ...filters.slice(0, at),
    { name: ON_DEMAND_FILTER_NAME, typedConfig: { "@type": ON_DEMAND_TYPE } },
    ...filters.slice(at),
  ];
}

/**
 * envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager, as the
 * `typedConfig` of a filter (with its `@type`).
 */
export function httpConnectionManagerJson(
  chain: FilterChainSpec,
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): JsonObject {
  let routeSpecifier: JsonObject = {};
  if (chain.rdsRouteConfigName !== null) {
    // What of `rds` the model does not hold (its config source's initial_fetch_timeout, ...) is
    // kept in hcmExtra.rds.
    const kept = objectOrEmpty(chain.hcmExtra.rds);
    routeSpecifier = {
      rds: {
        ...kept,
        configSource: adsConfigSource(kept.configSource),
        routeConfigName: chain.rdsRouteConfigName,
      },
    };
  } else if (chain.inlineRouteConfigName !== null) {
    const inline = inlineRoutes(chain.inlineRouteConfigName);
    routeSpecifier = {
      routeConfig: inline ? routeConfigurationJson(inline) : { name: chain.inlineRouteConfigName },
    };
  }
  return definedEntries({
    "@type": `${TYPE_PREFIX}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`,
    ...chain.hcmExtra,
    statPrefix: chain.statPrefix,
    ...routeSpecifier,
    httpFilters: httpFiltersJson(
      chain,
      chain.rdsRouteConfigName !== null && inlineRoutes(chain.rdsRouteConfigName)?.vhds === true,
    ),
    accessLog: chain.accessLog.length > 0 ? chain.accessLog : undefined,
  });
}

function filterChainJson(
  chain: FilterChainSpec,
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): JsonObject {
  const secret = chain.tlsSecretName;
  return definedEntries({
    ...chain.extra,
    name: chain.name || undefined,
    filterChainMatch:
      chain.serverNames.length > 0
        ? { ...objectOrEmpty(chain.extra.filterChainMatch), serverNames: chain.serverNames }
        : chain.extra.filterChainMatch,
    filters: chain.networkOnly
      ? chain.networkFilters
      : [
          ...chain.networkFilters,
          { name: HCM_FILTER_NAME, typedConfig: httpConnectionManagerJson(chain, inlineRoutes) },
        ],
    transportSocket: secret
      ? tlsTransportSocketJson(
          chain.extra.transportSocket,
          "DownstreamTlsContext",
          (commonTlsContext) => ({
            ...commonTlsContext,
            tlsCertificateSdsSecretConfigs: [sdsSecret(secret)],
          }),
        )
      : chain.extra.transportSocket,
  });
}

/** envoy.config.listener.v3.Listener */
export function listenerJson(
  listener: ListenerSpec,
  inlineRoutes: (name: string) => RouteConfigurationSpec | undefined,
): JsonObject {
  if (listener.apiListener) {
    const [chain] = listener.filterChains;
    return definedEntries({
      ...listener.extra,
      name: listener.name,
      apiListener: chain
        ? { apiListener: httpConnectionManagerJson(chain, inlineRoutes) }
        : undefined,
    });
  }
  const fallback = listener.filterChains.find((chain) => chain.isDefault);
  return definedEntries({
    ...listener.extra,
    name: listener.name,
    // An internal listener has no address (`internal_listener`, model.ts).
    address:
      listener.address === null
        ? listener.extra.address
        : addressJson(listener.extra.address, listener.address, listener.port ?? 0),
    filterChains: listener.filterChains
      .filter((chain) => !chain.isDefault)
      .map((chain) => filterChainJson(chain, inlineRoutes)),
    defaultFilterChain: fallback ? filterChainJson(fallback, inlineRoutes) : undefined,
  });
}

/**
 * envoy.service.runtime.v3.Runtime: the layer as one flat Struct, keys sorted. Envoy joins nested
 * Struct keys with "." (its runtime ProtoLayer), so `{"a.b": 1}` and `{a: {b: 1}}` are the same
 * runtime key; flat keys are what the console edits and what a reader greps for.
 */
export function runtimeJson(layer: RuntimeLayerSpec): JsonObject {
  const entries = [...layer.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    name: layer.name,
    layer: Object.fromEntries(entries.map((entry) => [entry.key, entry.value])),
  };
}

/** What the compiler opened of a sealed secret (compile.ts): never stored, never shown. */
export interface OpenedSecret {
  /** TLS_CERTIFICATE: the private key, PKCS#8 PEM. */
  readonly privateKey?: string;
  /** GENERIC_SECRET and SESSION_TICKET_KEYS: each value's bytes as base64 (proto3 JSON bytes). */
  readonly values?: readonly string[];
}

/**
 * envoy.extensions.transport_sockets.tls.v3.Secret, with the private key or the values as
 * `opened` (compile.ts opens the sealed ones). Without `opened` they are left out: the form shown
 * to people (envoy-form.ts), never served.
 *
 * A generic secret and ticket keys are served as `inline_bytes`: a value is bytes (a file may be
 * binary), and Envoy hands a generic secret's bytes to the filter as they are (its
 * Config::DataSource::read reads inline_bytes and inline_string alike).
 */
export function secretJson(secret: SecretSpec, opened?: OpenedSecret): JsonObject {
  const bytes = (values: readonly string[] | undefined) =>
    values?.map((value) => ({ inlineBytes: value }));
  switch (secret.type) {
    case "TLS_CERTIFICATE":
      return {
        name: secret.name,
        tlsCertificate: definedEntries({
          certificateChain: { inlineString: secret.certificateChain },
          privateKey:
            opened?.privateKey === undefined ? undefined : { inlineString: opened.privateKey },
        }),
      };
    case "VALIDATION_CONTEXT":
      return {
        name: secret.name,
        validationContext: definedEntries({
          trustedCa: { inlineString: secret.trustedCa },
          matchTypedSubjectAltNames:
            secret.matchSubjectAltNames.length > 0
              ? secret.matchSubjectAltNames.map((san) => ({
                  sanType: "DNS",
                  matcher: { exact: san },
                }))
              : undefined,
        }),
      };
    case "GENERIC_SECRET":
      return {
        name: secret.name,
        genericSecret: definedEntries({ secret: bytes(opened?.values)?.[0] }),
      };
    case "SESSION_TICKET_KEYS":
      return {
        name: secret.name,
        sessionTicketKeys: definedEntries({ keys: bytes(opened?.values) }),
      };
  }
}
