/**
 * The cases of `validate`, one describe per group of rules (names, addresses, filter chains,
 * references, duplicates, proxyless gRPC, ...), each run through `validate` itself. Long because
 * the groups share one set of spec builders (withRoutes, withListeners, grpcWith, realistic) and
 * one case form (runCases: a spec and the issues it must give).
 */
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  grpcServiceSpec,
  localitySpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  routeSpec,
  socketListenerSpec,
  tcpProxyListenerSpec,
  virtualHostSpec,
} from "../fixtures.js";
import type {
  ClusterSpec,
  ConfigSpec,
  JsonObject,
  ListenerSpec,
  RouteConfigurationSpec,
  RouteSpec,
} from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { validate } from "./validate.js";
import { type Severity, VALIDATION_CODES, type ValidationCode } from "./validate-issues.js";
import { NameSuggester } from "./validate-syntax.js";

interface Expected {
  readonly severity: Severity;
  readonly code: ValidationCode;
  readonly path: string;
}

interface Case {
  /** The rule, as the test's name. */
  readonly rule: string;
  readonly spec: ConfigSpec;
  readonly code: ValidationCode;
  /** Every issue of `code` the spec must give, in order; none for a case that must pass. */
  readonly expected: readonly Expected[];
}

const error = (code: ValidationCode, path: string): Expected => ({ severity: "error", code, path });
const warning = (code: ValidationCode, path: string): Expected => ({
  severity: "warning",
  code,
  path,
});

/** The issues of one code, reduced to what the cases compare. */
function found(spec: ConfigSpec, code: ValidationCode): Expected[] {
  return validate(spec)
    .issues.filter((issue) => issue.code === code)
    .map(({ severity, code, path }) => ({ severity, code, path }));
}

function runCases(cases: readonly Case[]): void {
  it.each(cases)("$rule", ({ spec, code, expected }) => {
    expect(found(spec, code)).toEqual(expected);
  });
}

const ep = (address = "10.0.0.1", port = 8080, overrides = {}) =>
  endpointSpec(address, port, overrides);

/** A spec with one cluster (and nothing routing to it). */
const withCluster = (cluster: ClusterSpec): ConfigSpec => configSpec({ clusters: [cluster] });

/** Cluster "c" and route configuration "r" with virtual host "v" holding `routes`. */
function withRoutes(...routes: RouteSpec[]): ConfigSpec {
  return configSpec({
    clusters: [clusterSpec("c", [ep()]), clusterSpec("d", [ep("10.0.0.2")])],
    routeConfigurations: [
      routeConfigurationSpec("r", "c", { virtualHosts: [virtualHostSpec("v", ["*"], routes)] }),
    ],
  });
}

/** Route configuration "r" (to cluster "c") and the given listeners. */
function withListeners(...listeners: ListenerSpec[]): ConfigSpec {
  return configSpec({
    clusters: [clusterSpec("c", [ep()])],
    routeConfigurations: [routeConfigurationSpec("r", "c")],
    listeners,
  });
}

const withRouteConfiguration = (routeConfiguration: RouteConfigurationSpec): ConfigSpec =>
  configSpec({ clusters: [clusterSpec("c", [ep()])], routeConfigurations: [routeConfiguration] });

/** The greeter proxyless gRPC service, with its cluster changed. */
function grpcWith(overrides: Partial<ClusterSpec>): ConfigSpec {
  const spec = grpcServiceSpec("greeter", [ep("10.0.0.1", 50051)]);
  return {
    ...spec,
    clusters: spec.clusters.map((cluster) => ({ ...cluster, ...overrides })),
  };
}

/**
 * A realistic config: a proxyless gRPC service, and an edge of two socket listeners sharing a route
 * configuration with PATH, SAFE_REGEX, weighted, redirect and direct-response routes; a node group.
 */
function realistic(): ConfigSpec {
  const grpc = grpcServiceSpec("greeter", [ep("10.0.0.1", 50051), ep("10.0.0.2", 50051)]);
  return configSpec({
    clusters: [
      ...grpc.clusters,
      clusterSpec("web", [ep("10.0.1.1"), ep("10.0.1.2")]),
      clusterSpec("payments", [ep("10.0.2.1", 8443)], { lbPolicy: "LEAST_REQUEST" }),
      clusterSpec("geo", [ep("geo.example.com", 443)], { discoveryType: "LOGICAL_DNS" }),
    ],
    routeConfigurations: [
      ...grpc.routeConfigurations,
      {
        name: "ingress",
        vhds: false,
        extra: {},
        virtualHosts: [
          virtualHostSpec(
            "api",
            ["api.example.com", "*.api.example.com"],
            [
              routeSpec("payments", { matchKind: "PATH", matchValue: "/pay", timeoutMs: 2000 }),
              routeSpec("geo", { matchKind: "SAFE_REGEX", matchValue: "(?i)/geo/v[0-9]+/.*" }),
              routeSpec("", {
                matchValue: "/",
                actionKind: "WEIGHTED_CLUSTERS",
                cluster: null,
                weightedClusters: [
                  { name: "web", weight: 90 },
                  { name: "payments", weight: 10 },
                ],
              }),
            ],
          ),
          virtualHostSpec(
            "www",
            ["www.example.com", "example.*"],
            [
              routeSpec("", {
                matchValue: "/old",
                actionKind: "REDIRECT",
                cluster: null,
                redirect: { pathRedirect: "/new" },
              }),
              routeSpec("", {
                actionKind: "DIRECT_RESPONSE",
                cluster: null,
                directResponse: { status: 404 },
              }),
            ],
          ),
        ],
      },
    ],
    listeners: [
      ...grpc.listeners,
      socketListenerSpec("edge", 8080, "ingress"),
      socketListenerSpec("edge-tls", 8443, "ingress", {
        filterChains: [
          filterChainSpec({
            rdsRouteConfigName: "ingress",
            serverNames: ["api.example.com"],
            httpFilters: [
              {
                name: "envoy.filters.http.router",
                typedConfig: {
                  "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
                },
              },
            ],
          }),
        ],
      }),
    ],
    nodeGroups: [
      nodeGroupSpec("edge-proxies", {
        nodeClusters: ["edge"],
        listeners: ["edge", "edge-tls"],
        clusters: ["web", "payments", "geo"],
      }),
    ],
  });
}

describe("validate: a valid config", () => {
  it("a realistic config (proxyless gRPC service and socket listeners) has no issues", () => {
    const spec = realistic();
    expect(compile(spec).issues).toEqual([]);
    expect(validate(spec)).toEqual({ issues: [], ok: true });
  });

  it("the smallest proxyless gRPC config has no issues", () => {
    expect(validate(grpcServiceSpec("greeter", [ep("127.0.0.1", 50051)]))).toEqual({
      issues: [],
      ok: true,
    });
  });

  it("an empty config has no issues", () => {
    expect(validate(configSpec())).toEqual({ issues: [], ok: true });
  });
});

