/**
 * What the generator (envoy-arbitrary.ts) is told beyond the descriptors and their
 * `validate.rules`: Envoy's own rules that its protos do not declare (a terminal network filter
 * last, the router last, a listener binds an IP literal), and the names a case's resources share,
 * so that the references between them (a route's cluster, a listener's RDS name) often resolve.
 * Each entry replaces the generator's default for one field, by its full name.
 */
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../src/model.js";
import { ipv4, ipv6, textArbitrary } from "./envoy-arbitrary-values.js";
import { type CategoryName, ROUTER } from "./envoy-extensions.js";

/** The names a case's resources are given, and that the fields referring to them draw from. */
export const NAMES = {
  clusters: ["c0", "c1", "c2"],
  listeners: ["l0", "l1"],
  routes: ["r0", "r1"],
  secrets: ["s0", "s1"],
  runtimes: ["rt0", "rt1"],
} as const;

/** What a hint may ask of the generator: a message of a type (a level deeper), by category. */
export interface Generate {
  message(typeName: string, category?: CategoryName): fc.Arbitrary<JsonObject>;
  /** An Any of the category, `{ "@type": ..., ... }`. */
  any(category: CategoryName): fc.Arbitrary<JsonObject>;
}

export type Hint = (g: Generate) => fc.Arbitrary<JsonValue>;

const FILTER = "envoy.config.listener.v3.Filter";
const HTTP_FILTER = "envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter";
const pool = (names: readonly string[]) => () => fc.constantFrom(...names);
const clusterName = pool(NAMES.clusters);
const escapeRegex = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
const regex = fc
  .tuple(textArbitrary(1, 8), fc.constantFrom("", ".*", "(/.*)?", "|other", "[0-9]+"))
  .map(([literal, tail]) => `${escapeRegex(literal)}${tail}`);

