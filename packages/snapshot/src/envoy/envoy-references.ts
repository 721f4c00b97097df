/**
 * The names an Envoy message refers to in other xDS resources: the clusters it sends traffic or
 * calls to, the secrets it fetches over SDS, the route configurations it fetches over RDS and the
 * internal listeners it connects to.
 * Found with the shared walk (envoy-walk.ts), so references inside typed configs (Any and
 * TypedStruct) count: an ext_authz filter's gRPC cluster, a tracer's collector cluster, a TCP proxy
 * cluster in a listener's filter chain.
 *
 * The table below is by message type and field, each row citing the Envoy field it reads (the
 * field's page in the Envoy API reference: envoy_v3_api_field_<type>.<field>). A row applies
 * wherever its message appears, so `GrpcService.EnvoyGrpc.cluster_name` covers every gRPC service
 * (ext_authz, rate limit, ext_proc, gRPC access loggers, OpenTelemetry and SkyWalking tracers, ...)
 * and `HttpUri.cluster` every HTTP fetch (JWKS, OAuth2 token endpoint, ext_authz HTTP service,
 * remote Wasm code, ...). An empty name is no reference (it breaks a rule instead, envoy-rules.ts).
 */
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import type { JsonValue, SecretType } from "../model.js";
import { envoyFromJson } from "./envoy-proto-json.js";
import { SDS_SECRET_CONFIG, secretTypeOfField } from "./envoy-secret-fields.js";
import { type EnvoyVisitor, type Segment, walkEnvoy } from "./envoy-walk.js";

export type ReferenceKind = "cluster" | "secret" | "routeConfiguration" | "listener";

/** Every kind of reference, for code that must decide on each (a new kind fails its checks). */
export const REFERENCE_KINDS: readonly ReferenceKind[] = [
  "cluster",
  "secret",
  "routeConfiguration",
  "listener",
];

/** A name `at` a path of the message, naming a resource of `kind`. */
export interface EnvoyReference {
  readonly kind: ReferenceKind;
  readonly name: string;
  readonly at: readonly Segment[];
  /**
   * A secret reference: the kind of secret the field holding its SdsSecretConfig takes
   * (envoy-secret-fields.ts); absent for a field that table lacks, and for other kinds.
   */
  readonly secretType?: SecretType;
}

/** One row of the table: where a message type holds a name of another resource. */
export interface ReferenceRow {
  /** The message type holding the name. */
  readonly type: string;
  /** The field holding it (proto name): a string, or a list of strings. */
  readonly field: string;
  readonly kind: ReferenceKind;
  /** When the name is a reference only under a condition on the message holding it. */
  readonly when?: (message: Fields) => boolean;
}

type Fields = Record<string, unknown>;

/**
 * True when the `ConfigSource` field `configSourceField` (its protobuf-es name) is unset or names
 * the management server that serves this config: `ads` ("ADS will be used to fetch resources") or
 * `self` (the server the resource came from). A path or another server is a source of its own,
 * whose resources are none of the snapshot's.
 */
function fromThisServer(configSourceField: string) {
  return (message: Fields): boolean => {
    const source = message[configSourceField] as
      | { configSourceSpecifier: { case?: string } }
      | undefined;
    const from = source?.configSourceSpecifier.case;
    return from === undefined || from === "ads" || from === "self";
  };
}

