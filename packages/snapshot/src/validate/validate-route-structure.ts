/**
 * Checks of one route configuration at a time: its virtual hosts' domains, its routes' matches
 * (paths, regular expressions) and actions (what each actionKind needs, weighted clusters' weights,
 * fields the action ignores). Each is linear in the size of the spec.
 */

import { quotedInput } from "../bounded-text.js";
import type { RouteSpec } from "../model.js";
import { nth } from "../nth.js";
import { describeRoute, type ValidationContext } from "./validate-context.js";
import { jsonKey, routePath, virtualHostPath } from "./validate-path.js";
import {
  domainProblem,
  isObject,
  literalWildcard,
  regexProblem,
  UINT32_MAX,
} from "./validate-syntax.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/**
 * Every virtual host has domains (Envoy: `repeated.min_items = 1`), each one Envoy takes (see
 * domainProblem), and a "*" that Envoy would match as a character is worth a warning.
 */
export function checkDomains({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      const path = `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.domains`;
      const what = `virtual host ${quote(virtualHost.name)}`;
      if (virtualHost.domains.length === 0) {
        issues.add(
          "empty-domains",
          path,
          `${what} has no domains, so no request reaches it`,
          'add a domain, or "*" for any',
        );
      }
      virtualHost.domains.forEach((domain, index) => {
        const problem = domainProblem(domain);
        if (problem) {
          issues.add(
            "invalid-domain",
            `${path}[${index}]`,
            `domain ${nth(index)} of ${what}, ${quote(domain)}, ${problem}`,
            'use a host name, "*.example.com", "example.*" or "*"',
          );
          return;
        }
        const literal = literalWildcard(domain);
        if (literal) {
          issues.add(
            "literal-wildcard-domain",
            `${path}[${index}]`,
            `domain ${nth(index)} of ${what}, ${quote(domain)}, ${literal}`,
            'a wildcard is one "*" at the start or the end: "*.example.com", "example.*"',
          );
        }
      });
    }
  }
}

/**
 * A PATH match is an absolute path or "*" (the request target of `OPTIONS *`); a
 * PATH_SEPARATED_PREFIX starts with "/", or it matches no request: Envoy takes it (its rules are
 * only `path`'s header-value pattern and the prefix's `^[^?#]+[^?#/]$`), so it is a warning, as a
 * typo that costs a route; a SAFE_REGEX match compiles as RE2 (see `regexProblem`).
 */
export function checkRouteMatches({ spec, issues }: ValidationContext): void {
  const regexProblems = new Map<string, string | undefined>();
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        const path = `${routePath(routeConfiguration.name, virtualHost.name, index)}.matchValue`;
        if (route.matchKind === "CONNECT" || route.matchKind === "PATH_MATCH_POLICY") {
          const key = route.matchKind === "CONNECT" ? "connectMatcher" : "pathMatchPolicy";
          const match = route.extra.match;
          if (!isObject(match) || match[key] === undefined) {
            issues.add(
              "invalid-path-match",
              `${routePath(routeConfiguration.name, virtualHost.name, index)}.extra.match.${key}`,
              `${describeRoute(virtualHost, index, route)} is a ${route.matchKind} match without its ${key}`,
              `set extra.match.${key}, as Envoy JSON`,
            );
          }
        } else if (
          (route.matchKind === "PATH" || route.matchKind === "PATH_SEPARATED_PREFIX") &&
          !route.matchValue.startsWith("/") &&
          !(route.matchKind === "PATH" && route.matchValue === "*")
        ) {
          issues.add(
            "unmatchable-path",
            path,
            `${describeRoute(virtualHost, index, route)} matches path ${quote(route.matchValue)}, which no request has (paths start with "/"), so it never matches`,
            `use ${quote(`/${route.matchValue}`)}`,
          );
        } else if (route.matchKind === "SAFE_REGEX") {
          if (!regexProblems.has(route.matchValue)) {
            regexProblems.set(route.matchValue, regexProblem(route.matchValue));
          }
          const problem = regexProblems.get(route.matchValue);
          if (problem) {
            issues.add(
              "invalid-regex",
              path,
              `${describeRoute(virtualHost, index, route)} matches the regular expression ${quote(route.matchValue)}, which RE2 rejects: ${problem}`,
              "RE2 has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax",
            );
          }
        }
      });
    }
  }
}

