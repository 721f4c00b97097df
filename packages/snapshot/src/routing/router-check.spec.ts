import { describe, expect, it } from "vitest";
import { routeConfigurationSpec, virtualHostSpec } from "../fixtures.js";
import { checkRouteTest } from "./router-check.js";
import {
  parseRouterCheckTests,
  ROUTER_CHECK_LIMITS,
  type RouterCheckTest,
} from "./router-check-format.js";
import { edgeConfig, prefixRoute } from "./routing-fixtures.js";

const config = edgeConfig([
  virtualHostSpec(
    "www",
    ["www.example.com"],
    [
      prefixRoute("/old", "", {
        actionKind: "REDIRECT",
        cluster: null,
        redirect: { pathRedirect: "/new", responseCode: "FOUND" },
      }),
      prefixRoute("/teapot", "", {
        actionKind: "DIRECT_RESPONSE",
        cluster: null,
        directResponse: { status: 418 },
      }),
      prefixRoute("/canary", "canary", {
        extra: {
          match: {
            runtimeFraction: { defaultValue: { numerator: 50 }, runtimeKey: "canary.enabled" },
          },
          metadata: { filterMetadata: { "team.meta": { owner: "shop" } } },
        },
      }),
      prefixRoute("/api/", "api", {
        prefixRewrite: "/",
        timeoutMs: 120_000,
        extra: {
          route: { hostRewriteLiteral: "api.internal" },
          requestHeadersToAdd: [{ header: { key: "x-route", value: "api" } }],
          responseHeadersToAdd: [{ header: { key: "x-served-by", value: "envoy" } }],
        },
      }),
      prefixRoute("/split", "", {
        actionKind: "WEIGHTED_CLUSTERS",
        cluster: null,
        weightedClusters: [
          { name: "blue", weight: 90 },
          { name: "green", weight: 10 },
        ],
      }),
      prefixRoute("/", "web"),
    ],
  ),
]);

function tests(text: string): readonly RouterCheckTest[] {
  const parsed = parseRouterCheckTests(text);
  if (parsed.t === "invalid") throw new Error(JSON.stringify(parsed.problems));
  return parsed.tests;
}
const check = (yaml: string) => tests(yaml).map((t) => checkRouteTest(config, t));
const one = (input: string, validate: string) =>
  check(`tests:\n- test_name: t\n  input: {${input}}\n  validate: {${validate}}`)[0];
const base = "authority: www.example.com, method: GET";

describe("router_check_tool test files", () => {
  it("reads YAML with the tool's field names and proto3 JSON names alike", () => {
    const [test] = tests(`
tests:
- test_name: api
  input:
    authority: www.example.com
    path: /api/v1
    method: GET
    random_value: 42
    ssl: true
    additional_request_headers: [{key: x-a, value: "1"}]
  validate:
    clusterName: api
    request_header_matches: [{name: x-a, string_match: {exact: "1"}}]
`);
    expect(test?.input).toMatchObject({
      authority: "www.example.com",
      randomValue: 42n,
      ssl: true,
      additionalRequestHeaders: [["x-a", "1"]],
    });
    expect(test?.validate.clusterName).toBe("api");
    expect(test?.validate.requestHeaderMatches[0]?.name).toBe("x-a");
  });

  it("reads JSON", () => {
    const json = JSON.stringify({
      tests: [
        {
          test_name: "t",
          input: { authority: "a", path: "/", method: "GET" },
          validate: { cluster_name: "" },
        },
      ],
    });
    expect(tests(json)[0]?.validate.clusterName).toBe("");
  });

  const problems = (text: string) => {
    const parsed = parseRouterCheckTests(text);
    return parsed.t === "invalid" ? parsed.problems : [];
  };

  it("a field of the wrong type is refused naming the test and field", () => {
    const many = Array.from(
      { length: 4 },
      (_, i) =>
        `- test_name: t${i}\n  input: {authority: a, path: /, method: GET}\n  validate: {cluster_name: ${i === 3 ? "[x]" : "c"}}`,
    ).join("\n");
    expect(problems(`tests:\n${many}`)).toEqual([
      { path: "tests[3].validate.cluster_name", message: "expected a string" },
    ]);
  });

  it("unknown fields, a missing method and pseudo-headers in additional headers are refused", () => {
    const found = problems(
      `tests:\n- test_name: t\n  input: {authority: a, path: /, additional_request_headers: [{key: ":path", value: /x}]}\n  validate: {cluster: c}`,
    );
    expect(found.map((p) => p.path).sort()).toEqual([
      "tests[0].input.additional_request_headers[0]",
      "tests[0].input.method",
      "tests[0].validate.cluster",
    ]);
  });

  it("malformed YAML, an empty test list, a bad header matcher and oversized input are refused", () => {
    expect(problems("tests: [")[0]?.message).toBeTruthy();
    expect(problems("tests: []")).toEqual([
      { path: "tests", message: "expected a list of at least one test" },
    ]);
    expect(
      problems(
        `tests:\n- test_name: t\n  input: {authority: a, path: /, method: GET}\n  validate: {request_header_matches: [{name: x, exact_match: 1, prefix_match: 2}]}`,
      )[0]?.path,
    ).toBe("tests[0].validate.request_header_matches[0]");
    expect(problems(`# ${"x".repeat(ROUTER_CHECK_LIMITS.maxBytes)}`)[0]?.message).toContain(
      "bytes",
    );
  });

  it("a header matcher's regex RE2 refuses, or whose program is past the size limit, is refused naming its field before any case runs", () => {
    const matcher = (regex: string) =>
      `tests:\n- test_name: t\n  input: {authority: a, path: /, method: GET}\n  validate: {request_header_matches: [{name: x, safe_regex_match: {regex: ${JSON.stringify(regex)}}}]}`;
    const attack = Array.from({ length: 700 }, (_, i) => `${i}[a-z]{0,1000}`).join("|");
    expect(problems(matcher(attack))).toEqual([
      {
        path: "tests[0].validate.request_header_matches[0].safe_regex_match.regex",
        message: expect.stringMatching(/^compiles to an RE2 program of more than 100 instructions/),
      },
    ]);
    expect(problems(matcher("(a"))[0]).toMatchObject({
      path: "tests[0].validate.request_header_matches[0].safe_regex_match.regex",
      message: expect.stringMatching(/^not an RE2 regular expression/),
    });
    expect(problems(matcher("^ok-[0-9]+$"))).toEqual([]);
  });
});

