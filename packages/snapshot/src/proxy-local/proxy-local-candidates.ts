/**
 * Which fields could make a proxy touch its host, by rule, and the candidates that do not: what
 * keeps the table of proxy-local fields (proxy-local-fields.ts) complete. Descriptors carry no
 * comments, so the rule goes by names and types:
 *
 *   - a field holding a `DataSource` or an `AsyncDataSource` (it may hold code as well as data),
 *     a `Pipe` or an `EnvoyInternalAddress` (a local or in-process address), or a
 *     `DynamicModuleConfig` (a shared library);
 *   - a string or bytes field, or a field of any message type, whose name has a word (between
 *     underscores) that names a file, a directory, an environment variable or code:
 *     `event_log_path`, `filename`, `watched_directory`, `environment_variable`, `source_code`,
 *     `inline_code`, `library`, `dynamic_module_config`, ...
 *
 * Every candidate of the Envoy API is either a row of the table or listed below with the reason it
 * is not proxy-local (proxy-local-fields.spec.ts fails on one that is neither). A candidate in
 * neither list, which only a newer Envoy API loaded at run time can bring (`switchyard schema
 * add`), is `unclassified` and counts as proxy-local: admin-only until it is classified.
 */
import type { DescField } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { PROXY_LOCAL_BY_FIELD, type ProxyLocalField } from "./proxy-local-fields.js";

/** Words of a field's name that make it a candidate. */
export const CANDIDATE_WORDS: ReadonlySet<string> = new Set([
  "file",
  "files",
  "filename",
  "filepath",
  "path",
  "paths",
  "dir",
  "directory",
  "directories",
  "subdirectory",
  "env",
  "environment",
  "code",
  "codes",
  "script",
  "library",
  "module",
]);

/** Message types a field holding one is a candidate for, whatever its name. */
export const CANDIDATE_TYPES: ReadonlySet<string> = new Set([
  "envoy.config.core.v3.DataSource",
  "envoy.config.core.v3.AsyncDataSource",
  "envoy.config.core.v3.Pipe",
  "envoy.config.core.v3.EnvoyInternalAddress",
  "envoy.extensions.dynamic_modules.v3.DynamicModuleConfig",
]);

/** Whether a name (proto `snake_case` or JSON `camelCase`) has a word of CANDIDATE_WORDS. */
export function hasCandidateWord(name: string): boolean {
  const snake = name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
  return snake.split("_").some((word) => CANDIDATE_WORDS.has(word));
}

function messageTypeOf(field: DescField): string | undefined {
  switch (field.fieldKind) {
    case "message":
      return field.message.typeName;
    case "list":
      return field.listKind === "message" ? field.message.typeName : undefined;
    case "map":
      return field.mapKind === "message" ? field.message.typeName : undefined;
    default:
      return undefined;
  }
}

function holdsText(field: DescField): boolean {
  const scalar =
    field.fieldKind === "scalar" ||
    (field.fieldKind === "list" && field.listKind === "scalar") ||
    (field.fieldKind === "map" && field.mapKind === "scalar")
      ? field.scalar
      : undefined;
  return scalar === ScalarType.STRING || scalar === ScalarType.BYTES;
}

/** Whether the rule above makes `field` a candidate. */
export function isProxyLocalCandidate(field: DescField): boolean {
  const type = messageTypeOf(field);
  if (type !== undefined && CANDIDATE_TYPES.has(type)) return true;
  if (!hasCandidateWord(field.name)) return false;
  return type !== undefined || holdsText(field);
}

/** Candidates that are not proxy-local, in groups that share a reason. */
export interface NotProxyLocal {
  readonly why: string;
  readonly fields: readonly string[];
}

