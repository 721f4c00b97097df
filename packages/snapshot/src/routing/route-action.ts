/**
 * What a matched route does: the cluster it picks, the redirect or direct response it answers,
 * and how it rewrites a forwarded request's path and host. Pure.
 *
 * Envoy's rules (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto):
 * - RouteAction.weighted_clusters: the cluster whose range of cumulative weights holds
 *   random_value % total weight (ranges [0, w1), [w1, w1 + w2), ...); `header_name` takes the
 *   value from a single-valued integer header instead; `runtime_key_prefix` reads each weight from
 *   `<prefix>.<cluster name>`; the deprecated total_weight is ignored;
 * - RouteAction.cluster_header: the header's first value names the cluster; absent, Envoy answers
 *   cluster_not_found_response_code (503 by default);
 * - RedirectAction: scheme (scheme_redirect, https_redirect, else the request's :scheme), host
 *   (host_redirect, else the request's, its port dropped for port_redirect or when it is the
 *   default port of the request's x-forwarded-proto that the new scheme changes), port
 *   (port_redirect), path (prefix_rewrite or regex_rewrite of the request's path, or path_redirect,
 *   which keeps the request's query unless it carries its own), strip_query; 301 by default;
 * - RouteAction.prefix_rewrite replaces the matched prefix (or path) of the :path, query kept;
 *   regex_rewrite substitutes in the path without its query ("\1" refers to a capture group);
 *   path_rewrite_policy rewrites by URI template;
 * - host: host_rewrite_literal, else host_rewrite_header's first value (when present and not
 *   empty), else host_rewrite_path_regex on the path; auto_host_rewrite takes the upstream host's
 *   name, known only once Envoy has picked an endpoint; append_x_forwarded_host adds the old host;
 * - RouteAction.timeout: 15 s when unset, 0 disables it; a route's retry_policy (and hedge_policy)
 *   replaces the virtual host's entirely: "policies are not merged, most internal one becomes the
 *   enforced policy".
 */
import { toJson } from "@bufbuild/protobuf";
import { anyUnpack, type Duration } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import {
  type DirectResponseAction,
  HedgePolicySchema,
  type RedirectAction,
  RetryPolicySchema,
  type RouteAction,
  type VirtualHost,
  type WeightedCluster_ClusterWeight,
} from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import type { RegexMatchAndSubstitute } from "@switchyard/proto/envoy/type/matcher/v3/regex_pb";
import type { JsonValue } from "../model.js";
import { compileRegex, type HeaderMap, pathOnly, RoutingConfigError } from "./request-headers.js";
import type { Forwarding, HostRewrite, Outcome, PathRewrite, Timeouts } from "./route-answer.js";
import type { RuntimeLookup } from "./runtime-lookup.js";
import { rewriteUriTemplate, UriTemplateError } from "./uri-template.js";

const URI_TEMPLATE_REWRITE_TYPE =
  "envoy.extensions.path.rewrite.uri_template.v3.UriTemplateRewriteConfig";
const REDIRECT_CODES = [301, 302, 303, 307, 308] as const;
const CLUSTER_NOT_FOUND_CODES = [503, 404, 500] as const;

/**
 * Envoy's RE2::GlobalReplace: every match of `pattern` in `input` replaced by `substitution`, in
 * which "\N" is capture group N and "\\" a backslash.
 */
export function regexReplaceAll(
  rewrite: RegexMatchAndSubstitute,
  input: string,
  path: string,
): string {
  const re = compileRegex(rewrite.pattern?.regex ?? "", `${path}.pattern.regex`);
  return re
    .matcher(input)
    .replaceAll((...args: unknown[]) =>
      rewrite.substitution.replace(/\\(\d|\\)/g, (_, ref: string) =>
        ref === "\\" ? "\\" : String(args[Number(ref)] ?? ""),
      ),
    );
}

function durationMs(duration: Duration): number {
  return Number(duration.seconds) * 1000 + Math.round(duration.nanos / 1e6);
}

export interface ClusterChoice {
  readonly outcome: Outcome;
  /** The weighted cluster entry chosen, whose headers, host and filter configs apply too. */
  readonly entry?: WeightedCluster_ClusterWeight;
}

