/**
 * The clusters a published version touched: those whose traffic the change may alter, so that
 * the rollout can show their load before and after the publish (StatusService.GetRolloutTraffic).
 *
 * - A cluster added, changed or removed (its endpoints are part of it).
 * - The clusters of the routes that changed: a route added, removed or changed sends (or sent)
 *   its requests to its cluster or weighted clusters. Routes are compared per virtual host as a
 *   list where the first match wins (Envoy's route matching): when the routes common to both
 *   sides are no longer in the same order, every one of them may now take other requests, so all
 *   of their clusters count. A virtual host whose own fields (domains, policies) changed, a route
 *   configuration whose own fields changed, or one added or removed whole, touches every cluster
 *   it routes to.
 * - A listener that changed touches every cluster its route configurations route to, and the
 *   clusters its network filters name (a TCP proxy's).
 *
 * Node groups, runtime layers and secrets are not followed: what they change is not a route to a
 * cluster. Pure: the version's two specs and its change list in, the clusters out.
 */
import type {
  ConfigSpec,
  ListenerSpec,
  RouteConfigurationSpec,
  RouteSpec,
  SourceChange,
  VirtualHostSpec,
} from "@switchyard/snapshot";
import { findReferencesInJson } from "@switchyard/snapshot";

export type TouchReason = "cluster" | "route" | "listener";

export interface TouchedCluster {
  readonly name: string;
  readonly reasons: ReadonlySet<TouchReason>;
  /** The other objects whose change touched it: "route_configuration/shop", "listener/edge". */
  readonly touchedBy: ReadonlySet<string>;
  /** In the version, or in the one before when the version removed it. */
  readonly reportsLoad: boolean;
}

/** The clusters `changes` (the version's, from `before` to `after`) touched, by name. */
export function touchedClusters(
  before: ConfigSpec | undefined,
  after: ConfigSpec,
  changes: readonly SourceChange[],
): TouchedCluster[] {
  const touched = new Map<string, { reasons: Set<TouchReason>; touchedBy: Set<string> }>();
  const touch = (cluster: string | null, reason: TouchReason, by?: string) => {
    if (cluster === null || cluster === "") return;
    const entry = touched.get(cluster) ?? { reasons: new Set(), touchedBy: new Set() };
    entry.reasons.add(reason);
    if (by !== undefined) entry.touchedBy.add(by);
    touched.set(cluster, entry);
  };
  const routeConfig = (spec: ConfigSpec | undefined, name: string) =>
    spec?.routeConfigurations.find((rc) => rc.name === name);

  for (const change of changes) {
    if (change.kind === "cluster") touch(change.name, "cluster");
    else if (change.kind === "routeConfiguration") {
      const by = `route_configuration/${change.name}`;
      for (const cluster of changedRouteClusters(
        routeConfig(before, change.name),
        routeConfig(after, change.name),
      ))
        touch(cluster, "route", by);
    } else if (change.kind === "listener") {
      const by = `listener/${change.name}`;
      for (const spec of [before, after]) {
        const listener = spec?.listeners.find((l) => l.name === change.name);
        if (listener === undefined) continue;
        for (const cluster of listenerClusters(listener, (name) => routeConfig(spec, name)))
          touch(cluster, "listener", by);
      }
    }
  }

  const reportsLoad = (name: string) =>
    (after.clusters.find((c) => c.name === name) ?? before?.clusters.find((c) => c.name === name))
      ?.reportLoad ?? false;
  return [...touched]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => ({ name, ...entry, reportsLoad: reportsLoad(name) }));
}

function routeClusters(route: RouteSpec): string[] {
  return [
    ...(route.cluster === null ? [] : [route.cluster]),
    ...route.weightedClusters.map((w) => w.name),
  ];
}

function virtualHostClusters(host: VirtualHostSpec | undefined): string[] {
  return host?.routes.flatMap(routeClusters) ?? [];
}

/** The clusters of the routes that differ between two sides of one route configuration. */
function changedRouteClusters(
  before: RouteConfigurationSpec | undefined,
  after: RouteConfigurationSpec | undefined,
): string[] {
  const all = (rc: RouteConfigurationSpec | undefined) =>
    rc?.virtualHosts.flatMap((host) => virtualHostClusters(host)) ?? [];
  if (before === undefined || after === undefined || !sameOwnFields(before, after))
    return [...all(before), ...all(after)];
  const out: string[] = [];
  const names = new Set([...before.virtualHosts, ...after.virtualHosts].map((h) => h.name));
  for (const name of names) {
    const old = before.virtualHosts.find((h) => h.name === name);
    const now = after.virtualHosts.find((h) => h.name === name);
    if (old === undefined || now === undefined || !sameOwnFields(old, now))
      out.push(...virtualHostClusters(old), ...virtualHostClusters(now));
    else out.push(...changedRoutes(old.routes, now.routes).flatMap(routeClusters));
  }
  return out;
}

/** Equal but for the list each holds (virtual hosts, routes). */
function sameOwnFields(
  a: RouteConfigurationSpec | VirtualHostSpec,
  b: RouteConfigurationSpec | VirtualHostSpec,
): boolean {
  const own = ({ virtualHosts: _h, routes: _r, ...rest }: Record<string, unknown>) => rest;
  return (
    JSON.stringify(own(a as unknown as Record<string, unknown>)) ===
    JSON.stringify(own(b as unknown as Record<string, unknown>))
  );
}

/**
 * The routes of one virtual host that differ: those on one side only (as a multiset of equal
 * routes), and every common one when their order changed (first match wins).
 */
function changedRoutes(before: readonly RouteSpec[], after: readonly RouteSpec[]): RouteSpec[] {
  const keyed = (routes: readonly RouteSpec[]) =>
    routes.map((r) => [JSON.stringify(r), r] as const);
  const old = keyed(before);
  const now = keyed(after);
  const unmatched = new Map<string, number>();
  for (const [key] of now) unmatched.set(key, (unmatched.get(key) ?? 0) + 1);
  const changed: RouteSpec[] = [];
  const commonBefore: string[] = [];
  for (const [key, route] of old) {
    const left = unmatched.get(key) ?? 0;
    if (left === 0) changed.push(route);
    else {
      unmatched.set(key, left - 1);
      commonBefore.push(key);
    }
  }
  const remaining = new Map(unmatched);
  const commonAfter: string[] = [];
  for (const [key, route] of now) {
    const extra = remaining.get(key) ?? 0;
    if (extra > 0) {
      remaining.set(key, extra - 1);
      changed.push(route);
    } else commonAfter.push(key);
  }
  if (commonBefore.join("\n") !== commonAfter.join("\n"))
    changed.push(...old.filter(([key]) => commonBefore.includes(key)).map(([, route]) => route));
  return changed;
}

function listenerClusters(
  listener: ListenerSpec,
  routeConfig: (name: string) => RouteConfigurationSpec | undefined,
): string[] {
  const out: string[] = [];
  for (const chain of listener.filterChains) {
    for (const name of [chain.rdsRouteConfigName, chain.inlineRouteConfigName]) {
      if (name === null) continue;
      for (const host of routeConfig(name)?.virtualHosts ?? [])
        out.push(...virtualHostClusters(host));
    }
    for (const filter of chain.networkFilters)
      for (const ref of findReferencesInJson("envoy.config.listener.v3.Filter", filter))
        if (ref.kind === "cluster") out.push(ref.name);
  }
  return out;
}
