import type { Cluster, Listener } from "@switchyard/proto/switchyard/v1/config_pb";

/*
 * Facts about stored objects that lists show. Kept apart from the form modules (cluster-form.ts,
 * listener-form.ts: zod schemas and form mapping) so list pages do not load the editors' code.
 */

/** A one-line summary for the list: "2 localities · 5 endpoints". */
export function endpointCount(cluster: Cluster): number {
  return cluster.localities.reduce((n, l) => n + l.endpoints.length, 0);
}

/** The route configurations a listener serves, for the list and its links. */
export function routeConfigNames(listener: Listener): string[] {
  return listener.filterChains
    .map((c) => c.rdsRouteConfigName ?? c.inlineRouteConfigName)
    .filter((n): n is string => n !== undefined && n !== "");
}
