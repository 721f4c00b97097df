import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runtimeLayerSpec } from "../fixtures.js";
import type { JsonValue, RouteSpec } from "../model.js";
import type { RouteRequest } from "./route-answer.js";
import {
  answered,
  anyHost,
  ask,
  edgeConfig,
  prefixRoute,
  routed,
  routeIndexOf,
} from "./routing-fixtures.js";

const URI_TEMPLATE =
  "type.googleapis.com/envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig";

/** The index of the route `request` matches among `routes`, or null. */
function which(
  routes: RouteSpec[],
  request: Partial<RouteRequest> = {},
  extra = {},
): number | null {
  return routeIndexOf(ask(edgeConfig(anyHost(...routes), extra), request));
}

const withHeaders = (headers: JsonValue[], cluster = "h") => prefixRoute("/", cluster, { headers });
const fallback = prefixRoute("/", "fallback");

describe("route order", () => {
  it("the first route that matches wins, not the longest prefix", () => {
    expect(which([prefixRoute("/", "a"), prefixRoute("/api", "b")], { path: "/api/x" })).toBe(0);
  });

  it("the first route that matches wins regardless of prefix length", () => {
    const segment = fc.stringMatching(/^[a-z]{1,3}$/);
    fc.assert(
      fc.property(
        fc.array(fc.array(segment, { maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.array(segment, { maxLength: 4 }),
        (prefixes, path) => {
          const routes = prefixes.map((p, i) => prefixRoute(`/${p.join("/")}`, `c${i}`));
          const requestPath = `/${path.join("/")}`;
          const expected = routes.findIndex((r) => requestPath.startsWith(r.matchValue));
          return which(routes, { path: requestPath }) === (expected < 0 ? null : expected);
        },
      ),
    );
  });

  it("no route that matches means 404", () => {
    const result = answered(ask(edgeConfig(anyHost(prefixRoute("/api", "a"))), { path: "/web" }));
    expect(result.verdict).toEqual({ t: "no-route", status: 404 });
  });
});

describe("path rules (RouteMatch path_specifier)", () => {
  it("a prefix matches the path's start and the query is not part of the path", () => {
    expect(which([prefixRoute("/a?b", "q"), fallback], { path: "/a?b=1" })).toBe(1);
    expect(which([prefixRoute("/api", "a")], { path: "/api/v1?x=1" })).toBe(0);
  });

  it("path must equal the whole path once the query is removed", () => {
    const exact = prefixRoute("", "p", { matchKind: "PATH", matchValue: "/login" });
    expect(which([exact, fallback], { path: "/login?next=/" })).toBe(0);
    expect(which([exact, fallback], { path: "/login/x" })).toBe(1);
  });

  it("safe_regex must match the whole path, query excluded", () => {
    const regex = prefixRoute("", "r", { matchKind: "SAFE_REGEX", matchValue: "/v[0-9]+/items" });
    expect(which([regex, fallback], { path: "/v2/items?x=1" })).toBe(0);
    expect(which([regex, fallback], { path: "/v2/items/7" })).toBe(1);
  });

  it("path_separated_prefix matches the prefix followed by / or the end only", () => {
    const separated = prefixRoute("", "s", {
      matchKind: "PATH_SEPARATED_PREFIX",
      matchValue: "/api",
    });
    expect(which([separated, fallback], { path: "/api" })).toBe(0);
    expect(which([separated, fallback], { path: "/api/x" })).toBe(0);
    expect(which([separated, fallback], { path: "/api?x=1" })).toBe(0);
    expect(which([separated, fallback], { path: "/apifoo" })).toBe(1);
  });

  it("case_sensitive false folds case for prefix, path and path_separated_prefix", () => {
    const insensitive = prefixRoute("/API", "i", { caseSensitive: false });
    expect(which([insensitive, fallback], { path: "/api/x" })).toBe(0);
    expect(which([prefixRoute("/API", "i"), fallback], { path: "/api/x" })).toBe(1);
    const path = prefixRoute("", "p", {
      matchKind: "PATH",
      matchValue: "/Login",
      caseSensitive: false,
    });
    expect(which([path, fallback], { path: "/LOGIN" })).toBe(0);
  });

  it("case_sensitive does not apply to a regex", () => {
    const regex = prefixRoute("", "r", {
      matchKind: "SAFE_REGEX",
      matchValue: "/abc",
      caseSensitive: false,
    });
    expect(which([regex, fallback], { path: "/ABC" })).toBe(1);
  });

  it("ignore_path_parameters_in_path_matching cuts the path at its first ;", () => {
    const exact = prefixRoute("", "p", { matchKind: "PATH", matchValue: "/doc" });
    expect(which([exact, fallback], { path: "/doc;v=1" })).toBe(1);
    expect(
      which(
        [exact, fallback],
        { path: "/doc;v=1" },
        { routeConfiguration: { extra: { ignorePathParametersInPathMatching: true } } },
      ),
    ).toBe(0);
  });

  it("the match says why: its kind, value and case sensitivity", () => {
    const { route } = routed(
      ask(edgeConfig(anyHost(prefixRoute("/api", "a", { name: "api" }))), { path: "/api/x" }),
    );
    expect(route).toMatchObject({
      index: 0,
      name: "api",
      why: { kind: "prefix", value: "/api", caseSensitive: true },
    });
  });
});

describe("URI templates (path_match_policy uri_template_matcher)", () => {
  const template = (pathTemplate: string) =>
    prefixRoute("", "t", {
      matchKind: "PATH_MATCH_POLICY",
      extra: {
        match: {
          pathMatchPolicy: {
            name: "envoy.path.match.uri_template.uri_template_matcher",
            typedConfig: { "@type": URI_TEMPLATE, pathTemplate },
          },
        },
      },
    });

  it("* matches exactly one segment", () => {
    expect(which([template("/api/*/items"), fallback], { path: "/api/v1/items" })).toBe(0);
    expect(which([template("/api/*/items"), fallback], { path: "/api/v1/v2/items" })).toBe(1);
  });

  it("** matches any number of segments, including none", () => {
    expect(which([template("/static/**"), fallback], { path: "/static/a/b/c.js" })).toBe(0);
    expect(which([template("/static/**"), fallback], { path: "/static/" })).toBe(0);
  });

  it("{var}, {var=*} and {var=**} capture like *, * and **; a suffix may follow the last segment", () => {
    expect(which([template("/users/{id}"), fallback], { path: "/users/42" })).toBe(0);
    expect(which([template("/users/{id=*}"), fallback], { path: "/users/42/x" })).toBe(1);
    expect(which([template("/videos/{name=**}.ts"), fallback], { path: "/videos/a/b.ts?x" })).toBe(
      0,
    );
    expect(which([template("/videos/{name=**}.ts"), fallback], { path: "/videos/a/b.mp4" })).toBe(
      1,
    );
  });

  it("a template Envoy refuses is refused with where it is", () => {
    const answer = ask(edgeConfig(anyHost(template("/a/**/b/*"))));
    expect(answer).toMatchObject({ t: "refused", code: "invalid-config" });
  });
});

describe("header matchers (RouteMatch.headers)", () => {
  const cases: [string, JsonValue, [string, string][], boolean][] = [
    ["exact_match", { name: "x-v", exactMatch: "1" }, [["x-v", "1"]], true],
    ["exact_match differs", { name: "x-v", exactMatch: "1" }, [["x-v", "2"]], false],
    [
      "safe_regex_match matches the whole value",
      { name: "x-v", safeRegexMatch: { regex: "\\d{3}" } },
      [["x-v", "1234"]],
      false,
    ],
    [
      "range_match is [start, end)",
      { name: "x-n", rangeMatch: { start: "-10", end: "0" } },
      [["x-n", "-1"]],
      true,
    ],
    [
      "range_match excludes its end",
      { name: "x-n", rangeMatch: { start: "-10", end: "0" } },
      [["x-n", "0"]],
      false,
    ],
    [
      "range_match needs an integer",
      { name: "x-n", rangeMatch: { start: "0", end: "10" } },
      [["x-n", "1.5"]],
      false,
    ],
    ["present_match true", { name: "x-p", presentMatch: true }, [["x-p", ""]], true],
    [
      "present_match false matches an absent header",
      { name: "x-p", presentMatch: false },
      [],
      true,
    ],
    ["no specifier is a presence match", { name: "x-p" }, [["x-p", "v"]], true],
    ["prefix_match", { name: "x-v", prefixMatch: "ab" }, [["x-v", "abc"]], true],
    ["suffix_match", { name: "x-v", suffixMatch: "bc" }, [["x-v", "abc"]], true],
    ["contains_match", { name: "x-v", containsMatch: "b" }, [["x-v", "abc"]], true],
    [
      "string_match with ignore_case",
      { name: "x-v", stringMatch: { exact: "ABC", ignoreCase: true } },
      [["x-v", "abc"]],
      true,
    ],
    [
      "invert_match inverts a value match",
      { name: "x-v", exactMatch: "1", invertMatch: true },
      [["x-v", "2"]],
      true,
    ],
    [
      "invert_match does not make a missing header match",
      { name: "x-v", exactMatch: "1", invertMatch: true },
      [],
      false,
    ],
    [
      "inverted present_match true matches an absent header",
      { name: "x-p", presentMatch: true, invertMatch: true },
      [],
      true,
    ],
    [
      'treat_missing_header_as_empty reads a missing header as ""',
      {
        name: "x-n",
        rangeMatch: { start: "0", end: "10" },
        invertMatch: true,
        treatMissingHeaderAsEmpty: true,
      },
      [],
      true,
    ],
    [
      'several values are joined with ","',
      { name: "x-v", exactMatch: "a,b" },
      [
        ["x-v", "a"],
        ["x-v", "b"],
      ],
      true,
    ],
    ["header names are case-insensitive", { name: "X-V", exactMatch: "1" }, [["x-V", "1"]], true],
  ];
  for (const [rule, matcher, headers, matches] of cases) {
    it(`${rule}: ${matches ? "matches" : "does not match"}`, () => {
      expect(which([withHeaders([matcher]), fallback], { headers })).toBe(matches ? 0 : 1);
    });
  }

  it("pseudo-headers :method, :path, :authority and :scheme can be matched", () => {
    const route = withHeaders([
      { name: ":method", exactMatch: "POST" },
      { name: ":path", prefixMatch: "/up" },
      { name: ":authority", exactMatch: "example.com" },
      { name: ":scheme", exactMatch: "https" },
    ]);
    expect(which([route, fallback], { method: "POST", path: "/upload", scheme: "https" })).toBe(0);
    expect(which([route, fallback], { method: "GET", path: "/upload", scheme: "https" })).toBe(1);
  });

  it("every header matcher must match", () => {
    const route = withHeaders([
      { name: "a", exactMatch: "1" },
      { name: "b", exactMatch: "2" },
    ]);
    expect(which([route, fallback], { headers: [["a", "1"]] })).toBe(1);
    const { route: matched } = routed(
      ask(edgeConfig(anyHost(route)), {
        headers: [
          ["a", "1"],
          ["b", "2"],
        ],
      }),
    );
    expect(matched?.why.conditions).toEqual(['header a exact "1"', 'header b exact "2"']);
  });
});

describe("query parameter matchers (RouteMatch.query_parameters)", () => {
  const withQuery = (matcher: JsonValue) => prefixRoute("/", "q", { queryParameters: [matcher] });

  it("string_match reads the parameter's first value, undecoded", () => {
    expect(
      which([withQuery({ name: "v", stringMatch: { exact: "1" } }), fallback], {
        path: "/?v=1&v=2",
      }),
    ).toBe(0);
    expect(
      which([withQuery({ name: "v", stringMatch: { exact: "2" } }), fallback], {
        path: "/?v=1&v=2",
      }),
    ).toBe(1);
    expect(
      which([withQuery({ name: "q", stringMatch: { exact: "a%20b" } }), fallback], {
        path: "/?q=a%20b",
      }),
    ).toBe(0);
  });

  it("present_match matches a parameter without a value", () => {
    expect(
      which([withQuery({ name: "debug", presentMatch: true }), fallback], { path: "/?debug" }),
    ).toBe(0);
    expect(
      which([withQuery({ name: "debug", presentMatch: true }), fallback], { path: "/?other" }),
    ).toBe(1);
  });

  it("a missing parameter never matches", () => {
    expect(
      which([withQuery({ name: "v", stringMatch: { prefix: "" } }), fallback], { path: "/" }),
    ).toBe(1);
  });
});

describe("runtime_fraction", () => {
  const sampled = (numerator: number) =>
    prefixRoute("/", "canary", {
      extra: {
        match: {
          runtimeFraction: {
            defaultValue: { numerator, denominator: "HUNDRED" },
            runtimeKey: "routing.canary",
          },
        },
      },
    });

  it("the default fraction decides with random_value % denominator < numerator", () => {
    expect(which([sampled(10), fallback], { randomValue: 9 })).toBe(0);
    expect(which([sampled(10), fallback], { randomValue: 110 })).toBe(1);
    const { route } = routed(ask(edgeConfig(anyHost(sampled(10), fallback)), { randomValue: 9 }));
    expect(route?.runtimeFraction).toMatchObject({
      source: "default",
      numerator: 10,
      denominator: 100,
      enabled: true,
    });
  });

  it("a runtime layer that sets the key wins over the default, and the answer says which", () => {
    const layers = [runtimeLayerSpec("rtds", { "routing.canary": 50 })];
    const answer = ask(edgeConfig(anyHost(sampled(10), fallback), { runtimeLayers: layers }), {
      randomValue: 30,
    });
    expect(routed(answer).route?.runtimeFraction).toMatchObject({
      source: "layer",
      layer: "rtds",
      numerator: 50,
    });
  });

  it("layers that disagree on the key make the route impossible to evaluate", () => {
    const layers = [
      runtimeLayerSpec("a", { "routing.canary": 50 }),
      runtimeLayerSpec("b", { "routing.canary": 0 }),
    ];
    const result = answered(
      ask(edgeConfig(anyHost(sampled(10), fallback), { runtimeLayers: layers })),
    );
    expect(result.verdict).toMatchObject({ t: "cannot-evaluate", route: { index: 0 } });
  });

  it("router_check_tool's runtime enables only its key, with the default fraction", () => {
    const config = edgeConfig(anyHost(sampled(0), fallback));
    expect(
      which([sampled(0), fallback], {
        runtime: { t: "router-check-tool", enabledKey: "routing.canary" },
      }),
    ).toBe(0);
    expect(
      routeIndexOf(ask(config, { runtime: { t: "router-check-tool", enabledKey: "other" } })),
    ).toBe(1);
  });
});

describe("other conditions", () => {
  it("grpc matches content-type application/grpc or application/grpc+..., not grpc-web", () => {
    const grpc = prefixRoute("/", "g", { extra: { match: { grpc: {} } } });
    expect(which([grpc, fallback], { headers: [["content-type", "application/grpc+proto"]] })).toBe(
      0,
    );
    expect(which([grpc, fallback], { headers: [["content-type", "application/grpc-web"]] })).toBe(
      1,
    );
    expect(which([grpc, fallback], {})).toBe(1);
  });

  it("connect_matcher matches CONNECT requests only, which other routes do not match without a path", () => {
    const connect = prefixRoute("", "tunnel", {
      matchKind: "CONNECT",
      extra: { match: { connectMatcher: {} } },
    });
    expect(which([fallback, connect], { method: "CONNECT", path: "" })).toBe(1);
    expect(which([connect, fallback], { method: "GET" })).toBe(1);
  });

  it("a route with tls_context cannot be evaluated from a request: the answer says so", () => {
    const tls = prefixRoute("/", "mtls", { extra: { match: { tlsContext: { presented: true } } } });
    expect(answered(ask(edgeConfig(anyHost(tls, fallback)))).verdict).toMatchObject({
      t: "cannot-evaluate",
      route: { index: 0 },
      reasons: [expect.stringContaining("tls_context")],
    });
  });

  it("a route with dynamic_metadata is evaluated only with the request's dynamic metadata", () => {
    const meta = prefixRoute("/", "meta", {
      extra: {
        match: {
          dynamicMetadata: [
            {
              filter: "example.meta",
              path: [{ key: "foo" }],
              value: { stringMatch: { exact: "bar" } },
            },
          ],
        },
      },
    });
    const config = edgeConfig(anyHost(meta, fallback));
    expect(answered(ask(config)).verdict.t).toBe("cannot-evaluate");
    expect(routeIndexOf(ask(config, { dynamicMetadata: { "example.meta": { foo: "bar" } } }))).toBe(
      0,
    );
    expect(routeIndexOf(ask(config, { dynamicMetadata: {} }))).toBe(1);
  });

  it("a condition that fails makes a route not match even when another cannot be evaluated", () => {
    const tls = prefixRoute("/admin", "mtls", {
      extra: { match: { tlsContext: { presented: true } } },
    });
    expect(which([tls, fallback], { path: "/web" })).toBe(1);
  });
});