/** The table `findReferences` reads, exported to be read (and checked against the registry). */
export const REFERENCE_ROWS: readonly ReferenceRow[] = [
  // --- Clusters: HTTP routing (envoy.config.route.v3) ---
  // RouteAction.cluster: "the upstream cluster to which the request should be routed".
  { type: "envoy.config.route.v3.RouteAction", field: "cluster", kind: "cluster" },
  // WeightedCluster.ClusterWeight.name: each of RouteAction.weighted_clusters.clusters[]; also
  // dubbo_proxy's RouteAction.weighted_clusters, which uses this message.
  { type: "envoy.config.route.v3.WeightedCluster.ClusterWeight", field: "name", kind: "cluster" },
  // RouteAction.RequestMirrorPolicy.cluster: request_mirror_policies[].cluster, "the cluster that
  // requests will be mirrored to. The cluster must exist".
  {
    type: "envoy.config.route.v3.RouteAction.RequestMirrorPolicy",
    field: "cluster",
    kind: "cluster",
  },
  // --- Clusters: TCP and UDP proxies ---
  // extensions.filters.network.tcp_proxy.v3.TcpProxy.cluster: "the upstream cluster to connect to".
  {
    type: "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
    field: "cluster",
    kind: "cluster",
  },
  // TcpProxy.WeightedCluster.ClusterWeight.name: TcpProxy.weighted_clusters.clusters[].name.
  {
    type: "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.WeightedCluster.ClusterWeight",
    field: "name",
    kind: "cluster",
  },
  // extensions.filters.udp.udp_proxy.v3.UdpProxyConfig.cluster (deprecated for `matcher`).
  {
    type: "envoy.extensions.filters.udp.udp_proxy.v3.UdpProxyConfig",
    field: "cluster",
    kind: "cluster",
  },
  // extensions.filters.udp.udp_proxy.v3.Route.cluster: the action of UdpProxyConfig.matcher.
  { type: "envoy.extensions.filters.udp.udp_proxy.v3.Route", field: "cluster", kind: "cluster" },
  // --- Clusters: other network proxies ---
  // redis_proxy.v3.RedisProxy.PrefixRoutes.Route.cluster: routes[] and catch_all_route.
  {
    type: "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy.PrefixRoutes.Route",
    field: "cluster",
    kind: "cluster",
  },
  // RedisProxy.PrefixRoutes.Route.RequestMirrorPolicy.cluster: "the cluster that requests will be
  // mirrored to. The cluster must exist".
  {
    type: "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy.PrefixRoutes.Route.RequestMirrorPolicy",
    field: "cluster",
    kind: "cluster",
  },
  // RedisProxy.PrefixRoutes.Route.ReadCommandPolicy.cluster: where read commands are routed.
  {
    type: "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy.PrefixRoutes.Route.ReadCommandPolicy",
    field: "cluster",
    kind: "cluster",
  },
  // thrift_proxy.v3.RouteAction.cluster: "a single upstream cluster to which the request should be
  // routed".
  {
    type: "envoy.extensions.filters.network.thrift_proxy.v3.RouteAction",
    field: "cluster",
    kind: "cluster",
  },
  // thrift_proxy.v3.WeightedCluster.ClusterWeight.name: "name of the upstream cluster".
  {
    type: "envoy.extensions.filters.network.thrift_proxy.v3.WeightedCluster.ClusterWeight",
    field: "name",
    kind: "cluster",
  },
  // thrift_proxy.v3.RouteAction.RequestMirrorPolicy.cluster: "must exist in the cluster manager
  // configuration when the route configuration is loaded".
  {
    type: "envoy.extensions.filters.network.thrift_proxy.v3.RouteAction.RequestMirrorPolicy",
    field: "cluster",
    kind: "cluster",
  },
  // dubbo_proxy.v3.RouteAction.cluster: "the upstream cluster to which the request should be routed".
  {
    type: "envoy.extensions.filters.network.dubbo_proxy.v3.RouteAction",
    field: "cluster",
    kind: "cluster",
  },
  // --- Clusters: services Envoy calls ---
  // config.core.v3.GrpcService.EnvoyGrpc.cluster_name: "the name of the upstream gRPC cluster".
  { type: "envoy.config.core.v3.GrpcService.EnvoyGrpc", field: "cluster_name", kind: "cluster" },
  // config.core.v3.HttpUri.cluster: "a cluster is created in the Envoy "cluster_manager" config
  // section. This field specifies the cluster name".
  { type: "envoy.config.core.v3.HttpUri", field: "cluster", kind: "cluster" },
  // config.core.v3.ApiConfigSource.cluster_names: the clusters of a REST xDS server.
  { type: "envoy.config.core.v3.ApiConfigSource", field: "cluster_names", kind: "cluster" },
  // access_loggers.fluentd.v3.FluentdAccessLogConfig.cluster: "the upstream cluster to connect to
  // for streaming the Fluentd messages".
  {
    type: "envoy.extensions.access_loggers.fluentd.v3.FluentdAccessLogConfig",
    field: "cluster",
    kind: "cluster",
  },
  // filters.http.gcp_authn.v3.GcpAuthnFilterConfig.cluster: "cluster to send traffic to the GCE
  // metadata server".
  {
    type: "envoy.extensions.filters.http.gcp_authn.v3.GcpAuthnFilterConfig",
    field: "cluster",
    kind: "cluster",
  },
  // config.metrics.v3.StatsdSink.tcp_cluster_name: the cluster a TCP statsd sink flushes to.
  { type: "envoy.config.metrics.v3.StatsdSink", field: "tcp_cluster_name", kind: "cluster" },
  // config.trace.v3.ZipkinConfig.collector_cluster: "the cluster that hosts the Zipkin collectors".
  { type: "envoy.config.trace.v3.ZipkinConfig", field: "collector_cluster", kind: "cluster" },
  // config.trace.v3.DatadogConfig.collector_cluster: "the cluster that hosts the Datadog agent".
  { type: "envoy.config.trace.v3.DatadogConfig", field: "collector_cluster", kind: "cluster" },
  // config.trace.v3.LightstepConfig.collector_cluster: "the cluster manager cluster that hosts the
  // LightStep collectors".
  { type: "envoy.config.trace.v3.LightstepConfig", field: "collector_cluster", kind: "cluster" },
  // clusters.aggregate.v3.ClusterConfig.clusters: the member clusters, in priority order.
  {
    type: "envoy.extensions.clusters.aggregate.v3.ClusterConfig",
    field: "clusters",
    kind: "cluster",
  },
  // router.cluster_specifiers.lua.v3.LuaConfig.default_cluster: used when the script names none.
  {
    type: "envoy.extensions.router.cluster_specifiers.lua.v3.LuaConfig",
    field: "default_cluster",
    kind: "cluster",
  },
  // data.dns.v3.DnsTable.DnsEndpoint.cluster_name: "a cluster whose addresses are returned" (the
  // dns_filter UDP listener filter's inline table).
  { type: "envoy.data.dns.v3.DnsTable.DnsEndpoint", field: "cluster_name", kind: "cluster" },
  // data.dns.v3.DnsTable.DnsServiceTarget.cluster_name: "a cluster name as the endpoint for a
  // service".
  { type: "envoy.data.dns.v3.DnsTable.DnsServiceTarget", field: "cluster_name", kind: "cluster" },
  // config.bootstrap.v3.ClusterManager.local_cluster_name: the local cluster, for zone aware routing.
  {
    type: "envoy.config.bootstrap.v3.ClusterManager",
    field: "local_cluster_name",
    kind: "cluster",
  },
  // Not a reference: filters.http.fault.v3.HTTPFault.upstream_cluster restricts faults to
  // requests bound to a cluster; it names no cluster that must exist.

  // --- Secrets ---
  // transport_sockets.tls.v3.SdsSecretConfig.name: every TLS certificate, validation context and
  // session ticket key given by name, and the OAuth2 filter's token and HMAC secrets. A secret of
  // the snapshot when fetched over ADS (or `self`), or when `sds_config` is unset (PGV allows it:
  // "when only name is specified, then secret will be loaded from static resources"); one read
  // from a path or another server is not.
  {
    type: "envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig",
    field: "name",
    kind: "secret",
    when: fromThisServer("sdsConfig"),
  },
  // --- Route configurations ---
  // http_connection_manager.v3.Rds.route_config_name: HttpConnectionManager.rds, fetched over
  // Rds.config_source.
  {
    type: "envoy.extensions.filters.network.http_connection_manager.v3.Rds",
    field: "route_config_name",
    kind: "routeConfiguration",
    when: fromThisServer("configSource"),
  },
  // config.route.v3.ScopedRouteConfiguration.route_configuration_name: the route table of a scope,
  // fetched over the RDS config source of HttpConnectionManager.scoped_routes.
  {
    type: "envoy.config.route.v3.ScopedRouteConfiguration",
    field: "route_configuration_name",
    kind: "routeConfiguration",
  },
  // --- Internal listeners ---
  // config.core.v3.EnvoyInternalAddress.server_listener_name: "the name of the internal listener"
  // an endpoint or an address connects to, inside the same Envoy (an endpoint written
  // envoy://NAME, envoy-address.ts).
  {
    type: "envoy.config.core.v3.EnvoyInternalAddress",
    field: "server_listener_name",
    kind: "listener",
  },
];

