/**
 * The configuration the real-stream tests publish, built from `@switchyard/snapshot/fixtures`:
 * clusters a and b (and optionally c), route configurations routes-a → a and routes-b → b, and
 * api listeners svc-a → routes-a and svc-b → routes-b. Node `edge-1` is in node group "edge",
 * which gets only svc-b and b; every other node gets everything. Each knob changes exactly one
 * resource, so a test can publish "the same world with one change". Test-only: not exported.
 */
import type { ConfigSpec } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  nodeGroupSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";

/** The node id of the one node in node group "edge". */
export const EDGE_NODE_ID = "edge-1";

export interface WorldChanges {
  /** Cluster a's connect timeout: changes the Cluster a, not its ClusterLoadAssignment. */
  readonly clusterATimeoutMs?: number;
  /** Cluster a's endpoint port: changes the ClusterLoadAssignment a only. */
  readonly endpointAPort?: number;
  /** Cluster b's endpoint port: changes the ClusterLoadAssignment b only. */
  readonly endpointBPort?: number;
  /** Adds cluster c (and its ClusterLoadAssignment). */
  readonly withClusterC?: boolean;
  /** Listener svc-a's stat prefix: changes the Listener svc-a, not its RouteConfiguration. */
  readonly listenerAStatPrefix?: string;
}

export function world(changes: WorldChanges = {}): ConfigSpec {
  return configSpec({
    clusters: [
      clusterSpec("a", [endpointSpec("10.0.0.1", changes.endpointAPort ?? 9000)], {
        connectTimeoutMs: changes.clusterATimeoutMs ?? 1000,
      }),
      clusterSpec("b", [endpointSpec("10.0.0.2", changes.endpointBPort ?? 9000)]),
      ...(changes.withClusterC ? [clusterSpec("c", [endpointSpec("10.0.0.3", 9000)])] : []),
    ],
    routeConfigurations: [
      routeConfigurationSpec("routes-a", "a"),
      routeConfigurationSpec("routes-b", "b"),
    ],
    listeners: [
      apiListenerSpec("svc-a", "routes-a", {
        filterChains: [
          filterChainSpec({
            rdsRouteConfigName: "routes-a",
            statPrefix: changes.listenerAStatPrefix ?? "ingress_http",
          }),
        ],
      }),
      apiListenerSpec("svc-b", "routes-b"),
    ],
    nodeGroups: [
      nodeGroupSpec("edge", { nodeIds: [EDGE_NODE_ID], clusters: ["b"], listeners: ["svc-b"] }),
    ],
  });
}
