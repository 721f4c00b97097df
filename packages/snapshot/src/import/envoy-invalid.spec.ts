/**
 * A hand-written corpus of invalid Envoy configurations: each case is one mutation a user could
 * make to a valid edge proxy (below), and each must be refused at the field it breaks, naming
 * the rule Envoy applies. Schema and constraint errors are refused by the import, at the path in
 * the user's document; references to objects that do not exist are refused by validation (the
 * draft may hold them when the file does not), at the model field.
 */
import { describe, expect, it } from "vitest";
import { configSpec } from "../fixtures.js";
import { validate } from "../validate/validate.js";
import { importEnvoyConfig, parseEnvoyConfig } from "./envoy-import.js";

/** A valid edge proxy: TLS passthrough by SNI, an HTTP chain with filters, routes, clusters. */
const EDGE = `
static_resources:
  listeners:
  - name: edge
    address: { socket_address: { address: 0.0.0.0, port_value: 443 } }
    listener_filters:
    - name: envoy.filters.listener.tls_inspector
      typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector }
    filter_chains:
    - filter_chain_match: { server_names: [db.example.com] }
      filters:
      - name: envoy.filters.network.tcp_proxy
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
          stat_prefix: db_passthrough
          cluster: db
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: edge_http
          codec_type: AUTO
          tracing:
            provider:
              name: envoy.tracers.zipkin
              typed_config:
                "@type": type.googleapis.com/envoy.config.trace.v3.ZipkinConfig
                collector_cluster: zipkin
                collector_endpoint: /api/v2/spans
                collector_endpoint_version: HTTP_JSON
          http_filters:
          - name: envoy.filters.http.ext_authz
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz
              transport_api_version: V3
              grpc_service: { envoy_grpc: { cluster_name: authz }, timeout: 0.25s }
          - name: envoy.filters.http.local_ratelimit
            typed_config:
              "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
              stat_prefix: edge_rl
              token_bucket: { max_tokens: 100, tokens_per_fill: 100, fill_interval: 1s }
          - name: envoy.filters.http.router
            typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
          route_config:
            name: edge-routes
            virtual_hosts:
            - name: shop
              domains: [shop.example.com]
              request_headers_to_add:
              - header: { key: x-edge, value: "1" }
              routes:
              - match:
                  prefix: /api/
                  headers:
                  - name: x-tenant
                    string_match: { safe_regex: { regex: "^[a-z]+$" } }
                route:
                  cluster: api
                  retry_policy:
                    retry_on: 5xx
                    num_retries: 2
                    retry_back_off: { base_interval: 0.025s, max_interval: 0.25s }
              - match: { safe_regex: { regex: "^/v[0-9]+/.*" } }
                route:
                  weighted_clusters:
                    clusters: [{ name: api, weight: 90 }, { name: api-canary, weight: 10 }]
              - match: { prefix: / }
                direct_response: { status: 404, body: { inline_string: not here } }
  clusters:
  - name: api
    type: STRICT_DNS
    connect_timeout: 1s
    lb_policy: RING_HASH
    ring_hash_lb_config: { minimum_ring_size: 1024, maximum_ring_size: 8388608 }
    load_assignment:
      cluster_name: api
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: api.internal, port_value: 8080 } } } }] }]
  - name: api-canary
    type: STRICT_DNS
    connect_timeout: 1s
    load_assignment:
      cluster_name: api-canary
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: canary.internal, port_value: 8080 } } } }] }]
  - name: db
    type: STRICT_DNS
    connect_timeout: 1s
    load_assignment:
      cluster_name: db
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: db.internal, port_value: 5432 } } } }] }]
  - name: authz
    type: STRICT_DNS
    connect_timeout: 1s
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: { http2_protocol_options: {} }
    load_assignment:
      cluster_name: authz
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: authz.internal, port_value: 9000 } } } }] }]
  - name: zipkin
    type: STRICT_DNS
    connect_timeout: 1s
    load_assignment:
      cluster_name: zipkin
      endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: zipkin.internal, port_value: 9411 } } } }] }]
`;

function mutated(from: string, to: string): string {
  if (!EDGE.includes(from)) throw new Error(`the base config has no ${JSON.stringify(from)}`);
  return EDGE.replace(from, to);
}

/** The errors importing `text` gives, as "path: message". */
function importErrors(text: string): string[] {
  const parsed = parseEnvoyConfig(text, { filename: "edge.yaml" });
  if ("errors" in parsed) return parsed.errors.map((e) => `${e.path}: ${e.message}`);
  return importEnvoyConfig(parsed.resources)
    .issues.filter((issue) => issue.severity === "error")
    .map((issue) => `${issue.path}: ${issue.message}`);
}

