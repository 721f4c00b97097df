/**
 * The question "where does this request go?" and Envoy's answer, as plain data (route-request.ts
 * computes it). Every Envoy rule behind a field is cited where the field is computed.
 */
import type { JsonObject, JsonValue, RuntimeValue } from "../model.js";

/** A request as the HTTP connection manager hands it to the router. */
export interface RouteRequest {
  /** Pick the route configuration through this listener's HTTP connection manager (rds or inline). */
  readonly listener?: string;
  /** Or name the route configuration directly (exactly one of `listener` and this). */
  readonly routeConfiguration?: string;
  /** With `listener`: which filter chain (its name or index) when several hold an HTTP connection manager. */
  readonly filterChain?: string | number;
  /** Host / :authority, may carry a port. */
  readonly authority: string;
  /** :path, may carry ?query. Empty only for CONNECT. */
  readonly path: string;
  /** :method, GET by default. */
  readonly method?: string;
  /** Other request headers, in order (names are case-insensitive; no pseudo-headers, no `host`). */
  readonly headers?: readonly (readonly [string, string])[];
  /**
   * As router_check_tool's random_value: resolves runtime_fraction and picks among weighted
   * clusters deterministically. A non-negative integer (a bigint for values past 2^53); 0 by default.
   */
  readonly randomValue?: number | bigint;
  /** The upstream's response headers, which the response header mutations apply to (router_check_tool's additional_response_headers). */
  readonly responseHeaders?: readonly (readonly [string, string])[];
  /** :scheme and, unless `headers` carry one, x-forwarded-proto. "http" by default. */
  readonly scheme?: "http" | "https";
  /** The request is internal (x-envoy-internal: true), as router_check_tool's `internal`. */
  readonly internal?: boolean;
  /**
   * Dynamic metadata by filter namespace, for routes with `dynamic_metadata` matchers. Without it,
   * such a route cannot be evaluated; with it (even `{}`), absent keys simply do not match.
   */
  readonly dynamicMetadata?: { readonly [namespace: string]: JsonValue };
  /**
   * How runtime keys are read. By default (`layers`), from the ConfigSpec's runtime layers, then
   * the configured defaults; `overrides` win over both. `router-check-tool` mimics that tool: only
   * `enabledKey` is enabled, evaluated with the default fraction (a 0 numerator counting as 1).
   */
  readonly runtime?:
    | { readonly t: "layers"; readonly overrides?: { readonly [key: string]: RuntimeValue } }
    | { readonly t: "router-check-tool"; readonly enabledKey: string };
}

export type RefusalCode =
  | "bad-request"
  | "unknown-listener"
  | "unknown-route-configuration"
  | "no-http-connection-manager"
  | "ambiguous-filter-chain"
  | "unsupported-config"
  | "invalid-config";

/** The question cannot be answered as asked: what was wrong, where, and how to fix it. */
export interface RouteRefusal {
  readonly t: "refused";
  readonly code: RefusalCode;
  /** Where: `request.path`, `listeners["edge"].filterChains[1]`, ... */
  readonly path: string;
  readonly message: string;
}

/** How a virtual host's domain matched the host (route_components.proto, VirtualHost.domains). */
export type DomainMatchKind = "exact" | "suffix-wildcard" | "prefix-wildcard" | "any";

export interface ChosenVirtualHost {
  readonly index: number;
  readonly name: string;
  readonly domain: string;
  readonly how: DomainMatchKind;
}

export type PathMatchKind =
  | "prefix"
  | "path"
  | "safe_regex"
  | "path_separated_prefix"
  | "uri_template"
  | "connect";

/** Why a route matched: its path rule and every other condition it checked. */
export interface RouteMatchReason {
  readonly kind: PathMatchKind;
  readonly value: string;
  readonly caseSensitive: boolean;
  /** The other conditions, each as a sentence: "header x-canary exact \"1\"", "runtime_fraction ...". */
  readonly conditions: readonly string[];
}

/** How a runtime_fraction was resolved. */
export interface RuntimeFractionUse {
  readonly key: string;
  readonly source: "default" | "layer" | "override" | "router-check-tool";
  /** The layer that set the key (source "layer"). */
  readonly layer?: string;
  readonly numerator: number;
  readonly denominator: number;
  readonly randomValue: string;
  readonly enabled: boolean;
}

export interface MatchedRoute {
  readonly index: number;
  readonly name: string;
  readonly why: RouteMatchReason;
  readonly runtimeFraction?: RuntimeFractionUse;
}

export interface HeaderOperation {
  readonly level: "weighted-cluster" | "route" | "virtual-host" | "route-configuration";
  readonly op: "remove" | "add";
  readonly name: string;
  readonly value?: string;
  /** Envoy's HeaderValueOption.append_action, as named there. */
  readonly appendAction?: string;
  /** The value holds a %COMMAND% Envoy formats per request: shown unformatted. */
  readonly dynamic?: boolean;
  /** An empty value without keep_empty_value: Envoy adds nothing. */
  readonly skipped?: boolean;
}

export interface HeaderMutations {
  /** In Envoy's order of application. */
  readonly operations: readonly HeaderOperation[];
  /** The headers after every operation (and, for requests, host and path rewrites), in order. */
  readonly result: readonly (readonly [string, string])[];
}

export interface PathRewrite {
  readonly kind: "prefix_rewrite" | "regex_rewrite" | "uri_template" | "none";
  /** The :path sent upstream, query included. */
  readonly path: string;
}