interface Lookup {
  readonly field: DescField;
  readonly kind: ReferenceKind;
  readonly when: ((message: Fields) => boolean) | undefined;
}

const rowsByType = new Map<string, ReferenceRow[]>();
for (const row of REFERENCE_ROWS) {
  const rows = rowsByType.get(row.type) ?? [];
  rows.push(row);
  rowsByType.set(row.type, rows);
}

const lookups = new WeakMap<DescMessage, readonly Lookup[]>();

function lookupsOf(desc: DescMessage): readonly Lookup[] {
  let found = lookups.get(desc);
  if (found === undefined) {
    found = (rowsByType.get(desc.typeName) ?? []).flatMap((row) => {
      const field = desc.fields.find((f) => f.name === row.field);
      // A row the registry's protos lack (Envoy renamed or removed the field) finds nothing.
      return field ? [{ field, kind: row.kind, when: row.when }] : [];
    });
    lookups.set(desc, found);
  }
  return found;
}

/** Every reference in `message` (of type `desc`) and what it holds, in walk order. */
export function findReferences(
  desc: DescMessage,
  message: Message,
  at: readonly Segment[] = [],
): EnvoyReference[] {
  const out: EnvoyReference[] = [];
  walkEnvoy(desc, message, referencesVisitor(out), at);
  return out;
}