/** The errors validating the draft `text` imports to gives, as "code path: message (hint)". */
function validationErrors(text: string): string[] {
  const parsed = parseEnvoyConfig(text, { filename: "edge.yaml" });
  if ("errors" in parsed) throw new Error(JSON.stringify(parsed.errors));
  const imported = importEnvoyConfig(parsed.resources);
  expect(imported.issues.filter((issue) => issue.severity === "error")).toEqual([]);
  return validate(configSpec(imported.spec))
    .issues.filter((issue) => issue.severity === "error")
    .map((issue) => `${issue.code} ${issue.path}: ${issue.message} (${issue.hint ?? ""})`);
}

const LISTENER = "static_resources.listeners[0]";
const HCM = `${LISTENER}.filter_chains[1].filters[0].typed_config`;
const ROUTES = `${HCM}.route_config.virtual_hosts[0].routes`;

describe("the valid base config", () => {
  it("imports and validates with no error", () => {
    expect(importErrors(EDGE)).toEqual([]);
    expect(validationErrors(EDGE)).toEqual([]);
  });
});

describe("invalid mutations are refused by the import, at the field, naming Envoy's rule", () => {
  const cases: readonly {
    readonly rule: string;
    readonly from: string;
    readonly to: string;
    readonly path: string;
    readonly says: string;
  }[] = [
    {
      rule: "a tcp_proxy without a stat prefix",
      from: "stat_prefix: db_passthrough",
      to: 'stat_prefix: ""',
      path: `${LISTENER}.filter_chains[0].filters[0].typed_config.stat_prefix`,
      says: "string.min_len = 1",
    },
    {
      rule: "a retry back-off of 0s (C-core ACKs it, then keeps its old routes)",
      from: "base_interval: 0.025s",
      to: "base_interval: 0s",
      path: `${ROUTES}[0].route.retry_policy.retry_back_off.base_interval`,
      says: "duration.gt = 0s",
    },
    {
      rule: "a ring hash larger than Envoy's bound",
      from: "maximum_ring_size: 8388608",
      to: "maximum_ring_size: 16777216",
      path: "static_resources.clusters[0].ring_hash_lb_config.maximum_ring_size",
      says: "uint64.lte = 8388608",
    },
    {
      rule: "a header regex RE2 does not compile",
      from: 'regex: "^[a-z]+$"',
      to: 'regex: "^[a-z+$"',
      path: `${ROUTES}[0].match.headers[0].string_match.safe_regex.regex`,
      says: "missing closing ]",
    },
    {
      rule: "a path regex RE2 does not compile (lookahead)",
      from: 'regex: "^/v[0-9]+/.*"',
      to: 'regex: "^/v(?=[0-9])"',
      path: `${ROUTES}[1].match.safe_regex.regex`,
      says: "RE2",
    },
    {
      rule: "a virtual host with no domains",
      from: "domains: [shop.example.com]",
      to: "domains: []",
      path: `${HCM}.route_config.virtual_hosts[0].domains`,
      says: "repeated.min_items = 1",
    },
    {
      rule: "a route match without a path specifier",
      from: "match: { prefix: / }",
      to: "match: { case_sensitive: false }",
      path: `${ROUTES}[2].match`,
      says: "oneof path_specifier required",
    },
    {
      rule: "a direct response status outside 200-599",
      from: "status: 404",
      to: "status: 99",
      path: `${ROUTES}[2].direct_response.status`,
      says: "uint32.gte = 200",
    },
    {
      rule: "a negative connect timeout",
      from: "connect_timeout: 1s\n    lb_policy: RING_HASH",
      to: "connect_timeout: -1s\n    lb_policy: RING_HASH",
      path: "static_resources.clusters[0].connect_timeout",
      says: "duration.gt = 0s",
    },
    {
      rule: "a port above 65535",
      from: "port_value: 8080 } } } }] }]\n  - name: api-canary",
      to: "port_value: 80800 } } } }] }]\n  - name: api-canary",
      path: "static_resources.clusters[0].load_assignment.endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value",
      says: "uint32.lte = 65535",
    },
    {
      rule: "a header name with a newline",
      from: "header: { key: x-edge,",
      to: 'header: { key: "x-\\nedge",',
      path: `${HCM}.route_config.virtual_hosts[0].request_headers_to_add[0].header.key`,
      says: "HTTP_HEADER_NAME",
    },
    {
      rule: "a token bucket that never holds a token",
      from: "max_tokens: 100,",
      to: "max_tokens: 0,",
      path: `${HCM}.http_filters[1].typed_config.token_bucket.max_tokens`,
      says: "uint32.gt = 0",
    },
    {
      rule: "an ext_authz gRPC service without a cluster name",
      from: "envoy_grpc: { cluster_name: authz }",
      to: 'envoy_grpc: { cluster_name: "" }',
      path: `${HCM}.http_filters[0].typed_config.grpc_service.envoy_grpc.cluster_name`,
      says: "string.min_len = 1",
    },
    {
      rule: "a key password written inline (it would be shown back)",
      from: "    load_assignment:\n      cluster_name: db\n",
      to: `    transport_socket:
      name: envoy.transport_sockets.tls
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
        common_tls_context:
          tls_certificates:
          - certificate_chain: { filename: /etc/certs/client.pem }
            private_key: { filename: /etc/certs/client.key }
            password: { inline_string: hunter2 }
    load_assignment:
      cluster_name: db
`,
      path: "static_resources.clusters[2].transport_socket.typed_config.common_tls_context.tls_certificates[0].password",
      says: "a secret written inline here cannot be stored",
    },
    {
      rule: "a misspelt field in a filter's typed config",
      from: "stat_prefix: edge_rl",
      to: "stat_prefx: edge_rl",
      path: `${HCM}.http_filters[1].typed_config.stat_prefx`,
      says: 'unknown field "stat_prefx"',
    },
    {
      rule: "an enum value the proto does not define",
      from: "codec_type: AUTO",
      to: "codec_type: HTTP7",
      path: `${HCM}.codec_type`,
      says: 'unknown enum value "HTTP7"',
    },
  ];
  for (const { rule, from, to, path, says } of cases) {
    it(rule, () => {
      const errors = importErrors(mutated(from, to));
      expect(errors.length, errors.join("\n")).toBeGreaterThan(0);
      expect(
        errors.some((error) => error.startsWith(`${path}: `) && error.includes(says)),
        errors.join("\n"),
      ).toBe(true);
    });
  }
});

