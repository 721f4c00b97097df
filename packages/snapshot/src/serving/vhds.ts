/**
 * VHDS (on-demand virtual hosts) naming and host matching, shared by the compiler and the xDS
 * server. Pure.
 *
 * Names (Envoy's VHDS page, "Virtual Host Resource Naming Convention"): a VHDS resource is
 * named `<route configuration name>/<host entry>`, "matching should be done from right to left
 * since a host entry cannot contain slashes while a route configuration name can". A virtual host's
 * canonical resource name is `<route configuration>/<virtual host name>` (so a VHDS virtual host's
 * name must hold no "/", validate-vhds.ts), and a proxy asks for `<route configuration>/<Host
 * header>`, which the server resolves with `selectVirtualHost`.
 */

/** The canonical VHDS resource name of a route configuration's virtual host. */
export function vhdsResourceName(routeConfiguration: string, virtualHost: string): string {
  return `${routeConfiguration}/${virtualHost}`;
}

/**
 * `<route configuration>/<host>` split at its last "/" (right to left, as the spec says), or
 * undefined when the name has no "/" (Envoy's bare route configuration name, vhds.cc's initial
 * subscription) or an empty host.
 */
export function splitVhdsName(
  name: string,
): { readonly routeConfiguration: string; readonly host: string } | undefined {
  const slash = name.lastIndexOf("/");
  if (slash <= 0 || slash === name.length - 1) return undefined;
  return { routeConfiguration: name.slice(0, slash), host: name.slice(slash + 1) };
}

/** A virtual host as matching sees it: its domains (validated: validate-syntax.ts domainProblem). */
export interface DomainCandidate {
  readonly domains: readonly string[];
}

/**
 * The virtual host that serves `host`, as Envoy picks it (its route table, `findVirtualHost`):
 * case-insensitive; an exact domain first; then the longest suffix wildcard ("*.example.com",
 * "*-api.example.com"); then the longest prefix wildcard ("example.*"); then "*". A wildcard
 * stands for at least one character: "*.example.com" does not match "example.com" nor
 * ".example.com"'s empty label. The port is part of the host, as in Envoy without
 * `ignore_port_in_host_matching`. Undefined when nothing matches. Candidates' domains are unique
 * across the route configuration (validated), so the result does not depend on their order beyond
 * the first candidate holding a domain.
 */
export function selectVirtualHost<C extends DomainCandidate>(
  host: string,
  candidates: readonly C[],
): C | undefined {
  const wanted = host.toLowerCase();
  let suffix: { readonly candidate: C; readonly length: number } | undefined;
  let prefix: { readonly candidate: C; readonly length: number } | undefined;
  let fallback: C | undefined;
  for (const candidate of candidates) {
    for (const raw of candidate.domains) {
      const domain = raw.toLowerCase();
      if (domain === "*") {
        fallback ??= candidate;
      } else if (domain.startsWith("*")) {
        const tail = domain.slice(1);
        if (wanted.length > tail.length && wanted.endsWith(tail)) {
          if (!suffix || tail.length > suffix.length) suffix = { candidate, length: tail.length };
        }
      } else if (domain.endsWith("*")) {
        const head = domain.slice(0, -1);
        if (wanted.length > head.length && wanted.startsWith(head)) {
          if (!prefix || head.length > prefix.length) prefix = { candidate, length: head.length };
        }
      } else if (domain === wanted) {
        return candidate;
      }
    }
  }
  return suffix?.candidate ?? prefix?.candidate ?? fallback;
}

/**
 * `selectVirtualHost` for many lookups against the same candidates, as the xDS server resolves
 * every host a proxy asks for: built once (per route configuration and snapshot), each lookup is a
 * map read per wildcard length rather than a scan of every domain. Same result as
 * `selectVirtualHost` (vhds.spec.ts checks them against each other), built the way Envoy indexes
 * its own table (exact map, then suffix and prefix wildcards by length, longest first).
 */
export class VirtualHostIndex<C extends DomainCandidate> {
  readonly #exact = new Map<string, C>();
  /** Wildcard length → the wildcard's fixed part → candidate; lengths longest first. */
  readonly #suffixes: [number, Map<string, C>][];
  readonly #prefixes: [number, Map<string, C>][];
  readonly #fallback: C | undefined;

  constructor(candidates: readonly C[]) {
    const suffixes = new Map<number, Map<string, C>>();
    const prefixes = new Map<number, Map<string, C>>();
    const add = (byLength: Map<number, Map<string, C>>, part: string, candidate: C) => {
      const ofLength = byLength.get(part.length) ?? new Map<string, C>();
      if (!ofLength.has(part)) ofLength.set(part, candidate);
      byLength.set(part.length, ofLength);
    };
    let fallback: C | undefined;
    for (const candidate of candidates) {
      for (const raw of candidate.domains) {
        const domain = raw.toLowerCase();
        if (domain === "*") fallback ??= candidate;
        else if (domain.startsWith("*")) add(suffixes, domain.slice(1), candidate);
        else if (domain.endsWith("*")) add(prefixes, domain.slice(0, -1), candidate);
        else if (!this.#exact.has(domain)) this.#exact.set(domain, candidate);
      }
    }
    const longestFirst = (byLength: Map<number, Map<string, C>>) =>
      [...byLength].sort(([a], [b]) => b - a);
    this.#suffixes = longestFirst(suffixes);
    this.#prefixes = longestFirst(prefixes);
    this.#fallback = fallback;
  }

  select(host: string): C | undefined {
    const wanted = host.toLowerCase();
    const exact = this.#exact.get(wanted);
    if (exact) return exact;
    for (const [length, byPart] of this.#suffixes) {
      if (length >= wanted.length) continue;
      const found = byPart.get(wanted.slice(wanted.length - length));
      if (found) return found;
    }
    for (const [length, byPart] of this.#prefixes) {
      if (length >= wanted.length) continue;
      const found = byPart.get(wanted.slice(0, length));
      if (found) return found;
    }
    return this.#fallback;
  }
}
