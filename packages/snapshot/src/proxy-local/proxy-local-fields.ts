/**
 * The fields of Envoy's API that make a proxy touch its own host: read or write a file, read an
 * environment variable, run code, reach a local socket or use its host's credentials (issue 44,
 * point 3). Whatever a stored object holds in one of them is admin-only (README, "Access
 * control"): a member could otherwise make the proxies serve `/etc/envoy/envoy.yaml` (its xDS
 * token, its client key), append to it, load a secret from any path, or run their Lua.
 *
 * One row per field, by fully qualified message type and proto field name, with what the proxy
 * does with it and why, after the field's entry in the Envoy API reference (whose anchor is
 * `envoy_v3_api_field_<type without "envoy.">.<field>`). A field is found wherever it sits, typed
 * extensions and per-filter configs included (proxy-local-walk.ts).
 *
 * The table is kept complete by rule: proxy-local-candidates.ts says which fields are named or
 * typed like one of these, and proxy-local-fields.spec.ts walks every message of the Envoy API
 * (the bundled one and a current one) and fails on a candidate that is neither here nor in the
 * list of candidates that are not proxy-local. At run time a candidate of a newer Envoy API that
 * is in neither list counts as proxy-local until it is classified.
 */

/** What a proxy does on its own host because of a field. */
export type ProxyLocalKind =
  /** Opens a path of its host and reads it (a certificate, a page, a database, a directory). */
  | "reads-file"
  /** Creates or appends to a path of its host (a log, a tap, a cache, a key log). */
  | "writes-file"
  /** Reads xDS resources (a cluster's endpoints, a secret, ...) from a path of its host. */
  | "loads-config"
  /** Reads an environment variable of its own process. */
  | "reads-env"
  /** Runs code the field gives or names: Lua, Wasm, a shared library. */
  | "runs-code"
  /** Reaches its host's own sockets: a Unix socket, another network namespace. */
  | "local-socket"
  /** Uses its host's credentials (a cloud metadata service, a default credential chain). */
  | "host-credentials";

export interface ProxyLocalField {
  /** `<message type>.<proto field name>`: `envoy.config.core.v3.HealthCheck.event_log_path`. */
  readonly field: string;
  readonly kind: ProxyLocalKind;
  /**
   * What the field makes the proxy do, after "makes proxies": "append health check events to
   * the file". The value the field holds follows it in messages (a path, a variable's name).
   */
  readonly does: string;
  /** Why, from the Envoy API reference. */
  readonly why: string;
  /** Only values of this form touch the host (a gRPC target is local only as `unix:`). */
  readonly only?: "unix-target";
  /** The field's string is the code itself (shown as "given inline", not quoted). */
  readonly inline?: true;
  /** What a member can do instead, when there is more than asking an admin. */
  readonly instead?: string;
}

const CORE = "envoy.config.core.v3";
const BOOTSTRAP = "envoy.config.bootstrap.v3";
const EXT = "envoy.extensions";
const LUA = `${EXT}.filters.http.lua.v3`;
const MAXMIND = `${EXT}.geoip_providers.maxmind.v3.MaxMindConfig`;
const AWS = `${EXT}.common.aws.v3.AwsCredentialProvider`;
const GOOGLE_GRPC = `${CORE}.GrpcService.GoogleGrpc`;
const INLINE = "ask an admin, or give the data inline";

/** The fields whose module a dynamic module config names: each loads a shared library. */
const DYNAMIC_MODULE_HOLDERS = [
  `${EXT}.access_loggers.dynamic_modules.v3.DynamicModuleAccessLog`,
  `${EXT}.bootstrap.dynamic_modules.v3.DynamicModuleBootstrapExtension`,
  `${EXT}.filters.http.dynamic_modules.v3.DynamicModuleFilter`,
  `${EXT}.filters.http.dynamic_modules.v3.DynamicModuleFilterPerRoute`,
  `${EXT}.filters.listener.dynamic_modules.v3.DynamicModuleListenerFilter`,
  `${EXT}.filters.network.dynamic_modules.v3.DynamicModuleNetworkFilter`,
  `${EXT}.filters.udp.dynamic_modules.v3.DynamicModuleUdpListenerFilter`,
];