describe("validate: names", () => {
  runCases([
    {
      rule: "a cluster name with a space is an invalid name, at the cluster's name",
      spec: withCluster(clusterSpec("pay ments", [ep()])),
      code: "invalid-name",
      expected: [error("invalid-name", 'clusters["pay ments"].name')],
    },
    {
      rule: "an empty listener name is an invalid name",
      spec: withListeners(socketListenerSpec("", 80, "r")),
      code: "invalid-name",
      expected: [error("invalid-name", 'listeners[""].name')],
    },
    {
      rule: "a virtual host name with a control character is an invalid name",
      spec: withRouteConfiguration(
        routeConfigurationSpec("r", "c", {
          virtualHosts: [virtualHostSpec("v\u0007", ["*"], [routeSpec("c")])],
        }),
      ),
      code: "invalid-name",
      expected: [error("invalid-name", 'routeConfigurations["r"].virtualHosts["v\\u0007"].name')],
    },
    {
      rule: "a virtual host of a route configuration loaded whole may be named * or end in /* (gateways name them listener/host); only VHDS serves virtual hosts by name",
      spec: withRouteConfiguration(
        routeConfigurationSpec("r", "c", {
          virtualHosts: [
            virtualHostSpec("*", ["*"], [routeSpec("c")]),
            virtualHostSpec("first-listener/*", ["a.example.com"], [routeSpec("c")]),
            virtualHostSpec("with space", ["b.example.com"], [routeSpec("c")]),
          ],
        }),
      ),
      code: "invalid-name",
      expected: [],
    },
    {
      rule: "an on-demand (VHDS) virtual host named * is refused: its resource name would read as a glob collection",
      spec: withRouteConfiguration(
        routeConfigurationSpec("r", "c", {
          vhds: true,
          virtualHosts: [virtualHostSpec("*", ["*"], [routeSpec("c")])],
        }),
      ),
      code: "invalid-name",
      expected: [error("invalid-name", 'routeConfigurations["r"].virtualHosts["*"].name')],
    },
    {
      rule: "a node group name longer than 512 characters is an invalid name (the database indexes names)",
      spec: configSpec({ nodeGroups: [nodeGroupSpec("g".repeat(513))] }),
      code: "invalid-name",
      expected: [error("invalid-name", `nodeGroups["${"g".repeat(513)}"].name`)],
    },
    {
      rule: "an EDS service name with a newline is an invalid name",
      spec: withCluster(clusterSpec("c", [ep()], { edsServiceName: "svc\nname" })),
      code: "invalid-name",
      expected: [error("invalid-name", 'clusters["c"].edsServiceName')],
    },
    {
      rule: "names with dots, bars, slashes and colons are valid (Istio-style names)",
      spec: configSpec({
        clusters: [clusterSpec("outbound|8080||svc.ns.svc.cluster.local", [ep()])],
        nodeGroups: [nodeGroupSpec("team/a:prod")],
      }),
      code: "invalid-name",
      expected: [],
    },
  ]);
});

describe("validate: listener addresses", () => {
  runCases([
    {
      rule: "a socket listener needs an address",
      spec: withListeners(socketListenerSpec("edge", 80, "r", { address: null })),
      code: "socket-address-required",
      expected: [error("socket-address-required", 'listeners["edge"].address')],
    },
    {
      rule: "a socket listener needs a port",
      spec: withListeners(socketListenerSpec("edge", 80, "r", { port: null })),
      code: "socket-address-required",
      expected: [error("socket-address-required", 'listeners["edge"].port')],
    },
    {
      rule: "a listener port is from 0 (any free port, as Envoy binds it) to 65535",
      spec: withListeners(
        socketListenerSpec("a", 0, "r"),
        socketListenerSpec("b", 65536, "r"),
        socketListenerSpec("c", -1, "r"),
      ),
      code: "invalid-port",
      expected: [
        error("invalid-port", 'listeners["b"].port'),
        error("invalid-port", 'listeners["c"].port'),
      ],
    },
    {
      rule: "a listener may listen on a Unix socket, which has no port",
      spec: withListeners(
        socketListenerSpec("ok", 80, "r", { address: "unix:///run/envoy/admin.sock", port: null }),
        socketListenerSpec("abstract", 80, "r", { address: "unix://@envoy", port: null }),
        socketListenerSpec("ported", 80, "r", { address: "unix:///run/x.sock", port: 80 }),
        socketListenerSpec("pathless", 80, "r", { address: "unix://", port: null }),
      ),
      code: "invalid-port",
      expected: [error("invalid-port", 'listeners["ported"].port')],
    },
    {
      rule: "a Unix socket listener needs a path",
      spec: withListeners(
        socketListenerSpec("pathless", 80, "r", { address: "unix://", port: null }),
      ),
      code: "invalid-address",
      expected: [error("invalid-address", 'listeners["pathless"].address')],
    },
    {
      rule: "an internal listener has no address: it sets internal_listener (Envoy refuses an envoy_internal_address as a listener's address)",
      spec: withListeners(
        socketListenerSpec("inner", 80, "r", {
          address: null,
          port: null,
          extra: { internalListener: {} },
        }),
        socketListenerSpec("wrong", 80, "r", { address: "envoy://wrong", port: null }),
      ),
      code: "invalid-address",
      expected: [error("invalid-address", 'listeners["wrong"].address')],
    },
    {
      rule: "an internal listener binds nothing: an address, a port or a socket feature on it is refused",
      spec: withListeners(
        socketListenerSpec("inner", 80, "r", {
          address: "127.0.0.1",
          extra: { internalListener: {}, enableReusePort: true, socketOptions: [{ level: 1 }] },
        }),
      ),
      code: "api-listener-address",
      expected: [
        error("api-listener-address", 'listeners["inner"].address'),
        error("api-listener-address", 'listeners["inner"].port'),
      ],
    },
    {
      rule: "an internal listener uses none of the socket features it has no socket for",
      spec: withListeners(
        socketListenerSpec("inner", 80, "r", {
          address: null,
          port: null,
          extra: { internalListener: {}, enableReusePort: true, socketOptions: [{ level: 1 }] },
        }),
      ),
      code: "internal-listener-feature",
      expected: [
        error("internal-listener-feature", 'listeners["inner"].extra.enableReusePort'),
        error("internal-listener-feature", 'listeners["inner"].extra.socketOptions'),
      ],
    },
    {
      rule: "a listener binds an IP address, not a host name",
      spec: withListeners(socketListenerSpec("edge", 80, "r", { address: "proxy.local" })),
      code: "invalid-address",
      expected: [error("invalid-address", 'listeners["edge"].address')],
    },
    {
      rule: "an api_listener has no port and no address",
      spec: withListeners(apiListenerSpec("svc", "r", { address: "0.0.0.0", port: 443 })),
      code: "api-listener-address",
      expected: [
        error("api-listener-address", 'listeners["svc"].address'),
        error("api-listener-address", 'listeners["svc"].port'),
      ],
    },
    {
      rule: 'IPv4 and IPv6 listener addresses such as "::" are valid',
      spec: withListeners(
        socketListenerSpec("v4", 80, "r", { address: "127.0.0.1" }),
        socketListenerSpec("v6", 80, "r", { address: "::" }),
      ),
      code: "invalid-address",
      expected: [],
    },
  ]);
});

