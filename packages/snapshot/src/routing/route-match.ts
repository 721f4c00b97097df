/**
 * Whether one route matches a request, and why. Pure.
 *
 * Envoy's rules (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto,
 * "config.route.v3.RouteMatch"; https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/http/http_routing):
 * - the path rules see the :path without its query string (and fragment): `prefix` its start,
 *   `path` all of it, `safe_regex` all of it (the regex must match the whole path),
 *   `path_separated_prefix` a prefix followed by "/" or the end, `path_match_policy` a URI
 *   template (uri-template.ts);
 * - `case_sensitive` (default true) applies to prefix, path and path_separated_prefix, not to
 *   regexes; the route configuration's `ignore_path_parameters_in_path_matching` cuts the path at
 *   its first ";" first;
 * - every other condition must hold too: runtime_fraction, `grpc` (content-type exactly
 *   "application/grpc" or starting "application/grpc+": Envoy's Grpc::Common::hasGrpcContentType,
 *   so application/grpc-web is not gRPC), headers (request-headers.ts), query_parameters,
 *   tls_context and dynamic_metadata;
 * - `connect_matcher` matches CONNECT requests only; a request without a path (CONNECT) is
 *   matched by no other route.
 * A condition a request cannot answer (tls_context: the peer certificate; dynamic_metadata
 * without RouteRequest.dynamicMetadata; a runtime key the layers disagree on), or one this
 * simulator does not evaluate (a field of a newer Envoy API loaded at run time: `cookies`,
 * `filter_state`, ...), makes the route "undecidable" when every other condition holds: the
 * caller stops there rather than guess.
 */
import type { JsonValue as ProtoJson } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type { Route } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import type { MetadataMatcher } from "@switchyard/proto/envoy/type/matcher/v3/metadata_pb";
import { quotedInput } from "../bounded-text.js";
import { MatcherError, valueMatcher } from "../match/matchers.js";
import type { JsonValue } from "../model.js";
import {
  compileHeaderMatcher,
  compileQueryParameterMatcher,
  compileRegex,
  type HeaderMap,
  pathOnly,
  queryParameters,
  RoutingConfigError,
} from "./request-headers.js";
import type { RouteMatchReason, RuntimeFractionUse } from "./route-answer.js";
import type { RuntimeLookup } from "./runtime-lookup.js";
import { UriTemplateError, uriTemplateMatcher } from "./uri-template.js";

export const URI_TEMPLATE_MATCH_TYPE =
  "envoy.extensions.path.match.uri_template.v3.UriTemplateMatchConfig";

export interface MatchContext {
  /** Every request header the router sees, pseudo-headers included. */
  readonly headers: HeaderMap;
  readonly randomValue: bigint;
  readonly runtime: RuntimeLookup;
  readonly ignorePathParameters: boolean;
  readonly dynamicMetadata: { readonly [namespace: string]: JsonValue } | undefined;
}

export type RouteMatchResult =
  | { readonly t: "no" }
  | {
      readonly t: "yes";
      readonly why: RouteMatchReason;
      readonly runtimeFraction?: RuntimeFractionUse;
      /** What prefix_rewrite replaces (Envoy's matched path for this route kind). */
      readonly matchedPath: string;
      /** The URI template, for a uri_template route (its rewriter needs it). */
      readonly uriTemplate?: string;
    }
  | { readonly t: "undecidable"; readonly reasons: readonly string[] };

interface PathRule {
  readonly kind: RouteMatchReason["kind"];
  readonly value: string;
  readonly caseSensitive: boolean;
  /** The matched path for rewrites, or null when the path does not match. */
  readonly test: (path: string | undefined) => string | null;
  readonly uriTemplate?: string;
}

/** The template of a `path_match_policy` that is a URI template; throws for other extensions. */
export function uriTemplateOf(
  typedConfig: Parameters<typeof anyUnpack>[0] | undefined,
  path: string,
): string {
  const typeName = typedConfig?.typeUrl.slice(typedConfig.typeUrl.lastIndexOf("/") + 1);
  if (!typedConfig || typeName !== URI_TEMPLATE_MATCH_TYPE) {
    throw new RoutingConfigError(
      path,
      `path_match_policy ${typeName ?? "(none)"} is not evaluated: only envoy.path.match.uri_template.uri_template_matcher is`,
      "unsupported-config",
    );
  }
  const config = anyUnpack(typedConfig, registry) as { pathTemplate?: unknown } | undefined;
  return typeof config?.pathTemplate === "string" ? config.pathTemplate : "";
}