export const FIELD_HINTS: Readonly<Record<string, Hint>> = {
  // Resource names: one pool per type (the property gives each resource of a case its own).
  "envoy.config.cluster.v3.Cluster.name": clusterName,
  "envoy.config.endpoint.v3.ClusterLoadAssignment.cluster_name": clusterName,
  "envoy.config.listener.v3.Listener.name": pool(NAMES.listeners),
  "envoy.config.route.v3.RouteConfiguration.name": pool(NAMES.routes),
  "envoy.extensions.transport_sockets.tls.v3.Secret.name": pool(NAMES.secrets),
  "envoy.service.runtime.v3.Runtime.name": pool(NAMES.runtimes),
  // References to them.
  "envoy.config.route.v3.RouteAction.cluster": clusterName,
  "envoy.config.route.v3.WeightedCluster.ClusterWeight.name": clusterName,
  "envoy.config.route.v3.RouteAction.RequestMirrorPolicy.cluster": clusterName,
  "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.cluster": clusterName,
  "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy.WeightedCluster.ClusterWeight.name":
    clusterName,
  "envoy.config.core.v3.GrpcService.EnvoyGrpc.cluster_name": clusterName,
  "envoy.config.core.v3.HttpUri.cluster": clusterName,
  "envoy.config.trace.v3.ZipkinConfig.collector_cluster": clusterName,
  "envoy.config.trace.v3.DatadogConfig.collector_cluster": clusterName,
  "envoy.config.trace.v3.LightstepConfig.collector_cluster": clusterName,
  "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy.PrefixRoutes.Route.cluster":
    clusterName,
  "envoy.extensions.clusters.aggregate.v3.ClusterConfig.clusters": () =>
    fc.uniqueArray(clusterName(), { minLength: 1, maxLength: 2 }),
  "envoy.extensions.filters.network.http_connection_manager.v3.Rds.route_config_name": pool(
    NAMES.routes,
  ),
  "envoy.extensions.transport_sockets.tls.v3.SdsSecretConfig.name": pool(NAMES.secrets),
  // A listener binds an IP literal (Envoy does not resolve names there); an endpoint of a
  // STATIC or EDS cluster is one too. Host names are left to DNS clusters' defaults elsewhere.
  "envoy.config.core.v3.SocketAddress.address": () =>
    fc.oneof({ weight: 4, arbitrary: ipv4 }, { weight: 1, arbitrary: ipv6 }),
  // UDP listeners take no filter chains: keep them rare, so most listeners are TCP ones.
  "envoy.config.core.v3.SocketAddress.protocol": () =>
    fc.oneof(
      { weight: 9, arbitrary: fc.constant("TCP") },
      { weight: 1, arbitrary: fc.constant("UDP") },
    ),
  // Envoy compiles every RegexMatcher's regex with RE2: a literal (escaped), now and then with a
  // wildcard or an alternation.
  "envoy.type.matcher.v3.RegexMatcher.regex": () => regex,
  "xds.type.matcher.v3.RegexMatcher.regex": () => regex,
  // Envoy: a chain ends with exactly one terminal network filter ("non-terminal filter ... is the
  // last filter in a network filter chain"), and has it nowhere else.
  "envoy.config.listener.v3.FilterChain.filters": (g) =>
    fc
      .tuple(
        fc.array(g.message(FILTER, "network.other"), { maxLength: 1 }),
        g.message(FILTER, "network.terminal"),
      )
      .map(([others, terminal]) => [...others, terminal]),
  // README "On-demand virtual hosts": a listener may not embed a route configuration with VHDS
  // (it needs RDS), so an inline one has none.
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.route_config":
    (g) =>
      g.message("envoy.config.route.v3.RouteConfiguration").map(({ vhds: _, ...routes }) => routes),
  // Envoy: the router ends the HTTP filters (a filter after it is refused); without one, the
  // import appends it (a documented normalization).
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.http_filters":
    (g) =>
      fc
        .tuple(
          fc.array(g.message(HTTP_FILTER), { maxLength: 2 }),
          fc.option(
            g.message(ROUTER).map((router) => ({
              name: "envoy.filters.http.router",
              typedConfig: { "@type": `type.googleapis.com/${ROUTER}`, ...router },
            })),
            { freq: 4 },
          ),
        )
        .map(([filters, router]) => (router === null ? filters : [...filters, router])),
};

/**
 * How often a field (or a oneof, by its name) is set, where the default (a few fields per message)
 * would leave a resource without what makes it one: a listener's address and filter chains, a
 * cluster's type and endpoints, a route configuration's virtual hosts and routes.
 */
