/**
 * References between objects: every name a route, listener or node group uses exists, a named node
 * group receives the clusters its listeners' routes use, and clusters have endpoints.
 */

import { quotedInput } from "../bounded-text.js";
import { addressKind, addressTarget } from "../envoy/envoy-address.js";
import type { ClusterSpec } from "../model.js";
import { nth } from "../nth.js";
import {
  describeRoute,
  didYouMean,
  routeConfigurationName,
  routeTargets,
  type ValidationContext,
} from "./validate-context.js";
import {
  clusterPath,
  endpointPath,
  filterChainPath,
  nodeGroupPath,
  routePath,
} from "./validate-path.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/** Every cluster a route sends traffic to exists. */
export function checkRouteClusterReferences(ctx: ValidationContext): void {
  for (const routeConfiguration of ctx.spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        for (const target of routeTargets(route)) {
          if (ctx.clusters.has(target.cluster)) continue;
          ctx.issues.add(
            "dangling-cluster-reference",
            `${routePath(routeConfiguration.name, virtualHost.name, index)}${target.field}`,
            `${describeRoute(virtualHost, index, route)} sends traffic to cluster ${quote(target.cluster)}, which does not exist${didYouMean(ctx.suggest.cluster(target.cluster))}`,
            "create the cluster, or send the route to an existing one",
          );
        }
      });
    }
  }
}

/** Every route configuration a listener loads (over RDS or inline) exists. */
export function checkListenerRouteReferences(ctx: ValidationContext): void {
  for (const listener of ctx.spec.listeners) {
    listener.filterChains.forEach((chain, index) => {
      const name = routeConfigurationName(chain);
      if (name === null || ctx.routeConfigurations.has(name)) return;
      const field =
        chain.rdsRouteConfigName !== null ? "rdsRouteConfigName" : "inlineRouteConfigName";
      ctx.issues.add(
        "dangling-route-configuration-reference",
        `${filterChainPath(listener.name, index)}.${field}`,
        `filter chain ${nth(index)} of listener ${quote(listener.name)} loads route configuration ${quote(name)}, which does not exist${didYouMean(ctx.suggest.routeConfiguration(name))}`,
        "create the route configuration, or name an existing one",
      );
    });
  }
}

/** Every listener and cluster a node group names exists. */
export function checkNodeGroupReferences(ctx: ValidationContext): void {
  for (const group of ctx.spec.nodeGroups) {
    const path = nodeGroupPath(group.name);
    group.listeners.forEach((name, index) => {
      if (ctx.listeners.has(name)) return;
      ctx.issues.add(
        "dangling-listener-reference",
        `${path}.listeners[${index}]`,
        `node group ${quote(group.name)} receives listener ${quote(name)}, which does not exist${didYouMean(ctx.suggest.listener(name))}`,
        "create the listener, or remove it from the group",
      );
    });
    group.clusters.forEach((name, index) => {
      if (ctx.clusters.has(name)) return;
      ctx.issues.add(
        "dangling-cluster-reference",
        `${path}.clusters[${index}]`,
        `node group ${quote(group.name)} receives cluster ${quote(name)}, which does not exist${didYouMean(ctx.suggest.cluster(name))}`,
        "create the cluster, or remove it from the group",
      );
    });
  }
}

/**
 * Every internal listener an endpoint reaches (`envoy://NAME`, an envoy_internal_address) is a
 * listener of the config with `internal_listener`, and a named node group that receives the
 * cluster receives that listener too: Envoy looks the name up among the proxy's own internal
 * listeners when it connects, and a connection to one it does not have fails.
 */
export function checkInternalListenerReferences(ctx: ValidationContext): void {
  const groups = ctx.spec.nodeGroups.filter((group) => !group.isDefault);
  for (const cluster of ctx.spec.clusters) {
    const named = new Set<string>();
    cluster.localities.forEach((locality, l) => {
      locality.endpoints.forEach((endpoint, e) => {
        if (addressKind(endpoint.address) !== "internal") return;
        const name = addressTarget(endpoint.address);
        if (name === "") return; // reported by checkEndpoints
        const listener = ctx.listeners.get(name);
        if (listener?.extra.internalListener !== undefined) {
          named.add(name);
          return;
        }
        ctx.issues.add(
          "dangling-listener-reference",
          `${endpointPath(cluster.name, l, e)}.address`,
          listener
            ? `endpoint ${nth(e)} of locality ${nth(l)} of cluster ${quote(cluster.name)} reaches internal listener ${quote(name)}, but listener ${quote(name)} is no internal listener (it sets no internal_listener), so Envoy has no internal listener of that name to connect to`
            : `endpoint ${nth(e)} of locality ${nth(l)} of cluster ${quote(cluster.name)} reaches internal listener ${quote(name)}, which does not exist${didYouMean(ctx.suggest.listener(name))}`,
          listener
            ? `set internal_listener: {} on listener ${quote(name)} (and clear its address)`
            : "create the internal listener, or name an existing one",
        );
      });
    });
    for (const group of groups) {
      if (!group.clusters.includes(cluster.name)) continue;
      for (const name of named) {
        if (group.listeners.includes(name)) continue;
        ctx.issues.add(
          "node-group-missing-cluster",
          `${nodeGroupPath(group.name)}.listeners`,
          `node group ${quote(group.name)} receives cluster ${quote(cluster.name)}, whose endpoints reach internal listener ${quote(name)}, but not that listener, so its nodes could not connect to it`,
          `add listener ${quote(name)} to the group`,
        );
      }
    }
  }
}

function endpointCount(cluster: ClusterSpec): number {
  let count = 0;
  for (const locality of cluster.localities) count += locality.endpoints.length;
  return count;
}

/**
 * A cluster without endpoints is a warning, not an error. An EDS cluster still becomes warm (its
 * assignment is served, just empty), so nothing is stuck: requests routed to it fail fast (Envoy
 * answers 503 "no healthy upstream", a gRPC client UNAVAILABLE). And an empty cluster is a
 * legitimate step: created before its endpoints register, or scaled to zero; an error would make
 * removing the last endpoint unpublishable. LOGICAL_DNS has its own rule (checkEndpoints).
 */
export function checkClustersHaveEndpoints({ spec, issues }: ValidationContext): void {
  for (const cluster of spec.clusters) {
    // ORIGINAL_DST and extension clusters (aggregate, dynamic forward proxy) find their hosts
    // themselves.
    if (
      cluster.discoveryType === "LOGICAL_DNS" ||
      cluster.discoveryType === "ORIGINAL_DST" ||
      cluster.discoveryType === "CUSTOM" ||
      endpointCount(cluster) > 0
    )
      continue;
    issues.add(
      "cluster-without-endpoints",
      `${clusterPath(cluster.name)}.localities`,
      `cluster ${quote(cluster.name)} has no endpoints, so requests routed to it fail (Envoy answers 503, gRPC clients get UNAVAILABLE)`,
      "add endpoints, or stop routing to the cluster",
    );
  }
}
