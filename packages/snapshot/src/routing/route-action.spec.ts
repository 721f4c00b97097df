import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runtimeLayerSpec, virtualHostSpec } from "../fixtures.js";
import type { JsonObject, RouteSpec } from "../model.js";
import type { RouteRequest } from "./route-answer.js";
import { anyHost, ask, clusterOf, edgeConfig, prefixRoute, routed } from "./routing-fixtures.js";

const URI_TEMPLATE_MATCH =
  "type.googleapis.com/envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig";
const URI_TEMPLATE_REWRITE =
  "type.googleapis.com/envoy.extensions.path.rewrite.uri_template.v3.UriTemplateRewriteConfig";

const outcomeOf = (route: RouteSpec, request: Partial<RouteRequest> = {}) =>
  routed(ask(edgeConfig(anyHost(route)), request)).outcome;
const forwardingOf = (route: RouteSpec, request: Partial<RouteRequest> = {}) =>
  routed(ask(edgeConfig(anyHost(route)), request)).forwarding;

const redirect = (fields: JsonObject) =>
  prefixRoute("/old", "", { actionKind: "REDIRECT", cluster: null, redirect: fields });
const weighted = (
  clusters: { name: string; weight: number; extra?: JsonObject }[],
  route: JsonObject = {},
) =>
  prefixRoute("/", "", {
    actionKind: "WEIGHTED_CLUSTERS",
    cluster: null,
    weightedClusters: clusters,
    extra: { route },
  });

describe("clusters", () => {
  it("a cluster route forwards to its cluster", () => {
    expect(outcomeOf(prefixRoute("/", "backend"))).toEqual({ t: "cluster", cluster: "backend" });
  });

  it("weighted clusters list every cluster's share and pick the one whose range holds randomValue % total", () => {
    const route = weighted([
      { name: "a", weight: 80 },
      { name: "b", weight: 20 },
    ]);
    expect(outcomeOf(route, { randomValue: 79 })).toMatchObject({
      t: "weighted-clusters",
      clusters: [
        { name: "a", weight: 80, percent: 80 },
        { name: "b", weight: 20, percent: 20 },
      ],
      totalWeight: 100,
      selectedIndex: 0,
      cluster: "a",
    });
    expect(clusterOf(ask(edgeConfig(anyHost(route)), { randomValue: 80 }))).toBe("b");
    expect(clusterOf(ask(edgeConfig(anyHost(route)), { randomValue: 150 }))).toBe("a");
  });

  it("the weighted cluster picked is the one whose cumulative range holds randomValue % total, for any weights", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 5 }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (weights, random) => {
          const route = weighted(weights.map((weight, i) => ({ name: `c${i}`, weight })));
          const total = weights.reduce((a, b) => a + b, 0);
          const value = Number(random % BigInt(total));
          const ends = weights.map((_, i) => weights.slice(0, i + 1).reduce((a, b) => a + b, 0));
          const expected = ends.findIndex((end) => value < end);
          return (
            clusterOf(ask(edgeConfig(anyHost(route)), { randomValue: random })) === `c${expected}`
          );
        },
      ),
    );
  });

  it("header_name takes the selection value from a single integer header", () => {
    const route = weighted(
      [
        { name: "a", weight: 50 },
        { name: "b", weight: 50 },
      ],
      { weightedClusters: { headerName: "x-pick" } },
    );
    expect(outcomeOf(route, { randomValue: 0, headers: [["x-pick", "70"]] })).toMatchObject({
      cluster: "b",
      selectionSource: "header",
    });
  });

  it("runtime_key_prefix reads each weight from <prefix>.<cluster>", () => {
    const route = weighted(
      [
        { name: "a", weight: 50 },
        { name: "b", weight: 50 },
      ],
      { weightedClusters: { runtimeKeyPrefix: "split" } },
    );
    const config = edgeConfig(anyHost(route), {
      runtimeLayers: [runtimeLayerSpec("rtds", { "split.a": 0 })],
    });
    expect(routed(ask(config)).outcome).toMatchObject({
      cluster: "b",
      totalWeight: 50,
      clusters: [{ weight: 0, runtimeKey: "split.a" }, { weight: 50 }],
    });
  });

  it("cluster_header routes to the cluster its first value names, or to none", () => {
    const route = prefixRoute("/", "", {
      actionKind: "CLUSTER_HEADER",
      cluster: null,
      extra: { route: { clusterHeader: "x-cluster" } },
    });
    expect(
      outcomeOf(route, {
        headers: [
          ["x-cluster", "blue"],
          ["x-cluster", "green"],
        ],
      }),
    ).toMatchObject({ t: "cluster-header", cluster: "blue" });
    expect(outcomeOf(route)).toEqual({
      t: "cluster-header",
      header: "x-cluster",
      cluster: null,
      clusterNotFoundStatus: 503,
    });
  });
});