/** The cluster `action` sends the request to. */
export function chooseCluster(
  action: RouteAction,
  headers: HeaderMap,
  randomValue: bigint,
  runtime: RuntimeLookup,
  path: string,
): ClusterChoice | { readonly undecidable: string } {
  const specifier = action.clusterSpecifier;
  switch (specifier.case) {
    case "cluster":
      return { outcome: { t: "cluster", cluster: specifier.value } };
    case "clusterHeader": {
      const header = specifier.value.toLowerCase();
      return {
        outcome: {
          t: "cluster-header",
          header,
          cluster: headers.getAll(header)[0] ?? null,
          clusterNotFoundStatus: CLUSTER_NOT_FOUND_CODES[action.clusterNotFoundResponseCode] ?? 503,
        },
      };
    }
    case "weightedClusters": {
      const config = specifier.value;
      const shares: {
        entry: WeightedCluster_ClusterWeight;
        weight: number;
        runtimeKey?: string;
      }[] = [];
      for (const entry of config.clusters) {
        const configured = entry.weight ?? 0;
        const runtimeKey = config.runtimeKeyPrefix
          ? `${config.runtimeKeyPrefix}.${entry.name}`
          : undefined;
        const weight =
          runtimeKey === undefined ? undefined : runtime.integer(runtimeKey, configured);
        if (weight && "undecidable" in weight) return { undecidable: weight.undecidable };
        shares.push({
          entry,
          weight: weight?.value ?? configured,
          ...(weight?.fromRuntime && runtimeKey ? { runtimeKey } : {}),
        });
      }
      const total = shares.reduce((sum, s) => sum + s.weight, 0);
      if (total === 0) {
        throw new RoutingConfigError(`${path}.route.weighted_clusters`, "the weights add up to 0");
      }
      let selection = randomValue;
      let source: "random-value" | "header" = "random-value";
      const headerName =
        config.randomValueSpecifier.case === "headerName" ? config.randomValueSpecifier.value : "";
      const fromHeader = headerName ? headers.getAll(headerName) : [];
      if (fromHeader.length === 1 && /^\d+$/.test(fromHeader[0]?.trim() ?? "")) {
        selection = BigInt(fromHeader[0]?.trim() ?? "0");
        source = "header";
      }
      const selected = Number(selection % BigInt(total));
      let end = 0;
      let selectedIndex = shares.length - 1;
      for (const [i, share] of shares.entries()) {
        end += share.weight;
        if (selected < end) {
          selectedIndex = i;
          break;
        }
      }
      const chosen = shares[selectedIndex]?.entry;
      const cluster =
        chosen === undefined
          ? null
          : chosen.name !== ""
            ? chosen.name
            : (headers.getAll(chosen.clusterHeader)[0] ?? null);
      return {
        outcome: {
          t: "weighted-clusters",
          clusters: shares.map((s) => ({
            name: s.entry.name || s.entry.clusterHeader,
            ...(s.entry.name === "" ? { clusterHeader: s.entry.clusterHeader } : {}),
            weight: s.weight,
            percent: Math.round((s.weight / total) * 10000) / 100,
            ...(s.runtimeKey ? { runtimeKey: s.runtimeKey } : {}),
          })),
          totalWeight: total,
          selectionValue: selection.toString(),
          selectionSource: source,
          selectedIndex,
          cluster,
        },
        ...(chosen ? { entry: chosen } : {}),
      };
    }
    case "clusterSpecifierPlugin":
    case "inlineClusterSpecifierPlugin": {
      const plugin =
        specifier.case === "clusterSpecifierPlugin"
          ? specifier.value
          : (specifier.value.extension?.name ?? "inline");
      return {
        outcome: {
          t: "cluster-specifier-plugin",
          plugin,
          note: "the cluster is chosen by a cluster specifier plugin (an extension), which is not evaluated",
        },
      };
    }
    case undefined:
      throw new RoutingConfigError(`${path}.route`, "a route action names no cluster");
  }
}