function pathRule(route: Route, path: string, ignorePathParameters: boolean): PathRule {
  const match = route.match;
  const caseSensitive = match?.caseSensitive ?? true;
  const fold = (s: string) => (caseSensitive ? s : s.toLowerCase());
  const sanitize = (p: string) => {
    const cut = ignorePathParameters ? p.indexOf(";") : -1;
    return pathOnly(cut < 0 ? p : p.slice(0, cut));
  };
  const spec = match?.pathSpecifier ?? { case: undefined };
  switch (spec.case) {
    case "prefix": {
      const prefix = spec.value;
      return {
        kind: "prefix",
        value: prefix,
        caseSensitive,
        test: (p) =>
          p !== undefined && fold(sanitize(p)).startsWith(fold(prefix)) ? prefix : null,
      };
    }
    case "path": {
      const exact = spec.value;
      return {
        kind: "path",
        value: exact,
        caseSensitive,
        test: (p) => (p !== undefined && fold(sanitize(p)) === fold(exact) ? exact : null),
      };
    }
    case "safeRegex": {
      const re = compileRegex(spec.value.regex, `${path}.match.safe_regex.regex`);
      return {
        kind: "safe_regex",
        value: spec.value.regex,
        caseSensitive: true,
        test: (p) => (p !== undefined && re.matches(sanitize(p)) ? pathOnly(p) : null),
      };
    }
    case "pathSeparatedPrefix": {
      const prefix = spec.value;
      return {
        kind: "path_separated_prefix",
        value: prefix,
        caseSensitive,
        test: (p) => {
          if (p === undefined) return null;
          const sanitized = sanitize(p);
          const ok =
            fold(sanitized).startsWith(fold(prefix)) &&
            (sanitized.length === prefix.length || sanitized[prefix.length] === "/");
          return ok ? prefix : null;
        },
      };
    }
    case "pathMatchPolicy": {
      const template = uriTemplateOf(spec.value.typedConfig, `${path}.match.path_match_policy`);
      let matcher: ReturnType<typeof uriTemplateMatcher>;
      try {
        matcher = uriTemplateMatcher(template);
      } catch (error) {
        if (error instanceof UriTemplateError) {
          throw new RoutingConfigError(`${path}.match.path_match_policy`, error.message);
        }
        throw error;
      }
      return {
        kind: "uri_template",
        value: template,
        caseSensitive: true,
        uriTemplate: template,
        // Envoy's UriTemplateMatcher matches the :path without query, not cut at ";".
        test: (p) => (p !== undefined && matcher(pathOnly(p)) !== null ? template : null),
      };
    }
    case "connectMatcher":
      return {
        kind: "connect",
        value: "CONNECT",
        caseSensitive: true,
        test: (p) => pathOnly(p ?? ""),
      };
    case undefined:
      throw new RoutingConfigError(`${path}.match`, "a route needs a path specifier");
  }
}

function metadataMatches(
  matcher: MetadataMatcher,
  metadata: { readonly [namespace: string]: JsonValue },
  path: string,
): boolean {
  const value = matcher.value;
  if (!value) throw new RoutingConfigError(`${path}.value`, "a value matcher is required");
  const test = valueMatcher(value, `${path}.value`);
  let at: JsonValue | undefined = metadata[matcher.filter];
  for (const segment of matcher.path) {
    const key = segment.segment.case === "key" ? segment.segment.value : "";
    at =
      at !== null && typeof at === "object" && !Array.isArray(at)
        ? (at as { readonly [k: string]: JsonValue })[key]
        : undefined;
  }
  return test(at as ProtoJson | undefined) !== matcher.invert;
}

/** The RouteMatch fields matchRoute evaluates (proto names); a set one of any other is not. */
const EVALUATED = new Set([
  "prefix",
  "path",
  "safe_regex",
  "connect_matcher",
  "path_separated_prefix",
  "path_match_policy",
  "case_sensitive",
  "runtime_fraction",
  "headers",
  "query_parameters",
  "grpc",
  "tls_context",
  "dynamic_metadata",
]);

/**
 * The conditions of `match` this simulator does not evaluate: set fields of its (newest)
 * definition other than EVALUATED, and fields no definition in use knows.
 */
