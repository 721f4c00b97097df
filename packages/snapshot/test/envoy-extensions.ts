/**
 * Which extension types may fill a `google.protobuf.Any` of an Envoy resource, for the generator
 * (envoy-arbitrary.ts). Envoy picks an extension's factory by its config type, and each place
 * takes the factories of one category (Envoy's `[#extension-category: ...]` annotations, which
 * the descriptors do not carry): so this is a table, by the Any field or by the field holding a
 * TypedExtensionConfig or TransportSocket, of the categories below. A field not listed is left
 * unset (and a message that requires one is not generated).
 *
 * Weights make the common cases common: an HTTP connection manager among network filters, TLS
 * among transport sockets.
 */

const HTTP = "envoy.extensions.filters.http.";
const NETWORK = "envoy.extensions.filters.network.";
const SOCKETS = "envoy.extensions.transport_sockets.";

/** A category: the message types (full names), each with a weight. */
export type Category = readonly (readonly [typeName: string, weight: number])[];

const each = (names: readonly string[], weight = 1): Category =>
  names.map((name) => [name, weight] as const);

export const HCM = `${NETWORK}http_connection_manager.v3.HttpConnectionManager`;
export const ROUTER = `${HTTP}router.v3.Router`;

export const CATEGORIES = {
  /** envoy.filters.network, the terminal ones (Envoy's isTerminalFilterByProto): last in a chain. */
  "network.terminal": [
    [HCM, 8],
    [`${NETWORK}tcp_proxy.v3.TcpProxy`, 3],
    ...each([
      `${NETWORK}redis_proxy.v3.RedisProxy`,
      `${NETWORK}direct_response.v3.Config`,
      `${NETWORK}echo.v3.Echo`,
      `${NETWORK}thrift_proxy.v3.ThriftProxy`,
      `${NETWORK}dubbo_proxy.v3.DubboProxy`,
    ]),
  ],
  /** envoy.filters.network, the others: before the terminal one. */
  "network.other": each([
    `${NETWORK}connection_limit.v3.ConnectionLimit`,
    `${NETWORK}ext_authz.v3.ExtAuthz`,
    `${NETWORK}local_ratelimit.v3.LocalRateLimit`,
    `${NETWORK}ratelimit.v3.RateLimit`,
    `${NETWORK}rbac.v3.RBAC`,
    `${NETWORK}sni_cluster.v3.SniCluster`,
    `${NETWORK}sni_dynamic_forward_proxy.v3.FilterConfig`,
    `${NETWORK}mongo_proxy.v3.MongoProxy`,
    `${NETWORK}zookeeper_proxy.v3.ZooKeeperProxy`,
    `${NETWORK}set_filter_state.v3.Config`,
  ]),
  /** envoy.filters.http but the router, which the generator puts last itself. */
  http: each(
    [
      "adaptive_concurrency.v3.AdaptiveConcurrency",
      "admission_control.v3.AdmissionControl",
      "alternate_protocols_cache.v3.FilterConfig",
      "aws_lambda.v3.Config",
      "aws_request_signing.v3.AwsRequestSigning",
      "bandwidth_limit.v3.BandwidthLimit",
      "basic_auth.v3.BasicAuth",
      "buffer.v3.Buffer",
      "cache.v3.CacheConfig",
      "cdn_loop.v3.CdnLoopConfig",
      "composite.v3.Composite",
      "compressor.v3.Compressor",
      "connect_grpc_bridge.v3.FilterConfig",
      "cors.v3.Cors",
      "credential_injector.v3.CredentialInjector",
      "csrf.v3.CsrfPolicy",
      "custom_response.v3.CustomResponse",
      "decompressor.v3.Decompressor",
      "dynamic_forward_proxy.v3.FilterConfig",
      "ext_authz.v3.ExtAuthz",
      "ext_proc.v3.ExternalProcessor",
      "fault.v3.HTTPFault",
      "file_system_buffer.v3.FileSystemBufferFilterConfig",
      "gcp_authn.v3.GcpAuthnFilterConfig",
      "geoip.v3.Geoip",
      "grpc_field_extraction.v3.GrpcFieldExtractionConfig",
      "grpc_http1_bridge.v3.Config",
      "grpc_http1_reverse_bridge.v3.FilterConfig",
      "grpc_json_transcoder.v3.GrpcJsonTranscoder",
      "grpc_stats.v3.FilterConfig",
      "grpc_web.v3.GrpcWeb",
      "header_mutation.v3.HeaderMutation",
      "header_to_metadata.v3.Config",
      "health_check.v3.HealthCheck",
      "ip_tagging.v3.IPTagging",
      "json_to_metadata.v3.JsonToMetadata",
      "jwt_authn.v3.JwtAuthentication",
      "kill_request.v3.KillRequest",
      "local_ratelimit.v3.LocalRateLimit",
      "lua.v3.Lua",
      "oauth2.v3.OAuth2",
      "on_demand.v3.OnDemand",
      "original_src.v3.OriginalSrc",
      "rate_limit_quota.v3.RateLimitQuotaFilterConfig",
      "ratelimit.v3.RateLimit",
      "rbac.v3.RBAC",
      "set_filter_state.v3.Config",
      "set_metadata.v3.Config",
      "stateful_session.v3.StatefulSession",
      "tap.v3.Tap",
      "thrift_to_metadata.v3.ThriftToMetadata",
      "wasm.v3.Wasm",
    ].map((name) => HTTP + name),
  ).concat([["envoy.extensions.common.matching.v3.ExtensionWithMatcher", 1]]),
  /** The per-route configs of HTTP filters (typed_per_filter_config values). */
  "http.per_route": each(
    [
      "aws_lambda.v3.PerRouteConfig",
      "aws_request_signing.v3.AwsRequestSigningPerRoute",
      "basic_auth.v3.BasicAuthPerRoute",
      "buffer.v3.BufferPerRoute",
      "compressor.v3.CompressorPerRoute",
      "cors.v3.CorsPolicy",
      "csrf.v3.CsrfPolicy",
      "dynamic_forward_proxy.v3.PerRouteConfig",
      "ext_authz.v3.ExtAuthzPerRoute",
      "ext_proc.v3.ExtProcPerRoute",
      "fault.v3.HTTPFault",
      "grpc_http1_reverse_bridge.v3.FilterConfigPerRoute",
      "header_mutation.v3.HeaderMutationPerRoute",
      "jwt_authn.v3.PerRouteConfig",
      "local_ratelimit.v3.LocalRateLimit",
      "lua.v3.LuaPerRoute",
      "on_demand.v3.PerRouteConfig",
      "ratelimit.v3.RateLimitPerRoute",
      "rbac.v3.RBACPerRoute",
      "stateful_session.v3.StatefulSessionPerRoute",
      "thrift_to_metadata.v3.ThriftToMetadataPerRoute",
    ].map((name) => HTTP + name),
  ).concat([["envoy.config.route.v3.FilterConfig", 1]]),
  "listener.filter": each(
    [
      "http_inspector.v3.HttpInspector",
      "local_ratelimit.v3.LocalRateLimit",
      "original_dst.v3.OriginalDst",
      "original_src.v3.OriginalSrc",
      "proxy_protocol.v3.ProxyProtocol",
      "tls_inspector.v3.TlsInspector",
    ].map((name) => `envoy.extensions.filters.listener.${name}`),
  ),
  access_logger: each(
    [
      "file.v3.FileAccessLog",
      "fluentd.v3.FluentdAccessLogConfig",
      "grpc.v3.HttpGrpcAccessLogConfig",
      "grpc.v3.TcpGrpcAccessLogConfig",
      "stream.v3.StdoutAccessLog",
      "stream.v3.StderrAccessLog",
      "wasm.v3.WasmAccessLog",
    ].map((name) => `envoy.extensions.access_loggers.${name}`),
  ),
  "access_logger.filter": each(["envoy.extensions.access_loggers.filters.cel.v3.ExpressionFilter"]),
  "transport_socket.downstream": [
    [`${SOCKETS}tls.v3.DownstreamTlsContext`, 6],
    ...each(
      [
        "raw_buffer.v3.RawBuffer",
        "alts.v3.Alts",
        "starttls.v3.StartTlsConfig",
        "tap.v3.Tap",
        "tcp_stats.v3.Config",
      ].map((name) => SOCKETS + name),
    ),
  ],
  "transport_socket.upstream": [
    [`${SOCKETS}tls.v3.UpstreamTlsContext`, 6],
    ...each(
      [
        "raw_buffer.v3.RawBuffer",
        "alts.v3.Alts",
        "http_11_proxy.v3.Http11ProxyUpstreamTransport",
        "internal_upstream.v3.InternalUpstreamTransport",
        "proxy_protocol.v3.ProxyProtocolUpstreamTransport",
        "starttls.v3.UpstreamStartTlsConfig",
        "tap.v3.Tap",
        "tcp_stats.v3.Config",
      ].map((name) => SOCKETS + name),
    ),
  ],
  /** The socket a wrapping transport socket (tap, tcp_stats, proxy protocol, ...) wraps. */
  "transport_socket.inner": each([`${SOCKETS}raw_buffer.v3.RawBuffer`]),
  "cluster.type": each(
    [
      "aggregate.v3.ClusterConfig",
      "dynamic_forward_proxy.v3.ClusterConfig",
      "redis.v3.RedisClusterConfig",
    ].map((name) => `envoy.extensions.clusters.${name}`),
  ),
  "upstream.config": each([
    "envoy.extensions.upstreams.http.generic.v3.GenericConnectionPoolProto",
    "envoy.extensions.upstreams.http.http.v3.HttpConnectionPoolProto",
    "envoy.extensions.upstreams.http.tcp.v3.TcpConnectionPoolProto",
    "envoy.extensions.upstreams.tcp.generic.v3.GenericConnectionPoolProto",
  ]),
  dns_resolver: each([
    "envoy.extensions.network.dns_resolver.cares.v3.CaresDnsResolverConfig",
    "envoy.extensions.network.dns_resolver.getaddrinfo.v3.GetAddrInfoDnsResolverConfig",
  ]),
  load_balancing_policy: each(
    [
      "round_robin.v3.RoundRobin",
      "least_request.v3.LeastRequest",
      "random.v3.Random",
      "ring_hash.v3.RingHash",
      "maglev.v3.Maglev",
      "pick_first.v3.PickFirst",
      "cluster_provided.v3.ClusterProvided",
      "client_side_weighted_round_robin.v3.ClientSideWeightedRoundRobin",
    ].map((name) => `envoy.extensions.load_balancing_policies.${name}`),
  ),
  health_checker: each([
    "envoy.extensions.health_checkers.redis.v3.Redis",
    "envoy.extensions.health_checkers.thrift.v3.Thrift",
  ]),
  "health_check.event_sink": each([
    "envoy.extensions.health_check.event_sinks.file.v3.HealthCheckEventFileSink",
  ]),
  "retry.host": each(
    [
      "omit_canary_hosts.v3.OmitCanaryHostsPredicate",
      "omit_host_metadata.v3.OmitHostMetadataConfig",
      "previous_hosts.v3.PreviousHostsPredicate",
    ].map((name) => `envoy.extensions.retry.host.${name}`),
  ),
  "retry.priority": each([
    "envoy.extensions.retry.priority.previous_priorities.v3.PreviousPrioritiesConfig",
  ]),
  internal_redirect_predicate: each(
    [
      "allow_listed_routes.v3.AllowListedRoutesConfig",
      "previous_routes.v3.PreviousRoutesConfig",
      "safe_cross_scheme.v3.SafeCrossSchemeConfig",
    ].map((name) => `envoy.extensions.internal_redirect.${name}`),
  ),
  "path.match": each(["envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig"]),
  "path.rewrite": each(["envoy.extensions.path.rewrite.uri_template.v3.UriTemplateRewriteConfig"]),
  early_data: each(["envoy.extensions.early_data.v3.DefaultEarlyDataPolicy"]),
  cluster_specifier: each(["envoy.extensions.router.cluster_specifiers.lua.v3.LuaConfig"]),
  rate_limit_descriptor: each(["envoy.extensions.rate_limit_descriptors.expr.v3.Descriptor"]),
  formatter: each(
    ["cel.v3.Cel", "metadata.v3.Metadata", "req_without_query.v3.ReqWithoutQuery"].map(
      (name) => `envoy.extensions.formatter.${name}`,
    ),
  ),
  header_formatter: each([
    "envoy.extensions.http.header_formatters.preserve_case.v3.PreserveCaseFormatterConfig",
  ]),
  header_validator: each([
    "envoy.extensions.http.header_validators.envoy_default.v3.HeaderValidatorConfig",
  ]),
  original_ip_detection: each([
    "envoy.extensions.http.original_ip_detection.custom_header.v3.CustomHeaderConfig",
    "envoy.extensions.http.original_ip_detection.xff.v3.XffConfig",
  ]),
  early_header_mutation: each([
    "envoy.extensions.http.early_header_mutation.header_mutation.v3.HeaderMutation",
  ]),
  request_id: each(["envoy.extensions.request_id.uuid.v3.UuidRequestIdConfig"]),
  tracer: each(
    [
      "ZipkinConfig",
      "OpenTelemetryConfig",
      "DatadogConfig",
      "LightstepConfig",
      "SkyWalkingConfig",
      "XRayConfig",
    ].map((name) => `envoy.config.trace.v3.${name}`),
  ),
  "tracer.otel.sampler": each([
    "envoy.extensions.tracers.opentelemetry.samplers.v3.AlwaysOnSamplerConfig",
  ]),
  compressor: each(
    ["brotli", "gzip", "zstd"].map(
      (name) =>
        `envoy.extensions.compression.${name}.compressor.v3.${name === "brotli" ? "Brotli" : name === "gzip" ? "Gzip" : "Zstd"}`,
    ),
  ),
  decompressor: each(
    ["brotli", "gzip", "zstd"].map(
      (name) =>
        `envoy.extensions.compression.${name}.decompressor.v3.${name === "brotli" ? "Brotli" : name === "gzip" ? "Gzip" : "Zstd"}`,
    ),
  ),
  injected_credentials: each([
    "envoy.extensions.http.injected_credentials.generic.v3.Generic",
    "envoy.extensions.http.injected_credentials.oauth2.v3.OAuth2",
  ]),
  geoip_provider: each(["envoy.extensions.geoip_providers.maxmind.v3.MaxMindConfig"]),
  stateful_session: each([
    "envoy.extensions.http.stateful_session.cookie.v3.CookieBasedSessionState",
    "envoy.extensions.http.stateful_session.header.v3.HeaderBasedSessionState",
  ]),
  cert_validator: each(["envoy.extensions.transport_sockets.tls.v3.SPIFFECertValidatorConfig"]),
  key_value_store: each(["envoy.extensions.key_value.file_based.v3.FileBasedKeyValueStoreConfig"]),
  config_validator: each([
    "envoy.extensions.config.validators.minimum_clusters.v3.MinimumClustersValidator",
  ]),
  "rbac.audit_logger": each(["envoy.extensions.rbac.audit_loggers.stream.v3.StdoutAuditLog"]),
  "rbac.matcher": each([
    "envoy.extensions.rbac.matchers.upstream_ip_port.v3.UpstreamIpPortMatcher",
  ]),
  string_matcher: each(["envoy.extensions.string_matcher.lua.v3.Lua"]),
  "quic.connection_id_generator": each([
    "envoy.extensions.quic.connection_id_generator.v3.DeterministicConnectionIdGeneratorConfig",
  ]),
  "quic.crypto_stream": each(["envoy.extensions.quic.crypto_stream.v3.CryptoServerStreamConfig"]),
  "quic.proof_source": each(["envoy.extensions.quic.proof_source.v3.ProofSourceConfig"]),
  "quic.server_preferred_address": each([
    "envoy.extensions.quic.server_preferred_address.v3.FixedServerPreferredAddressConfig",
  ]),
  "quic.connection_debug_visitor": each([
    "envoy.extensions.quic.connection_debug_visitor.v3.BasicConfig",
  ]),
  udp_packet_writer: each([
    "envoy.extensions.udp_packet_writer.v3.UdpDefaultWriterFactory",
    "envoy.extensions.udp_packet_writer.v3.UdpGsoBatchWriterFactory",
  ]),
  outlier_detection_monitor: each([
    "envoy.extensions.outlier_detection_monitors.consecutive_errors.v3.ConsecutiveErrors",
  ]),
  api_listener: each([HCM]),
} as const satisfies Record<string, Category>;

