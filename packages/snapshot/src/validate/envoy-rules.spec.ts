/**
 * The cases of checkRules (envoy-rules.ts) on the rules Envoy's protos declare: a realistic
 * listener, cluster and route configuration that must pass as they are, and a case table
 * (ENVOY_CASES) where each case breaks one thing in one of them. Long because the cases are
 * edits of those three fixtures, which take a third of the file.
 */
import { readFileSync } from "node:fs";
import { type DescMessage, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { OpaqueExtension } from "../envoy/envoy-walk.js";
import { checkRules } from "./envoy-rules.js";

const TYPE = "type.googleapis.com/";
const HCM = `${TYPE}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const TCP_PROXY = "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy";
const ADS = { ads: {}, resourceApiVersion: "V3" };

function schema(typeName: string): DescMessage {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`${typeName} is not in the registry`);
  return desc;
}

/** The violations of `json` read as `desc`, as "path rule" lines. */
function broken(desc: DescMessage, json: JsonValue): string[] {
  const message = fromJson(desc, json, { registry });
  return checkRules(desc, message).map(({ at, rule }) => `${at.join(".")} ${rule}`);
}

// --- Realistic resources: each must pass as it is, and each case below breaks one thing ---

const LISTENER = {
  name: "https",
  address: { socketAddress: { address: "0.0.0.0", portValue: 8443 } },
  listenerFilters: [
    {
      name: "envoy.filters.listener.tls_inspector",
      typedConfig: {
        "@type": `${TYPE}envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector`,
      },
    },
  ],
  filterChains: [
    {
      filterChainMatch: {
        serverNames: ["api.example.com"],
        prefixRanges: [{ addressPrefix: "10.0.0.0", prefixLen: 8 }],
      },
      transportSocket: {
        name: "envoy.transport_sockets.tls",
        typedConfig: {
          "@type": `${TYPE}envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext`,
          commonTlsContext: {
            alpnProtocols: ["h2", "http/1.1"],
            tlsParams: { tlsMinimumProtocolVersion: "TLSv1_2" },
            tlsCertificateSdsSecretConfigs: [{ name: "api-cert", sdsConfig: ADS }],
            validationContextSdsSecretConfig: { name: "client-ca", sdsConfig: ADS },
          },
        },
      },
      filters: [
        {
          name: "envoy.filters.network.http_connection_manager",
          typedConfig: {
            "@type": HCM,
            statPrefix: "https",
            codecType: "AUTO",
            useRemoteAddress: true,
            rds: { routeConfigName: "api-routes", configSource: ADS },
            commonHttpProtocolOptions: {
              idleTimeout: "300s",
              headersWithUnderscoresAction: "REJECT_REQUEST",
            },
            http2ProtocolOptions: { maxConcurrentStreams: 100 },
            accessLog: [
              {
                name: "envoy.access_loggers.stdout",
                typedConfig: {
                  "@type": `${TYPE}envoy.extensions.access_loggers.stream.v3.StdoutAccessLog`,
                },
              },
            ],
            httpFilters: [
              {
                name: "envoy.filters.http.cors",
                typedConfig: { "@type": `${TYPE}envoy.extensions.filters.http.cors.v3.Cors` },
              },
              {
                name: "envoy.filters.http.local_ratelimit",
                typedConfig: {
                  "@type": `${TYPE}envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit`,
                  statPrefix: "http_local_rate_limiter",
                  tokenBucket: { maxTokens: 1000, tokensPerFill: 100, fillInterval: "1s" },
                  filterEnabled: {
                    runtimeKey: "local_rate_limit_enabled",
                    defaultValue: { numerator: 100, denominator: "HUNDRED" },
                  },
                  filterEnforced: {
                    runtimeKey: "local_rate_limit_enforced",
                    defaultValue: { numerator: 100, denominator: "HUNDRED" },
                  },
                  responseHeadersToAdd: [
                    {
                      appendAction: "OVERWRITE_IF_EXISTS_OR_ADD",
                      header: { key: "x-local-rate-limit", value: "true" },
                    },
                  ],
                },
              },
              {
                name: "envoy.filters.http.ext_authz",
                typedConfig: {
                  "@type": `${TYPE}envoy.extensions.filters.http.ext_authz.v3.ExtAuthz`,
                  transportApiVersion: "V3",
                  grpcService: { envoyGrpc: { clusterName: "authz" }, timeout: "0.250s" },
                  withRequestBody: { maxRequestBytes: 8192, allowPartialMessage: true },
                },
              },
              {
                name: "envoy.filters.http.router",
                typedConfig: { "@type": `${TYPE}envoy.extensions.filters.http.router.v3.Router` },
              },
            ],
          },
        },
      ],
    },
  ],
};

const CLUSTER = {
  name: "api",
  type: "EDS",
  edsClusterConfig: { edsConfig: ADS },
  connectTimeout: "0.250s",
  lbPolicy: "LEAST_REQUEST",
  leastRequestLbConfig: { choiceCount: 2 },
  circuitBreakers: {
    thresholds: [
      { priority: "DEFAULT", maxConnections: 1024, maxPendingRequests: 1024, maxRetries: 3 },
    ],
  },
  healthChecks: [
    {
      timeout: "1s",
      interval: "5s",
      unhealthyThreshold: 3,
      healthyThreshold: 2,
      httpHealthCheck: { path: "/healthz" },
    },
  ],
  outlierDetection: {
    consecutive5xx: 5,
    interval: "10s",
    baseEjectionTime: "30s",
    maxEjectionPercent: 50,
  },
  commonLbConfig: { healthyPanicThreshold: { value: 50 } },
  typedExtensionProtocolOptions: {
    "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
      "@type": `${TYPE}envoy.extensions.upstreams.http.v3.HttpProtocolOptions`,
      explicitHttpConfig: { http2ProtocolOptions: {} },
    },
  },
  transportSocket: {
    name: "envoy.transport_sockets.tls",
    typedConfig: {
      "@type": `${TYPE}envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext`,
      sni: "api.internal",
      commonTlsContext: {
        tlsCertificateSdsSecretConfigs: [{ name: "client-cert", sdsConfig: ADS }],
        combinedValidationContext: {
          defaultValidationContext: {
            matchTypedSubjectAltNames: [{ sanType: "DNS", matcher: { exact: "api.internal" } }],
          },
          validationContextSdsSecretConfig: { name: "internal-ca", sdsConfig: ADS },
        },
      },
    },
  },
};

const ROUTE_CONFIGURATION = {
  name: "api-routes",
  virtualHosts: [
    {
      name: "api",
      domains: ["api.example.com", "api.example.com:8443"],
      typedPerFilterConfig: {
        "envoy.filters.http.cors": {
          "@type": `${TYPE}envoy.extensions.filters.http.cors.v3.CorsPolicy`,
          allowOriginStringMatch: [{ safeRegex: { regex: "https://[a-z]+\\.example\\.com" } }],
          allowMethods: "GET, POST",
          allowHeaders: "authorization, content-type",
          maxAge: "86400",
        },
      },
      routes: [
        {
          name: "users",
          match: {
            prefix: "/v1/users",
            headers: [{ name: ":method", stringMatch: { exact: "GET" } }],
          },
          route: {
            cluster: "users",
            timeout: "5s",
            retryPolicy: {
              retryOn: "5xx,reset,connect-failure",
              numRetries: 2,
              perTryTimeout: "1s",
              retryBackOff: { baseInterval: "0.025s", maxInterval: "0.250s" },
            },
            requestMirrorPolicies: [
              {
                cluster: "users-shadow",
                runtimeFraction: { defaultValue: { numerator: 10, denominator: "HUNDRED" } },
              },
            ],
          },
        },
        {
          name: "orders",
          match: { safeRegex: { regex: "^/v[12]/orders/[0-9]+$" } },
          route: {
            weightedClusters: {
              clusters: [
                { name: "orders-v1", weight: 90 },
                { name: "orders-v2", weight: 10 },
              ],
            },
            regexRewrite: { pattern: { regex: "^/v[12]/" }, substitution: "/" },
          },
          typedPerFilterConfig: {
            "envoy.filters.http.local_ratelimit": {
              "@type": `${TYPE}envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit`,
              statPrefix: "orders",
              tokenBucket: { maxTokens: 10, tokensPerFill: 10, fillInterval: "1s" },
            },
          },
        },
        {
          match: { path: "/legacy" },
          redirect: { pathRedirect: "/v1/users", responseCode: "PERMANENT_REDIRECT" },
        },
        {
          match: { prefix: "/" },
          directResponse: { status: 404, body: { inlineString: "not found" } },
        },
      ],
    },
  ],
};

/** `base` with `change` applied at `path` (a deep copy; `undefined` deletes). */
function changed(
  base: JsonValue,
  path: readonly (string | number)[],
  change: JsonValue | undefined,
) {
  const copy = structuredClone(base) as JsonObject;
  let parent: JsonObject | JsonValue[] = copy;
  for (const step of path.slice(0, -1)) {
    parent = (parent as Record<string | number, JsonValue>)[step] as JsonObject;
  }
  const last = path.at(-1) as string;
  if (change === undefined) delete (parent as JsonObject)[last];
  else (parent as Record<string | number, JsonValue>)[last] = change;
  return copy;
}

const ROUTE_0 = ["virtualHosts", 0, "routes", 0] as const;
const CHAIN_0_FILTER_0 = ["filterChains", 0, "filters", 0, "typedConfig"] as const;

describe("real-world resources", () => {
  it.each([
    [
      "a listener (TLS, HCM with CORS, local_ratelimit, ext_authz and router)",
      ListenerSchema,
      LISTENER,
    ],
    [
      "a cluster (EDS over ADS, TLS, health checks, outlier detection, HTTP/2)",
      ClusterSchema,
      CLUSTER,
    ],
    [
      "a route configuration (regexes, retries, mirrors, weights, CORS)",
      RouteConfigurationSchema,
      ROUTE_CONFIGURATION,
    ],
  ] as const)("%s keeps every rule Envoy declares", (_name, desc, json) => {
    expect(broken(desc, json as JsonValue)).toEqual([]);
  });

  it("the test corpus keeps every rule Envoy declares (what Envoy itself validates)", () => {
    const corpus = (file: string) =>
      parseYaml(readFileSync(new URL(`../../test/corpus/${file}`, import.meta.url), "utf8"));
    const found = [
      ...broken(schema("envoy.config.bootstrap.v3.Bootstrap"), corpus("edge-proxy.yaml")),
      ...["sidecar.yaml", "grpc-proxyless.json", "gateway.yaml"].flatMap((file) =>
        (corpus(file) as JsonObject[]).flatMap(({ "@type": typeUrl, ...resource }) =>
          broken(schema(String(typeUrl).slice(TYPE.length)), resource),
        ),
      ),
    ];
    expect(found).toEqual([]);
  });
});

interface Case {
  readonly rule: string;
  readonly type: string;
  readonly json: JsonValue;
  /** "path rule" lines, in walk order. */
  readonly expected: readonly string[];
}

const ROUTE_CONFIG = "envoy.config.route.v3.RouteConfiguration";
const LISTENER_TYPE = "envoy.config.listener.v3.Listener";
const CLUSTER_TYPE = "envoy.config.cluster.v3.Cluster";
const RETRY_BACK_OFF = [...ROUTE_0, "route", "retryPolicy", "retryBackOff"];
const AT_BACK_OFF = "virtualHosts.0.routes.0.route.retryPolicy.retryBackOff";

const tcpProxy = (json: JsonObject) => changed(LISTENER, CHAIN_0_FILTER_0, json);
const ringHash = (minimumRingSize: string) => {
  const { leastRequestLbConfig: _, ...cluster } = CLUSTER;
  return { ...cluster, lbPolicy: "RING_HASH", ringHashLbConfig: { minimumRingSize } };
};

const ENVOY_CASES: readonly Case[] = [
  {
    rule: "a retry back-off's base_interval of 0s is refused (duration.gt = 0s)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...RETRY_BACK_OFF, "baseInterval"], "0s"),
    expected: [`${AT_BACK_OFF}.baseInterval duration.gt = 0s`],
  },
  {
    rule: "a retry back-off without base_interval is refused (duration.required)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...RETRY_BACK_OFF, "baseInterval"], undefined),
    expected: [`${AT_BACK_OFF}.baseInterval duration.required`],
  },
  {
    rule: "ring_hash_lb_config.minimum_ring_size above 8388608 is refused (uint64.lte, on a UInt64Value)",
    type: CLUSTER_TYPE,
    json: ringHash("8388609"),
    expected: ["ringHashLbConfig.minimumRingSize uint64.lte = 8388608"],
  },
  {
    rule: "ring_hash_lb_config.minimum_ring_size of exactly 8388608 is accepted",
    type: CLUSTER_TYPE,
    json: ringHash("8388608"),
    expected: [],
  },
  {
    rule: "a route's safe_regex must compile with RE2",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match"], { safeRegex: { regex: "^/(v1|v2" } }),
    expected: ["virtualHosts.0.routes.0.match.safeRegex.regex regex: RE2 syntax"],
  },
  {
    rule: "a header matcher's string_match.safe_regex must compile with RE2 (no lookahead)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match", "headers", 0, "stringMatch"], {
      safeRegex: { regex: "^Bearer (?=.+)" },
    }),
    expected: [
      "virtualHosts.0.routes.0.match.headers.0.stringMatch.safeRegex.regex regex: RE2 syntax",
    ],
  },
  {
    rule: "a CORS policy's origin regex inside typed_per_filter_config must compile with RE2",
    type: ROUTE_CONFIG,
    json: changed(
      ROUTE_CONFIGURATION,
      [
        "virtualHosts",
        0,
        "typedPerFilterConfig",
        "envoy.filters.http.cors",
        "allowOriginStringMatch",
        0,
      ],
      { safeRegex: { regex: "https://(.*\\.example\\.com" } },
    ),
    expected: [
      "virtualHosts.0.typedPerFilterConfig.envoy.filters.http.cors.allowOriginStringMatch.0.safeRegex.regex regex: RE2 syntax",
    ],
  },
  {
    rule: "a tcp_proxy typed_config with an empty stat_prefix is refused through the Any",
    type: LISTENER_TYPE,
    json: tcpProxy({ "@type": TYPE + TCP_PROXY, statPrefix: "", cluster: "db" }),
    expected: ["filterChains.0.filters.0.typedConfig.statPrefix string.min_len = 1"],
  },
  {
    rule: "the same tcp_proxy config given as a TypedStruct is checked as a TcpProxy",
    type: LISTENER_TYPE,
    json: tcpProxy({
      "@type": `${TYPE}xds.type.v3.TypedStruct`,
      typeUrl: TYPE + TCP_PROXY,
      value: { stat_prefix: "", cluster: "db" },
    }),
    expected: ["filterChains.0.filters.0.typedConfig.value.statPrefix string.min_len = 1"],
  },
  {
    rule: "a TypedStruct whose value does not read as its type is refused",
    type: LISTENER_TYPE,
    json: tcpProxy({
      "@type": `${TYPE}udpa.type.v1.TypedStruct`,
      typeUrl: TYPE + TCP_PROXY,
      value: { stat_prefix: "db", cluster: 7 },
    }),
    expected: ["filterChains.0.filters.0.typedConfig TypedStruct conversion"],
  },
  {
    rule: "a virtual host without domains is refused (repeated.min_items = 1)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, ["virtualHosts", 0, "domains"], []),
    expected: ["virtualHosts.0.domains repeated.min_items = 1"],
  },
  {
    rule: "a route match without a path specifier is refused (oneof required)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match"], {
      headers: [{ name: "x-a", presentMatch: true }],
    }),
    expected: ["virtualHosts.0.routes.0.match oneof required"],
  },
  {
    rule: "a route without a match is refused (message.required)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match"], undefined),
    expected: ["virtualHosts.0.routes.0.match message.required"],
  },
  {
    rule: "an enum number the enum does not define is refused (enum.defined_only)",
    type: CLUSTER_TYPE,
    json: { ...CLUSTER, lbPolicy: 42 },
    expected: ["lbPolicy enum.defined_only"],
  },
  {
    rule: "a header matcher name with a newline is refused (HTTP_HEADER_NAME, strict: false)",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match", "headers", 0, "name"], "x-user\nid"),
    expected: [
      "virtualHosts.0.routes.0.match.headers.0.name string.well_known_regex = HTTP_HEADER_NAME",
    ],
  },
  {
    rule: "a response header key with a space is accepted when the rule is not strict",
    type: LISTENER_TYPE,
    json: changed(
      LISTENER,
      [
        ...CHAIN_0_FILTER_0,
        "httpFilters",
        1,
        "typedConfig",
        "responseHeadersToAdd",
        0,
        "header",
        "key",
      ],
      "x local",
    ),
    expected: [],
  },
  {
    rule: "a wrapper-typed field out of range is refused (CidrRange.prefix_len: UInt32Value, uint32.lte = 128)",
    type: LISTENER_TYPE,
    json: changed(
      LISTENER,
      ["filterChains", 0, "filterChainMatch", "prefixRanges", 0, "prefixLen"],
      129,
    ),
    expected: ["filterChains.0.filterChainMatch.prefixRanges.0.prefixLen uint32.lte = 128"],
  },
  {
    rule: "a wrapper-typed field set to zero is checked (TokenBucket.tokens_per_fill, uint32.gt = 0)",
    type: LISTENER_TYPE,
    json: changed(
      LISTENER,
      [...CHAIN_0_FILTER_0, "httpFilters", 1, "typedConfig", "tokenBucket", "tokensPerFill"],
      0,
    ),
    expected: [
      "filterChains.0.filters.0.typedConfig.httpFilters.1.typedConfig.tokenBucket.tokensPerFill uint32.gt = 0",
    ],
  },
  {
    rule: "an unset wrapper-typed field is not checked",
    type: "envoy.type.v3.TokenBucket",
    json: { maxTokens: 5, fillInterval: "1s" },
    expected: [],
  },
  {
    rule: "a proto3 scalar is checked even when zero (TokenBucket.max_tokens, uint32.gt = 0)",
    type: "envoy.type.v3.TokenBucket",
    json: { fillInterval: "1s" },
    expected: ["maxTokens uint32.gt = 0"],
  },
  {
    rule: "a status below a range's lower bound is refused ({lt: 600, gte: 200})",
    type: ROUTE_CONFIG,
    json: changed(
      ROUTE_CONFIGURATION,
      ["virtualHosts", 0, "routes", 3, "directResponse", "status"],
      99,
    ),
    expected: ["virtualHosts.0.routes.3.directResponse.status uint32.gte = 200"],
  },
  {
    rule: "a double above its bound is refused (Percent.value, double.lte = 100)",
    type: CLUSTER_TYPE,
    json: changed(CLUSTER, ["commonLbConfig", "healthyPanicThreshold", "value"], 150),
    expected: ["commonLbConfig.healthyPanicThreshold.value double.lte = 100"],
  },
  {
    rule: "a map key breaking the keys' rule is refused (Metadata.filter_metadata, map.keys)",
    type: CLUSTER_TYPE,
    json: { ...CLUSTER, metadata: { filterMetadata: { "": { owner: "payments" } } } },
    expected: ["metadata.filterMetadata. map.keys.string.min_len = 1"],
  },
  {
    rule: "a repeated field's items keep the items' rule, and unique items stay unique",
    type: ROUTE_CONFIG,
    json: changed(ROUTE_CONFIGURATION, [...ROUTE_0, "route", "internalRedirectPolicy"], {
      responseHeadersToCopy: ["x-a", "x-b\r", "x-a"],
    }),
    expected: [
      "virtualHosts.0.routes.0.route.internalRedirectPolicy.responseHeadersToCopy.2 repeated.unique",
      "virtualHosts.0.routes.0.route.internalRedirectPolicy.responseHeadersToCopy.1 repeated.items.string.well_known_regex = HTTP_HEADER_NAME",
    ],
  },
  {
    rule: "a oneof member is checked when it is the one set, even to its zero value (bool.const = true)",
    type: "envoy.extensions.filters.http.lua.v3.LuaPerRoute",
    json: { disabled: false },
    expected: ["disabled bool.const = true"],
  },
  {
    rule: "an extension config without typed_config is refused (any.required)",
    type: "envoy.config.core.v3.TypedExtensionConfig",
    json: { name: "envoy.filters.http.router" },
    expected: ["typedConfig any.required"],
  },
  {
    rule: "ignore_empty: an empty geolocation header name is accepted, a bad one is not",
    type: "envoy.extensions.geoip_providers.common.v3.CommonGeoipProviderConfig",
    json: { geoHeadersToAdd: { country: "", city: "x city" } },
    expected: ["geoHeadersToAdd.city string.well_known_regex = HTTP_HEADER_NAME"],
  },
];

describe("checkRules on Envoy's own rules", () => {
  it.each(ENVOY_CASES)("$rule", ({ type, json, expected }) => {
    expect(broken(schema(type), json)).toEqual(expected);
  });

  it("says what is wrong, with the value seen and the rule", () => {
    const json = changed(ROUTE_CONFIGURATION, [...RETRY_BACK_OFF, "baseInterval"], "0s");
    const desc = schema(ROUTE_CONFIG);
    expect(checkRules(desc, fromJson(desc, json, { registry }))).toEqual([
      {
        at: [
          "virtualHosts",
          0,
          "routes",
          0,
          "route",
          "retryPolicy",
          "retryBackOff",
          "baseInterval",
        ],
        rule: "duration.gt = 0s",
        message: "must be greater than 0s, got 0s (duration.gt = 0s)",
      },
    ]);
  });

  it("gives RE2's own error for a regex RE2 refuses", () => {
    const json = changed(ROUTE_CONFIGURATION, [...ROUTE_0, "match"], {
      safeRegex: { regex: "(a" },
    });
    const [violation] = checkRules(
      schema(ROUTE_CONFIG),
      fromJson(schema(ROUTE_CONFIG), json, { registry }),
    );
    expect(violation?.message).toBe(
      'must be an RE2 regular expression, got "(a": error parsing regexp: missing closing ): `(a` (regex: RE2 syntax)',
    );
  });

  it("does not check an extension of a type the registry lacks, and tells whoever asks", () => {
    const json = tcpProxy({
      "@type": `${TYPE}xds.type.v3.TypedStruct`,
      typeUrl: `${TYPE}envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker`,
      value: { stat_prefix: "", anything: "goes" },
    });
    const opaque: [string, OpaqueExtension][] = [];
    const violations = checkRules(ListenerSchema, fromJson(ListenerSchema, json, { registry }), {
      opaque: (at, extension) => opaque.push([at.join("."), extension]),
    });
    expect(violations).toEqual([]);
    expect(opaque).toEqual([
      [
        "filterChains.0.filters.0.typedConfig",
        {
          t: "unknown-type",
          via: "typed-struct",
          typeUrl: `${TYPE}envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker`,
        },
      ],
    ]);
  });

  it("prefixes every violation with the path it is given", () => {
    const desc = schema("envoy.type.v3.TokenBucket");
    const [violation] = checkRules(desc, fromJson(desc, { fillInterval: "1s" }), {
      at: ["tokenBucket"],
    });
    expect(violation?.at).toEqual(["tokenBucket", "maxTokens"]);
  });
});
