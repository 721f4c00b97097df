/**
 * Things that must be unique: names per kind (the database enforces most, imported batches may
 * not), virtual host names and domains within a route configuration, assignment names of EDS
 * clusters, the default node group, and a socket address within what one node group receives.
 */

import { quotedInput } from "../bounded-text.js";
import { addressFrom, addressKind, formatAddress } from "../envoy/envoy-address.js";
import { edsResourceName } from "../envoy/envoy-json.js";
import type { JsonValue, ListenerSpec } from "../model.js";
import { nth } from "../nth.js";
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
import { asciiLowerCase, ipFamily, isListenerPort, isObject } from "./validate-syntax.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

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
        `two ${what}s are named ${quote(object.name)} (positions ${nth(first)} and ${nth(index)})`,
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
 * No domain is claimed twice in one route configuration, compared with ASCII case folded as Envoy
 * does (`RouteMatcher::RouteMatcher`: "Only unique values for domains are permitted").
 */
export function checkDuplicateDomains({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    const claimedBy = new Map<string, string>();
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.domains.forEach((domain, index) => {
        const key = asciiLowerCase(domain);
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

/** One address a listener binds (or, with `bind_to_port: false`, claims), normalised. */
interface Bound {
  readonly listener: ListenerSpec;
  readonly index: number;
  /** "stream" or "datagram": Envoy compares addresses of one socket type only. */
  readonly socketType: string;
  /** `10.0.0.1:80`, `[::1]:80`, `unix:///run/x.sock`: equal for equal addresses. */
  readonly text: string;
}

function socketTypeOf(address: JsonValue | undefined): string {
  const socket = isObject(address) ? address.socketAddress : undefined;
  return isObject(socket) && socket.protocol === "UDP" ? "datagram" : "stream";
}

/** `address` (a model address text) normalised: IPv6 spellings ("0:0::1", "::1") made one. */
function normalised(address: string): string {
  return ipFamily(address) === 6 ? new URL(`http://[${address}]`).hostname.slice(1, -1) : address;
}

/**
 * The addresses a listener claims: its own and its `additional_addresses`, each with its socket
 * type. A binding listener on port 0 claims none: the kernel gives each its own free port (Envoy
 * skips the check for them: "The listener support listening on the zero port address").
 */
function bounds(listener: ListenerSpec, index: number): Bound[] {
  if (listener.apiListener || listener.address === null) return [];
  const binds = listener.extra.bindToPort !== false;
  const out: Bound[] = [];
  const add = (address: string, port: number | null, extra: JsonValue | undefined) => {
    if (addressKind(address) === "socket") {
      if (port === null || !isListenerPort(port) || ipFamily(address) === 0) return; // reported elsewhere
      if (port === 0 && binds) return;
    }
    out.push({
      listener,
      index,
      socketType: socketTypeOf(extra),
      text: formatAddress(normalised(address), port),
    });
  };
  add(listener.address, listener.port, listener.extra.address);
  const additional = listener.extra.additionalAddresses;
  if (Array.isArray(additional)) {
    for (const entry of additional) {
      const parts = addressFrom(isObject(entry) ? entry.address : undefined);
      if (!("problem" in parts))
        add(parts.address, parts.port, isObject(entry) ? entry.address : undefined);
    }
  }
  return out;
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
 * Two listeners a node receives cannot claim the same address: Envoy refuses the second ("has
 * duplicate address ... as existing listener"; `ListenerImpl::hasDuplicatedAddress` in
 * source/common/listener_manager/listener_impl.cc). As there, addresses are compared exactly
 * (0.0.0.0:80 and 10.0.0.1:80 are two addresses, which the kernel lets Envoy bind together with
 * its default reuse_port), and only within one socket type: a TCP and a UDP (QUIC) listener on one
 * port are the usual HTTP/3 setup. Listeners that do not bind (`bind_to_port: false`) are compared
 * too ("This avoids ambiguity about which non-binding listener is used"). Checked per node group
 * membership, and reported once per pair with the groups involved.
 */
export function checkListenerConflicts(ctx: ValidationContext): void {
  const positions = new Map<ListenerSpec, number>();
  ctx.spec.listeners.forEach((listener, index) => {
    if (!positions.has(listener)) positions.set(listener, index);
  });
  const conflicts = new Map<string, { later: Bound; earlier: Bound; groups: string[] }>();
  for (const [group, listeners] of listenersByGroup(ctx)) {
    const claimed = new Map<string, Bound>();
    for (const listener of listeners) {
      for (const b of bounds(listener, positions.get(listener) ?? 0)) {
        const key = `${b.socketType} ${b.text}`;
        const earlier = claimed.get(key);
        if (earlier === undefined) {
          claimed.set(key, b);
          continue;
        }
        if (earlier.listener === listener) continue;
        const id = `${b.index}/${earlier.index}`;
        const conflict = conflicts.get(id);
        if (conflict) {
          if (!conflict.groups.includes(group)) conflict.groups.push(group);
        } else conflicts.set(id, { later: b, earlier, groups: [group] });
      }
    }
  }
  for (const { later, earlier, groups } of conflicts.values()) {
    const receivers =
      groups.length === 1
        ? `node group ${quote(groups[0] ?? "")} receives both`
        : `node groups ${groups.map((g) => quote(g)).join(", ")} receive both`;
    const protocol = later.socketType === "datagram" ? "UDP " : "";
    ctx.issues.add(
      "listener-address-conflict",
      `${listenerPath(later.listener.name)}.port`,
      `listener ${quote(later.listener.name)} listens on ${protocol}${later.text}, as listener ${quote(earlier.listener.name)} does; ${receivers}, and Envoy refuses a second listener on one address`,
      "use another port, or the same listener with several filter chains",
    );
  }
}
