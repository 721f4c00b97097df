/**
 * Which virtual host serves a request's host, and the host the router matches against. Pure.
 *
 * Envoy's rules (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto,
 * VirtualHost.domains, "Domain search order"): domains are matched case-insensitively, an exact
 * domain first; then suffix wildcards ("*.foo.com", "*-bar.foo.com"), longest first; then prefix
 * wildcards ("foo.*", "foo-*"), longest first; then the special "*". A wildcard never matches the
 * empty string ("*-bar.foo.com" does not match "-bar.foo.com"). A domain appears in at most one
 * virtual host of a route configuration (Envoy refuses the configuration otherwise).
 *
 * Ports: the Host's port is part of what is matched, so "example.com:8080" matches no domain
 * "example.com" (HttpConnectionManager.strip_matching_host_port: "Without setting this option,
 * incoming requests with host example:443 will not match against route with domains match set to
 * example"), only a domain that lists the port, a wildcard, or "*". The HTTP connection manager's
 * `strip_matching_host_port` (the listener's own port) and `strip_any_host_port` remove it before
 * routing, for the upstream Host too; the route configuration's `ignore_port_in_host_matching`
 * ignores it for the choice of virtual host only
 * (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route.proto).
 */
import type { VirtualHost } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { portStart } from "./request-headers.js";
import type { ChosenVirtualHost, DomainMatchKind } from "./route-answer.js";

/**
 * The :authority after the HTTP connection manager's port stripping (Envoy's
 * HeaderUtility::stripPortFromHost): only a numeric port is stripped; with `listenerPort`, only
 * that port.
 */
export function stripHostPort(
  authority: string,
  mode: { readonly t: "none" } | { readonly t: "any" } | { readonly t: "matching"; port: number },
): string {
  if (mode.t === "none") return authority;
  const at = portStart(authority);
  if (at < 0) return authority;
  const port = authority.slice(at + 1);
  if (!/^\d+$/.test(port)) return authority;
  if (mode.t === "matching" && Number(port) !== mode.port) return authority;
  return authority.slice(0, at);
}

/**
 * The HCM's strip_trailing_host_dot: "example.com." and "example.com.:443" lose the dot
 * (Envoy's HeaderUtility::stripTrailingHostDot).
 */
export function stripTrailingHostDot(authority: string): string {
  if (authority.endsWith(".")) return authority.slice(0, -1);
  const at = portStart(authority);
  if (at > 0 && authority[at - 1] === ".") return authority.slice(0, at - 1) + authority.slice(at);
  return authority;
}

/** The host virtual hosts are matched against: lower-cased, the port dropped when ignored. */
export function hostForMatching(authority: string, ignorePort: boolean): string {
  let host = authority;
  if (ignorePort) {
    const at = portStart(host);
    if (at >= 0) host = host.slice(0, at);
  }
  return host.toLowerCase();
}

/**
 * The first domain held twice in a route configuration (case-insensitively), or a second "*":
 * Envoy refuses such a configuration ("Only unique values for domains are permitted", "Only a
 * single wildcard domain is permitted").
 */
export function repeatedDomain(
  virtualHosts: readonly Pick<VirtualHost, "domains">[],
): { readonly domain: string; readonly index: number } | undefined {
  const seen = new Set<string>();
  for (const [index, virtualHost] of virtualHosts.entries()) {
    for (const raw of virtualHost.domains) {
      const domain = raw.toLowerCase();
      if (seen.has(domain)) return { domain: raw, index };
      seen.add(domain);
    }
  }
  return undefined;
}

interface Candidate {
  readonly index: number;
  readonly domain: string;
  /** The fixed part: the domain without its "*". */
  readonly fixed: string;
}

/**
 * The virtual host Envoy picks for `host` (already lower-cased, see hostForMatching), with the
 * domain that matched and how; null when none does (Envoy answers 404). Virtual hosts and domains
 * are scanned in order, so should a domain be repeated (a configuration Envoy refuses) the first
 * holder wins.
 */
export function chooseVirtualHost(
  host: string,
  virtualHosts: readonly Pick<VirtualHost, "name" | "domains">[],
): ChosenVirtualHost | null {
  let suffix: Candidate | undefined;
  let prefix: Candidate | undefined;
  let any: Candidate | undefined;
  for (const [index, virtualHost] of virtualHosts.entries()) {
    for (const raw of virtualHost.domains) {
      const domain = raw.toLowerCase();
      if (domain === "*") {
        any ??= { index, domain: raw, fixed: "" };
      } else if (domain.startsWith("*")) {
        const fixed = domain.slice(1);
        // ">" and not ">=": the wildcard stands for at least one character.
        if (host.length > fixed.length && host.endsWith(fixed)) {
          if (!suffix || fixed.length > suffix.fixed.length) suffix = { index, domain: raw, fixed };
        }
      } else if (domain.endsWith("*")) {
        const fixed = domain.slice(0, -1);
        if (host.length > fixed.length && host.startsWith(fixed)) {
          if (!prefix || fixed.length > prefix.fixed.length) prefix = { index, domain: raw, fixed };
        }
      } else if (domain === host) {
        return chosen(virtualHosts, { index, domain: raw, fixed: domain }, "exact");
      }
    }
  }
  if (suffix) return chosen(virtualHosts, suffix, "suffix-wildcard");
  if (prefix) return chosen(virtualHosts, prefix, "prefix-wildcard");
  if (any) return chosen(virtualHosts, any, "any");
  return null;
}

function chosen(
  virtualHosts: readonly Pick<VirtualHost, "name">[],
  candidate: Candidate,
  how: DomainMatchKind,
): ChosenVirtualHost {
  return {
    index: candidate.index,
    name: virtualHosts[candidate.index]?.name ?? "",
    domain: candidate.domain,
    how,
  };
}