const NOT_FORWARDED: readonly (keyof RouteSpec)[] = [
  "cluster",
  "weightedClusters",
  "redirect",
  "directResponse",
  "timeoutMs",
  "retryPolicy",
  "prefixRewrite",
];
const PER_REQUEST: readonly (keyof RouteSpec)[] = [
  "cluster",
  "weightedClusters",
  "redirect",
  "directResponse",
];

/** Fields a route may hold for another action kind, which the compiler then ignores. */
const IGNORED_BY_ACTION: Record<RouteSpec["actionKind"], readonly (keyof RouteSpec)[]> = {
  CLUSTER: ["weightedClusters", "redirect", "directResponse"],
  WEIGHTED_CLUSTERS: ["cluster", "redirect", "directResponse"],
  CLUSTER_HEADER: PER_REQUEST,
  CLUSTER_SPECIFIER_PLUGIN: PER_REQUEST,
  INLINE_CLUSTER_SPECIFIER_PLUGIN: PER_REQUEST,
  NON_FORWARDING: NOT_FORWARDED,
  FILTER_ACTION: NOT_FORWARDED,
  REDIRECT: [
    "cluster",
    "weightedClusters",
    "directResponse",
    "timeoutMs",
    "retryPolicy",
    "prefixRewrite",
  ],
  DIRECT_RESPONSE: [
    "cluster",
    "weightedClusters",
    "redirect",
    "timeoutMs",
    "retryPolicy",
    "prefixRewrite",
  ],
};

function isSet(value: RouteSpec[keyof RouteSpec]): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== null && value !== "";
}

/**
 * A route holds what its actionKind needs: a cluster; weighted clusters whose weights are not
 * negative, not all zero and fit in uint32 (Envoy and gRPC sum them; a 0 weight is a valid
 * "no traffic" step of a rollout); a redirect; a direct response with a status. Fields of other
 * action kinds are ignored by the compiler, which is worth a warning.
 */
export function checkRouteActions({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        const path = routePath(routeConfiguration.name, virtualHost.name, index);
        const what = describeRoute(virtualHost, index, route);
        switch (route.actionKind) {
          case "CLUSTER":
            if (!route.cluster) {
              issues.add(
                "incomplete-route-action",
                `${path}.cluster`,
                `${what} is a CLUSTER route without a cluster`,
                "name the cluster it sends traffic to",
              );
            }
            break;
          case "WEIGHTED_CLUSTERS":
            checkWeightedClusters(issues, route, path, what);
            break;
          case "CLUSTER_HEADER":
          case "CLUSTER_SPECIFIER_PLUGIN":
          case "INLINE_CLUSTER_SPECIFIER_PLUGIN":
          case "NON_FORWARDING":
          case "FILTER_ACTION": {
            const [holder, key] = ACTION_IN_EXTRA[route.actionKind];
            const kept = holder === "route" ? route.extra.route : route.extra;
            if (!isObject(kept) || kept[key] === undefined) {
              issues.add(
                "incomplete-route-action",
                `${path}.extra${holder === "route" ? ".route" : ""}${jsonKey(key)}`,
                `${what} is a ${route.actionKind} route without its ${key}`,
                `set ${holder === "route" ? "extra.route." : "extra."}${key} (the route's ${route.actionKind === "NON_FORWARDING" || route.actionKind === "FILTER_ACTION" ? "action" : "cluster specifier"}, as Envoy JSON)`,
              );
            }
            break;
          }
          case "REDIRECT":
            if (route.redirect === null) {
              issues.add(
                "incomplete-route-action",
                `${path}.redirect`,
                `${what} is a REDIRECT route without a redirect`,
                'set redirect, e.g. { "httpsRedirect": true }',
              );
            }
            break;
          case "DIRECT_RESPONSE":
            if (route.directResponse === null) {
              issues.add(
                "incomplete-route-action",
                `${path}.directResponse`,
                `${what} is a DIRECT_RESPONSE route without a direct response`,
                'set directResponse, e.g. { "status": 404 }',
              );
            } else {
              const status = route.directResponse.status;
              // proto3 JSON also writes integers as strings ("404").
              const code =
                typeof status === "string" && /^\d+$/.test(status) ? Number(status) : status;
              if (typeof code !== "number" || !Number.isInteger(code) || code < 200 || code > 599) {
                issues.add(
                  "invalid-direct-response",
                  `${path}.directResponse.status`,
                  `${what} answers with status ${status === undefined ? "(none)" : JSON.stringify(status)}; a direct response needs a status from 200 to 599`,
                );
              }
            }
            break;
        }
        for (const field of IGNORED_BY_ACTION[route.actionKind]) {
          if (isSet(route[field])) {
            issues.add(
              "ignored-route-action-field",
              `${path}.${field}`,
              `${what} is a ${route.actionKind} route, so its ${field} is ignored`,
              `clear ${field}, or change actionKind`,
            );
          }
        }
      });
    }
  }
}