describe("validate: filter chains and HTTP filters", () => {
  const router = { name: "envoy.filters.http.router" };
  const cors = { name: "envoy.filters.http.cors" };
  runCases([
    {
      rule: "an api_listener has exactly one filter chain",
      spec: withListeners(
        apiListenerSpec("svc", "r", {
          filterChains: [
            filterChainSpec({ rdsRouteConfigName: "r" }),
            filterChainSpec({ rdsRouteConfigName: "r" }),
          ],
        }),
      ),
      code: "filter-chain-count",
      expected: [error("filter-chain-count", 'listeners["svc"].filterChains')],
    },
    {
      rule: "a socket listener has at least one filter chain",
      spec: withListeners(socketListenerSpec("edge", 80, "r", { filterChains: [] })),
      code: "filter-chain-count",
      expected: [error("filter-chain-count", 'listeners["edge"].filterChains')],
    },
    {
      rule: "a listener whose only chain is its default filter chain takes connections",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [filterChainSpec({ rdsRouteConfigName: "r", isDefault: true })],
        }),
      ),
      code: "filter-chain-count",
      expected: [],
    },
    {
      rule: "a problem in the default filter chain is reported at that chain, wherever it is stored among the others",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({
              isDefault: true,
              networkOnly: true,
              statPrefix: "",
              networkFilters: [
                {
                  name: "envoy.filters.network.tcp_proxy",
                  typedConfig: {
                    "@type":
                      "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
                    statPrefix: "tcp",
                    cluster: "nowhere",
                  },
                },
              ],
            }),
            filterChainSpec({ rdsRouteConfigName: "r", serverNames: ["a.example.com"] }),
          ],
        }),
      ),
      code: "dangling-cluster-reference",
      expected: [
        error(
          "dangling-cluster-reference",
          'listeners["edge"].filterChains[0].networkFilters[0].typedConfig.cluster',
        ),
      ],
    },
    {
      rule: "a listener has at most one default filter chain",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({ rdsRouteConfigName: "r", isDefault: true }),
            filterChainSpec({ rdsRouteConfigName: "r", isDefault: true }),
          ],
        }),
      ),
      code: "filter-chain-count",
      expected: [error("filter-chain-count", 'listeners["edge"].filterChains[1].isDefault')],
    },
    {
      rule: "a UDP listener has no filter chain (its listener filters serve it), a QUIC listener needs one",
      spec: withListeners(
        socketListenerSpec("udp", 53, "r", {
          extra: { address: { socketAddress: { protocol: "UDP" } } },
          filterChains: [],
        }),
        socketListenerSpec("udp-chains", 54, "r", {
          extra: { address: { socketAddress: { protocol: "UDP" } } },
        }),
        socketListenerSpec("quic", 443, "r", {
          extra: {
            address: { socketAddress: { protocol: "UDP" } },
            udpListenerConfig: { quicOptions: {} },
          },
          filterChains: [],
        }),
        // udp_listener_config without protocol UDP is a TCP listener: Envoy takes the socket
        // type from the address alone.
        socketListenerSpec("tcp", 80, "r", {
          extra: { udpListenerConfig: {} },
          filterChains: [],
        }),
      ),
      code: "filter-chain-count",
      expected: [
        error("filter-chain-count", 'listeners["udp-chains"].filterChains'),
        error("filter-chain-count", 'listeners["quic"].filterChains'),
        error("filter-chain-count", 'listeners["tcp"].filterChains'),
      ],
    },
    {
      rule: "every filter chain of a QUIC listener has a transport socket",
      spec: withListeners(
        socketListenerSpec("quic", 443, "r", {
          extra: {
            address: { socketAddress: { protocol: "UDP" } },
            udpListenerConfig: { quicOptions: {} },
          },
          filterChains: [
            filterChainSpec({
              rdsRouteConfigName: "r",
              extra: { transportSocket: { name: "envoy.transport_sockets.quic" } },
            }),
            filterChainSpec({ rdsRouteConfigName: "r" }),
          ],
        }),
      ),
      code: "filter-chain-count",
      expected: [
        error("filter-chain-count", 'listeners["quic"].filterChains[1].extra.transportSocket'),
      ],
    },
    {
      rule: "a filter chain does not set both RDS and inline routes",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [filterChainSpec({ rdsRouteConfigName: "r", inlineRouteConfigName: "r" })],
        }),
      ),
      code: "invalid-route-specifier",
      expected: [
        error("invalid-route-specifier", 'listeners["edge"].filterChains[0].inlineRouteConfigName'),
      ],
    },
    {
      rule: "a filter chain names a route configuration",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", { filterChains: [filterChainSpec()] }),
      ),
      code: "invalid-route-specifier",
      expected: [
        error("invalid-route-specifier", 'listeners["edge"].filterChains[0].rdsRouteConfigName'),
      ],
    },
    {
      rule: "hcmExtra sets no route specifier of its own (it would take gRPC clients off RDS over ADS)",
      spec: withListeners(
        apiListenerSpec("svc", "r", {
          filterChains: [
            filterChainSpec({ rdsRouteConfigName: "r", hcmExtra: { scopedRoutes: { name: "s" } } }),
          ],
        }),
      ),
      code: "invalid-route-specifier",
      expected: [
        error("invalid-route-specifier", 'listeners["svc"].filterChains[0].hcmExtra.scopedRoutes'),
      ],
    },
    {
      rule: "the router HTTP filter comes last",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [filterChainSpec({ rdsRouteConfigName: "r", httpFilters: [router, cors] })],
        }),
      ),
      code: "router-filter-not-last",
      expected: [
        error("router-filter-not-last", 'listeners["edge"].filterChains[0].httpFilters[0]'),
      ],
    },
    {
      rule: "the router is known by its typed config's type, whatever its name (Envoy picks the factory by type)",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({
              rdsRouteConfigName: "r",
              httpFilters: [
                {
                  name: "envoy.filters.http.router",
                  typedConfig: {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors",
                  },
                },
                {
                  name: "route",
                  typedConfig: {
                    "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
                  },
                },
                cors,
              ],
            }),
          ],
        }),
      ),
      code: "router-filter-not-last",
      expected: [
        error("router-filter-not-last", 'listeners["edge"].filterChains[0].httpFilters[1]'),
      ],
    },
    {
      rule: "HTTP filters without the router are fine: the compiler appends it",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [filterChainSpec({ rdsRouteConfigName: "r", httpFilters: [cors] })],
        }),
      ),
      code: "router-filter-not-last",
      expected: [],
    },
    {
      rule: "an HTTP filter is an object with a name",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({
              rdsRouteConfigName: "r",
              httpFilters: ["cors", { typedConfig: {} }],
            }),
          ],
        }),
      ),
      code: "invalid-http-filter",
      expected: [
        error("invalid-http-filter", 'listeners["edge"].filterChains[0].httpFilters[0]'),
        error("invalid-http-filter", 'listeners["edge"].filterChains[0].httpFilters[1]'),
      ],
    },
  ]);
});

describe("validate: clusters, localities and endpoints", () => {
  runCases([
    {
      rule: "a connect timeout is more than 0",
      spec: withCluster(clusterSpec("c", [ep()], { connectTimeoutMs: 0 })),
      code: "invalid-timeout",
      expected: [error("invalid-timeout", 'clusters["c"].connectTimeoutMs')],
    },
    {
      rule: "a locality weight, when set, is at least 1",
      spec: withCluster(
        clusterSpec("c", [], { localities: [localitySpec([ep()], { weight: 0 })] }),
      ),
      code: "invalid-weight",
      expected: [error("invalid-weight", 'clusters["c"].localities[0].weight')],
    },
    {
      rule: "an endpoint weight, when set, is at least 1",
      spec: withCluster(clusterSpec("c", [ep(), ep("10.0.0.2", 8080, { weight: 0 })])),
      code: "invalid-weight",
      expected: [error("invalid-weight", 'clusters["c"].localities[0].endpoints[1].weight')],
    },
    {
      rule: "an endpoint port is from 1 to 65535",
      spec: withCluster(clusterSpec("c", [ep("10.0.0.1", 0)])),
      code: "invalid-port",
      expected: [error("invalid-port", 'clusters["c"].localities[0].endpoints[0].port')],
    },
    {
      rule: "an endpoint address is not empty, not bracketed, not a malformed IP",
      spec: withCluster(
        clusterSpec("c", [ep(""), ep("[::1]"), ep("10.0.0.300"), ep("host:80")], {
          discoveryType: "STRICT_DNS",
        }),
      ),
      code: "invalid-address",
      expected: [0, 1, 2, 3].map((e) =>
        error("invalid-address", `clusters["c"].localities[0].endpoints[${e}].address`),
      ),
    },
    {
      rule: "a host name resolved by a custom resolver (resolver_name) is taken in a STATIC cluster, and refused in a DNS cluster",
      spec: configSpec({
        clusters: [
          clusterSpec(
            "static",
            [
              ep("db.internal", 5432, {
                extra: { endpoint: { address: { socketAddress: { resolverName: "custom" } } } },
              }),
            ],
            { discoveryType: "STATIC" },
          ),
          clusterSpec(
            "dns",
            [
              ep("db.internal", 5432, {
                extra: { endpoint: { address: { socketAddress: { resolverName: "custom" } } } },
              }),
            ],
            { discoveryType: "STRICT_DNS" },
          ),
        ],
      }),
      code: "resolver-name-on-dns-cluster",
      expected: [
        error(
          "resolver-name-on-dns-cluster",
          'clusters["dns"].localities[0].endpoints[0].extra.endpoint.address.socketAddress.resolverName',
        ),
      ],
    },
    {
      rule: "a STATIC cluster's endpoints are IP addresses",
      spec: withCluster(clusterSpec("c", [ep("db.internal")], { discoveryType: "STATIC" })),
      code: "endpoint-not-ip",
      expected: [error("endpoint-not-ip", 'clusters["c"].localities[0].endpoints[0].address')],
    },
    {
      rule: "an EDS cluster's endpoints are IP addresses",
      spec: withCluster(clusterSpec("c", [ep("db.internal")])),
      code: "endpoint-not-ip",
      expected: [error("endpoint-not-ip", 'clusters["c"].localities[0].endpoints[0].address')],
    },
    {
      rule: "an endpoint may be a Unix socket or an internal listener, with no port",
      spec: configSpec({
        clusters: [
          clusterSpec("sds", [ep("unix:///var/run/sds.sock", 0)], { discoveryType: "STATIC" }),
          clusterSpec("inner", [ep("envoy://encap", 0)], { discoveryType: "STATIC" }),
          clusterSpec("ported", [ep("unix:///var/run/x.sock", 80)], { discoveryType: "STATIC" }),
        ],
        listeners: [
          socketListenerSpec("encap", 0, "r", {
            address: null,
            port: null,
            extra: { internalListener: {} },
          }),
        ],
      }),
      code: "invalid-port",
      expected: [error("invalid-port", 'clusters["ported"].localities[0].endpoints[0].port')],
    },
    {
      rule: "a DNS cluster resolves socket addresses only: a Unix socket endpoint there is refused",
      spec: withCluster(
        clusterSpec("c", [ep("unix:///var/run/x.sock", 0)], { discoveryType: "STRICT_DNS" }),
      ),
      code: "invalid-address",
      expected: [error("invalid-address", 'clusters["c"].localities[0].endpoints[0].address')],
    },
    {
      rule: "an endpoint reaches an internal listener that exists and is one",
      spec: configSpec({
        clusters: [
          clusterSpec("a", [ep("envoy://missing", 0)], { discoveryType: "STATIC" }),
          clusterSpec("b", [ep("envoy://edge", 0)], { discoveryType: "STATIC" }),
        ],
        listeners: [socketListenerSpec("edge", 80, "r")],
        routeConfigurations: [routeConfigurationSpec("r", "a")],
      }),
      code: "dangling-listener-reference",
      expected: [
        error("dangling-listener-reference", 'clusters["a"].localities[0].endpoints[0].address'),
        error("dangling-listener-reference", 'clusters["b"].localities[0].endpoints[0].address'),
      ],
    },
    {
      rule: "a node group that receives a cluster reaching an internal listener receives that listener",
      spec: configSpec({
        clusters: [clusterSpec("encap", [ep("envoy://inner", 0)], { discoveryType: "STATIC" })],
        listeners: [
          socketListenerSpec("inner", 0, "r", {
            address: null,
            port: null,
            extra: { internalListener: {} },
            filterChains: [
              filterChainSpec({
                networkOnly: true,
                networkFilters: [
                  {
                    name: "tcp",
                    typedConfig: {
                      "@type":
                        "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
                      statPrefix: "t",
                      cluster: "encap",
                    },
                  },
                ],
              }),
            ],
          }),
        ],
        nodeGroups: [
          nodeGroupSpec("edge", { clusters: ["encap"], listeners: [] }),
          nodeGroupSpec("whole", { clusters: ["encap"], listeners: ["inner"] }),
        ],
      }),
      code: "node-group-missing-cluster",
      expected: [error("node-group-missing-cluster", 'nodeGroups["edge"].listeners')],
    },
    {
      rule: "a STRICT_DNS cluster's endpoints may be host names",
      spec: withCluster(
        clusterSpec("c", [ep("db.internal"), ep("_grpc._tcp.svc.local")], {
          discoveryType: "STRICT_DNS",
        }),
      ),
      code: "endpoint-not-ip",
      expected: [],
    },
    {
      rule: "a LOGICAL_DNS cluster has exactly one endpoint",
      spec: withCluster(
        clusterSpec("c", [ep("a.example.com"), ep("b.example.com")], {
          discoveryType: "LOGICAL_DNS",
        }),
      ),
      code: "logical-dns-endpoint-count",
      expected: [error("logical-dns-endpoint-count", 'clusters["c"].localities')],
    },
    {
      rule: "a cluster without endpoints is a warning (it warms, but has no hosts)",
      spec: withCluster(clusterSpec("c")),
      code: "cluster-without-endpoints",
      expected: [warning("cluster-without-endpoints", 'clusters["c"].localities')],
    },
  ]);
});