export type HostRewrite =
  | { readonly kind: "none"; readonly host: string }
  | {
      readonly kind:
        | "host_rewrite_literal"
        | "host_rewrite_header"
        | "host_rewrite_path_regex"
        | "weighted_cluster_host_rewrite_literal";
      readonly host: string;
      /** x-forwarded-host was appended (append_x_forwarded_host). */
      readonly appendedXForwardedHost: boolean;
    }
  | { readonly kind: "auto_host_rewrite"; readonly host: string; readonly note: string };

export interface Timeouts {
  /** RouteAction.timeout in ms; 15000 when unset; 0 disables it. */
  readonly timeoutMs: number;
  readonly timeoutSource: "route" | "default";
  readonly idleTimeoutMs?: number;
  readonly maxStreamDurationMs?: number;
}

export interface PolicyInForce {
  readonly source: "route" | "virtual-host";
  /** The policy as proto3 JSON. */
  readonly policy: JsonValue;
}

export interface WeightedClusterShare {
  /** The cluster named, or the header naming it (`clusterHeader`). */
  readonly name: string;
  readonly clusterHeader?: string;
  readonly weight: number;
  readonly percent: number;
  /** The weight came from the runtime key `<runtime_key_prefix>.<name>`. */
  readonly runtimeKey?: string;
}

export type Outcome =
  | { readonly t: "cluster"; readonly cluster: string }
  | {
      readonly t: "weighted-clusters";
      readonly clusters: readonly WeightedClusterShare[];
      readonly totalWeight: number;
      /** The value whose remainder by totalWeight picks the cluster, and where it came from. */
      readonly selectionValue: string;
      readonly selectionSource: "random-value" | "header";
      readonly selectedIndex: number;
      /** The cluster Envoy routes to; null when the entry's cluster_header is absent. */
      readonly cluster: string | null;
    }
  | {
      readonly t: "cluster-header";
      readonly header: string;
      /** The header's first value; null when absent (Envoy answers cluster_not_found_response_code). */
      readonly cluster: string | null;
      readonly clusterNotFoundStatus: number;
    }
  | {
      readonly t: "cluster-specifier-plugin";
      readonly plugin: string;
      readonly note: string;
    }
  | { readonly t: "redirect"; readonly location: string; readonly status: number }
  | {
      readonly t: "direct-response";
      readonly status: number;
      readonly body?:
        | { readonly t: "inline"; readonly text: string }
        | { readonly t: "file"; readonly filename: string }
        | { readonly t: "environment-variable"; readonly name: string };
    }
  | { readonly t: "tls-redirect"; readonly location: string; readonly status: 301 }
  | { readonly t: "non-forwarding" }
  | { readonly t: "filter-action"; readonly actionType: string };

/** What the route does to a request it forwards upstream. */
export interface Forwarding {
  readonly path: PathRewrite;
  readonly host: HostRewrite;
  readonly timeouts: Timeouts;
  readonly retryPolicy: PolicyInForce | null;
  readonly hedgePolicy: PolicyInForce | null;
}

export interface HttpFilterInForce {
  readonly name: string;
  /** The filter's typed_config type URL; "config_discovery" for a filter whose config comes over ECDS. */
  readonly type: string;
  readonly enabled: boolean;
  /** What decided `enabled`: the filter's own `disabled`, or the most specific per-route entry. */
  readonly decidedBy: "filter" | HeaderOperation["level"];
  /** The per-route config Envoy hands the filter (the most specific level that has one). */
  readonly perRouteConfig: {
    readonly level: HeaderOperation["level"];
    readonly type: string;
  } | null;
}

export type RouteVerdict =
  | { readonly t: "no-virtual-host"; readonly status: 404 }
  | { readonly t: "no-route"; readonly status: 404 }
  /**
   * The first route the request could match depends on what a request does not carry (TLS peer
   * certificate, dynamic metadata, conflicting runtime layers, ...): Envoy's choice is unknown.
   */
  | {
      readonly t: "cannot-evaluate";
      readonly route: { readonly index: number; readonly name: string };
      readonly reasons: readonly string[];
    }
  | {
      readonly t: "routed";
      /** Absent for the TLS redirect a virtual host's require_tls answers before any route. */
      readonly route?: MatchedRoute;
      readonly outcome: Outcome;
      /** Set when the request goes upstream (cluster, weighted clusters, header, plugin). */
      readonly forwarding?: Forwarding;
    };

export interface RouteResult {
  readonly t: "answer";
  readonly routeConfiguration: string;
  readonly listener?: { readonly name: string; readonly filterChain: number };
  /** The host the virtual hosts were matched against (after port stripping, lower-cased). */
  readonly matchedHost: string;
  readonly virtualHost: ChosenVirtualHost | null;
  readonly verdict: RouteVerdict;
  /** Names the router sees (virtual cluster from virtual_clusters, "other" when none matches). */
  readonly virtualCluster: string | null;
  readonly requestHeaders: HeaderMutations;
  readonly responseHeaders: HeaderMutations;
  /** The HCM's HTTP filters in order; empty when the route configuration was named directly. */
  readonly httpFilters: readonly HttpFilterInForce[];
  /** Assumptions and what was not evaluated, in words. */
  readonly notes: readonly string[];
  /** Route metadata (Route.metadata.filter_metadata), for router_check_tool's route_metadata. */
  readonly routeMetadata?: JsonObject;
}

export type RouteAnswer = RouteRefusal | RouteResult;