/** The Location Envoy sends for `redirect` (Http::Utility::newUri after the redirect's path rewrite). */
export function redirectLocation(
  redirect: RedirectAction,
  headers: HeaderMap,
  matchedPath: string,
  path: string,
): { readonly location: string; readonly status: number } {
  let requestPath = headers.get(":path") ?? "";
  const rewrite = redirect.pathRewriteSpecifier;
  if (rewrite.case === "prefixRewrite" && rewrite.value !== "") {
    requestPath = rewrite.value + requestPath.slice(matchedPath.length);
  } else if (rewrite.case === "regexRewrite") {
    const only = pathOnly(requestPath);
    const replaced = regexReplaceAll(rewrite.value, only, `${path}.redirect.regex_rewrite`);
    if (replaced !== "") requestPath = replaced + requestPath.slice(only.length);
  }
  const scheme = redirect.schemeRewriteSpecifier;
  const finalScheme =
    scheme.case === "schemeRedirect" && scheme.value !== ""
      ? scheme.value
      : scheme.case === "httpsRedirect" && scheme.value
        ? "https"
        : (headers.get(":scheme") ?? "http");
  const finalPort = redirect.portRedirect ? `:${redirect.portRedirect}` : "";
  const finalHost =
    redirect.hostRedirect !== ""
      ? redirect.hostRedirect
      : processRequestHost(headers, finalScheme, finalPort);
  const pathRedirect = rewrite.case === "pathRedirect" ? rewrite.value : "";
  const pathRedirectHasQuery = pathRedirect.includes("?");
  let finalPath = requestPath;
  if (pathRedirect !== "") {
    const query = requestPath.indexOf("?");
    finalPath =
      pathRedirectHasQuery || query < 0 ? pathRedirect : pathRedirect + requestPath.slice(query);
  }
  if (!finalPath.startsWith("/")) finalPath = `/${finalPath}`;
  if (!pathRedirectHasQuery && redirect.stripQuery) {
    const query = finalPath.indexOf("?");
    if (query >= 0) finalPath = finalPath.slice(0, query);
  }
  return {
    location: `${finalScheme}://${finalHost}${finalPort}${finalPath}`,
    status: REDIRECT_CODES[redirect.responseCode] ?? 301,
  };
}

/**
 * The URI Envoy's newUri gives a direct response without redirect config (router_check_tool's
 * path_redirect of a direct_response route): the request's own scheme, host and path.
 */
export function requestUri(headers: HeaderMap): string {
  const scheme = headers.get(":scheme") ?? "http";
  const path = headers.get(":path") ?? "";
  return `${scheme}://${processRequestHost(headers, scheme, "")}${path.startsWith("/") ? path : `/${path}`}`;
}

/** Envoy's processRequestHost: the request's host, its port dropped as a redirect requires. */
function processRequestHost(headers: HeaderMap, newScheme: string, newPort: string): string {
  const host = headers.get(":authority") ?? "";
  if (host === "") return host;
  // An IPv6 literal's port follows "]:".
  const bracket = host.lastIndexOf("]:");
  const end = host.startsWith("[") ? (bracket < 0 ? -1 : bracket + 1) : host.lastIndexOf(":");
  if (end < 0) return host;
  const port = host.slice(end);
  const protocol = headers.get("x-forwarded-proto") ?? "";
  let remove = newPort !== "";
  if (newScheme !== protocol) {
    remove ||= (protocol === "https" && port === ":443") || (protocol === "http" && port === ":80");
  }
  return remove ? host.slice(0, end) : host;
}

export function directResponseOutcome(action: DirectResponseAction): Outcome {
  const body = action.body?.specifier;
  switch (body?.case) {
    case "inlineString":
      return {
        t: "direct-response",
        status: action.status,
        body: { t: "inline", text: body.value },
      };
    case "inlineBytes":
      return {
        t: "direct-response",
        status: action.status,
        body: { t: "inline", text: new TextDecoder().decode(body.value) },
      };
    case "filename":
      return {
        t: "direct-response",
        status: action.status,
        body: { t: "file", filename: body.value },
      };
    case "environmentVariable":
      return {
        t: "direct-response",
        status: action.status,
        body: { t: "environment-variable", name: body.value },
      };
    default:
      return { t: "direct-response", status: action.status };
  }
}

