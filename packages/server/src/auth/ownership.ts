/**
 * Which team owns a virtual host, and which virtual hosts a route configuration change touches.
 * Pure: the API layer loads the TeamDomain rows (loadDomainOwnership) and passes them in.
 *
 * A team owns domain patterns: an exact host ("api.shop.example.com") or a wildcard
 * ("*.shop.example.com": every host below it). A domain written in a virtual host belongs to the
 * team of the most specific pattern covering it (exact, then the longest wildcard), the way Envoy
 * itself prefers the most specific virtual host. A virtual host belongs to a team when every one
 * of its domains does. `*` and prefix wildcards ("shop.*") belong to no team: admins only.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ChangeKind,
  canonicalJson,
  quotedInput,
  type RouteConfigurationSpec,
  type VirtualHostSpec,
} from "@switchyard/snapshot";

export interface DomainOwner {
  readonly pattern: string;
  readonly teamId: string;
  readonly teamName: string;
}

/** Every team's domain patterns, indexed for lookup. Immutable once built. */
export interface DomainOwnership {
  readonly exact: ReadonlyMap<string, DomainOwner>;
  /** By the suffix after "*.": "shop.example.com" for "*.shop.example.com". */
  readonly wildcard: ReadonlyMap<string, DomainOwner>;
}

export function domainOwnership(owners: Iterable<DomainOwner>): DomainOwnership {
  const exact = new Map<string, DomainOwner>();
  const wildcard = new Map<string, DomainOwner>();
  for (const owner of owners) {
    const pattern = owner.pattern.toLowerCase();
    if (pattern.startsWith("*.")) wildcard.set(pattern.slice(2), owner);
    else exact.set(pattern, owner);
  }
  return { exact, wildcard };
}

/** The TeamDomain rows as a DomainOwnership; one query, read per request (it is small). */
export async function loadDomainOwnership(
  prisma: PrismaClient | TransactionClient,
): Promise<DomainOwnership> {
  const rows = await prisma.teamDomain.findMany({
    select: { pattern: true, team: { select: { id: true, name: true } } },
  });
  return domainOwnership(
    rows.map((row) => ({ pattern: row.pattern, teamId: row.team.id, teamName: row.team.name })),
  );
}

const HOST =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A TeamDomain pattern in canonical (lower-case) form. Throws InvalidArgument unless it is an exact
 * host or "*." followed by one.
 */
export function normalizeDomainPattern(pattern: string): string {
  const lower = pattern.trim().toLowerCase();
  const host = lower.startsWith("*.") ? lower.slice(2) : lower;
  if (!HOST.test(host))
    throw new ConnectError(
      `domain pattern ${quotedInput(pattern)} is neither a host name ("api.example.com") ` +
        `nor a wildcard below one ("*.example.com")`,
      Code.InvalidArgument,
    );
  return lower;
}

/**
 * The owner of a domain as written in a virtual host (a host, optionally with ":port", or an
 * Envoy suffix wildcard "*.x.com" / "*-api.x.com"), or null when no team's pattern covers it.
 */
export function domainOwner(domain: string, ownership: DomainOwnership): DomainOwner | null {
  let name = domain.trim().toLowerCase();
  const port = /:\d+$/.exec(name);
  if (port !== null && !name.startsWith("[")) name = name.slice(0, port.index);
  if (name === "*" || name.endsWith("*") || name === "") return null;
  const isWildcard = name.startsWith("*");
  if (!isWildcard) {
    const exact = ownership.exact.get(name);
    if (exact !== undefined) return exact;
  }
  // "*.shop.example.com" and "api.shop.example.com" are both covered by the wildcards of their
  // dotted suffixes: "*.shop.example.com", then "*.example.com", then "*.com".
  const tail = isWildcard ? name.slice(1) : name;
  for (let dot = tail.indexOf("."); dot >= 0; dot = tail.indexOf(".", dot + 1)) {
    const owner = ownership.wildcard.get(tail.slice(dot + 1));
    if (owner !== undefined) return owner;
  }
  return null;
}

/** The first domain of a virtual host that `teamId` does not own, with its owner; null if none. */
export function unownedDomain(
  virtualHost: Pick<VirtualHostSpec, "domains">,
  teamId: string,
  ownership: DomainOwnership,
): { readonly domain: string; readonly owner: DomainOwner | null } | null {
  for (const domain of virtualHost.domains) {
    const owner = domainOwner(domain, ownership);
    if (owner?.teamId !== teamId) return { domain, owner };
  }
  return null;
}

/**
 * The team owning a virtual host: the owner of its first domain, when that team owns every other
 * one too (the rule `unownedDomain` enforces on writes). Null when it has no domains, a domain
 * belongs to no team, or its domains belong to different teams.
 */
export function virtualHostOwner(
  virtualHost: Pick<VirtualHostSpec, "domains">,
  ownership: DomainOwnership,
): DomainOwner | null {
  const [first] = virtualHost.domains;
  const owner = first === undefined ? null : domainOwner(first, ownership);
  return owner !== null && unownedDomain(virtualHost, owner.teamId, ownership) === null
    ? owner
    : null;
}

export interface VirtualHostChange {
  readonly name: string;
  readonly change: ChangeKind;
  /** Null when added. */
  readonly before: VirtualHostSpec | null;
  /** Null when removed. */
  readonly after: VirtualHostSpec | null;
}

export interface RouteConfigurationChanges {
  /** Virtual hosts added, removed or changed (matched by name), in name order. */
  readonly virtualHosts: readonly VirtualHostChange[];
  /**
   * Whether the route configuration's own fields (`vhds`, and `extra`: headers to add,
   * validation, ...) changed; they apply to every virtual host in it.
   */
  readonly ownFieldsChanged: boolean;
}

/**
 * What a route configuration change touches. `before` null: created; `after` null: deleted.
 * Virtual hosts are matched by name; a rename is a removal plus an addition. Their order is not a
 * change: Envoy picks a virtual host by domain specificity, not by position.
 */
export function routeConfigurationChanges(
  before: RouteConfigurationSpec | null,
  after: RouteConfigurationSpec | null,
): RouteConfigurationChanges {
  const was = new Map((before?.virtualHosts ?? []).map((vh) => [vh.name, vh]));
  const is = new Map((after?.virtualHosts ?? []).map((vh) => [vh.name, vh]));
  const names = [...new Set([...was.keys(), ...is.keys()])].sort();
  const virtualHosts: VirtualHostChange[] = [];
  for (const name of names) {
    const old = was.get(name) ?? null;
    const now = is.get(name) ?? null;
    if (old === null && now !== null)
      virtualHosts.push({ name, change: "added", before: null, after: now });
    else if (old !== null && now === null)
      virtualHosts.push({ name, change: "removed", before: old, after: null });
    else if (old !== null && now !== null && canonicalJson(old) !== canonicalJson(now))
      virtualHosts.push({ name, change: "modified", before: old, after: now });
  }
  const ownFieldsChanged =
    before !== null &&
    after !== null &&
    (before.vhds !== after.vhds || canonicalJson(before.extra) !== canonicalJson(after.extra));
  return { virtualHosts, ownFieldsChanged };
}