describe("where a refused field is", () => {
  it("is given as a line and column of the text, beside the path", () => {
    const text = mutated("stat_prefix: db_passthrough", 'stat_prefix: ""');
    const parsed = parseEnvoyConfig(text, { filename: "edge.yaml" });
    if ("errors" in parsed) throw new Error("expected the text to parse");
    const [error] = importEnvoyConfig(parsed.resources).issues.filter(
      (issue) => issue.severity === "error",
    );
    const line = text.split("\n").findIndex((l) => l.includes('stat_prefix: ""')) + 1;
    expect(error).toMatchObject({ line, column: 11 });
  });
});

describe("invalid mutations are refused by validation, at the model field", () => {
  const cases: readonly {
    readonly rule: string;
    readonly from: string;
    readonly to: string;
    readonly issue: string;
  }[] = [
    {
      rule: "a tcp_proxy to a cluster that does not exist",
      from: "cluster: db\n",
      to: "cluster: dbb\n",
      issue:
        'dangling-cluster-reference listeners["edge"].filterChains[0].networkFilters[0].typedConfig.cluster: Listener "edge" sends traffic to cluster "dbb", which does not exist; did you mean "db"?',
    },
    {
      rule: "an ext_authz gRPC service on a cluster that does not exist",
      from: "envoy_grpc: { cluster_name: authz }",
      to: "envoy_grpc: { cluster_name: auth }",
      issue:
        'dangling-cluster-reference listeners["edge"].filterChains[1].httpFilters[0].typedConfig.grpcService.envoyGrpc.clusterName: Listener "edge" sends traffic to cluster "auth", which does not exist',
    },
    {
      rule: "a Zipkin collector on a cluster that does not exist",
      from: "collector_cluster: zipkin",
      to: "collector_cluster: jaeger",
      issue:
        'dangling-cluster-reference listeners["edge"].filterChains[1].hcmExtra.tracing.provider.typedConfig.collectorCluster: Listener "edge" sends traffic to cluster "jaeger", which does not exist',
    },
    {
      rule: "a tcp_proxy followed by another filter (a terminal filter not last)",
      from: "          cluster: db\n",
      to: '          cluster: db\n      - name: envoy.filters.network.echo\n        typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.network.echo.v3.Echo }\n',
      issue:
        'invalid-network-filter listeners["edge"].filterChains[0].networkFilters[0]: envoy.filters.network.tcp_proxy (envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy) is a terminal filter, but filter 1 of 2 in filter chain 1 of listener "edge": Envoy requires a terminal filter to be the last of its chain',
    },
  ];
  for (const { rule, from, to, issue } of cases) {
    it(rule, () => {
      const errors = validationErrors(mutated(from, to));
      expect(
        errors.some((error) => error.startsWith(issue)),
        errors.join("\n"),
      ).toBe(true);
    });
  }
});