describe("validate: virtual hosts and domains", () => {
  const host = (...domains: string[]) =>
    withRouteConfiguration(
      routeConfigurationSpec("r", "c", {
        virtualHosts: [virtualHostSpec("v", domains, [routeSpec("c")])],
      }),
    );
  runCases([
    {
      rule: "a virtual host has at least one domain",
      spec: host(),
      code: "empty-domains",
      expected: [error("empty-domains", 'routeConfigurations["r"].virtualHosts["v"].domains')],
    },
    {
      rule: "a domain is not empty and holds no whitespace, control character, NUL, CR or LF",
      spec: host("", "a b", "a\tb", "a\r\nb", "ok.example.com"),
      code: "invalid-domain",
      expected: [0, 1, 2, 3].map((d) =>
        error("invalid-domain", `routeConfigurations["r"].virtualHosts["v"].domains[${d}]`),
      ),
    },
    {
      rule: 'a "*" in the middle of a domain, or a second one, is taken by Envoy and matched as the character: a warning',
      spec: host("*.*.example.com", "api.*.com", "**", "*.example.com"),
      code: "literal-wildcard-domain",
      expected: [0, 1, 2].map((d) =>
        warning(
          "literal-wildcard-domain",
          `routeConfigurations["r"].virtualHosts["v"].domains[${d}]`,
        ),
      ),
    },
    {
      rule: 'domains "*", "*.example.com", "example.*", ones with a port, and Unicode ones differing only in non-ASCII case are valid (Envoy folds ASCII case only)',
      spec: host("*", "*.example.com", "example.*", "api.example.com:8080"),
      code: "invalid-domain",
      expected: [],
    },
    {
      rule: "domains that differ only in non-ASCII case are two domains, as Envoy folds ASCII case only",
      spec: host("école.example", "École.example"),
      code: "duplicate-domain",
      expected: [],
    },
  ]);
});

describe("validate: route matches", () => {
  runCases([
    {
      rule: 'a PATH match not starting with "/" is a warning: Envoy takes it, and it never matches',
      spec: withRoutes(routeSpec("c", { matchKind: "PATH", matchValue: "api/users" })),
      code: "unmatchable-path",
      expected: [
        warning(
          "unmatchable-path",
          'routeConfigurations["r"].virtualHosts["v"].routes[0].matchValue',
        ),
      ],
    },
    {
      rule: 'a PATH match "*" is the request target of OPTIONS *, which Envoy routes',
      spec: withRoutes(routeSpec("c", { matchKind: "PATH", matchValue: "*" })),
      code: "unmatchable-path",
      expected: [],
    },
    {
      rule: "a SAFE_REGEX match compiles as RE2 (no lookahead, no unbalanced groups)",
      spec: withRoutes(
        routeSpec("c", { matchKind: "SAFE_REGEX", matchValue: "/(?=admin).*" }),
        routeSpec("c", { matchKind: "SAFE_REGEX", matchValue: "/(api" }),
      ),
      code: "invalid-regex",
      expected: [0, 1].map((r) =>
        error(
          "invalid-regex",
          `routeConfigurations["r"].virtualHosts["v"].routes[${r}].matchValue`,
        ),
      ),
    },
    {
      rule: "RE2 syntax JavaScript lacks is accepted ((?i), \\z, [[:alpha:]], (?P<name>))",
      spec: withRoutes(
        routeSpec("c", { matchKind: "SAFE_REGEX", matchValue: "(?i)/api/[[:alpha:]]+\\z" }),
        routeSpec("c", { matchKind: "SAFE_REGEX", matchValue: "/(?P<version>v[0-9]+)/.*" }),
      ),
      code: "invalid-regex",
      expected: [],
    },
    {
      rule: "an empty PREFIX match is valid (it matches everything)",
      spec: withRoutes(routeSpec("c", { matchKind: "PREFIX", matchValue: "" })),
      code: "invalid-path-match",
      expected: [],
    },
  ]);
});

