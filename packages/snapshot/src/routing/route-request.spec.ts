import { describe, expect, it } from "vitest";
import {
  apiListenerSpec,
  configSpec,
  filterChainSpec,
  routeConfigurationSpec,
  socketListenerSpec,
  tcpProxyListenerSpec,
  virtualHostSpec,
} from "../fixtures.js";
import { routeRequest } from "./route-request.js";
import {
  answered,
  anyHost,
  ask,
  clusterOf,
  edgeConfig,
  prefixRoute,
  routed,
} from "./routing-fixtures.js";

const simple = edgeConfig(anyHost(prefixRoute("/", "web")));

describe("which route configuration answers", () => {
  it("a listener's HTTP connection manager loads its route configuration over RDS", () => {
    expect(answered(ask(simple))).toMatchObject({
      routeConfiguration: "routes",
      listener: { name: "edge", filterChain: 0 },
    });
  });

  it("a route configuration inline in the HCM is used as Envoy would", () => {
    const config = configSpec({
      routeConfigurations: [routeConfigurationSpec("inline", "web")],
      listeners: [
        socketListenerSpec("edge", 80, "", {
          filterChains: [filterChainSpec({ inlineRouteConfigName: "inline" })],
        }),
      ],
    });
    expect(clusterOf(ask(config))).toBe("web");
  });

  it("the route configuration can be named directly", () => {
    expect(clusterOf(ask(simple, { routeConfiguration: "routes" }))).toBe("web");
  });

  it("naming both or neither of listener and routeConfiguration is refused", () => {
    expect(routeRequest(simple, { authority: "a", path: "/" })).toMatchObject({
      t: "refused",
      code: "bad-request",
      path: "request",
    });
    expect(
      routeRequest(simple, {
        listener: "edge",
        routeConfiguration: "routes",
        authority: "a",
        path: "/",
      }),
    ).toMatchObject({ t: "refused", path: "request" });
  });

  it("an unknown listener or route configuration is refused saying which", () => {
    expect(ask(simple, { listener: "nope" })).toMatchObject({
      t: "refused",
      code: "unknown-listener",
      message: 'no listener is named "nope"',
    });
    expect(ask(simple, { routeConfiguration: "nope" })).toMatchObject({
      t: "refused",
      code: "unknown-route-configuration",
    });
  });

  it("a listener loading a route configuration that is not stored is refused", () => {
    const config = configSpec({ listeners: [socketListenerSpec("edge", 80, "missing")] });
    expect(ask(config)).toMatchObject({
      t: "refused",
      code: "unknown-route-configuration",
      path: 'listeners["edge"].filterChains[0]',
    });
  });

  it("a listener without an HTTP connection manager is refused", () => {
    const config = configSpec({
      listeners: [tcpProxyListenerSpec("edge", 5432, { statPrefix: "db", cluster: "db" })],
    });
    expect(ask(config)).toMatchObject({
      t: "refused",
      code: "no-http-connection-manager",
      path: 'listeners["edge"]',
    });
  });

  it("several filter chains with an HCM are refused unless the request names one", () => {
    const config = configSpec({
      routeConfigurations: [routeConfigurationSpec("a", "ca"), routeConfigurationSpec("b", "cb")],
      listeners: [
        socketListenerSpec("edge", 443, "", {
          filterChains: [
            filterChainSpec({
              name: "shop",
              serverNames: ["shop.example.com"],
              rdsRouteConfigName: "a",
            }),
            filterChainSpec({ name: "blog", rdsRouteConfigName: "b" }),
          ],
        }),
      ],
    });
    const refused = ask(config);
    expect(refused).toMatchObject({ t: "refused", code: "ambiguous-filter-chain" });
    expect(refused.t === "refused" && refused.message).toContain(
      '[0] "shop" (server_names shop.example.com)',
    );
    expect(clusterOf(ask(config, { filterChain: "blog" }))).toBe("cb");
    expect(clusterOf(ask(config, { filterChain: 0 }))).toBe("ca");
    expect(ask(config, { filterChain: "nope" })).toMatchObject({
      t: "refused",
      path: "request.filterChain",
    });
  });

  it("an api_listener (proxyless gRPC) routes through its one HCM", () => {
    const config = configSpec({
      routeConfigurations: [routeConfigurationSpec("svc-routes", "svc")],
      listeners: [apiListenerSpec("svc", "svc-routes")],
    });
    expect(clusterOf(ask(config, { listener: "svc" }))).toBe("svc");
  });
});