/** The walk visitor `findReferences` uses, adding to `out`. */
export function referencesVisitor(out: EnvoyReference[]): EnvoyVisitor {
  // The field an SdsSecretConfig is held by, set as the walk visits it and read as the walk enters
  // the message right after (envoy-walk.ts: `value` comes just before the value is walked).
  let holder: DescField | undefined;
  return {
    value(field) {
      if (
        field.fieldKind !== "scalar" &&
        field.fieldKind !== "enum" &&
        field.message?.typeName === SDS_SECRET_CONFIG
      )
        holder = field;
      return true;
    },
    enter(desc, message, at) {
      const fields = message as unknown as Fields;
      let secretType: SecretType | undefined;
      if (desc.typeName === SDS_SECRET_CONFIG) {
        secretType = holder && secretTypeOfField(holder);
        holder = undefined;
      }
      for (const { field, kind, when } of lookupsOf(desc)) {
        if (when && !when(fields)) continue;
        const value = field.oneof
          ? (fields[field.oneof.localName] as { case: unknown; value: unknown })
          : undefined;
        if (value && value.case !== field.localName) continue;
        const names = value ? value.value : fields[field.localName];
        const typed = kind === "secret" && secretType !== undefined ? { secretType } : {};
        if (typeof names === "string") {
          if (names !== "") out.push({ kind, name: names, at: [...at, field.jsonName], ...typed });
        } else if (Array.isArray(names)) {
          names.forEach((name: unknown, i) => {
            if (typeof name === "string" && name !== "") {
              out.push({ kind, name, at: [...at, field.jsonName, i], ...typed });
            }
          });
        }
      }
      return true;
    },
  };
}

/**
 * The references in `json`, proto3 JSON of the message `typeName` (a network filter, an HTTP
 * filter, a stored `extra`): what a check of one stored part needs without compiling it. Empty
 * when the JSON does not decode (validation says why).
 */
export function findReferencesInJson(typeName: string, json: JsonValue): EnvoyReference[] {
  const desc = registry.getMessage(typeName);
  if (!desc) return [];
  try {
    return findReferences(desc, envoyFromJson(desc, json));
  } catch {
    return [];
  }
}