describe("validate: route actions", () => {
  const route = (index: number, field = "") =>
    `routeConfigurations["r"].virtualHosts["v"].routes[${index}]${field}`;
  runCases([
    {
      rule: "a CLUSTER route names its cluster",
      spec: withRoutes(routeSpec("")),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".cluster"))],
    },
    {
      rule: "a WEIGHTED_CLUSTERS route has clusters",
      spec: withRoutes(routeSpec("", { actionKind: "WEIGHTED_CLUSTERS", cluster: null })),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".weightedClusters"))],
    },
    {
      rule: "a REDIRECT route has a redirect",
      spec: withRoutes(routeSpec("", { actionKind: "REDIRECT", cluster: null })),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".redirect"))],
    },
    {
      rule: "a DIRECT_RESPONSE route has a direct response",
      spec: withRoutes(routeSpec("", { actionKind: "DIRECT_RESPONSE", cluster: null })),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".directResponse"))],
    },
    {
      rule: "a direct response has a status from 200 to 599",
      spec: withRoutes(
        routeSpec("", { actionKind: "DIRECT_RESPONSE", cluster: null, directResponse: {} }),
        routeSpec("", {
          actionKind: "DIRECT_RESPONSE",
          cluster: null,
          directResponse: { status: 600 },
        }),
      ),
      code: "invalid-direct-response",
      expected: [0, 1].map((r) =>
        error("invalid-direct-response", route(r, ".directResponse.status")),
      ),
    },
    {
      rule: 'a direct response status may be a string of digits, as proto3 JSON allows ("404")',
      spec: withRoutes(
        routeSpec("", {
          actionKind: "DIRECT_RESPONSE",
          cluster: null,
          directResponse: { status: "404" },
        }),
      ),
      code: "invalid-direct-response",
      expected: [],
    },
    {
      rule: "a declared total_weight that is not the sum of the weights is a warning: current Envoy ignores it, older Envoy and gRPC C-core refuse it",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 70 },
            { name: "d", weight: 20 },
          ],
          extra: { route: { weightedClusters: { totalWeight: 100 } } },
        }),
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 70 },
            { name: "d", weight: 30 },
          ],
          extra: { route: { weightedClusters: { totalWeight: 100 } } },
        }),
      ),
      code: "total-weight-mismatch",
      expected: [
        warning("total-weight-mismatch", route(0, ".extra.route.weightedClusters.totalWeight")),
      ],
    },
    {
      rule: "a weighted cluster names its cluster or the header holding it (cluster_header), not both",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "", weight: 50, extra: { clusterHeader: "x-cluster" } },
            { name: "c", weight: 50, extra: { clusterHeader: "x-cluster" } },
            { name: "", weight: 50 },
          ],
        }),
      ),
      code: "incomplete-route-action",
      expected: [
        error("incomplete-route-action", route(0, ".weightedClusters[1].extra.clusterHeader")),
        error("incomplete-route-action", route(0, ".weightedClusters[2].name")),
      ],
    },
    {
      rule: "a CLUSTER_HEADER route holds its header in extra.route",
      spec: withRoutes(
        routeSpec("", { actionKind: "CLUSTER_HEADER", cluster: null }),
        routeSpec("", {
          actionKind: "CLUSTER_HEADER",
          cluster: null,
          extra: { route: { clusterHeader: "x-cluster" } },
        }),
      ),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".extra.route.clusterHeader"))],
    },
    {
      rule: "a NON_FORWARDING route holds its action in extra",
      spec: withRoutes(routeSpec("", { actionKind: "NON_FORWARDING", cluster: null })),
      code: "incomplete-route-action",
      expected: [error("incomplete-route-action", route(0, ".extra.nonForwardingAction"))],
    },
    {
      rule: "a weighted cluster's weight is not negative",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 1 },
            { name: "d", weight: -1 },
          ],
        }),
      ),
      code: "invalid-weight",
      expected: [error("invalid-weight", route(0, ".weightedClusters[1].weight"))],
    },
    {
      rule: "weighted clusters' weights are not all 0",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 0 },
            { name: "d", weight: 0 },
          ],
        }),
      ),
      code: "invalid-weight",
      expected: [error("invalid-weight", route(0, ".weightedClusters"))],
    },
    {
      rule: "a weight of 0 next to a positive one is valid (a rollout step)",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 100 },
            { name: "d", weight: 0 },
          ],
        }),
      ),
      code: "invalid-weight",
      expected: [],
    },
    {
      rule: "a route timeout is not negative",
      spec: withRoutes(routeSpec("c", { timeoutMs: -1 }), routeSpec("c", { timeoutMs: 0 })),
      code: "invalid-timeout",
      expected: [error("invalid-timeout", route(0, ".timeoutMs"))],
    },
    {
      rule: "a field of another action kind is ignored, with a warning",
      spec: withRoutes(
        routeSpec("c", { actionKind: "REDIRECT", redirect: { httpsRedirect: true }, timeoutMs: 5 }),
      ),
      code: "ignored-route-action-field",
      expected: [
        warning("ignored-route-action-field", route(0, ".cluster")),
        warning("ignored-route-action-field", route(0, ".timeoutMs")),
      ],
    },
  ]);
});

describe("validate: references", () => {
  const route = (field: string) => `routeConfigurations["r"].virtualHosts["v"].routes[0]${field}`;
  runCases([
    {
      rule: "a route sends traffic to a cluster that exists",
      spec: withRoutes(routeSpec("paymnts")),
      code: "dangling-cluster-reference",
      expected: [error("dangling-cluster-reference", route(".cluster"))],
    },
    {
      rule: "a weighted route sends traffic to clusters that exist",
      spec: withRoutes(
        routeSpec("", {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: [
            { name: "c", weight: 1 },
            { name: "e", weight: 1 },
          ],
        }),
      ),
      code: "dangling-cluster-reference",
      expected: [error("dangling-cluster-reference", route(".weightedClusters[1].name"))],
    },
    {
      rule: "a cluster a REDIRECT route ignores need not exist",
      spec: withRoutes(
        routeSpec("gone", { actionKind: "REDIRECT", redirect: { httpsRedirect: true } }),
      ),
      code: "dangling-cluster-reference",
      expected: [],
    },
    {
      rule: "a listener loads a route configuration that exists, over RDS",
      spec: withListeners(socketListenerSpec("edge", 80, "routes")),
      code: "dangling-route-configuration-reference",
      expected: [
        error(
          "dangling-route-configuration-reference",
          'listeners["edge"].filterChains[0].rdsRouteConfigName',
        ),
      ],
    },
    {
      rule: "a listener embeds a route configuration that exists, inline",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [filterChainSpec({ inlineRouteConfigName: "routes" })],
        }),
      ),
      code: "dangling-route-configuration-reference",
      expected: [
        error(
          "dangling-route-configuration-reference",
          'listeners["edge"].filterChains[0].inlineRouteConfigName',
        ),
      ],
    },
    {
      rule: "a node group receives listeners that exist",
      spec: configSpec({ nodeGroups: [nodeGroupSpec("g", { listeners: ["edge"] })] }),
      code: "dangling-listener-reference",
      expected: [error("dangling-listener-reference", 'nodeGroups["g"].listeners[0]')],
    },
    {
      rule: "a node group receives clusters that exist",
      spec: configSpec({
        clusters: [clusterSpec("c", [ep()])],
        nodeGroups: [nodeGroupSpec("g", { clusters: ["c", "d"] })],
      }),
      code: "dangling-cluster-reference",
      expected: [error("dangling-cluster-reference", 'nodeGroups["g"].clusters[1]')],
    },
    {
      rule: "a named node group receives the clusters its listeners' routes use",
      spec: {
        ...withListeners(socketListenerSpec("edge", 80, "r")),
        nodeGroups: [nodeGroupSpec("g", { listeners: ["edge"], clusters: [] })],
      },
      code: "node-group-missing-cluster",
      expected: [error("node-group-missing-cluster", 'nodeGroups["g"].clusters')],
    },
    {
      rule: "the default node group receives everything, so it misses no cluster",
      spec: {
        ...withListeners(socketListenerSpec("edge", 80, "r")),
        nodeGroups: [nodeGroupSpec("g", { isDefault: true })],
      },
      code: "node-group-missing-cluster",
      expected: [],
    },
  ]);

  it("counts list items in messages from 1, as the console does, while paths stay 0-based", () => {
    const spec = configSpec({
      clusters: [
        clusterSpec("a", [], {
          localities: [
            localitySpec([endpointSpec("10.0.0.1", 80)]),
            localitySpec([endpointSpec("10.0.0.2", 80), endpointSpec("not an address", 80)], {
              zone: "z2",
              weight: 0,
            }),
          ],
        }),
      ],
      routeConfigurations: [
        routeConfigurationSpec("r", "a", {
          virtualHosts: [
            virtualHostSpec("vh", ["ok.example", "bad host"], [routeSpec("a"), routeSpec("gone")]),
          ],
        }),
      ],
      listeners: [
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({ rdsRouteConfigName: "r" }),
            filterChainSpec({ rdsRouteConfigName: "missing" }),
          ],
        }),
      ],
    });
    const issues = validate(spec).issues.map((i) => [i.path, i.message.split(/[,;:]/)[0]]);
    expect(issues).toEqual(
      expect.arrayContaining([
        [
          'routeConfigurations["r"].virtualHosts["vh"].routes[1].cluster',
          'route 2 of virtual host "vh" sends traffic to cluster "gone"',
        ],
        [
          'listeners["edge"].filterChains[1].rdsRouteConfigName',
          'filter chain 2 of listener "edge" loads route configuration "missing"',
        ],
        ['clusters["a"].localities[1].weight', 'locality 2 of cluster "a" has weight 0'],
        [
          'clusters["a"].localities[1].endpoints[1].address',
          'endpoint 2 of locality 2 of cluster "a" has address "not an address"',
        ],
        ['routeConfigurations["r"].virtualHosts["vh"].domains[1]', 'domain 2 of virtual host "vh"'],
      ]),
    );
  });

  it("suggests the closest existing name for a dangling reference", () => {
    const spec = configSpec({
      clusters: [clusterSpec("payments", [ep()]), clusterSpec("orders", [ep()])],
      routeConfigurations: [routeConfigurationSpec("ingress", "paymnts")],
      listeners: [socketListenerSpec("edge", 80, "Ingress")],
    });
    const messages = validate(spec).issues.map((issue) => issue.message);
    expect(messages).toContain(
      'route 1 of virtual host "ingress-vh" sends traffic to cluster "paymnts", which does not exist; did you mean "payments"?',
    );
    expect(messages).toContain(
      'filter chain 1 of listener "edge" loads route configuration "Ingress", which does not exist; did you mean "ingress"?',
    );
  });

  it.each([
    { missing: "paymnts", suggestion: "payments" },
    { missing: "PAYMENTS", suggestion: "payments" },
    { missing: "orders-v2", suggestion: "orders-v1" },
    { missing: "inventory", suggestion: undefined },
  ])("suggests $suggestion for the missing name $missing", ({ missing, suggestion }) => {
    expect(new NameSuggester(["payments", "orders-v1", "orders"]).suggest(missing)).toBe(
      suggestion,
    );
  });
});