describe("checking a test case as router_check_tool does", () => {
  it("a matching cluster passes; a different one is a mismatch with expected and actual", () => {
    expect(one(`${base}, path: /x`, "cluster_name: web")).toMatchObject({
      passed: true,
      mismatches: [],
    });
    expect(one(`${base}, path: /x`, "cluster_name: api")?.mismatches).toEqual([
      { field: "cluster_name", expected: "api", actual: "web" },
    ]);
  });

  it("an empty cluster_name expects no route, and a redirect has no cluster either", () => {
    expect(
      one(
        "authority: nowhere.example.com, path: /, method: GET",
        'cluster_name: "", virtual_host_name: ""',
      )?.passed,
    ).toBe(true);
    expect(one(`${base}, path: /old`, 'cluster_name: "", virtual_host_name: ""')?.passed).toBe(
      true,
    );
  });

  it("path_redirect is the full Location and code_redirect its status", () => {
    expect(
      one(
        `${base}, path: /old?a=1`,
        "path_redirect: http://www.example.com/new?a=1, code_redirect: 302",
      )?.passed,
    ).toBe(true);
    expect(
      one(
        `${base}, path: /teapot, ssl: true`,
        "code_redirect: 418, path_redirect: https://www.example.com/teapot",
      )?.passed,
    ).toBe(true);
    expect(one(`${base}, path: /x`, 'code_redirect: 0, path_redirect: ""')?.passed).toBe(true);
  });

  it("path_rewrite and host_rewrite are the :path and :authority after rewrites", () => {
    expect(
      one(
        `${base}, path: /api/v1?q=1`,
        "path_rewrite: /v1?q=1, host_rewrite: api.internal, timeout: 120s",
      ),
    ).toMatchObject({ passed: true });
  });

  it("header matches see the finalized request and response headers", () => {
    const result = one(
      `${base}, path: /api/x, additional_response_headers: [{key: server, value: up}]`,
      "request_header_matches: [{name: x-route, string_match: {exact: api}}], response_header_matches: [{name: x-served-by, present_match: true}, {name: server, string_match: {exact: up}}], request_header_fields: [{key: x-route, value: api}]",
    );
    expect(result?.mismatches).toEqual([]);
    const failing = one(
      `${base}, path: /x`,
      "request_header_matches: [{name: x-route, present_match: true}]",
    );
    expect(failing?.mismatches[0]).toMatchObject({
      field: "request_header_matches[0]",
      actual: "(absent)",
    });
  });

  it("runtime enables only its key, and random_value resolves it and the weighted clusters", () => {
    expect(
      one(
        `${base}, path: /canary, runtime: canary.enabled, random_value: 10`,
        "cluster_name: canary",
      )?.passed,
    ).toBe(true);
    expect(
      one(`${base}, path: /canary, runtime: canary.enabled, random_value: 60`, "cluster_name: web")
        ?.passed,
    ).toBe(true);
    expect(one(`${base}, path: /canary, random_value: 10`, "cluster_name: web")?.passed).toBe(true);
    expect(one(`${base}, path: /split, random_value: 95`, "cluster_name: green")?.passed).toBe(
      true,
    );
  });

  it("route_metadata compares the route's filter metadata", () => {
    expect(
      one(
        `${base}, path: /canary, runtime: canary.enabled`,
        "route_metadata: [{namespace: team.meta, key: owner, value: shop}]",
      )?.passed,
    ).toBe(true);
  });

  it("with several route configurations the test must say which it runs against", () => {
    const two = {
      ...config,
      routeConfigurations: [...config.routeConfigurations, routeConfigurationSpec("other", "web")],
    };
    const [test] = tests(
      `tests:\n- test_name: t\n  input: {${base}, path: /}\n  validate: {cluster_name: web}`,
    );
    if (!test) throw new Error("no test");
    expect(checkRouteTest(two, test).refused?.path).toBe("target");
    expect(checkRouteTest(two, test, { listener: "edge" }).passed).toBe(true);
  });
});