const CORE = "envoy.config.core.v3";
const ROUTE = "envoy.config.route.v3";
const EXT = "envoy.extensions";
const HTTP = `${EXT}.filters.http`;
const TLS = `${EXT}.transport_sockets.tls.v3`;
const AWS = `${EXT}.common.aws.v3`;
const HCM = `${EXT}.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const REDIS = `${EXT}.filters.network.redis_proxy.v3`;
const QUIC_ADDRESS = `${EXT}.quic.server_preferred_address.v3.DataSourceServerPreferredAddressConfig.AddressFamilyConfig`;

export const NOT_PROXY_LOCAL: readonly NotProxyLocal[] = [
  {
    why: "a DataSource of data, not code (a certificate, a key, a body, a dictionary, users): a file or environment variable it names is the table's DataSource.filename or DataSource.environment_variable row, found wherever a DataSource is",
    fields: [
      `${CORE}.AsyncDataSource.local`,
      `${CORE}.GrpcService.GoogleGrpc.SslCredentials.root_certs`,
      `${CORE}.GrpcService.GoogleGrpc.SslCredentials.private_key`,
      `${CORE}.GrpcService.GoogleGrpc.SslCredentials.cert_chain`,
      `${CORE}.SubstitutionFormatString.text_format_source`,
      "envoy.config.grpc_credential.v3.FileBasedMetadataConfig.secret_data",
      `${ROUTE}.DirectResponseAction.body`,
      "envoy.config.trace.v3.LightstepConfig.access_token",
      "envoy.config.trace.v3.XRayConfig.sampling_rule_manifest",
      `${AWS}.AssumeRoleWithWebIdentityCredentialProvider.web_identity_token_data_source`,
      `${AWS}.CredentialsFileCredentialProvider.credentials_data_source`,
      `${AWS}.IAMRolesAnywhereCredentialProvider.certificate`,
      `${AWS}.IAMRolesAnywhereCredentialProvider.certificate_chain`,
      `${AWS}.IAMRolesAnywhereCredentialProvider.private_key`,
      `${EXT}.compression.zstd.compressor.v3.Zstd.dictionary`,
      `${EXT}.compression.zstd.decompressor.v3.Zstd.dictionaries`,
      `${HTTP}.basic_auth.v3.BasicAuth.users`,
      `${HTTP}.basic_auth.v3.BasicAuthPerRoute.users`,
      `${HTTP}.grpc_field_extraction.v3.GrpcFieldExtractionConfig.descriptor_set`,
      `${HTTP}.jwt_authn.v3.JwtProvider.local_jwks`,
      `${HTTP}.proto_api_scrubber.v3.DescriptorSet.data_source`,
      `${HTTP}.proto_message_extraction.v3.ProtoMessageExtractionConfig.data_source`,
      `${HTTP}.proto_message_logging.v3.ProtoMessageLoggingConfig.data_source`,
      `${EXT}.filters.network.direct_response.v3.Config.response`,
      `${EXT}.filters.network.http_connection_manager.v3.ResponseMapper.body`,
      `${REDIS}.RedisProtocolOptions.auth_password`,
      `${REDIS}.RedisProtocolOptions.auth_username`,
      `${REDIS}.RedisProtocolOptions.Credential.auth_password`,
      `${REDIS}.RedisProtocolOptions.Credential.auth_username`,
      `${REDIS}.RedisProxy.downstream_auth_password`,
      `${REDIS}.RedisProxy.downstream_auth_passwords`,
      `${REDIS}.RedisProxy.downstream_auth_username`,
      `${EXT}.filters.udp.dns_filter.v3.DnsFilterConfig.ServerContextConfig.external_dns_table`,
      `${EXT}.grpc_service.call_credentials.file_based_metadata.v3.FileBasedMetadataCallCredentials.secret_data`,
      `${EXT}.http.custom_response.local_response_policy.v3.LocalResponsePolicy.body`,
      `${EXT}.quic.connection_id_generator.quic_lb.v3.Config.server_id`,
      `${QUIC_ADDRESS}.address`,
      `${QUIC_ADDRESS}.dnat_address`,
      `${QUIC_ADDRESS}.port`,
      `${TLS}.CertificateValidationContext.crl`,
      `${TLS}.CertificateValidationContext.trusted_ca`,
      `${TLS}.GenericSecret.secret`,
      `${TLS}.GenericSecret.secrets`,
      `${TLS}.SPIFFECertValidatorConfig.TrustDomain.trust_bundle`,
      `${TLS}.SPIFFECertValidatorConfig.trust_bundles`,
      `${TLS}.TlsCertificate.certificate_chain`,
      `${TLS}.TlsCertificate.ocsp_staple`,
      `${TLS}.TlsCertificate.password`,
      `${TLS}.TlsCertificate.pkcs12`,
      `${TLS}.TlsCertificate.private_key`,
      `${TLS}.TlsCertificate.signed_certificate_timestamp`,
      `${TLS}.TlsSessionTicketKeys.keys`,
    ],
  },
  {
    why: "holds a message whose own field is the row (WatchedDirectory.path, PathConfigSource.path, FilePerTapSink.path_prefix, EnvironmentVariables.host_env_keys, Pipe.path), found inside it",
    fields: [
      `${CORE}.DataSource.watched_directory`,
      `${CORE}.PathConfigSource.watched_directory`,
      `${CORE}.ConfigSource.path_config_source`,
      `${CORE}.Address.pipe`,
      "envoy.config.tap.v3.OutputSink.file_per_tap",
      `${EXT}.wasm.v3.VmConfig.environment_variables`,
      `${TLS}.CertificateValidationContext.watched_directory`,
      `${TLS}.TlsCertificate.watched_directory`,
    ],
  },
  {
    why: "an internal listener of the same proxy, reached inside its process: no socket of the host, and only the listeners an admin configured (listeners are admin-only), as a member's cluster reaches any address of the network",
    fields: [`${CORE}.Address.envoy_internal_address`],
  },
  {
    why: "an HTTP request or cookie path, or a matcher, rewrite or normalization of one: matched against requests or sent on the wire, never opened on the host",
    fields: [
      `${ROUTE}.RouteMatch.path`,
      `${ROUTE}.RouteMatch.path_separated_prefix`,
      `${ROUTE}.RouteMatch.path_match_policy`,
      `${ROUTE}.RedirectAction.path_redirect`,
      `${ROUTE}.RouteAction.path_rewrite`,
      `${ROUTE}.RouteAction.path_rewrite_policy`,
      `${ROUTE}.RouteAction.host_rewrite_path_regex`,
      `${ROUTE}.RouteAction.HashPolicy.Cookie.path`,
      `${CORE}.HealthCheck.HttpHealthCheck.path`,
      "envoy.config.bootstrap.v3.Admin.allow_paths",
      "envoy.config.rbac.v3.Permission.url_path",
      "envoy.config.rbac.v3.Principal.url_path",
      "envoy.type.http.v3.Cookie.path",
      "envoy.type.http.v3.PathTransformation.Operation.normalize_path_rfc_3986",
      "envoy.type.matcher.v3.PathMatcher.path",
      `${HTTP}.ext_authz.v3.HttpService.path_prefix`,
      `${HTTP}.mcp_router.v3.McpRouter.McpCluster.path`,
      `${HTTP}.oauth2.v3.CookieConfig.path`,
      `${HTTP}.oauth2.v3.OAuth2Config.redirect_path_matcher`,
      `${HTTP}.oauth2.v3.OAuth2Config.signout_path`,
      `${HCM}.normalize_path`,
      `${HCM}.path_normalization_options`,
      `${HCM}.Tracing.max_path_tag_length`,
      `${EXT}.bootstrap.reverse_tunnel.downstream_socket_interface.v3.DownstreamReverseConnectionSocketInterface.HttpHandshakeConfig.request_path`,
      `${EXT}.filters.network.generic_proxy.matcher.v3.RequestMatcher.path`,
      `${EXT}.filters.network.reverse_tunnel.v3.ReverseTunnel.request_path`,
      `${EXT}.filters.network.tcp_proxy.v3.TcpProxy.TunnelingConfig.post_path`,
      `${EXT}.filters.udp.udp_proxy.v3.UdpProxyConfig.UdpTunnelingConfig.post_path`,
      `${EXT}.http.header_validators.envoy_default.v3.HeaderValidatorConfig.uri_path_normalization_options`,
      `${EXT}.path.match.uri_template.v3.UriTemplateMatchConfig.path_template`,
      `${EXT}.path.rewrite.uri_template.v3.UriTemplateRewriteConfig.path_template_rewrite`,
    ],
  },
  {
    why: "a path of keys into metadata, a struct or a JSON body, not a file",
    fields: [
      "envoy.type.matcher.v3.MetadataMatcher.path",
      "envoy.type.matcher.v3.StructMatcher.path",
      "envoy.type.metadata.v3.MetadataKey.path",
      `${EXT}.matching.common_inputs.network.v3.DynamicMetadataInput.path`,
      `${EXT}.matching.common_inputs.transport_socket.v3.EndpointMetadataInput.path`,
      `${EXT}.matching.common_inputs.transport_socket.v3.LocalityMetadataInput.path`,
      `${HTTP}.mcp.v3.ParserConfig.AttributeExtractionRule.path`,
    ],
  },
  {
    why: "an HTTP status code or an OAuth2 PKCE code verifier, not code the proxy runs",
    fields: [
      "envoy.config.accesslog.v3.AccessLogFilter.status_code_filter",
      `${EXT}.filters.network.http_connection_manager.v3.ResponseMapper.status_code`,
      `${EXT}.http.custom_response.local_response_policy.v3.LocalResponsePolicy.status_code`,
      `${EXT}.http.custom_response.redirect_policy.v3.RedirectPolicy.status_code`,
      `${HTTP}.oauth2.v3.CookieConfigs.code_verifier_cookie_config`,
      `${HTTP}.oauth2.v3.OAuth2Config.code_verifier_token_expires_in`,
      `${HTTP}.oauth2.v3.OAuth2Credentials.CookieNames.code_verifier`,
    ],
  },
  {
    why: "the compression algorithm: an extension built into Envoy (gzip, brotli, zstd), not a library loaded from the host",
    fields: [
      `${HTTP}.compressor.v3.Compressor.compressor_library`,
      `${HTTP}.compressor.v3.CompressorOverrides.compressor_library`,
      `${HTTP}.decompressor.v3.Decompressor.decompressor_library`,
    ],
  },
  {
    why: "what Envoy reports (its admin interface's output, access log records, what it asks external services), never configuration it reads",
    fields: [
      "envoy.admin.v3.CertificateDetails.path",
      "envoy.admin.v3.CommandLineOptions.admin_address_path",
      "envoy.admin.v3.CommandLineOptions.base_id_path",
      "envoy.admin.v3.CommandLineOptions.config_path",
      "envoy.admin.v3.CommandLineOptions.file_flush_interval",
      "envoy.admin.v3.CommandLineOptions.log_path",
      "envoy.admin.v3.CommandLineOptions.socket_path",
      "envoy.data.accesslog.v3.HTTPRequestProperties.path",
      "envoy.data.accesslog.v3.HTTPRequestProperties.original_path",
      "envoy.data.accesslog.v3.HTTPResponseProperties.response_code",
      "envoy.data.accesslog.v3.HTTPResponseProperties.response_code_details",
      "envoy.service.auth.v3.AttributeContext.HttpRequest.path",
    ],
  },
];

const NOT_PROXY_LOCAL_BY_FIELD: ReadonlyMap<string, string> = new Map(
  NOT_PROXY_LOCAL.flatMap(({ why, fields }) => fields.map((field) => [field, why] as const)),
);

/** What the table and the lists say of a field. */
export type FieldClass =
  | { readonly t: "proxy-local"; readonly row: ProxyLocalField }
  | { readonly t: "not-proxy-local"; readonly why: string }
  /** A candidate in neither list (a field of a newer Envoy API): counts as proxy-local. */
  | { readonly t: "unclassified" }
  /** Not a candidate, and not in the table. */
  | { readonly t: "none" };

const NONE: FieldClass = { t: "none" };
const UNCLASSIFIED: FieldClass = { t: "unclassified" };

/** `<message type>.<proto field name>` of a field. */
export function qualifiedName(field: DescField): string {
  return `${field.parent.typeName}.${field.name}`;
}

const classes = new WeakMap<DescField, FieldClass>();

/** What `field` is, by the table, the lists and the rule (remembered per descriptor). */
export function classifyField(field: DescField): FieldClass {
  let found = classes.get(field);
  if (found === undefined) {
    const name = qualifiedName(field);
    const row = PROXY_LOCAL_BY_FIELD.get(name);
    const why = NOT_PROXY_LOCAL_BY_FIELD.get(name);
    found =
      row !== undefined
        ? { t: "proxy-local", row }
        : why !== undefined
          ? { t: "not-proxy-local", why }
          : isProxyLocalCandidate(field)
            ? UNCLASSIFIED
            : NONE;
    classes.set(field, found);
  }
  return found;
}