describe("validate: Envoy's rules and references in what the model keeps as Envoy JSON", () => {
  const tcpListener = (tcpProxy: JsonObject): ListenerSpec =>
    tcpProxyListenerSpec("tcp", 5432, tcpProxy);
  const chain = 'listeners["tcp"].filterChains[0].networkFilters[0].typedConfig';
  runCases([
    {
      rule: "a constraint of Envoy's protos in a kept filter is an error at its field",
      spec: configSpec({
        clusters: [clusterSpec("db", [ep()])],
        listeners: [tcpListener({ statPrefix: "", cluster: "db" })],
      }),
      code: "envoy-rule",
      expected: [error("envoy-rule", `${chain}.statPrefix`)],
    },
    {
      rule: "a tcp_proxy to a cluster that does not exist is a dangling reference at its field",
      spec: configSpec({
        clusters: [clusterSpec("db", [ep()])],
        listeners: [tcpListener({ statPrefix: "db", cluster: "dbb" })],
      }),
      code: "dangling-cluster-reference",
      expected: [error("dangling-cluster-reference", `${chain}.cluster`)],
    },
    {
      rule: "a named node group receiving a TCP listener must receive the clusters it proxies to",
      spec: configSpec({
        clusters: [clusterSpec("db", [ep()]), clusterSpec("other", [ep("10.0.0.2")])],
        listeners: [tcpListener({ statPrefix: "db", cluster: "db" })],
        nodeGroups: [nodeGroupSpec("g", { listeners: ["tcp"], clusters: ["other"] })],
      }),
      code: "node-group-missing-cluster",
      expected: [error("node-group-missing-cluster", 'nodeGroups["g"].clusters')],
    },
    {
      rule: "a private key written inline in a kept TLS context is an error at its field (it would be shown back)",
      spec: configSpec({
        clusters: [
          clusterSpec("db", [ep()], {
            extra: {
              transportSocket: {
                name: "envoy.transport_sockets.tls",
                typedConfig: {
                  "@type":
                    "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
                  commonTlsContext: {
                    tlsCertificates: [
                      {
                        certificateChain: { filename: "/etc/certs/client.pem" },
                        privateKey: { inlineString: "-----BEGIN PRIVATE KEY-----..." },
                      },
                    ],
                  },
                },
              },
            },
          }),
        ],
      }),
      code: "inline-secret",
      expected: [
        error(
          "inline-secret",
          'clusters["db"].extra.transportSocket.typedConfig.commonTlsContext.tlsCertificates[0].privateKey',
        ),
      ],
    },
    {
      rule: "an extension Switchyard has no schema for is a warning that it is not checked",
      spec: configSpec({
        clusters: [clusterSpec("db", [ep()])],
        listeners: [
          socketListenerSpec("tcp", 5432, "", {
            filterChains: [
              filterChainSpec({
                networkOnly: true,
                statPrefix: "",
                networkFilters: [
                  {
                    name: "envoy.filters.network.postgres_proxy",
                    typedConfig: {
                      "@type":
                        "type.googleapis.com/envoy.extensions.filters.network.postgres_proxy.v3alpha.PostgresProxy",
                      stat_prefix: "pg",
                    },
                  },
                  ...tcpListener({ statPrefix: "db", cluster: "db" }).filterChains.flatMap(
                    (c) => c.networkFilters,
                  ),
                ],
              }),
            ],
          }),
        ],
      }),
      code: "unvalidated-extension",
      expected: [
        warning(
          "unvalidated-extension",
          'listeners["tcp"].filterChains[0].networkFilters[0].typedConfig',
        ),
      ],
    },
  ]);
});