export const PRESENCE: Readonly<Record<string, number>> = {
  "envoy.config.listener.v3.Listener.address": 0.85,
  "envoy.config.listener.v3.Listener.filter_chains": 0.8,
  "envoy.config.listener.v3.Listener.default_filter_chain": 0.1,
  "envoy.config.listener.v3.Listener.listener_filters": 0.15,
  "envoy.config.listener.v3.Listener.api_listener": 0.05,
  "envoy.config.listener.v3.Listener.stat_prefix": 0.1,
  "envoy.config.listener.v3.FilterChain.filters": 0.95,
  "envoy.config.listener.v3.FilterChain.filter_chain_match": 0.3,
  "envoy.config.listener.v3.FilterChain.transport_socket": 0.25,
  "envoy.config.listener.v3.FilterChain.name": 0.3,
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.http_filters": 0.7,
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.access_log": 0.2,
  "envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext.common_tls_context": 0.7,
  "envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.common_tls_context": 0.6,
  "envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext.sni": 0.3,
  "envoy.extensions.transport_sockets.tls.v3.CommonTlsContext.tls_certificate_sds_secret_configs": 0.5,
  "envoy.extensions.transport_sockets.tls.v3.CommonTlsContext.validation_context_type": 0.5,
  "envoy.config.cluster.v3.Cluster.cluster_discovery_type": 0.9,
  "envoy.config.cluster.v3.Cluster.connect_timeout": 0.6,
  "envoy.config.cluster.v3.Cluster.load_assignment": 0.6,
  "envoy.config.cluster.v3.Cluster.lb_policy": 0.4,
  "envoy.config.cluster.v3.Cluster.eds_cluster_config": 0.3,
  "envoy.config.cluster.v3.Cluster.transport_socket": 0.2,
  "envoy.config.cluster.v3.Cluster.health_checks": 0.15,
  "envoy.config.cluster.v3.Cluster.circuit_breakers": 0.15,
  "envoy.config.cluster.v3.Cluster.outlier_detection": 0.15,
  "envoy.config.cluster.v3.Cluster.typed_extension_protocol_options": 0.2,
  "envoy.config.endpoint.v3.ClusterLoadAssignment.endpoints": 0.9,
  "envoy.config.endpoint.v3.LocalityLbEndpoints.lb_endpoints": 0.9,
  "envoy.config.endpoint.v3.LocalityLbEndpoints.locality": 0.5,
  "envoy.config.endpoint.v3.LocalityLbEndpoints.load_balancing_weight": 0.4,
  "envoy.config.endpoint.v3.LbEndpoint.host_identifier": 0.95,
  "envoy.config.endpoint.v3.LbEndpoint.load_balancing_weight": 0.3,
  "envoy.config.endpoint.v3.Endpoint.address": 0.95,
  "envoy.config.route.v3.RouteConfiguration.virtual_hosts": 0.9,
  "envoy.config.route.v3.VirtualHost.routes": 0.9,
  "envoy.config.route.v3.Route.action": 0.95,
  "envoy.config.route.v3.RouteAction.timeout": 0.3,
  "envoy.config.route.v3.RouteAction.retry_policy": 0.2,
  "envoy.config.route.v3.RouteAction.prefix_rewrite": 0.2,
  "envoy.config.route.v3.RouteMatch.headers": 0.2,
  "envoy.service.runtime.v3.Runtime.layer": 0.9,
  "envoy.extensions.transport_sockets.tls.v3.Secret.type": 0.95,
};

/** Weights of oneof members (by full name), where the default (each alike) is not what Envoy takes. */
export const CHOICE: Readonly<Record<string, number>> = {
  // Listeners bind socket addresses; a pipe is rarer and an internal address is for endpoints.
  "envoy.config.core.v3.Address.socket_address": 8,
  "envoy.config.core.v3.Address.pipe": 1,
  "envoy.config.core.v3.Address.envoy_internal_address": 1,
  // An endpoint by its address, mostly; by name (named_endpoints) now and then.
  "envoy.config.endpoint.v3.LbEndpoint.endpoint": 8,
  // Envoy's IP resolver takes only port_value ("can't handle port specifier type"): named_port
  // needs a custom resolver_name.
  "envoy.config.core.v3.SocketAddress.port_value": 1,
  "envoy.config.core.v3.SocketAddress.named_port": 0,
  "envoy.config.route.v3.Route.route": 6,
  "envoy.config.route.v3.RouteAction.cluster": 4,
  "envoy.config.route.v3.RouteAction.weighted_clusters": 2,
  "envoy.config.route.v3.RouteMatch.prefix": 4,
  "envoy.config.route.v3.RouteMatch.path": 2,
  "envoy.config.route.v3.RouteMatch.safe_regex": 2,
  "envoy.config.cluster.v3.Cluster.type": 6,
};

/**
 * Fields and oneofs Envoy requires in its C++ though its protos do not say so: an Address is one
 * of its kinds (Network::Address::resolveProtoAddress, "Address must be set"), an api_listener
 * holds its HTTP connection manager.
 */
export const ENVOY_REQUIRED: ReadonlySet<string> = new Set([
  "envoy.config.core.v3.Address.address",
  "envoy.config.listener.v3.ApiListener.api_listener",
]);