describe("redirects (RedirectAction)", () => {
  const location = (fields: JsonObject, request: Partial<RouteRequest> = {}) => {
    const outcome = outcomeOf(redirect(fields), { path: "/old/page?x=1", ...request });
    if (outcome.t !== "redirect") throw new Error(outcome.t);
    return outcome;
  };

  it("the response code is 301 unless set", () => {
    expect(location({ hostRedirect: "new.example.com" })).toEqual({
      t: "redirect",
      location: "http://new.example.com/old/page?x=1",
      status: 301,
    });
    expect(location({ hostRedirect: "new.example.com", responseCode: "FOUND" }).status).toBe(302);
  });

  it("https_redirect and scheme_redirect set the scheme; otherwise the request's :scheme is kept", () => {
    expect(location({ httpsRedirect: true }).location).toBe("https://example.com/old/page?x=1");
    expect(location({ schemeRedirect: "ftp" }).location).toBe("ftp://example.com/old/page?x=1");
    expect(location({ hostRedirect: "h" }, { scheme: "https" }).location).toBe(
      "https://h/old/page?x=1",
    );
  });

  it("a changed scheme drops the old scheme's default port; port_redirect replaces the port", () => {
    expect(location({ httpsRedirect: true }, { authority: "example.com:80" }).location).toBe(
      "https://example.com/old/page?x=1",
    );
    expect(location({ httpsRedirect: true }, { authority: "example.com:8080" }).location).toBe(
      "https://example.com:8080/old/page?x=1",
    );
    expect(location({ portRedirect: 8443 }, { authority: "example.com:8080" }).location).toBe(
      "http://example.com:8443/old/page?x=1",
    );
  });

  it("path_redirect keeps the request's query unless it has its own or strip_query", () => {
    expect(location({ pathRedirect: "/new" }).location).toBe("http://example.com/new?x=1");
    expect(location({ pathRedirect: "/new", stripQuery: true }).location).toBe(
      "http://example.com/new",
    );
    expect(location({ pathRedirect: "/new?y=2", stripQuery: true }).location).toBe(
      "http://example.com/new?y=2",
    );
  });

  it("prefix_rewrite swaps the matched prefix and regex_rewrite rewrites the path", () => {
    expect(location({ prefixRewrite: "/new" }).location).toBe("http://example.com/new/page?x=1");
    expect(
      location({ regexRewrite: { pattern: { regex: "^/old/(.*)$" }, substitution: "/v2/\\1" } })
        .location,
    ).toBe("http://example.com/v2/page?x=1");
  });
});

