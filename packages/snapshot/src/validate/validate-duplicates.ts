/**
 * Things that must be unique: names per kind (the database enforces most, imported batches may
 * not), virtual host names and domains within a route configuration, assignment names of EDS
 * clusters, the default node group, and a socket address within what one node group receives.
 */
import { edsResourceName } from "../envoy/envoy-json.js";
import type { ListenerSpec } from "../model.js";
import type { ValidationContext } from "./validate-context.js";
import {
  clusterPath,
  listenerPath,
  nodeGroupPath,
  routeConfigurationPath,
  runtimeLayerPath,
  secretPath,
  virtualHostPath,
} from "./validate-path.js";
import { ipFamily, isPort } from "./validate-syntax.js";

const quote = JSON.stringify;

/** The second and later objects of one kind with a name already used. */
export function checkDuplicateNames({ spec, issues }: ValidationContext): void {
  const kinds = [
    ["cluster", spec.clusters, clusterPath],
    ["listener", spec.listeners, listenerPath],
    ["route configuration", spec.routeConfigurations, routeConfigurationPath],
    ["node group", spec.nodeGroups, nodeGroupPath],
    ["runtime layer", spec.runtimeLayers, runtimeLayerPath],
    ["secret", spec.secrets, secretPath],
  ] as const;
  for (const [what, objects, path] of kinds) {
    const seen = new Map<string, number>();
    objects.forEach((object: { readonly name: string }, index) => {
      const first = seen.get(object.name);
      if (first === undefined) {
        seen.set(object.name, index);
        return;
      }
      issues.add(
        "duplicate-name",
        `${path(object.name)}.name`,
        `two ${what}s are named ${quote(object.name)} (positions ${first} and ${index})`,
        `rename or remove one ${what}`,
      );
    });
  }
  for (const routeConfiguration of spec.routeConfigurations) {
    const seen = new Set<string>();
    for (const virtualHost of routeConfiguration.virtualHosts) {
      if (!seen.has(virtualHost.name)) {
        seen.add(virtualHost.name);
        continue;
      }
      issues.add(
        "duplicate-name",
        `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.name`,
        `route configuration ${quote(routeConfiguration.name)} has two virtual hosts named ${quote(virtualHost.name)}`,
        "rename or merge one of them",
      );
    }
  }
}

/**
 * No domain is claimed twice in one route configuration, compared case-insensitively as Envoy
 * does (and rejects the route configuration otherwise).
 */
export function checkDuplicateDomains({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    const claimedBy = new Map<string, string>();
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.domains.forEach((domain, index) => {
        const key = domain.toLowerCase();
        const owner = claimedBy.get(key);
        if (owner === undefined) {
          claimedBy.set(key, virtualHost.name);
          return;
        }
        issues.add(
          "duplicate-domain",
          `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.domains[${index}]`,
          owner === virtualHost.name
            ? `virtual host ${quote(virtualHost.name)} lists domain ${quote(domain)} twice`
            : `virtual host ${quote(virtualHost.name)} claims domain ${quote(domain)}, which virtual host ${quote(owner)} already claims; Envoy could not tell which one a request is for`,
          owner === virtualHost.name ? "remove one" : "keep the domain in one virtual host only",
        );
      });
    }
  }
}

/**
 * No two EDS clusters serve their endpoints under one assignment name (`edsServiceName`, else the
 * cluster name): the compiler keeps one assignment per name, so the other cluster's endpoints
 * would be silently replaced.
 */
export function checkDuplicateAssignments({ spec, issues }: ValidationContext): void {
  const servedBy = new Map<string, string>();
  for (const cluster of spec.clusters) {
    if (cluster.discoveryType !== "EDS") continue;
    const assignment = edsResourceName(cluster);
    const owner = servedBy.get(assignment);
    if (owner === undefined) {
      servedBy.set(assignment, cluster.name);
      continue;
    }
    if (owner === cluster.name) continue; // a duplicate cluster name, reported as such
    issues.add(
      "duplicate-eds-service-name",
      `${clusterPath(cluster.name)}.edsServiceName`,
      `clusters ${quote(owner)} and ${quote(cluster.name)} both serve their endpoints as assignment ${quote(assignment)}, so one cluster's endpoints would replace the other's`,
      "give each EDS cluster its own edsServiceName (or none, to use the cluster name)",
    );
  }
}

/** At most one node group is the default one; a node would otherwise fall into either. */
export function checkDefaultNodeGroups({ spec, issues }: ValidationContext): void {
  const defaults = spec.nodeGroups.filter((group) => group.isDefault);
  for (const group of defaults.slice(1)) {
    issues.add(
      "duplicate-default-node-group",
      `${nodeGroupPath(group.name)}.isDefault`,
      `node groups ${quote(defaults[0]?.name ?? "")} and ${quote(group.name)} are both the default group`,
      "keep one default group",
    );
  }
}

