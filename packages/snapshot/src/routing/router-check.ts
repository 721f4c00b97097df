/**
 * One router_check_tool test case checked against routeRequest, comparing what the tool compares
 * (https://www.envoyproxy.io/docs/envoy/latest/operations/tools/route_table_check_tool; the tool's
 * router.cc). The tool builds the request from `input` (x-forwarded-proto and :scheme from `ssl`,
 * x-envoy-internal from `internal`), resolves the route with `random_value` and only the
 * `runtime` key enabled, finalizes the request and response headers, then compares:
 * - cluster_name, virtual_cluster_name, virtual_host_name, host_rewrite (:authority after
 *   rewrites), path_rewrite (:path after rewrites) and timeout need a route that forwards;
 *   otherwise the actual value is "" — so `cluster_name: ""` expects no route, or a redirect or
 *   direct response;
 * - path_redirect (the Location, newUri) and code_redirect need a redirect or direct response;
 *   otherwise "" and 0;
 * - request/response_header_matches are HeaderMatchers on the final headers; the deprecated
 *   *_header_fields compare a header's first value ("" when absent). Pure.
 */
import type { ConfigSpec } from "../model.js";
import { compileHeaderMatcher, HeaderMap } from "./request-headers.js";
import { requestUri } from "./route-action.js";
import type { RouteRefusal, RouteResult } from "./route-answer.js";
import { routeRequest } from "./route-request.js";
import type { RouterCheckTest } from "./router-check-format.js";

export interface RouteTestMismatch {
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
}

export interface RouteTestResult {
  readonly name: string;
  readonly passed: boolean;
  readonly mismatches: readonly RouteTestMismatch[];
  /** Set when the question could not be asked (unknown route configuration, malformed input). */
  readonly refused?: RouteRefusal;
  readonly answer?: RouteResult;
}

/** What the test routes through: a listener's HCM or a route configuration (the tool's -c file). */
export type RouteTestTarget =
  | { readonly listener: string }
  | { readonly routeConfiguration: string };

/** Checks one test case; `target` defaults to the configuration's only route configuration. */
export function checkRouteTest(
  config: ConfigSpec,
  test: RouterCheckTest,
  target?: RouteTestTarget,
): RouteTestResult {
  const [only, ...others] = config.routeConfigurations;
  const chosen =
    target ?? (only && others.length === 0 ? { routeConfiguration: only.name } : undefined);
  if (!chosen) {
    const refused: RouteRefusal = {
      t: "refused",
      code: "bad-request",
      path: "target",
      message: `the configuration holds ${config.routeConfigurations.length} route configurations: say which one (or which listener) the tests run against`,
    };
    return { name: test.name, passed: false, mismatches: [], refused };
  }
  const { input, validate } = test;
  const answer = routeRequest(config, {
    ...chosen,
    authority: input.authority,
    path: input.path,
    method: input.method,
    scheme: input.ssl ? "https" : "http",
    internal: input.internal,
    randomValue: input.randomValue,
    headers: input.additionalRequestHeaders,
    responseHeaders: input.additionalResponseHeaders,
    runtime: { t: "router-check-tool", enabledKey: input.runtime },
    ...(input.dynamicMetadata ? { dynamicMetadata: input.dynamicMetadata } : {}),
  });
  if (answer.t === "refused")
    return { name: test.name, passed: false, mismatches: [], refused: answer };

  const verdict = answer.verdict;
  const routed = verdict.t === "routed" ? verdict : undefined;
  const outcome = routed?.outcome;
  const direct =
    outcome?.t === "redirect" || outcome?.t === "direct-response" || outcome?.t === "tls-redirect";
  // The tool's routeEntry(): a matched route that is not a redirect or direct response.
  const entry = routed !== undefined && routed.route !== undefined && !direct;
  const finalRequest = new HeaderMap(answer.requestHeaders.result);
  const finalResponse = new HeaderMap(answer.responseHeaders.result);
  const mismatches: RouteTestMismatch[] = [];
  const compare = (
    field: string,
    expected: string | number | undefined,
    actual: string | number,
  ) => {
    if (expected !== undefined && String(expected) !== String(actual)) {
      mismatches.push({ field, expected: String(expected), actual: String(actual) });
    }
  };

  let cluster = "";
  if (entry && outcome) {
    if (outcome.t === "cluster") cluster = outcome.cluster;
    else if (outcome.t === "weighted-clusters" || outcome.t === "cluster-header")
      cluster = outcome.cluster ?? "";
    else if (outcome.t === "cluster-specifier-plugin")
      cluster = `(chosen by cluster specifier plugin ${outcome.plugin})`;
  }
  if (verdict.t === "cannot-evaluate")
    cluster = `(cannot be evaluated: ${verdict.reasons.join("; ")})`;
  compare("cluster_name", validate.clusterName, cluster);
  compare(
    "virtual_cluster_name",
    validate.virtualClusterName,
    entry ? (answer.virtualCluster ?? "") : "",
  );
  compare(
    "virtual_host_name",
    validate.virtualHostName,
    entry ? (answer.virtualHost?.name ?? "") : "",
  );
  compare(
    "host_rewrite",
    validate.hostRewrite,
    entry ? (finalRequest.get(":authority") ?? "") : "",
  );
  compare("path_rewrite", validate.pathRewrite, entry ? (finalRequest.get(":path") ?? "") : "");
  compare(
    "timeout",
    validate.timeoutMs === undefined ? undefined : `${validate.timeoutMs}ms`,
    entry && routed?.forwarding ? `${routed.forwarding.timeouts.timeoutMs}ms` : "",
  );
  let location = "";
  let code = 0;
  if (outcome?.t === "redirect" || outcome?.t === "tls-redirect") {
    location = outcome.location;
    code = outcome.status;
  } else if (outcome?.t === "direct-response") {
    location = requestUri(finalRequest);
    code = outcome.status;
  }
  compare("path_redirect", validate.pathRedirect, location);
  compare("code_redirect", validate.codeRedirect, code);

  for (const [direction, matchers, headers] of [
    ["request_header_matches", validate.requestHeaderMatches, finalRequest],
    ["response_header_matches", validate.responseHeaderMatches, finalResponse],
  ] as const) {
    for (const [i, matcher] of matchers.entries()) {
      const compiled = compileHeaderMatcher(matcher, `validate.${direction}[${i}]`);
      if (!compiled.matches(headers)) {
        mismatches.push({
          field: `${direction}[${i}]`,
          expected: compiled.describe,
          actual: headers.joined(matcher.name) ?? "(absent)",
        });
      }
    }
  }
  for (const [direction, fields, headers] of [
    ["request_header_fields", validate.requestHeaderFields, finalRequest],
    ["response_header_fields", validate.responseHeaderFields, finalResponse],
  ] as const) {
    for (const [name, value] of fields)
      compare(`${direction}.${name}`, value, headers.get(name) ?? "");
  }
  for (const { namespace, key, value } of validate.routeMetadata) {
    const ns = answer.routeMetadata?.[namespace];
    const actual =
      ns !== null && typeof ns === "object" && !Array.isArray(ns)
        ? (ns as { [k: string]: unknown })[key]
        : undefined;
    compare(
      `route_metadata.${namespace}.${key}`,
      value,
      typeof actual === "string" ? actual : actual === undefined ? "" : JSON.stringify(actual),
    );
  }
  return { name: test.name, passed: mismatches.length === 0, mismatches, answer };
}