describe("other actions", () => {
  it("a direct response gives its status and inline body", () => {
    const route = prefixRoute("/", "", {
      actionKind: "DIRECT_RESPONSE",
      cluster: null,
      directResponse: { status: 418, body: { inlineString: "teapot" } },
    });
    const { outcome, result } = routed(ask(edgeConfig(anyHost(route))));
    expect(outcome).toEqual({
      t: "direct-response",
      status: 418,
      body: { t: "inline", text: "teapot" },
    });
    expect(result.responseHeaders.result).toContainEqual([":status", "418"]);
  });

  it("non_forwarding_action and filter_action leave the request to the filters", () => {
    expect(
      outcomeOf(
        prefixRoute("/", "", {
          actionKind: "NON_FORWARDING",
          cluster: null,
          extra: { nonForwardingAction: {} },
        }),
      ),
    ).toEqual({ t: "non-forwarding" });
    const action = prefixRoute("/", "", {
      actionKind: "FILTER_ACTION",
      cluster: null,
      extra: { filterAction: { action: { "@type": "type.googleapis.com/google.protobuf.Empty" } } },
    });
    expect(outcomeOf(action)).toEqual({ t: "filter-action", actionType: "google.protobuf.Empty" });
  });

  it("require_tls ALL redirects a plain-HTTP request to https before any route", () => {
    const config = edgeConfig([
      virtualHostSpec("secure", ["*"], [prefixRoute("/", "a")], { extra: { requireTls: "ALL" } }),
    ]);
    expect(routed(ask(config, { path: "/x?y" })).outcome).toEqual({
      t: "tls-redirect",
      location: "https://example.com/x?y",
      status: 301,
    });
    expect(clusterOf(ask(config, { scheme: "https" }))).toBe("a");
  });

  it("require_tls EXTERNAL_ONLY lets internal requests through", () => {
    const config = edgeConfig([
      virtualHostSpec("secure", ["*"], [prefixRoute("/", "a")], {
        extra: { requireTls: "EXTERNAL_ONLY" },
      }),
    ]);
    expect(routed(ask(config)).outcome.t).toBe("tls-redirect");
    expect(clusterOf(ask(config, { internal: true }))).toBe("a");
  });
});

describe("path rewrites", () => {
  it("prefix_rewrite swaps the matched prefix and keeps the query", () => {
    expect(
      forwardingOf(prefixRoute("/api/", "a", { prefixRewrite: "/" }), { path: "/api/v1?x=1" })
        ?.path,
    ).toEqual({ kind: "prefix_rewrite", path: "/v1?x=1" });
  });

  it("prefix_rewrite on a path route replaces the whole path", () => {
    const route = prefixRoute("", "a", {
      matchKind: "PATH",
      matchValue: "/old",
      prefixRewrite: "/new",
    });
    expect(forwardingOf(route, { path: "/old?q" })?.path.path).toBe("/new?q");
  });

  it("regex_rewrite substitutes capture groups in the path without its query", () => {
    const route = prefixRoute("/service", "a", {
      extra: {
        route: {
          regexRewrite: {
            pattern: { regex: "^/service/([^/]+)(/.*)$" },
            substitution: "\\2/instance/\\1",
          },
        },
      },
    });
    expect(forwardingOf(route, { path: "/service/foo/v1/api?x=1" })?.path).toEqual({
      kind: "regex_rewrite",
      path: "/v1/api/instance/foo?x=1",
    });
  });

  it("the URI template rewriter substitutes the template's variables", () => {
    const route = prefixRoute("", "a", {
      matchKind: "PATH_MATCH_POLICY",
      extra: {
        match: {
          pathMatchPolicy: {
            name: "envoy.path.match.uri_template.uri_template_matcher",
            typedConfig: { "@type": URI_TEMPLATE_MATCH, pathTemplate: "/videos/{id}/{rest=**}.ts" },
          },
        },
        route: {
          pathRewritePolicy: {
            name: "envoy.path.rewrite.uri_template.uri_template_rewriter",
            typedConfig: { "@type": URI_TEMPLATE_REWRITE, pathTemplateRewrite: "/{id}/{rest}.ts" },
          },
        },
      },
    });
    const { forwarding, result } = routed(
      ask(edgeConfig(anyHost(route)), { path: "/videos/7/a/b.ts?t=1" }),
    );
    expect(forwarding?.path).toEqual({ kind: "uri_template", path: "/7/a/b.ts?t=1" });
    expect(result.requestHeaders.result).toContainEqual([
      "x-envoy-original-path",
      "/videos/7/a/b.ts?t=1",
    ]);
  });
});