/** Where an action kind kept in `extra` has its config: extra.route.<key>, or extra.<key>. */
const ACTION_IN_EXTRA = {
  CLUSTER_HEADER: ["route", "clusterHeader"],
  CLUSTER_SPECIFIER_PLUGIN: ["route", "clusterSpecifierPlugin"],
  INLINE_CLUSTER_SPECIFIER_PLUGIN: ["route", "inlineClusterSpecifierPlugin"],
  NON_FORWARDING: ["route-level", "nonForwardingAction"],
  FILTER_ACTION: ["route-level", "filterAction"],
} as const;

function checkWeightedClusters(
  issues: ValidationContext["issues"],
  route: RouteSpec,
  path: string,
  what: string,
): void {
  if (route.weightedClusters.length === 0) {
    issues.add(
      "incomplete-route-action",
      `${path}.weightedClusters`,
      `${what} is a WEIGHTED_CLUSTERS route without clusters`,
      "add at least one cluster with a weight",
    );
    return;
  }
  let total = 0;
  let valid = true;
  route.weightedClusters.forEach((weighted, w) => {
    // ClusterWeight names its cluster, or the request header holding it (`cluster_header`): one
    // of the two ("At least one of name or cluster_header need to be specified").
    const header = weighted.extra?.clusterHeader;
    if (!weighted.name && (typeof header !== "string" || header === "")) {
      issues.add(
        "incomplete-route-action",
        `${path}.weightedClusters[${w}].name`,
        `weighted cluster ${nth(w)} of ${what} names no cluster (nor a cluster_header)`,
      );
    } else if (weighted.name && header !== undefined) {
      issues.add(
        "incomplete-route-action",
        `${path}.weightedClusters[${w}].extra.clusterHeader`,
        `weighted cluster ${nth(w)} of ${what} sets both name and cluster_header; Envoy takes only one of them`,
        "keep one",
      );
    }
    if (
      !(Number.isInteger(weighted.weight) && weighted.weight >= 0 && weighted.weight <= UINT32_MAX)
    ) {
      valid = false;
      issues.add(
        "invalid-weight",
        `${path}.weightedClusters[${w}].weight`,
        `weighted cluster ${nth(w)} of ${what} has weight ${weighted.weight}; a weight is an integer from 0 to ${UINT32_MAX}`,
      );
    } else {
      total += weighted.weight;
    }
  });
  if (valid && total === 0) {
    issues.add(
      "invalid-weight",
      `${path}.weightedClusters`,
      `${what} gives every cluster weight 0, so it could send traffic nowhere`,
      "give at least one cluster a weight above 0",
    );
  } else if (valid && total > UINT32_MAX) {
    issues.add(
      "invalid-weight",
      `${path}.weightedClusters`,
      `${what} has weights summing to ${total}, more than ${UINT32_MAX}`,
      "scale the weights down, e.g. to percentages",
    );
  }
  // total_weight is deprecated and current Envoy ignores it (WeightedClusterSpecifierPlugin sums
  // the weights), but older Envoy releases refuse a route whose weights do not add up to it, and
  // gRPC C-core clients NACK it: a warning.
  const weighted = route.extra.route;
  const declared =
    isObject(weighted) && isObject(weighted.weightedClusters)
      ? weighted.weightedClusters.totalWeight
      : undefined;
  if (valid && declared !== undefined && Number(declared) !== total) {
    issues.add(
      "total-weight-mismatch",
      `${path}.extra.route.weightedClusters.totalWeight`,
      `${what} declares total_weight ${String(declared)}, but its weights add up to ${total}: current Envoy ignores total_weight, older Envoy releases refuse the route and gRPC C-core clients NACK it`,
      `set total_weight to ${total}, or remove it (it is deprecated: the sum is used)`,
    );
  }
}