export type CategoryName = keyof typeof CATEGORIES;

/** Any fields that always take one category, by the Any field's full name. */
export const ANY_FIELDS: Readonly<Record<string, CategoryName>> = {
  "envoy.config.listener.v3.ApiListener.api_listener": "api_listener",
  "envoy.config.listener.v3.ListenerFilter.typed_config": "listener.filter",
  "envoy.config.accesslog.v3.AccessLog.typed_config": "access_logger",
  "envoy.config.accesslog.v3.ExtensionFilter.typed_config": "access_logger.filter",
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter.typed_config": "http",
  "envoy.extensions.filters.network.http_connection_manager.v3.RequestIDExtension.typed_config":
    "request_id",
  "envoy.config.cluster.v3.Cluster.CustomClusterType.typed_config": "cluster.type",
  "envoy.config.core.v3.HealthCheck.CustomHealthCheck.typed_config": "health_checker",
  "envoy.config.route.v3.RetryPolicy.RetryHostPredicate.typed_config": "retry.host",
  "envoy.config.route.v3.RetryPolicy.RetryPriority.typed_config": "retry.priority",
  "envoy.config.core.v3.RetryPolicy.RetryHostPredicate.typed_config": "retry.host",
  "envoy.config.core.v3.RetryPolicy.RetryPriority.typed_config": "retry.priority",
  "envoy.config.route.v3.Route.typed_per_filter_config": "http.per_route",
  "envoy.config.route.v3.VirtualHost.typed_per_filter_config": "http.per_route",
  "envoy.config.route.v3.RouteConfiguration.typed_per_filter_config": "http.per_route",
  "envoy.config.route.v3.WeightedCluster.ClusterWeight.typed_per_filter_config": "http.per_route",
  "envoy.config.route.v3.FilterConfig.config": "http.per_route",
  "envoy.config.trace.v3.Tracing.Http.typed_config": "tracer",
};