describe("validate: duplicates", () => {
  const listenerOn = (name: string, address: string, port: number) =>
    socketListenerSpec(name, port, "r", { address });
  const udp = { address: { socketAddress: { protocol: "UDP" } } };
  runCases([
    {
      rule: "two clusters do not share a name",
      spec: configSpec({ clusters: [clusterSpec("a", [ep()]), clusterSpec("a", [ep()])] }),
      code: "duplicate-name",
      expected: [error("duplicate-name", 'clusters["a"].name')],
    },
    {
      rule: "two virtual hosts of a route configuration do not share a name",
      spec: withRouteConfiguration(
        routeConfigurationSpec("r", "c", {
          virtualHosts: [
            virtualHostSpec("v", ["a.example.com"], [routeSpec("c")]),
            virtualHostSpec("v", ["b.example.com"], [routeSpec("c")]),
          ],
        }),
      ),
      code: "duplicate-name",
      expected: [error("duplicate-name", 'routeConfigurations["r"].virtualHosts["v"].name')],
    },
    {
      rule: "two virtual hosts of a route configuration do not claim one domain, in any case",
      spec: withRouteConfiguration(
        routeConfigurationSpec("r", "c", {
          virtualHosts: [
            virtualHostSpec("a", ["api.example.com"], [routeSpec("c")]),
            virtualHostSpec("b", ["www.example.com", "API.example.com"], [routeSpec("c")]),
          ],
        }),
      ),
      code: "duplicate-domain",
      expected: [
        error("duplicate-domain", 'routeConfigurations["r"].virtualHosts["b"].domains[1]'),
      ],
    },
    {
      rule: "virtual hosts of different route configurations may claim one domain",
      spec: configSpec({
        clusters: [clusterSpec("c", [ep()])],
        routeConfigurations: [routeConfigurationSpec("r1", "c"), routeConfigurationSpec("r2", "c")],
      }),
      code: "duplicate-domain",
      expected: [],
    },
    {
      rule: "two EDS clusters do not serve their endpoints under one assignment name",
      spec: configSpec({
        clusters: [clusterSpec("a", [ep()]), clusterSpec("b", [ep()], { edsServiceName: "a" })],
      }),
      code: "duplicate-eds-service-name",
      expected: [error("duplicate-eds-service-name", 'clusters["b"].edsServiceName')],
    },
    {
      rule: "at most one node group is the default",
      spec: configSpec({
        nodeGroups: [
          nodeGroupSpec("a", { isDefault: true }),
          nodeGroupSpec("b", { isDefault: true }),
        ],
      }),
      code: "duplicate-default-node-group",
      expected: [error("duplicate-default-node-group", 'nodeGroups["b"].isDefault')],
    },
    {
      rule: "two socket listeners do not listen on one address and port",
      spec: withListeners(listenerOn("a", "0.0.0.0", 80), listenerOn("b", "0.0.0.0", 80)),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["b"].port')],
    },
    {
      rule: "0.0.0.0 and another IPv4 address on one port are two addresses, as Envoy compares them",
      spec: withListeners(
        listenerOn("a", "10.0.0.1", 80),
        listenerOn("b", "0.0.0.0", 80),
        listenerOn("c", "10.0.0.2", 80),
      ),
      code: "listener-address-conflict",
      expected: [],
    },
    {
      rule: "a TCP and a UDP listener share a port (HTTP/3 beside HTTP/1 and 2); two UDP listeners do not",
      spec: withListeners(
        listenerOn("tcp", "0.0.0.0", 443),
        { ...listenerOn("udp", "0.0.0.0", 443), extra: udp },
        { ...listenerOn("udp2", "0.0.0.0", 443), extra: udp },
      ),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["udp2"].port')],
    },
    {
      rule: "two listeners on one Unix socket conflict",
      spec: withListeners(
        { ...listenerOn("a", "0.0.0.0", 1), address: "unix:///run/a.sock", port: null },
        { ...listenerOn("b", "0.0.0.0", 1), address: "unix:///run/a.sock", port: null },
        { ...listenerOn("c", "0.0.0.0", 1), address: "unix:///run/c.sock", port: null },
      ),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["b"].port')],
    },
    {
      rule: "binding listeners on port 0 each get a free port; listeners that do not bind are compared too",
      spec: withListeners(
        listenerOn("a", "127.0.0.1", 0),
        listenerOn("b", "127.0.0.1", 0),
        { ...listenerOn("c", "10.0.0.1", 0), extra: { bindToPort: false } },
        { ...listenerOn("d", "10.0.0.1", 0), extra: { bindToPort: false } },
      ),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["d"].port')],
    },
    {
      rule: "an additional address conflicts as the listener's own address does",
      spec: withListeners(listenerOn("a", "0.0.0.0", 80), {
        ...listenerOn("b", "0.0.0.0", 81),
        extra: {
          additionalAddresses: [
            { address: { socketAddress: { address: "0.0.0.0", portValue: 80 } } },
          ],
        },
      }),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["b"].port')],
    },
    {
      rule: "IPv6 spellings of one address conflict",
      spec: withListeners(listenerOn("a", "::1", 80), listenerOn("b", "0:0::1", 80)),
      code: "listener-address-conflict",
      expected: [error("listener-address-conflict", 'listeners["b"].port')],
    },
    {
      rule: "listeners on other ports, other addresses or other families do not conflict",
      spec: withListeners(
        listenerOn("a", "0.0.0.0", 80),
        listenerOn("b", "0.0.0.0", 81),
        listenerOn("c", "::", 80),
        listenerOn("d", "10.0.0.1", 82),
        listenerOn("e", "10.0.0.2", 82),
      ),
      code: "listener-address-conflict",
      expected: [],
    },
  ]);

  it("names every node group that receives both conflicting listeners", () => {
    const spec: ConfigSpec = {
      ...withListeners(
        socketListenerSpec("a", 80, "r"),
        socketListenerSpec("b", 80, "r"),
        socketListenerSpec("c", 81, "r"),
      ),
      nodeGroups: [nodeGroupSpec("edge", { listeners: ["a", "b"], clusters: ["c"] })],
    };
    expect(validate(spec).issues.map((issue) => issue.message)).toEqual([
      'listener "b" listens on 0.0.0.0:80, as listener "a" does; node groups "edge", "default" receive both, and Envoy refuses a second listener on one address',
    ]);
  });

  it("takes node group membership as compile does: a named group its listeners, the default group all", () => {
    const spec: ConfigSpec = {
      ...withListeners(socketListenerSpec("a", 80, "r"), socketListenerSpec("b", 81, "r")),
      nodeGroups: [nodeGroupSpec("edge", { listeners: ["a"], clusters: ["c"] })],
    };
    const listeners = (group: string) => [
      ...(compile(spec)
        .groups.find((g) => g.name === group)
        ?.snapshot.resources(TypeUrl.Listener)
        .keys() ?? []),
    ];
    expect(listeners("edge")).toEqual(["a"]);
    expect(listeners("default")).toEqual(["a", "b"]);
  });
});

describe("validate: Envoy encoding", () => {
  runCases([
    {
      rule: "an unknown field in a cluster's extra is an error at its extra",
      spec: withCluster(clusterSpec("c", [ep()], { extra: { connectTimeoutz: "1s" } })),
      code: "invalid-envoy-json",
      expected: [error("invalid-envoy-json", 'clusters["c"].extra')],
    },
    {
      rule: "an unknown field in an endpoint's extra is an error at that endpoint's extra",
      spec: withCluster(clusterSpec("c", [ep(), ep("10.0.0.2", 80, { extra: { foo: 1 } })])),
      code: "invalid-envoy-json",
      expected: [error("invalid-envoy-json", 'clusters["c"].localities[0].endpoints[1].extra')],
    },
    {
      rule: "a route's extra that clashes with its modelled action is an error at the route's extra",
      spec: withRoutes(
        routeSpec("c"),
        routeSpec("c", { extra: { route: { clusterHeader: "x" } } }),
      ),
      code: "invalid-envoy-json",
      expected: [
        error("invalid-envoy-json", 'routeConfigurations["r"].virtualHosts["v"].routes[1].extra'),
      ],
    },
    {
      rule: "a bad value in a filter chain's hcmExtra is an error at that hcmExtra",
      spec: withListeners(
        socketListenerSpec("edge", 80, "r", {
          filterChains: [
            filterChainSpec({ rdsRouteConfigName: "r", hcmExtra: { codecType: "HTTP9" } }),
          ],
        }),
      ),
      code: "invalid-envoy-json",
      expected: [error("invalid-envoy-json", 'listeners["edge"].filterChains[0].hcmExtra')],
    },
    {
      rule: "an encoding failure another error explains is not reported again",
      spec: withCluster(clusterSpec("c", [ep("10.0.0.1", -1)])),
      code: "invalid-envoy-json",
      expected: [],
    },
  ]);

  it("uses the compile result it is given instead of compiling again", () => {
    const spec = withCluster(clusterSpec("c", [ep()]));
    const report = validate(spec, {
      compiled: { groups: [], issues: [{ path: 'clusters["c"]', message: "boom" }] },
    });
    expect(report.issues).toEqual([
      {
        severity: "error",
        code: "invalid-envoy-json",
        path: 'clusters["c"]',
        message: "Envoy's schema rejects this: boom",
        hint: "fix the value the message names",
      },
    ]);
  });
});