describe("host rewrites", () => {
  const hostOf = (route: JsonObject, request: Partial<RouteRequest> = {}) =>
    forwardingOf(prefixRoute("/", "a", { extra: { route } }), request)?.host;

  it("host_rewrite_literal sets the upstream Host", () => {
    expect(hostOf({ hostRewriteLiteral: "internal.svc" })).toEqual({
      kind: "host_rewrite_literal",
      host: "internal.svc",
      appendedXForwardedHost: false,
    });
  });

  it("host_rewrite_header takes the header's value, and leaves the Host when it is absent", () => {
    expect(hostOf({ hostRewriteHeader: "x-host" }, { headers: [["x-host", "h.svc"]] })?.host).toBe(
      "h.svc",
    );
    expect(hostOf({ hostRewriteHeader: "x-host" })).toEqual({ kind: "none", host: "example.com" });
  });

  it("host_rewrite_path_regex substitutes on the path", () => {
    expect(
      hostOf(
        { hostRewritePathRegex: { pattern: { regex: "^/([^/]+)/.*$" }, substitution: "\\1.svc" } },
        { path: "/tenant/x" },
      )?.host,
    ).toBe("tenant.svc");
  });

  it("auto_host_rewrite is reported as decided by the upstream endpoint", () => {
    expect(hostOf({ autoHostRewrite: true })?.kind).toBe("auto_host_rewrite");
  });

  it("append_x_forwarded_host keeps the old Host in x-forwarded-host", () => {
    const { result } = routed(
      ask(
        edgeConfig(
          anyHost(
            prefixRoute("/", "a", {
              extra: { route: { hostRewriteLiteral: "h", appendXForwardedHost: true } },
            }),
          ),
        ),
      ),
    );
    expect(result.requestHeaders.result).toContainEqual(["x-forwarded-host", "example.com"]);
  });

  it("a weighted cluster's host_rewrite_literal applies when the route sets none", () => {
    const route = weighted([{ name: "a", weight: 1, extra: { hostRewriteLiteral: "a.svc" } }]);
    expect(forwardingOf(route)?.host).toMatchObject({
      kind: "weighted_cluster_host_rewrite_literal",
      host: "a.svc",
    });
  });
});

describe("timeouts and policies", () => {
  it("the timeout is 15 s when the route sets none, and 0 disables it", () => {
    expect(forwardingOf(prefixRoute("/", "a"))?.timeouts).toEqual({
      timeoutMs: 15000,
      timeoutSource: "default",
    });
    expect(forwardingOf(prefixRoute("/", "a", { timeoutMs: 0 }))?.timeouts).toEqual({
      timeoutMs: 0,
      timeoutSource: "route",
    });
  });

  it("idle_timeout and max_stream_duration are shown when set", () => {
    const route = prefixRoute("/", "a", {
      extra: { route: { idleTimeout: "30s", maxStreamDuration: { maxStreamDuration: "1.5s" } } },
    });
    expect(forwardingOf(route)?.timeouts).toMatchObject({
      idleTimeoutMs: 30000,
      maxStreamDurationMs: 1500,
    });
  });

  it("a route's retry policy replaces the virtual host's entirely; without one the virtual host's applies", () => {
    const vh = (routes: RouteSpec[]) =>
      edgeConfig([
        virtualHostSpec("all", ["*"], routes, {
          extra: { retryPolicy: { retryOn: "5xx", numRetries: 3 } },
        }),
      ]);
    const own = routed(
      ask(vh([prefixRoute("/", "a", { retryPolicy: { retryOn: "reset" } })])),
    ).forwarding;
    expect(own?.retryPolicy).toEqual({ source: "route", policy: { retryOn: "reset" } });
    const inherited = routed(ask(vh([prefixRoute("/", "a")]))).forwarding;
    expect(inherited?.retryPolicy).toEqual({
      source: "virtual-host",
      policy: { retryOn: "5xx", numRetries: 3 },
    });
  });

  it("the hedge policy in force is the route's, else the virtual host's", () => {
    const config = edgeConfig([
      virtualHostSpec("all", ["*"], [prefixRoute("/", "a")], {
        extra: { hedgePolicy: { hedgeOnPerTryTimeout: true } },
      }),
    ]);
    expect(routed(ask(config)).forwarding?.hedgePolicy).toEqual({
      source: "virtual-host",
      policy: { hedgeOnPerTryTimeout: true },
    });
  });
});
