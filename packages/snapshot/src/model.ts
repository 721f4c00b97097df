/**
 * The stored configuration as plain, immutable data: what the database layer reads from Postgres
 * and what the compiler turns into Envoy resources. It mirrors prisma/schema.prisma without the
 * database's surrogate ids, so the compiler and its tests never need a database.
 *
 * `extra` fields hold the Envoy fields Switchyard does not model as columns, as canonical proto3
 * JSON of the same message; the compiler merges them under the modelled fields.
 */

export type JsonObject = { readonly [key: string]: JsonValue };
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/**
 * How a cluster finds its endpoints: Envoy's `type` (EDS, STATIC, STRICT_DNS, LOGICAL_DNS,
 * ORIGINAL_DST), or CUSTOM for a `cluster_type` extension (aggregate, dynamic forward proxy,
 * redis, ...), which is kept in `extra.clusterType`.
 */
export type DiscoveryType =
  | "EDS"
  | "STATIC"
  | "STRICT_DNS"
  | "LOGICAL_DNS"
  | "ORIGINAL_DST"
  | "CUSTOM";
export type LbPolicy =
  | "ROUND_ROBIN"
  | "LEAST_REQUEST"
  | "RING_HASH"
  | "RANDOM"
  | "MAGLEV"
  | "CLUSTER_PROVIDED"
  /** The policy is `load_balancing_policy` (an extension), kept in `extra`. */
  | "LOAD_BALANCING_POLICY_CONFIG";
export type HealthStatus =
  | "UNKNOWN"
  | "HEALTHY"
  | "UNHEALTHY"
  | "DRAINING"
  | "TIMEOUT"
  | "DEGRADED";

export interface EndpointSpec {
  /**
   * An IP literal or a host name (a socket address, with `port`), `unix://PATH` (a Unix domain
   * socket) or `envoy://LISTENER` (an internal listener of the same proxy): envoy-address.ts.
   */
  readonly address: string;
  /** The socket address's port; 0 for a Unix socket or an internal address, which have none. */
  readonly port: number;
  readonly weight: number | null;
  readonly healthStatus: HealthStatus;
  readonly extra: JsonObject;
}

export interface LocalitySpec {
  readonly region: string;
  readonly zone: string;
  readonly subZone: string;
  readonly weight: number | null;
  readonly priority: number;
  readonly extra: JsonObject;
  readonly endpoints: readonly EndpointSpec[];
}

export interface ClusterSpec {
  readonly name: string;
  readonly discoveryType: DiscoveryType;
  readonly lbPolicy: LbPolicy;
  readonly connectTimeoutMs: number;
  readonly http2: boolean;
  /**
   * Ask the proxies for the cluster's load over LRS: compiled as `lrs_server: { self: {} }`
   * (proxyless gRPC reports to the server it gets the cluster from), and named in the
   * LoadStatsResponse to every proxy (Envoy reports the clusters it is asked for).
   */
  readonly reportLoad: boolean;
  readonly healthChecks: readonly JsonValue[];
  readonly circuitBreakers: JsonObject | null;
  readonly outlierDetection: JsonObject | null;
  readonly tlsSecretName: string | null;
  readonly edsServiceName: string | null;
  readonly extra: JsonObject;
  readonly assignmentExtra: JsonObject;
  readonly localities: readonly LocalitySpec[];
}

/**
 * A filter chain. Most chains end in an HTTP connection manager, which is modelled (the fields from
 * `statPrefix` to `hcmExtra`); the network filters before it, and every filter of a chain without
 * one (`networkOnly`: tcp_proxy, redis_proxy, a contrib filter, ...), are kept as Envoy wrote them
 * in `networkFilters`, in order.
 */
export interface FilterChainSpec {
  readonly name: string;
  /**
   * The listener's `default_filter_chain`: it takes the connections no other chain matches (Envoy
   * closes them when there is none). At most one chain of a listener is the default; it is stored
   * among the others (last, as imported) and compiled apart from `filter_chains`.
   */
  readonly isDefault: boolean;
  readonly serverNames: readonly string[];
  readonly tlsSecretName: string | null;
  /**
   * envoy.config.listener.v3.Filter[] as proto3 JSON: the network filters before the HTTP
   * connection manager (Envoy requires a terminal filter such as it to come last), or all of the
   * chain's filters when `networkOnly`.
   */
  readonly networkFilters: readonly JsonValue[];
  /** The chain has no HTTP connection manager: `networkFilters` are all its filters. */
  readonly networkOnly: boolean;
  readonly statPrefix: string;
  readonly rdsRouteConfigName: string | null;
  readonly inlineRouteConfigName: string | null;
  readonly httpFilters: readonly JsonValue[];
  readonly accessLog: readonly JsonValue[];
  readonly hcmExtra: JsonObject;
  readonly extra: JsonObject;
}