describe("malformed requests are refused, naming the field", () => {
  const cases: [string, Parameters<typeof ask>[1], string][] = [
    ["a path not starting with /", { path: "api" }, "request.path"],
    ["an empty path on a GET", { path: "" }, "request.path"],
    ["a path with whitespace", { path: "/a b" }, "request.path"],
    ["an empty authority", { authority: "" }, "request.authority"],
    ["an authority with a path", { authority: "example.com/x" }, "request.authority"],
    ["a pseudo-header among headers", { headers: [[":path", "/x"]] }, "request.headers[0]"],
    ["a host header among headers", { headers: [["Host", "x"]] }, "request.headers[0]"],
    ["a header value with a newline", { headers: [["x-a", "1\r\nx-b: 2"]] }, "request.headers[0]"],
    ["a negative random value", { randomValue: -1 }, "request.randomValue"],
    ["a method that is not a token", { method: "GET /" }, "request.method"],
  ];
  for (const [what, request, path] of cases) {
    it(`${what} is refused at ${path}`, () => {
      expect(ask(simple, request)).toMatchObject({ t: "refused", code: "bad-request", path });
    });
  }
});

describe("the HTTP connection manager before routing", () => {
  it("merge_slashes collapses repeated slashes in the path, not the query", () => {
    const config = edgeConfig(
      anyHost(
        prefixRoute("", "a", { matchKind: "PATH", matchValue: "/a/b" }),
        prefixRoute("/", "b"),
      ),
      { chain: { hcmExtra: { mergeSlashes: true } } },
    );
    const { result } = routed(ask(config, { path: "//a///b?x=//" }));
    expect(clusterOf(ask(config, { path: "//a///b?x=//" }))).toBe("a");
    expect(result.requestHeaders.result).toContainEqual([":path", "/a/b?x=//"]);
  });

  it("strip_trailing_host_dot drops the host's trailing dot before the virtual host is chosen", () => {
    const config = edgeConfig(
      [virtualHostSpec("shop", ["shop.example.com"], [prefixRoute("/", "shop")])],
      { chain: { hcmExtra: { stripTrailingHostDot: true } } },
    );
    expect(answered(ask(config, { authority: "shop.example.com." })).virtualHost?.name).toBe(
      "shop",
    );
  });

  it("normalize_path is noted, not applied, when the path would change", () => {
    const config = edgeConfig(anyHost(prefixRoute("/", "a")), {
      chain: { hcmExtra: { normalizePath: true } },
    });
    expect(answered(ask(config, { path: "/a/../b" })).notes.join(" ")).toContain("normalize_path");
  });

  it("on-demand (VHDS) virtual hosts are routed as Envoy routes once it has them, and the answer says so", () => {
    const config = edgeConfig(anyHost(prefixRoute("/", "a")), {
      routeConfiguration: { vhds: true },
    });
    const result = answered(ask(config));
    expect(result.virtualHost?.name).toBe("all");
    expect(result.notes.join(" ")).toContain("VHDS");
  });
});

describe("configurations Envoy would refuse, or that are not evaluated", () => {
  it("an invalid regex is refused with where it is", () => {
    const config = edgeConfig(
      anyHost(prefixRoute("", "a", { matchKind: "SAFE_REGEX", matchValue: "(" })),
    );
    expect(ask(config)).toMatchObject({
      t: "refused",
      code: "invalid-config",
      path: 'routeConfigurations["routes"].virtualHosts[0].routes[0].match.safe_regex.regex',
    });
  });

  it("a virtual host routing with a matcher tree says it is not evaluated", () => {
    const config = edgeConfig([
      virtualHostSpec("m", ["*"], [], {
        extra: {
          matcher: {
            onNoMatch: {
              action: {
                name: "r",
                typedConfig: {
                  "@type": "type.googleapis.com/envoy.config.route.v3.Route",
                  match: { prefix: "/" },
                  route: { cluster: "a" },
                },
              },
            },
          },
        },
      }),
    ]);
    expect(ask(config)).toMatchObject({
      t: "refused",
      code: "unsupported-config",
      message: expect.stringContaining("not evaluated"),
    });
  });

  it("a cluster specifier plugin is reported, not guessed", () => {
    const route = prefixRoute("/", "", {
      actionKind: "CLUSTER_SPECIFIER_PLUGIN",
      cluster: null,
      extra: { route: { clusterSpecifierPlugin: "lua" } },
    });
    const config = edgeConfig(anyHost(route), {
      routeConfiguration: {
        extra: {
          clusterSpecifierPlugins: [
            {
              extension: {
                name: "lua",
                typedConfig: { "@type": "type.googleapis.com/google.protobuf.Empty" },
              },
            },
          ],
        },
      },
    });
    expect(routed(ask(config)).outcome).toMatchObject({
      t: "cluster-specifier-plugin",
      plugin: "lua",
    });
  });
});
