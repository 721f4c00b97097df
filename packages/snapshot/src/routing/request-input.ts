/**
 * The request as the router sees it: checked (a malformed request is refused, saying which field),
 * then normalized by the HTTP connection manager in front of the route configuration
 * (https://www.envoyproxy.io/docs/envoy/latest/api-v3/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto:
 * strip_trailing_host_dot, strip_matching_host_port / strip_any_host_port, merge_slashes), with
 * x-forwarded-proto from the scheme and the route configuration's internal_only_headers removed
 * from external requests (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route.proto). Pure.
 */

import { quotedInput } from "../bounded-text.js";
import { stripHostPort, stripTrailingHostDot } from "./domains.js";
import { HeaderMap } from "./request-headers.js";
import type { RouteRefusal, RouteRequest } from "./route-answer.js";
import type { RouteSource } from "./route-source.js";

const MAX_UINT64 = 2n ** 64n - 1n;
// Characters Envoy's codecs refuse in a header value (RFC 7230 field-value, nghttp2's check).
const INVALID_VALUE = /[\0\r\n]/;

function refuse(path: string, message: string): RouteRefusal {
  return { t: "refused", code: "bad-request", path, message };
}

/** What is wrong with the request itself, before any configuration is read. */
export function requestProblem(request: RouteRequest): RouteRefusal | undefined {
  const method = request.method ?? "GET";
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(method)) {
    return refuse("request.method", `${quotedInput(method)} is not an HTTP method token`);
  }
  if (
    request.authority === "" ||
    /[\s/\\]/.test(request.authority) ||
    INVALID_VALUE.test(request.authority)
  ) {
    return refuse(
      "request.authority",
      `${quotedInput(request.authority)} is not a host: give the Host / :authority, e.g. "example.com" or "example.com:8080"`,
    );
  }
  if (request.path === "" ? method !== "CONNECT" : !request.path.startsWith("/")) {
    return refuse(
      "request.path",
      `${quotedInput(request.path)} is not a :path Envoy routes: it must start with "/" (only a CONNECT request may have none)`,
    );
  }
  if (/[\s\0]/.test(request.path)) {
    return refuse(
      "request.path",
      "a :path cannot hold whitespace or control characters (Envoy rejects the request)",
    );
  }
  for (const [i, [name, value]] of (request.headers ?? []).entries()) {
    if (name === "" || name.startsWith(":") || name.toLowerCase() === "host") {
      return refuse(
        `request.headers[${i}]`,
        `${quotedInput(name)}: pseudo-headers and host come from authority, path, method and scheme`,
      );
    }
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name) || INVALID_VALUE.test(value)) {
      return refuse(`request.headers[${i}]`, `${quotedInput(name)} is not a valid header`);
    }
  }
  const random = request.randomValue ?? 0;
  if (
    (typeof random === "number" && (!Number.isSafeInteger(random) || random < 0)) ||
    (typeof random === "bigint" && (random < 0n || random > MAX_UINT64))
  ) {
    return refuse("request.randomValue", "a random value is an unsigned 64-bit integer");
  }
  return undefined;
}

/** The request headers as the router sees them, after the HTTP connection manager. */
export function requestHeaders(
  request: RouteRequest,
  source: RouteSource,
  notes: string[],
): HeaderMap {
  const hcm = source.hcm?.message;
  let authority = request.authority;
  let path = request.path;
  if (hcm) {
    if (hcm.stripTrailingHostDot) authority = stripTrailingHostDot(authority);
    if (hcm.stripPortMode.case === "stripAnyHostPort" && hcm.stripPortMode.value) {
      authority = stripHostPort(authority, { t: "any" });
    } else if (hcm.stripMatchingHostPort) {
      const port = source.hcm?.listener.port;
      if (port === null || port === undefined || source.hcm?.listener.apiListener) {
        notes.push(
          "strip_matching_host_port: the listener has no port of its own, so nothing is stripped",
        );
      } else authority = stripHostPort(authority, { t: "matching", port });
    }
    if (hcm.mergeSlashes) {
      const at = path.search(/[?#]/);
      const only = at < 0 ? path : path.slice(0, at);
      path = only.replace(/\/{2,}/g, "/") + (at < 0 ? "" : path.slice(at));
    }
    if (hcm.normalizePath && /(^|\/)\.\.?(\/|$|[?#])|%|\\/.test(path)) {
      notes.push(
        "normalize_path is on and the path has dot segments, percent-encodings or backslashes: Envoy normalizes it (RFC 3986) before routing, which is not applied here",
      );
    }
  } else {
    notes.push(
      "the route configuration was named directly: no HTTP connection manager normalizes the request (no port stripping) and no HTTP filters are listed",
    );
  }
  const scheme = request.scheme ?? "http";
  const headers = new HeaderMap([
    [":authority", authority],
    ...(path === "" ? [] : ([[":path", path]] as const)),
    [":method", request.method ?? "GET"],
    [":scheme", scheme],
  ]);
  const given = new HeaderMap(request.headers ?? []);
  if (!given.has("x-forwarded-proto")) headers.add("x-forwarded-proto", scheme);
  if (request.internal) headers.add("x-envoy-internal", "true");
  for (const [name, value] of given.entries()) headers.add(name, value);
  if (headers.get("x-envoy-internal") !== "true") {
    // RouteConfiguration.internal_only_headers: "cleaned prior to filter invocation" on external requests.
    for (const name of source.routeConfiguration.internalOnlyHeaders) headers.remove(name);
  }
  return headers;
}
