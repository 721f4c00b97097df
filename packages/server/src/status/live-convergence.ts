import { type CompiledConfig, selectNodeGroup } from "@switchyard/snapshot";
import type { NodeStatusTracker, Publication } from "@switchyard/status";
import { heldMatches, stringMetadata } from "./convergence-reader.js";

/**
 * The publication of `config` as `version` to the nodes connected to this replica now, for the
 * in-process ConvergenceTracker that feeds the convergence-time histogram (metrics.ts). A node
 * holds a type when its latest ACK holds what its node group's snapshot gives it, by the same
 * rule as the database-backed convergence (convergence-reader.ts heldMatches).
 */
export function publicationOf(
  config: CompiledConfig,
  version: number,
  tracker: NodeStatusTracker,
  publishedAt: number,
): Publication {
  const targets = tracker
    .nodes(publishedAt)
    .filter((node) => node.connection.t === "connected")
    .map((node) => node.identity.id);
  return {
    version: String(version),
    publishedAt,
    targets,
    holds: (nodeId, typeUrl, acked) => {
      const identity = tracker.node(nodeId)?.identity;
      if (identity === undefined) return false;
      const { snapshot } = selectNodeGroup(config.groups, {
        id: identity.id,
        cluster: identity.cluster,
        metadata: stringMetadata(identity.metadata),
      });
      const want = new Map(
        [...snapshot.resources(typeUrl)].map(([name, resource]) => [name, resource.version]),
      );
      if (acked === undefined) return false;
      const held = Object.fromEntries(
        [...acked.held].map(([name, resourceVersion]) => [name, resourceVersion ?? null]),
      );
      return heldMatches(typeUrl, held, want);
    },
  };
}
