/**
 * Endpoint registration (`switchyard endpoints set|add|remove`): what deploy scripts do to one
 * cluster's ClusterLoadAssignment, as plain functions over the model.
 *
 * An endpoint is known by its address and port, wherever it is: adding one that is registered
 * replaces it (a new weight, health status or locality), removing one that is not is nothing to
 * do, so a script may run twice. Endpoints sit in localities keyed by region, zone, sub-zone and
 * priority (`envoy.config.endpoint.v3.LocalityLbEndpoints`); a locality keeps its weight and
 * extra fields while it has endpoints, and goes when its last one does.
 */
import type { ClusterSpec, EndpointSpec, HealthStatus, LocalitySpec } from "./model.js";

export type EndpointOperation = "set" | "add" | "remove";

/** One endpoint as a deploy script registers it, with its locality. */
export interface RegisteredEndpoint {
  readonly address: string;
  readonly port: number;
  readonly weight: number | null;
  readonly healthStatus: HealthStatus;
  readonly region: string;
  readonly zone: string;
  readonly subZone: string;
  readonly priority: number;
}

const localityKey = (l: Pick<LocalitySpec, "region" | "zone" | "subZone" | "priority">) =>
  JSON.stringify([l.region, l.zone, l.subZone, l.priority]);

const endpointKey = (e: { readonly address: string; readonly port: number }) =>
  `${e.address.toLowerCase()}|${e.port}`;

/**
 * The weight of a locality a registration creates: never none. A proxyless gRPC client sends
 * nothing to a locality without `load_balancing_weight` (gRFC A27's weighted target, one child
 * per locality; validate-grpc.ts "grpc-locality-weight"), and neither does Envoy under
 * `locality_weighted_lb_config` (envoy.config.endpoint.v3.LocalityLbEndpoints
 * load_balancing_weight); Envoy without it ignores the weight. So a new locality gets an equal
 * share: the weight its cluster's other localities at that priority all have, when they agree on
 * one, else 1. A weight is changed with the cluster itself (apply, the console).
 */
function newLocalityWeight(localities: readonly LocalitySpec[], at: RegisteredEndpoint): number {
  const weights = new Set(
    localities.filter((l) => l.priority === at.priority && l.weight !== null).map((l) => l.weight),
  );
  const [only] = weights;
  return weights.size === 1 && typeof only === "number" && only > 0 ? only : 1;
}

/** The cluster's endpoints after the operation; the cluster itself when nothing changes. */
export function registerEndpoints(
  cluster: ClusterSpec,
  operation: EndpointOperation,
  endpoints: readonly RegisteredEndpoint[],
): ClusterSpec {
  const given = new Set(endpoints.map(endpointKey));
  // What stays of the stored endpoints: none for set; for add and remove, all but those named.
  const kept: LocalitySpec[] = cluster.localities.map((locality) => ({
    ...locality,
    endpoints:
      operation === "set" ? [] : locality.endpoints.filter((e) => !given.has(endpointKey(e))),
  }));
  if (operation !== "remove") {
    const byKey = new Map(kept.map((locality, index) => [localityKey(locality), index]));
    const stored = new Map(
      cluster.localities.flatMap((l) => l.endpoints).map((e) => [endpointKey(e), e]),
    );
    for (const endpoint of endpoints) {
      const spec: EndpointSpec = {
        address: endpoint.address,
        port: endpoint.port,
        weight: endpoint.weight,
        healthStatus: endpoint.healthStatus,
        extra: {},
      };
      const key = localityKey(endpoint);
      const index = byKey.get(key);
      const locality = index === undefined ? undefined : kept[index];
      if (index !== undefined && locality !== undefined) {
        // Stored extra fields of an endpoint re-registered (say, metadata) are kept.
        const was = stored.get(endpointKey(endpoint));
        kept[index] = {
          ...locality,
          endpoints: [...locality.endpoints, was ? { ...spec, extra: was.extra } : spec],
        };
      } else {
        byKey.set(key, kept.length);
        kept.push({
          region: endpoint.region,
          zone: endpoint.zone,
          subZone: endpoint.subZone,
          priority: endpoint.priority,
          weight: newLocalityWeight(kept, endpoint),
          extra: {},
          endpoints: [spec],
        });
      }
    }
  }
  const localities = kept.filter((locality) => locality.endpoints.length > 0);
  return sameEndpoints(cluster.localities, localities) ? cluster : { ...cluster, localities };
}

function sameEndpoints(a: readonly LocalitySpec[], b: readonly LocalitySpec[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Problems with a request's endpoints as a list, each saying which one; empty when fine. What
 * each endpoint holds (address, port, weight) is validated with the cluster, as any publish is.
 */
export function registrationProblems(
  endpoints: readonly RegisteredEndpoint[],
  operation: EndpointOperation,
): string[] {
  const problems: string[] = [];
  if (endpoints.length === 0 && operation !== "set")
    problems.push(`name at least one endpoint to ${operation}`);
  const seen = new Set<string>();
  endpoints.forEach((endpoint, index) => {
    const key = endpointKey(endpoint);
    if (seen.has(key))
      problems.push(`endpoints[${index}] (${endpoint.address}:${endpoint.port}) is named twice`);
    seen.add(key);
  });
  return problems;
}
