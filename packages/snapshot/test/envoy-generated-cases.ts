/**
 * The cases of the generated-resources property (src/envoy-generated.spec.ts): a resource of each
 * type alone, named as its type's first name (a ClusterLoadAssignment with the EDS cluster it
 * fills), and sets of resources that name each other (NAMES: a listener and the route
 * configurations it loads over RDS, the clusters they route to, an EDS cluster's assignment).
 */

import fc from "fast-check";
import type { JsonObject } from "../src/model.js";
import { TypeUrl } from "../src/serving/resource-snapshot.js";
import { envoyArbitrary } from "./envoy-arbitrary.js";
import { NAMES } from "./envoy-arbitrary-hints.js";

const typed = (typeUrl: string, json: JsonObject): JsonObject => ({ "@type": typeUrl, ...json });
const resource = (typeUrl: string) => envoyArbitrary(typeUrl.slice(typeUrl.indexOf("/") + 1));

/** An EDS cluster with nothing but its name: the cluster a lone ClusterLoadAssignment fills. */
const edsCluster = (name: string): JsonObject =>
  typed(TypeUrl.Cluster, {
    name,
    type: "EDS",
    edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: "V3" } },
  });

/** A resource of each type alone, given its type's first name (an assignment with its cluster). */
export const SINGLES: readonly (readonly [string, fc.Arbitrary<JsonObject[]>])[] = [
  [
    "a Listener",
    resource(TypeUrl.Listener).map((l) => [typed(TypeUrl.Listener, { ...l, name: "l0" })]),
  ],
  [
    "a Cluster",
    resource(TypeUrl.Cluster).map((c) => [typed(TypeUrl.Cluster, { ...c, name: "c0" })]),
  ],
  [
    "a RouteConfiguration",
    resource(TypeUrl.RouteConfiguration).map((r) => [
      typed(TypeUrl.RouteConfiguration, { ...r, name: "r0" }),
    ]),
  ],
  [
    "a ClusterLoadAssignment (with its EDS cluster)",
    resource(TypeUrl.ClusterLoadAssignment).map((a) => [
      edsCluster("c0"),
      typed(TypeUrl.ClusterLoadAssignment, { ...a, clusterName: "c0" }),
    ]),
  ],
  ["a Secret", resource(TypeUrl.Secret).map((s) => [typed(TypeUrl.Secret, { ...s, name: "s0" })])],
  [
    "a Runtime",
    resource(TypeUrl.Runtime).map((r) => [typed(TypeUrl.Runtime, { ...r, name: "rt0" })]),
  ],
];

/** Listeners, the route configurations they load, the clusters those route to, and assignments. */
export const SETS = fc
  .record({
    listeners: fc.array(resource(TypeUrl.Listener), { minLength: 1, maxLength: 2 }),
    routes: fc.array(resource(TypeUrl.RouteConfiguration), { maxLength: 2 }),
    clusters: fc.array(resource(TypeUrl.Cluster), { maxLength: 3 }),
    assignments: fc.array(resource(TypeUrl.ClusterLoadAssignment), { maxLength: 3 }),
  })
  .map(({ listeners, routes, clusters, assignments }) => {
    const named = (typeUrl: string, items: JsonObject[], names: readonly string[]) =>
      items.map((item, i) => typed(typeUrl, { ...item, name: names[i] as string }));
    const out = [
      ...named(TypeUrl.Cluster, clusters, NAMES.clusters),
      ...named(TypeUrl.Listener, listeners, NAMES.listeners),
      ...named(TypeUrl.RouteConfiguration, routes, NAMES.routes),
    ];
    // An assignment for each EDS cluster of the case, by the name it is served under.
    clusters.forEach((cluster, i) => {
      const assignment = assignments[i];
      if (cluster.type !== "EDS" || assignment === undefined) return;
      const eds = (cluster.edsClusterConfig ?? {}) as JsonObject;
      const serviceName =
        typeof eds.serviceName === "string" && eds.serviceName !== "" ? eds.serviceName : undefined;
      out.push(
        typed(TypeUrl.ClusterLoadAssignment, {
          ...assignment,
          clusterName: serviceName ?? (NAMES.clusters[i] as string),
        }),
      );
    });
    return out;
  });