function unevaluated(match: Route["match"]): string[] {
  if (!match) return [];
  const desc = registry.getMessage(match.$typeName);
  const out: string[] = [];
  if (desc) {
    const fields = reflect(desc, match);
    for (const field of desc.fields) {
      if (!EVALUATED.has(field.name) && fields.isSet(field)) {
        out.push(`match.${field.name} is a condition the route tester does not evaluate`);
      }
    }
  }
  if ((match.$unknown?.length ?? 0) > 0) {
    out.push(
      "match has a field no Envoy API in use defines, a condition the route tester does not evaluate",
    );
  }
  return out;
}

/** Whether `route` (the `index`th of its virtual host) matches, as Envoy's RouteEntryImplBase::matches. */
export function matchRoute(route: Route, path: string, context: MatchContext): RouteMatchResult {
  const match = route.match;
  const headers = context.headers;
  const requestPath = headers.get(":path");
  const conditions: string[] = [];
  const undecidable: string[] = unevaluated(match);
  let rule: PathRule;
  try {
    rule = pathRule(route, path, context.ignorePathParameters);
  } catch (error) {
    if (error instanceof MatcherError) throw new RoutingConfigError(error.path, error.message);
    throw error;
  }
  if (rule.kind === "connect" && headers.get(":method") !== "CONNECT") return { t: "no" };
  if (rule.kind !== "connect" && requestPath === undefined) return { t: "no" };

  let runtimeFraction: RuntimeFractionUse | undefined;
  const fraction = match?.runtimeFraction;
  if (fraction) {
    const resolved = context.runtime.fraction(
      fraction.runtimeKey,
      fraction.defaultValue,
      context.randomValue,
    );
    if ("undecidable" in resolved) undecidable.push(resolved.undecidable);
    else if (!resolved.enabled) return { t: "no" };
    else {
      runtimeFraction = resolved;
      conditions.push(
        `runtime_fraction ${resolved.numerator}/${resolved.denominator} (${resolved.source}) enabled for random value ${resolved.randomValue}`,
      );
    }
  }
  if (match?.grpc) {
    const contentType = headers.get("content-type") ?? "";
    const grpc =
      contentType.startsWith("application/grpc") &&
      (contentType.length === 16 || contentType[16] === "+");
    if (!grpc) return { t: "no" };
    conditions.push("grpc (content-type application/grpc)");
  }
  try {
    for (const [i, matcher] of (match?.headers ?? []).entries()) {
      const compiled = compileHeaderMatcher(matcher, `${path}.match.headers[${i}]`);
      if (!compiled.matches(headers)) return { t: "no" };
      conditions.push(compiled.describe);
    }
    if ((match?.queryParameters.length ?? 0) > 0) {
      const params = queryParameters(requestPath ?? "");
      for (const [i, matcher] of (match?.queryParameters ?? []).entries()) {
        const compiled = compileQueryParameterMatcher(
          matcher,
          `${path}.match.query_parameters[${i}]`,
        );
        if (!compiled.matches(params)) return { t: "no" };
        conditions.push(compiled.describe);
      }
    }
    if (match?.tlsContext) {
      undecidable.push(
        "tls_context matches the downstream peer certificate (presented/validated), which a request does not carry",
      );
    }
    for (const [i, matcher] of (match?.dynamicMetadata ?? []).entries()) {
      const at = `${path}.match.dynamic_metadata[${i}]`;
      if (context.dynamicMetadata === undefined) {
        undecidable.push(
          `dynamic_metadata[${i}] (filter ${quotedInput(matcher.filter)}) reads metadata set by filters; give RouteRequest.dynamicMetadata to evaluate it`,
        );
      } else if (!metadataMatches(matcher, context.dynamicMetadata, at)) {
        return { t: "no" };
      } else {
        conditions.push(`dynamic_metadata ${quotedInput(matcher.filter)} matched`);
      }
    }
  } catch (error) {
    if (error instanceof MatcherError) throw new RoutingConfigError(error.path, error.message);
    throw error;
  }
  const matchedPath = rule.test(requestPath);
  if (matchedPath === null) return { t: "no" };
  if (undecidable.length > 0) return { t: "undecidable", reasons: undecidable };
  return {
    t: "yes",
    why: { kind: rule.kind, value: rule.value, caseSensitive: rule.caseSensitive, conditions },
    ...(runtimeFraction ? { runtimeFraction } : {}),
    matchedPath,
    ...(rule.uriTemplate !== undefined ? { uriTemplate: rule.uriTemplate } : {}),
  };
}