/** A socket listener's address, normalised: "0.0.0.0" and "::" are the wildcards of each family. */
interface Bound {
  readonly listener: ListenerSpec;
  readonly index: number;
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
  readonly wildcard: boolean;
}

function bound(listener: ListenerSpec, index: number): Bound | undefined {
  if (listener.apiListener || listener.address === null || listener.port === null) return undefined;
  const family = ipFamily(listener.address);
  if (family === 0 || !isPort(listener.port)) return undefined; // reported by checkListenerAddresses
  // Normalise IPv6 spellings ("0:0::1" and "::1") through the URL parser.
  const address =
    family === 6 ? new URL(`http://[${listener.address}]`).hostname.slice(1, -1) : listener.address;
  const wildcard = address === "0.0.0.0" || address === "::";
  return { listener, index, address, family, port: listener.port, wildcard };
}

function hostPort(b: Bound): string {
  return b.family === 6 ? `[${b.address}]:${b.port}` : `${b.address}:${b.port}`;
}

/**
 * The listeners each node group receives, as compile's groupSnapshot selects them: a named group
 * its own list, the default group (stored or implicit) every listener.
 */
function listenersByGroup(ctx: ValidationContext): Map<string, readonly ListenerSpec[]> {
  const byGroup = new Map<string, readonly ListenerSpec[]>();
  let hasDefault = false;
  for (const group of ctx.spec.nodeGroups) {
    if (group.isDefault) {
      hasDefault = true;
      byGroup.set(group.name, ctx.spec.listeners);
    } else {
      byGroup.set(
        group.name,
        group.listeners.flatMap((name) => {
          const listener = ctx.listeners.get(name);
          return listener ? [listener] : [];
        }),
      );
    }
  }
  if (!hasDefault) byGroup.set("default", ctx.spec.listeners);
  return byGroup;
}

/**
 * Two socket listeners a node receives cannot listen on the same address and port: Envoy rejects
 * the second. A wildcard address ("0.0.0.0", "::") overlaps every address of its family on that
 * port. Checked per node group membership, and reported once per pair with the groups involved;
 * each later listener is paired with the first one it overlaps, so this stays linear.
 */
export function checkListenerConflicts(ctx: ValidationContext): void {
  const positions = new Map<ListenerSpec, number>();
  ctx.spec.listeners.forEach((listener, index) => {
    if (!positions.has(listener)) positions.set(listener, index);
  });
  const conflicts = new Map<string, { later: Bound; earlier: Bound; groups: string[] }>();
  for (const [group, listeners] of listenersByGroup(ctx)) {
    // port → family → { wildcard holder, first holder, holder by address }
    const ports = new Map<
      string,
      { wildcard?: Bound; first?: Bound; byAddress: Map<string, Bound> }
    >();
    for (const listener of listeners) {
      const b = bound(listener, positions.get(listener) ?? 0);
      if (!b) continue;
      const key = `${b.family}/${b.port}`;
      let slot = ports.get(key);
      if (!slot) {
        slot = { byAddress: new Map() };
        ports.set(key, slot);
      }
      const earlier =
        slot.byAddress.get(b.address) ?? slot.wildcard ?? (b.wildcard ? slot.first : undefined);
      if (earlier && earlier.listener !== listener) {
        const id = `${b.index}/${earlier.index}`;
        const conflict = conflicts.get(id);
        if (conflict) conflict.groups.push(group);
        else conflicts.set(id, { later: b, earlier, groups: [group] });
      } else {
        slot.byAddress.set(b.address, b);
        slot.first ??= b;
      }
      // A wildcard overlaps the addresses after it too, even when it conflicts itself.
      if (b.wildcard) slot.wildcard ??= b;
    }
  }
  for (const { later, earlier, groups } of conflicts.values()) {
    const where =
      later.address === earlier.address
        ? `listens on ${hostPort(later)}, as listener ${quote(earlier.listener.name)} does`
        : `listens on ${hostPort(later)}, which overlaps ${hostPort(earlier)} of listener ${quote(earlier.listener.name)}`;
    const receivers =
      groups.length === 1
        ? `node group ${quote(groups[0])} receives both`
        : `node groups ${groups.map((g) => quote(g)).join(", ")} receive both`;
    ctx.issues.add(
      "listener-address-conflict",
      `${listenerPath(later.listener.name)}.port`,
      `listener ${quote(later.listener.name)} ${where}; ${receivers}, and Envoy cannot bind one address and port twice`,
      "use another port, or the same listener with several filter chains",
    );
  }
}