export const PROXY_LOCAL_FIELDS: readonly ProxyLocalField[] = [
  // --- data sources, directories and config sources ------------------------------------------
  {
    field: `${CORE}.DataSource.filename`,
    kind: "reads-file",
    does: "read the file",
    why: "DataSource.filename: Local filesystem data source. The proxy reads the file and uses it where the DataSource is: a direct response serves it as it is, a TLS context takes it as a key.",
    instead: INLINE,
  },
  {
    field: `${CORE}.DataSource.environment_variable`,
    kind: "reads-env",
    does: "read the environment variable",
    why: "DataSource.environment_variable: Environment variable data source. The value of the proxy's own variable (an xDS token, a password) is used, or served, in its place.",
    instead: INLINE,
  },
  {
    field: `${CORE}.WatchedDirectory.path`,
    kind: "reads-file",
    does: "watch the directory",
    why: "WatchedDirectory.path: the directory the proxy watches for files moved into it, reloading what the enclosing config reads from there (certificates, a data source, a path config source).",
  },
  {
    field: `${CORE}.ConfigSource.path`,
    kind: "loads-config",
    does: "load xDS resources (endpoints, secrets, ...) from the file",
    why: "ConfigSource.path (deprecated for path_config_source): Local filesystem path configuration source: the proxy takes the resources the file holds, a secret (sds_config) or a cluster's endpoints (eds_config), as if served to it.",
  },
  {
    field: `${CORE}.PathConfigSource.path`,
    kind: "loads-config",
    does: "load xDS resources (endpoints, secrets, ...) from the file",
    why: "PathConfigSource.path: Path on the filesystem to source and watch for configuration updates: a secret or endpoints loaded from any file of the host.",
  },
  // --- files written -------------------------------------------------------------------------
  {
    field: `${CORE}.HealthCheck.event_log_path`,
    kind: "writes-file",
    does: "append health check events to the file",
    why: "HealthCheck.event_log_path (deprecated for event_logger): Specifies the path to the health check event log: the proxy opens the file for append and writes a line per event, whatever the file is (its own bootstrap).",
  },
  {
    field: `${EXT}.health_check.event_sinks.file.v3.HealthCheckEventFileSink.event_log_path`,
    kind: "writes-file",
    does: "append health check events to the file",
    why: "HealthCheckEventFileSink.event_log_path: the file a health checker's event_logger appends its events to.",
  },
  {
    field: `${BOOTSTRAP}.ClusterManager.OutlierDetection.event_log_path`,
    kind: "writes-file",
    does: "append outlier ejection events to the file",
    why: "ClusterManager.OutlierDetection.event_log_path: Specifies the path to the outlier event log.",
  },
  {
    field: `${EXT}.access_loggers.file.v3.FileAccessLog.path`,
    kind: "writes-file",
    does: "write its access log to the file",
    why: "FileAccessLog.path: A path to a local file to which to write the access log entries, in a format the writer chooses.",
  },
  {
    field: `${BOOTSTRAP}.Admin.access_log_path`,
    kind: "writes-file",
    does: "write the admin interface's access log to the file",
    why: "Admin.access_log_path (deprecated for access_log): The path to write the access log for the administration server.",
  },
  {
    field: `${BOOTSTRAP}.Admin.profile_path`,
    kind: "writes-file",
    does: "write CPU profiles to the file",
    why: "Admin.profile_path: The cpu profiler output path for the administration server.",
  },
  {
    field: `${BOOTSTRAP}.Bootstrap.perf_tracing_file_path`,
    kind: "writes-file",
    does: "write performance traces to the file",
    why: "Bootstrap.perf_tracing_file_path: where the proxy writes its performance tracing output.",
  },
  {
    field: "envoy.config.tap.v3.FilePerTapSink.path_prefix",
    kind: "writes-file",
    does: "write the traffic it taps to files named from the prefix",
    why: "FilePerTapSink.path_prefix: Path prefix. The output file will be of the form <path_prefix>_<id>.pb: the tapped requests, responses or bytes, written to the host.",
  },
  {
    field: `${EXT}.transport_sockets.tls.v3.TlsKeyLog.path`,
    kind: "writes-file",
    does: "write the TLS session keys of its connections to the file",
    why: "TlsKeyLog.path: The path to save the TLS key log: the NSS key log format, which decrypts the traffic it was written for.",
  },
  {
    field: `${EXT}.http.cache.file_system_http_cache.v3.FileSystemHttpCacheConfig.cache_path`,
    kind: "writes-file",
    does: "keep an HTTP cache in the directory",
    why: "FileSystemHttpCacheConfig.cache_path: the directory the file system HTTP cache writes its entries to (and create_cache_path creates).",
  },
  {
    field: `${EXT}.http.cache_v2.file_system_http_cache.v3.FileSystemHttpCacheV2Config.cache_path`,
    kind: "writes-file",
    does: "keep an HTTP cache in the directory",
    why: "FileSystemHttpCacheV2Config.cache_path: the directory the file system HTTP cache writes its entries to.",
  },
  {
    field: `${EXT}.filters.http.file_system_buffer.v3.FileSystemBufferFilterConfig.storage_buffer_path`,
    kind: "writes-file",
    does: "buffer request and response bodies in files of the directory",
    why: "FileSystemBufferFilterConfig.storage_buffer_path: The path to which the filter should write buffer files (also a per-route override).",
  },
  {
    field: `${EXT}.key_value.file_based.v3.FileBasedKeyValueStoreConfig.filename`,
    kind: "writes-file",
    does: "keep a key-value store (such as a DNS cache) in the file",
    why: "FileBasedKeyValueStoreConfig.filename: The filename to read the keys and values from, and write the keys and values to (a dynamic forward proxy's DNS cache).",
  },
  {
    field: `${EXT}.watchdog.profile_action.v3.ProfileActionConfig.profile_path`,
    kind: "writes-file",
    does: "write CPU profiles to the directory",
    why: "ProfileActionConfig.profile_path: File path to the directory to output profiles.",
  },
  // --- files read ----------------------------------------------------------------------------
  {
    field: `${BOOTSTRAP}.Bootstrap.flags_path`,
    kind: "reads-file",
    does: "read its flags from the directory",
    why: "Bootstrap.flags_path: Optional file system path to search for startup flag files.",
  },
  {
    field: `${BOOTSTRAP}.Runtime.symlink_root`,
    kind: "reads-file",
    does: "read runtime values from the directory",
    why: "Runtime.symlink_root: The implementation assumes that the file system tree is accessed via a symbolic link; the proxy reads every file below it as a runtime key.",
  },
  {
    field: `${BOOTSTRAP}.Runtime.subdirectory`,
    kind: "reads-file",
    does: "read runtime values from the subdirectory",
    why: "Runtime.subdirectory: Specifies the subdirectory to load within the root directory.",
  },
  {
    field: `${BOOTSTRAP}.Runtime.override_subdirectory`,
    kind: "reads-file",
    does: "read runtime overrides from the subdirectory",
    why: "Runtime.override_subdirectory: Specifies an optional subdirectory to load within the root directory, per service cluster.",
  },
  {
    field: `${BOOTSTRAP}.RuntimeLayer.DiskLayer.symlink_root`,
    kind: "reads-file",
    does: "read runtime values from the directory",
    why: "RuntimeLayer.DiskLayer.symlink_root: The implementation assumes that the file system tree is accessed via a symbolic link.",
  },
  {
    field: `${BOOTSTRAP}.RuntimeLayer.DiskLayer.subdirectory`,
    kind: "reads-file",
    does: "read runtime values from the subdirectory",
    why: "RuntimeLayer.DiskLayer.subdirectory: Specifies the subdirectory to load within the root directory.",
  },
  {
    field: `${EXT}.resource_monitors.injected_resource.v3.InjectedResourceConfig.filename`,
    kind: "reads-file",
    does: "read a resource pressure from the file",
    why: "InjectedResourceConfig.filename: the file the injected resource monitor reads its pressure from.",
  },
  ...["city_db_path", "isp_db_path", "anon_db_path", "asn_db_path", "country_db_path"].map(
    (name): ProxyLocalField => ({
      field: `${MAXMIND}.${name}`,
      kind: "reads-file",
      does: "read a MaxMind GeoIP database from the file",
      why: `MaxMindConfig.${name}: the full path of a MaxMind database, which the GeoIP provider opens and watches.`,
    }),
  ),
  {
    field: `${GOOGLE_GRPC}.CallCredentials.StsService.subject_token_path`,
    kind: "reads-file",
    does: "read a token from the file and send it to a token service",
    why: "StsService.subject_token_path: The path of subject token, a security token that represents the identity of the party on behalf of whom the request is being made.",
  },
  {
    field: `${GOOGLE_GRPC}.CallCredentials.StsService.actor_token_path`,
    kind: "reads-file",
    does: "read a token from the file and send it to a token service",
    why: "StsService.actor_token_path: The path of actor token, a security token that represents the identity of the acting party.",
  },
  {
    field: `${EXT}.grpc_service.call_credentials.sts_service.v3.StsServiceCredentials.subject_token_path`,
    kind: "reads-file",
    does: "read a token from the file and send it to a token service",
    why: "StsServiceCredentials.subject_token_path: the file the subject token is read from.",
  },
  {
    field: `${EXT}.grpc_service.call_credentials.sts_service.v3.StsServiceCredentials.actor_token_path`,
    kind: "reads-file",
    does: "read a token from the file and send it to a token service",
    why: "StsServiceCredentials.actor_token_path: the file the actor token is read from.",
  },
  {
    field: "envoy.config.trace.v3.LightstepConfig.access_token_file",
    kind: "reads-file",
    does: "read a tracing access token from the file",
    why: "LightstepConfig.access_token_file (deprecated for access_token): File containing the access token to the LightStep API.",
  },
  {
    field: `${EXT}.filters.http.grpc_json_transcoder.v3.GrpcJsonTranscoder.proto_descriptor`,
    kind: "reads-file",
    does: "read a protobuf descriptor set from the file",
    why: "GrpcJsonTranscoder.proto_descriptor: Supplies the filename of the proto descriptor set for the gRPC services (the filter's per-route config too).",
  },
  {
    field: `${EXT}.filters.http.grpc_json_reverse_transcoder.v3.GrpcJsonReverseTranscoder.descriptor_path`,
    kind: "reads-file",
    does: "read a protobuf descriptor set from the file",
    why: "GrpcJsonReverseTranscoder.descriptor_path: Supplies the filename of the proto descriptor set for the gRPC services.",
  },
  // --- environment variables -----------------------------------------------------------------
  {
    field: `${EXT}.wasm.v3.EnvironmentVariables.host_env_keys`,
    kind: "reads-env",
    does: "hand a Wasm module the environment variable",
    why: "EnvironmentVariables.host_env_keys: The keys of *Envoy's* environment variables exposed to this VM.",
  },
  {
    field: "envoy.type.tracing.v3.CustomTag.environment",
    kind: "reads-env",
    does: "tag the trace spans it reports with the environment variable",
    why: "CustomTag.environment: An environment custom tag, its value taken from the proxy's variable `name`.",
  },
  {
    field: `${AWS}.environment_credential_provider`,
    kind: "reads-env",
    does: "sign requests with the AWS credentials in the environment",
    why: "AwsCredentialProvider.environment_credential_provider: the proxy reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from its environment.",
  },
  // --- code ----------------------------------------------------------------------------------
  {
    field: `${LUA}.Lua.inline_code`,
    kind: "runs-code",
    inline: true,
    does: "run the Lua code",
    why: "Lua.inline_code (deprecated for default_source_code): The Lua code that Envoy will execute, on every request through the filter.",
  },
  {
    field: `${LUA}.Lua.default_source_code`,
    kind: "runs-code",
    does: "run the Lua code",
    why: "Lua.default_source_code: The default Lua code that Envoy will execute, on every request through the filter.",
  },
  {
    field: `${LUA}.Lua.source_codes`,
    kind: "runs-code",
    does: "run the Lua code",
    why: "Lua.source_codes: Map of named Lua source codes that can be referenced in LuaPerRoute.",
  },
  {
    field: `${LUA}.LuaPerRoute.source_code`,
    kind: "runs-code",
    does: "run the Lua code",
    why: "LuaPerRoute.source_code: A configuration of a Lua script run for the route's requests by every proxy whose chain has the Lua filter.",
  },
  {
    field: `${EXT}.router.cluster_specifiers.lua.v3.LuaConfig.source_code`,
    kind: "runs-code",
    does: "run the Lua code",
    why: "LuaConfig.source_code: The lua code that Envoy will execute to select cluster (a route configuration's cluster specifier plugin).",
  },
  {
    field: `${EXT}.string_matcher.lua.v3.Lua.source_code`,
    kind: "runs-code",
    does: "run the Lua code",
    why: "string_matcher.lua.v3.Lua.source_code: The Lua code that Envoy will run to match a string (a StringMatcher's custom matcher, in a route's header match).",
  },
  {
    field: `${EXT}.wasm.v3.VmConfig.code`,
    kind: "runs-code",
    does: "run the Wasm module",
    why: "VmConfig.code: The Wasm code that Envoy will execute, loaded from a local source or fetched from a remote one.",
  },
  {
    field: "envoy.config.trace.v3.DynamicOtConfig.library",
    kind: "runs-code",
    does: "load and run the shared library",
    why: "DynamicOtConfig.library: Dynamic library implementing the OpenTracing API, loaded into the proxy.",
  },
  ...DYNAMIC_MODULE_HOLDERS.map(
    (holder): ProxyLocalField => ({
      field: `${holder}.dynamic_module_config`,
      kind: "runs-code",
      does: "load and run the shared library of the dynamic module",
      why: "dynamic_module_config: DynamicModuleConfig.name names a shared library (lib<name>.so) the proxy loads from its dynamic modules search path and runs in its process.",
    }),
  ),
  // --- local sockets -------------------------------------------------------------------------
  {
    field: `${CORE}.Pipe.path`,
    kind: "local-socket",
    does: "connect to (or listen on) the Unix socket",
    why: "Pipe.path: Unix Domain Socket path: an endpoint or listener on it reaches a local agent of the proxy's host (a container runtime, a workload identity agent, the admin interface), not the network.",
  },
  {
    field: `${CORE}.SocketAddress.network_namespace_filepath`,
    kind: "local-socket",
    does: "open its socket in the network namespace of the file",
    why: "SocketAddress.network_namespace_filepath: Filepath that specifies the Linux network namespace this socket will be created in: the host's own network, or another container's.",
  },
  {
    field: `${GOOGLE_GRPC}.target_uri`,
    kind: "local-socket",
    does: "open a gRPC channel to the Unix socket",
    why: "GoogleGrpc.target_uri: The target URI when using the Google C++ gRPC client; a `unix:` or `unix-abstract:` target is a socket of the proxy's host.",
    only: "unix-target",
  },
  // --- the host's credentials ----------------------------------------------------------------
  {
    field: `${GOOGLE_GRPC}.ChannelCredentials.google_default`,
    kind: "host-credentials",
    does: "use the Google default credentials (GOOGLE_APPLICATION_CREDENTIALS, the metadata server)",
    why: "ChannelCredentials.google_default: gRPC's Google default credentials, whose chain reads GOOGLE_APPLICATION_CREDENTIALS, the file it names, or the host's metadata server.",
  },
  {
    field: `${GOOGLE_GRPC}.CallCredentials.google_compute_engine`,
    kind: "host-credentials",
    does: "use the Compute Engine service account",
    why: "CallCredentials.google_compute_engine: Google Compute Engine credentials: the host's service account token, from its metadata server, sent to the gRPC service.",
  },
  {
    field: `${AWS}.instance_profile_credential_provider`,
    kind: "host-credentials",
    does: "sign requests with the AWS instance role",
    why: "AwsCredentialProvider.instance_profile_credential_provider: credentials from the host's instance metadata service.",
  },
  {
    field: `${AWS}.container_credential_provider`,
    kind: "host-credentials",
    does: "sign requests with the AWS container role",
    why: "AwsCredentialProvider.container_credential_provider: credentials from the container's metadata endpoint, named by the proxy's environment.",
  },
  {
    field: `${AWS}.credentials_file_provider`,
    kind: "host-credentials",
    does: "sign requests with the AWS credentials file",
    why: "AwsCredentialProvider.credentials_file_provider: the credentials file and profile, by default ~/.aws/credentials and AWS_SHARED_CREDENTIALS_FILE / AWS_PROFILE of the proxy's environment.",
  },
  {
    field: `${EXT}.filters.http.aws_request_signing.v3.AwsRequestSigningPerRoute.aws_request_signing`,
    kind: "host-credentials",
    does: "sign the route's requests with the AWS default credentials",
    why: "AwsRequestSigningPerRoute.aws_request_signing: the route's signing settings; without a credential_provider the filter uses the default credentials chain of the proxy (its environment, files, instance role), and the signed request goes to the route's cluster.",
  },
  {
    field: `${EXT}.filters.http.aws_lambda.v3.PerRouteConfig.invoke_config`,
    kind: "host-credentials",
    does: "sign the route's Lambda invocations with the AWS default credentials",
    why: "aws_lambda PerRouteConfig.invoke_config: the function the route invokes, signed with the filter's credentials (the proxy's default chain unless given inline), sent to the route's cluster.",
  },
];

/** The table by field, for lookups. */
export const PROXY_LOCAL_BY_FIELD: ReadonlyMap<string, ProxyLocalField> = new Map(
  PROXY_LOCAL_FIELDS.map((row) => [row.field, row]),
);

/**
 * Not a field but a value: Envoy's substitution formatter replaces `%ENVIRONMENT(X)%` with the
 * proxy's environment variable X wherever it formats a string (the request and response headers
 * a route adds, access log and local reply formats, ...: the Envoy docs, "Substitution
 * formatter"). A route adding `x-leak: %ENVIRONMENT(XDS_TOKEN)%` to its responses hands the
 * proxy's token to every client, so the command counts in every string of an object.
 */
export const ENVIRONMENT_COMMAND = /%ENVIRONMENT\(([^)]*)\)/;