/** The forwarded :path (RouteEntryImplBase::currentUrlPathAfterRewriteWithMatchedPath). */
export function rewritePath(
  action: RouteAction,
  requestPath: string,
  matchedPath: string,
  uriTemplate: string | undefined,
  path: string,
): PathRewrite {
  const only = pathOnly(requestPath);
  const policy = action.pathRewritePolicy;
  if (policy?.typedConfig) {
    const typeName = policy.typedConfig.typeUrl.slice(
      policy.typedConfig.typeUrl.lastIndexOf("/") + 1,
    );
    if (typeName !== URI_TEMPLATE_REWRITE_TYPE || uriTemplate === undefined) {
      throw new RoutingConfigError(
        `${path}.route.path_rewrite_policy`,
        `${typeName} is not evaluated: only the URI template rewriter with a URI template match is`,
        "unsupported-config",
      );
    }
    // The registry's descriptor: the generated schema of this extension is not shipped.
    const config = anyUnpack(policy.typedConfig, registry) as
      | { pathTemplateRewrite?: unknown }
      | undefined;
    const rewrite =
      typeof config?.pathTemplateRewrite === "string" ? config.pathTemplateRewrite : "";
    let rewritten: string | null;
    try {
      rewritten = rewriteUriTemplate(rewrite, uriTemplate, only);
    } catch (error) {
      if (error instanceof UriTemplateError) {
        throw new RoutingConfigError(`${path}.route.path_rewrite_policy`, error.message);
      }
      throw error;
    }
    return rewritten === null
      ? { kind: "none", path: requestPath }
      : { kind: "uri_template", path: rewritten + requestPath.slice(only.length) };
  }
  if (action.prefixRewrite !== "") {
    return {
      kind: "prefix_rewrite",
      path: action.prefixRewrite + requestPath.slice(matchedPath.length),
    };
  }
  if (action.regexRewrite) {
    const replaced = regexReplaceAll(action.regexRewrite, only, `${path}.route.regex_rewrite`);
    return replaced === ""
      ? { kind: "none", path: requestPath }
      : { kind: "regex_rewrite", path: replaced + requestPath.slice(only.length) };
  }
  return { kind: "none", path: requestPath };
}

/**
 * Rewrites the upstream Host on `headers` (RouteEntryImplBase::finalizeHostHeader), reading the
 * headers as the header mutations left them.
 */
export function rewriteHost(action: RouteAction, headers: HeaderMap, path: string): HostRewrite {
  const current = headers.get(":authority") ?? "";
  const specifier = action.hostRewriteSpecifier;
  let host = "";
  let kind: "host_rewrite_literal" | "host_rewrite_header" | "host_rewrite_path_regex" | undefined;
  switch (specifier.case) {
    case "hostRewriteLiteral":
      host = specifier.value;
      kind = "host_rewrite_literal";
      break;
    case "hostRewriteHeader":
      host = headers.getAll(specifier.value)[0] ?? "";
      kind = "host_rewrite_header";
      break;
    case "hostRewritePathRegex":
      host = regexReplaceAll(
        specifier.value,
        pathOnly(headers.get(":path") ?? ""),
        `${path}.route.host_rewrite_path_regex`,
      );
      kind = "host_rewrite_path_regex";
      break;
    case "autoHostRewrite":
      if (specifier.value) {
        return {
          kind: "auto_host_rewrite",
          host: current,
          note: "auto_host_rewrite: the upstream Host becomes the hostname of the endpoint Envoy picks (for strict_dns/logical_dns clusters or endpoints with a hostname), known only at request time",
        };
      }
      break;
    case undefined:
      break;
  }
  if (kind === undefined || host === "") return { kind: "none", host: current };
  let appended = false;
  if (action.appendXForwardedHost && current !== "") {
    // Http::Utility::updateAuthority: appended only if not already the last value.
    const xfh = headers.get("x-forwarded-host");
    const last = xfh?.split(",").at(-1)?.trim();
    if (xfh === undefined) headers.set("x-forwarded-host", current);
    else if (last !== current) headers.set("x-forwarded-host", `${xfh},${current}`);
    appended = true;
  }
  headers.set(":authority", host);
  return { kind, host, appendedXForwardedHost: appended };
}

export function timeoutsOf(action: RouteAction): Timeouts {
  const max = action.maxStreamDuration?.maxStreamDuration;
  return {
    timeoutMs: action.timeout ? durationMs(action.timeout) : 15_000,
    timeoutSource: action.timeout ? "route" : "default",
    ...(action.idleTimeout ? { idleTimeoutMs: durationMs(action.idleTimeout) } : {}),
    ...(max ? { maxStreamDurationMs: durationMs(max) } : {}),
  };
}

/** The retry and hedge policies in force: the route's, else the virtual host's. */
export function policiesOf(
  action: RouteAction,
  virtualHost: VirtualHost,
): Pick<Forwarding, "retryPolicy" | "hedgePolicy"> {
  const retry = action.retryPolicy ?? virtualHost.retryPolicy;
  const hedge = action.hedgePolicy ?? virtualHost.hedgePolicy;
  return {
    retryPolicy: retry
      ? {
          source: action.retryPolicy ? "route" : "virtual-host",
          policy: toJson(RetryPolicySchema, retry, { registry }) as JsonValue,
        }
      : null,
    hedgePolicy: hedge
      ? {
          source: action.hedgePolicy ? "route" : "virtual-host",
          policy: toJson(HedgePolicySchema, hedge, { registry }) as JsonValue,
        }
      : null,
  };
}