export interface ListenerSpec {
  readonly name: string;
  readonly apiListener: boolean;
  /**
   * What the listener binds: an IP literal (with `port`) or `unix://PATH` (envoy-address.ts).
   * Null for an api_listener (clients dial it by name) and for an internal listener
   * (`extra.internalListener`: clusters reach it as `envoy://NAME`), which bind nothing.
   */
  readonly address: string | null;
  /** The socket address's port; null when `address` is no socket address or is null. */
  readonly port: number | null;
  readonly extra: JsonObject;
  readonly filterChains: readonly FilterChainSpec[];
}

/**
 * How a route matches the path. PREFIX, PATH, SAFE_REGEX and PATH_SEPARATED_PREFIX carry their
 * pattern in `matchValue`; CONNECT (`connect_matcher`) and PATH_MATCH_POLICY (an extension such as
 * a URI template) keep theirs in `extra.match`, and leave `matchValue` empty.
 */
export type RouteMatchKind =
  | "PREFIX"
  | "PATH"
  | "SAFE_REGEX"
  | "PATH_SEPARATED_PREFIX"
  | "CONNECT"
  | "PATH_MATCH_POLICY";
/**
 * What a route does. CLUSTER and WEIGHTED_CLUSTERS forward to the clusters named in the model;
 * CLUSTER_HEADER, CLUSTER_SPECIFIER_PLUGIN and INLINE_CLUSTER_SPECIFIER_PLUGIN forward to a
 * cluster chosen per request, by what `extra.route` holds; REDIRECT and DIRECT_RESPONSE answer
 * from Envoy; NON_FORWARDING and FILTER_ACTION (`non_forwarding_action`, `filter_action`) leave
 * the request to the filters, their config in `extra`.
 */
export type RouteActionKind =
  | "CLUSTER"
  | "WEIGHTED_CLUSTERS"
  | "REDIRECT"
  | "DIRECT_RESPONSE"
  | "CLUSTER_HEADER"
  | "CLUSTER_SPECIFIER_PLUGIN"
  | "INLINE_CLUSTER_SPECIFIER_PLUGIN"
  | "NON_FORWARDING"
  | "FILTER_ACTION";

export interface WeightedClusterSpec {
  readonly name: string;
  readonly weight: number;
  /**
   * The entry's other fields (envoy.config.route.v3.WeightedCluster.ClusterWeight: headers to add
   * or remove, typed_per_filter_config, host_rewrite_literal, ...) as proto3 JSON; absent when
   * there are none.
   */
  readonly extra?: JsonObject;
}

export interface RouteSpec {
  readonly name: string;
  readonly matchKind: RouteMatchKind;
  readonly matchValue: string;
  readonly caseSensitive: boolean;
  readonly headers: readonly JsonValue[];
  readonly queryParameters: readonly JsonValue[];
  readonly actionKind: RouteActionKind;
  readonly cluster: string | null;
  readonly weightedClusters: readonly WeightedClusterSpec[];
  readonly redirect: JsonObject | null;
  readonly directResponse: JsonObject | null;
  readonly timeoutMs: number | null;
  readonly retryPolicy: JsonObject | null;
  readonly prefixRewrite: string | null;
  readonly extra: JsonObject;
}

export interface VirtualHostSpec {
  readonly name: string;
  readonly domains: readonly string[];
  readonly extra: JsonObject;
  readonly routes: readonly RouteSpec[];
}

export interface RouteConfigurationSpec {
  readonly name: string;
  /**
   * On-demand virtual hosts (VHDS): sent over RDS without its virtual hosts, each of which a proxy
   * requests over Delta xDS by the Host header it sees (Envoy's "Virtual Host Discovery Service
   * (VHDS)" page; vhds.ts). Only for route configurations loaded over RDS.
   */
  readonly vhds: boolean;
  readonly extra: JsonObject;
  readonly virtualHosts: readonly VirtualHostSpec[];
}

export interface NodeGroupSpec {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly nodeIds: readonly string[];
  readonly nodeClusters: readonly string[];
  readonly nodeMetadata: { readonly [key: string]: string };
  /** Names of the listeners this group's nodes receive. */
  readonly listeners: readonly string[];
  /** Names of the clusters this group's nodes receive. */
  readonly clusters: readonly string[];
  /**
   * The largest xDS response this group's clients accept, in bytes, when their gRPC max receive
   * message size was raised above the server's limit (`switchyard serve --xds-max-response-bytes`,
   * default 4 MiB, gRPC's default). Absent: the server's limit. Responses to the group's nodes
   * are split at it, and validation refuses only what does not fit under it (response-size.ts).
   */
  readonly maxResponseBytes?: number;
}