describe("validate: proxyless gRPC", () => {
  const backend = 'clusters["greeter-backend"]';
  const greeterRoute = (route: RouteSpec): ConfigSpec => {
    const spec = grpcServiceSpec("greeter", [ep("10.0.0.1", 50051)]);
    return {
      ...spec,
      routeConfigurations: [
        routeConfigurationSpec("greeter-routes", "greeter-backend", {
          virtualHosts: [virtualHostSpec("greeter", ["*"], [route])],
        }),
      ],
    };
  };
  const greeterFilters = (...httpFilters: ListenerSpec["filterChains"][number]["httpFilters"]) => {
    const spec = grpcServiceSpec("greeter", [ep("10.0.0.1", 50051)]);
    return {
      ...spec,
      listeners: [
        apiListenerSpec("greeter", "greeter-routes", {
          filterChains: [filterChainSpec({ rdsRouteConfigName: "greeter-routes", httpFilters })],
        }),
      ],
    };
  };
  runCases([
    {
      rule: "a STATIC cluster an api_listener reaches is a gRPC warning",
      spec: grpcWith({ discoveryType: "STATIC" }),
      code: "grpc-unsupported-cluster-type",
      expected: [warning("grpc-unsupported-cluster-type", `${backend}.discoveryType`)],
    },
    {
      rule: "a STATIC cluster only socket listeners reach is no gRPC warning",
      spec: configSpec({
        clusters: [clusterSpec("c", [ep()], { discoveryType: "STATIC" })],
        routeConfigurations: [routeConfigurationSpec("r", "c")],
        listeners: [socketListenerSpec("edge", 80, "r")],
      }),
      code: "grpc-unsupported-cluster-type",
      expected: [],
    },
    {
      rule: "an lb policy other than ROUND_ROBIN or RING_HASH is a gRPC warning",
      spec: grpcWith({ lbPolicy: "LEAST_REQUEST" }),
      code: "grpc-unsupported-lb-policy",
      expected: [warning("grpc-unsupported-lb-policy", `${backend}.lbPolicy`)],
    },
    {
      rule: "a retry policy of num_retries 0 on a route a gRPC client reaches is a gRPC warning (gRFC A44)",
      spec: greeterRoute(
        routeSpec("greeter-backend", { retryPolicy: { retryOn: "unavailable", numRetries: 0 } }),
      ),
      code: "grpc-retry-policy",
      expected: [
        warning(
          "grpc-retry-policy",
          'routeConfigurations["greeter-routes"].virtualHosts["greeter"].routes[0].retryPolicy.numRetries',
        ),
      ],
    },
    {
      rule: "a retry policy of num_retries 1 is fine for gRPC",
      spec: greeterRoute(
        routeSpec("greeter-backend", { retryPolicy: { retryOn: "unavailable", numRetries: 1 } }),
      ),
      code: "grpc-retry-policy",
      expected: [],
    },
    {
      rule: "RING_HASH is supported by gRPC",
      spec: grpcWith({ lbPolicy: "RING_HASH" }),
      code: "grpc-unsupported-lb-policy",
      expected: [],
    },
    {
      rule: "a locality without a weight is a gRPC warning (gRPC ignores it)",
      spec: grpcWith({ localities: [localitySpec([ep("10.0.0.1", 50051)], { weight: null })] }),
      code: "grpc-locality-weight",
      expected: [warning("grpc-locality-weight", `${backend}.localities[0].weight`)],
    },
    {
      rule: "an SDS TLS context on a reached cluster is a gRPC warning",
      spec: grpcWith({ tlsSecretName: "ca" }),
      code: "grpc-unsupported-tls",
      expected: [warning("grpc-unsupported-tls", `${backend}.tlsSecretName`)],
    },
    {
      rule: "an address listed twice in a reached assignment is a gRPC warning",
      spec: grpcWith({
        localities: [localitySpec([ep("10.0.0.1", 50051), ep("10.0.0.1", 50051)])],
      }),
      code: "grpc-duplicate-endpoint",
      expected: [warning("grpc-duplicate-endpoint", `${backend}.localities[0].endpoints[1]`)],
    },
    {
      rule: "a locality listed twice at one priority is a gRPC warning",
      spec: grpcWith({
        localities: [
          localitySpec([ep("10.0.0.1", 50051)], { zone: "a" }),
          localitySpec([ep("10.0.0.2", 50051)], { zone: "a" }),
        ],
      }),
      code: "grpc-duplicate-locality",
      expected: [warning("grpc-duplicate-locality", `${backend}.localities[1]`)],
    },
    {
      rule: "locality priorities that skip a level are a gRPC warning",
      spec: grpcWith({
        localities: [
          localitySpec([ep("10.0.0.1", 50051)], { zone: "a" }),
          localitySpec([ep("10.0.0.2", 50051)], { zone: "b", priority: 2 }),
        ],
      }),
      code: "grpc-priority-gap",
      expected: [warning("grpc-priority-gap", `${backend}.localities[1].priority`)],
    },
    {
      rule: "a REDIRECT route in a reached route configuration is a gRPC warning",
      spec: greeterRoute(
        routeSpec("", { actionKind: "REDIRECT", cluster: null, redirect: { httpsRedirect: true } }),
      ),
      code: "grpc-unsupported-route-action",
      expected: [
        warning(
          "grpc-unsupported-route-action",
          'routeConfigurations["greeter-routes"].virtualHosts["greeter"].routes[0].actionKind',
        ),
      ],
    },
    {
      rule: "an HTTP filter gRPC does not implement is a gRPC warning",
      spec: greeterFilters({
        name: "envoy.filters.http.cors",
        typedConfig: { "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors" },
      }),
      code: "grpc-unsupported-http-filter",
      expected: [
        warning(
          "grpc-unsupported-http-filter",
          'listeners["greeter"].filterChains[0].httpFilters[0]',
        ),
      ],
    },
    {
      rule: "an optional HTTP filter, or the fault filter, is fine for gRPC",
      spec: greeterFilters(
        {
          name: "envoy.filters.http.cors",
          isOptional: true,
          typedConfig: {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors",
          },
        },
        {
          name: "envoy.filters.http.fault",
          typedConfig: {
            "@type": "type.googleapis.com/envoy.extensions.filters.http.fault.v3.HTTPFault",
          },
        },
      ),
      code: "grpc-unsupported-http-filter",
      expected: [],
    },
  ]);

  it("words a gRPC warning as what the client would do, naming the api_listener", () => {
    const [issue] = validate(grpcWith({ lbPolicy: "LEAST_REQUEST" })).issues;
    expect(issue).toEqual({
      severity: "warning",
      code: "grpc-unsupported-lb-policy",
      path: 'clusters["greeter-backend"].lbPolicy',
      message:
        'a proxyless gRPC client would reject cluster "greeter-backend" (reached from api_listener "greeter"): lb policy LEAST_REQUEST is not supported',
      hint: "use ROUND_ROBIN or RING_HASH",
      // A client NACKs it: the default group's, which gets the api_listener.
      rejection: { by: "grpc", nodeGroups: ["default"] },
    });
  });
});

describe("validate: the report", () => {
  function broken(): ConfigSpec {
    return configSpec({
      clusters: [
        clusterSpec("payments", [ep("10.0.0.1", 0)], { lbPolicy: "MAGLEV" }),
        clusterSpec("payments", [ep()]),
      ],
      routeConfigurations: [
        routeConfigurationSpec("ingress", "payments", {
          virtualHosts: [
            virtualHostSpec(
              "api",
              ["api.example.com", "API.example.com"],
              [routeSpec("paymnts"), routeSpec("payments", { matchKind: "PATH", matchValue: "x" })],
            ),
          ],
        }),
      ],
      listeners: [
        apiListenerSpec("svc", "ingress"),
        socketListenerSpec("edge", 80, "ingress"),
        socketListenerSpec("edge-2", 80, "ingress"),
      ],
    });
  }

  it("reports every problem at once, errors before warnings", () => {
    const report = validate(broken());
    expect(report.ok).toBe(false);
    expect(report.issues.map(({ severity, code, path }) => ({ severity, code, path }))).toEqual([
      error("invalid-port", 'clusters["payments"].localities[0].endpoints[0].port'),
      error(
        "dangling-cluster-reference",
        'routeConfigurations["ingress"].virtualHosts["api"].routes[0].cluster',
      ),
      error("duplicate-name", 'clusters["payments"].name'),
      error("duplicate-domain", 'routeConfigurations["ingress"].virtualHosts["api"].domains[1]'),
      error("listener-address-conflict", 'listeners["edge-2"].port'),
      warning(
        "unmatchable-path",
        'routeConfigurations["ingress"].virtualHosts["api"].routes[1].matchValue',
      ),
      warning("grpc-unsupported-lb-policy", 'clusters["payments"].lbPolicy'),
    ]);
  });

  it("is ok with warnings only", () => {
    const report = validate(grpcWith({ lbPolicy: "LEAST_REQUEST" }));
    expect(report.ok).toBe(true);
    expect(report.issues).toHaveLength(1);
  });

  it("gives every issue the severity registered for its code, a path in the model and a hint that is not empty", () => {
    const issues = validate(broken()).issues;
    for (const issue of issues) {
      expect(issue.severity).toBe(VALIDATION_CODES[issue.code].severity);
      expect(issue.path).toMatch(/^(clusters|listeners|routeConfigurations|nodeGroups)\["/);
      if (issue.hint !== undefined) expect(issue.hint).not.toBe("");
    }
  });

  it("names codes in kebab-case", () => {
    for (const code of Object.keys(VALIDATION_CODES))
      expect(code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });
});