/**
 * Fields holding a TypedExtensionConfig or a TransportSocket (whose Any takes the category of
 * the place it is in), by the holding field's full name. A listener filter's Filter is placed by
 * the generator itself (terminal last: envoy-arbitrary.ts).
 */
export const HOLDER_FIELDS: Readonly<Record<string, CategoryName>> = {
  "envoy.config.listener.v3.FilterChain.transport_socket": "transport_socket.downstream",
  "envoy.config.cluster.v3.Cluster.transport_socket": "transport_socket.upstream",
  "envoy.config.cluster.v3.Cluster.TransportSocketMatch.transport_socket":
    "transport_socket.upstream",
  "envoy.extensions.transport_sockets.tap.v3.Tap.transport_socket": "transport_socket.inner",
  "envoy.extensions.transport_sockets.tcp_stats.v3.Config.transport_socket":
    "transport_socket.inner",
  "envoy.extensions.transport_sockets.proxy_protocol.v3.ProxyProtocolUpstreamTransport.transport_socket":
    "transport_socket.inner",
  "envoy.extensions.transport_sockets.internal_upstream.v3.InternalUpstreamTransport.transport_socket":
    "transport_socket.inner",
  "envoy.extensions.transport_sockets.http_11_proxy.v3.Http11ProxyUpstreamTransport.transport_socket":
    "transport_socket.inner",
  "envoy.extensions.transport_sockets.starttls.v3.StartTlsConfig.cleartext_socket_config":
    "transport_socket.inner",
  "envoy.extensions.transport_sockets.starttls.v3.UpstreamStartTlsConfig.cleartext_socket_config":
    "transport_socket.inner",
  "envoy.config.cluster.v3.Cluster.upstream_config": "upstream.config",
  "envoy.config.cluster.v3.Cluster.typed_dns_resolver_config": "dns_resolver",
  "envoy.extensions.common.dynamic_forward_proxy.v3.DnsCacheConfig.typed_dns_resolver_config":
    "dns_resolver",
  "envoy.config.cluster.v3.LoadBalancingPolicy.Policy.typed_extension_config":
    "load_balancing_policy",
  "envoy.config.cluster.v3.OutlierDetection.monitors": "outlier_detection_monitor",
  "envoy.config.core.v3.HealthCheck.event_logger": "health_check.event_sink",
  "envoy.config.core.v3.Http1ProtocolOptions.HeaderKeyFormat.stateful_formatter":
    "header_formatter",
  "envoy.config.core.v3.SubstitutionFormatString.formatters": "formatter",
  "envoy.config.route.v3.RouteAction.early_data_policy": "early_data",
  "envoy.config.route.v3.RouteAction.path_rewrite_policy": "path.rewrite",
  "envoy.config.route.v3.RouteMatch.path_match_policy": "path.match",
  "envoy.config.route.v3.InternalRedirectPolicy.predicates": "internal_redirect_predicate",
  "envoy.config.route.v3.ClusterSpecifierPlugin.extension": "cluster_specifier",
  "envoy.config.route.v3.RateLimit.Action.extension": "rate_limit_descriptor",
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.original_ip_detection_extensions":
    "original_ip_detection",
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.early_header_mutation_extensions":
    "early_header_mutation",
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager.typed_header_validation_config":
    "header_validator",
  "envoy.extensions.upstreams.http.v3.HttpProtocolOptions.header_validation_config":
    "header_validator",
  "envoy.extensions.common.matching.v3.ExtensionWithMatcher.extension_config": "http",
  "envoy.extensions.filters.http.composite.v3.ExecuteFilterAction.typed_config": "http",
  "envoy.extensions.filters.http.compressor.v3.Compressor.compressor_library": "compressor",
  "envoy.extensions.filters.http.decompressor.v3.Decompressor.decompressor_library": "decompressor",
  "envoy.extensions.filters.http.credential_injector.v3.CredentialInjector.credential":
    "injected_credentials",
  "envoy.extensions.filters.http.geoip.v3.Geoip.provider": "geoip_provider",
  "envoy.extensions.filters.http.stateful_session.v3.StatefulSession.session_state":
    "stateful_session",
  "envoy.extensions.transport_sockets.tls.v3.CertificateValidationContext.custom_validator_config":
    "cert_validator",
  "envoy.config.core.v3.AlternateProtocolsCacheOptions.key_value_store_config": "key_value_store",
  "envoy.config.common.key_value.v3.KeyValueStoreConfig.config": "key_value_store",
  "envoy.config.core.v3.ApiConfigSource.config_validators": "config_validator",
  "envoy.config.rbac.v3.RBAC.AuditLoggingOptions.AuditLoggerConfig.audit_logger":
    "rbac.audit_logger",
  "envoy.config.rbac.v3.Permission.matcher": "rbac.matcher",
  "envoy.config.rbac.v3.Permission.uri_template": "path.match",
  "envoy.type.matcher.v3.StringMatcher.custom": "string_matcher",
  "envoy.config.trace.v3.OpenTelemetryConfig.sampler": "tracer.otel.sampler",
  "envoy.config.listener.v3.QuicProtocolOptions.connection_id_generator_config":
    "quic.connection_id_generator",
  "envoy.config.listener.v3.QuicProtocolOptions.crypto_stream_config": "quic.crypto_stream",
  "envoy.config.listener.v3.QuicProtocolOptions.proof_source_config": "quic.proof_source",
  "envoy.config.listener.v3.QuicProtocolOptions.server_preferred_address_config":
    "quic.server_preferred_address",
  "envoy.config.listener.v3.QuicProtocolOptions.connection_debug_visitor_config":
    "quic.connection_debug_visitor",
  "envoy.config.listener.v3.UdpListenerConfig.udp_packet_packet_writer_config": "udp_packet_writer",
};

/** The messages whose Any takes the category of the field holding them, and that Any's name. */
export const HOLDERS: Readonly<Record<string, string>> = {
  "envoy.config.core.v3.TypedExtensionConfig": "typed_config",
  "envoy.config.core.v3.TransportSocket": "typed_config",
  "envoy.config.listener.v3.Filter": "typed_config",
};