/** A runtime value as Envoy's runtime reads it: a string, a number or a boolean. */
export type RuntimeValue = string | number | boolean;

/** One runtime key and its value: `fault.http.abort.abort_percent: 10`. */
export interface RuntimeEntrySpec {
  readonly key: string;
  readonly value: RuntimeValue;
}

/**
 * A runtime layer (RTDS, envoy.service.runtime.v3.Runtime): a named set of runtime keys that a
 * proxy whose bootstrap names the layer (layered_runtime.layers[].rtds_layer.name) subscribes to.
 * Entries are kept sorted by key (the API sorts them), so equal layers are equal specs.
 *
 * Node groups do not select runtime layers: every group gets every layer, and a proxy receives
 * only the layers its bootstrap names (RTDS is always subscribed by name).
 */
export interface RuntimeLayerSpec {
  readonly name: string;
  readonly entries: readonly RuntimeEntrySpec[];
}

/**
 * The kinds of envoy.extensions.transport_sockets.tls.v3.Secret Switchyard serves, one per member
 * of its `type` oneof: `tls_certificate`, `validation_context`, `generic_secret` and
 * `session_ticket_keys`.
 */
export type SecretType =
  | "TLS_CERTIFICATE"
  | "VALIDATION_CONTEXT"
  | "GENERIC_SECRET"
  | "SESSION_TICKET_KEYS";

/**
 * A secret (SDS, envoy.extensions.transport_sockets.tls.v3.Secret), one of:
 *   - a TLS certificate with its private key, which a filter chain presents (downstream TLS,
 *     FilterChainSpec.tlsSecretName);
 *   - a validation context (trusted CAs, optional SAN matches), with which a cluster checks its
 *     upstreams (ClusterSpec.tlsSecretName);
 *   - a generic secret: one value (bytes) a filter reads, such as the OAuth2 filter's token and
 *     HMAC secrets or a credential injector's credential;
 *   - session ticket keys: the keys a listener's DownstreamTlsContext encrypts and decrypts TLS
 *     session tickets with (`session_ticket_keys_sds_secret_config`), each exactly 80 bytes.
 * Which kind a field that names a secret takes is in envoy-secret-fields.ts. Proxies subscribe to
 * secrets by name over ADS.
 *
 * Secret material is never held in plaintext here: `privateKey` and every entry of `values` are
 * sealed with the server's secrets key (secret-box.ts), and only the compiler opens them, with the
 * opener its caller passes. So a spec, a source object, a diff or a stored snapshot never holds a
 * private key or a secret value in the clear. Sealing is deterministic (the same plaintext seals
 * to the same text), so an unchanged key or value is not a change.
 */
export interface SecretSpec {
  readonly name: string;
  readonly type: SecretType;
  /** TLS_CERTIFICATE: the certificate chain, PEM, leaf first. "" for the other types. */
  readonly certificateChain: string;
  /** TLS_CERTIFICATE: the sealed private key (PKCS#8 PEM inside). Null for the other types. */
  readonly privateKey: string | null;
  /** VALIDATION_CONTEXT: the trusted CA certificates, PEM. "" for the other types. */
  readonly trustedCa: string;
  /**
   * VALIDATION_CONTEXT: a peer certificate must carry one of these DNS SANs (exact match);
   * empty: any certificate the CAs signed. Empty for the other types.
   */
  readonly matchSubjectAltNames: readonly string[];
  /**
   * GENERIC_SECRET: its one value; SESSION_TICKET_KEYS: its keys, in the order Envoy uses them
   * (the first encrypts new tickets, every one decrypts). Each is sealed (secret-values.ts
   * sealValue: the bytes, base64, sealed as text). Empty for the TLS types.
   */
  readonly values: readonly string[];
}

/** Everything stored, in a stable order (by name; children by position). */
export interface ConfigSpec {
  readonly clusters: readonly ClusterSpec[];
  readonly listeners: readonly ListenerSpec[];
  readonly routeConfigurations: readonly RouteConfigurationSpec[];
  readonly nodeGroups: readonly NodeGroupSpec[];
  readonly runtimeLayers: readonly RuntimeLayerSpec[];
  readonly secrets: readonly SecretSpec[];
}

/** A spec holding just the given objects. */
export function configSpecOf(objects: Partial<ConfigSpec>): ConfigSpec {
  return {
    clusters: [],
    listeners: [],
    routeConfigurations: [],
    nodeGroups: [],
    runtimeLayers: [],
    secrets: [],
    ...objects,
  };
}
