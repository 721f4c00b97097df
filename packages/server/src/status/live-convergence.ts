import { type CompiledConfig, type ResourceSnapshot, selectNodeGroup } from "@switchyard/snapshot";
import type { NodeStatusTracker, Publication } from "@switchyard/status";
import { heldMatches, stringMetadata } from "./convergence-reader.js";

/**
 * The publication of `config` as `version` to the nodes connected to this replica now, for the
 * in-process ConvergenceTracker that feeds the convergence-time histogram (metrics.ts). A node
 * holds a type when its latest ACK holds what its node group's snapshot gives it, by the same
 * rule as the database-backed convergence (convergence-reader.ts heldMatches).
 *
 * `holds` runs on every status change of a targeted node (the ACK path): what a group's snapshot
 * gives per type (name → version) is built once per publication, not per call.
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
  const wanted = new Map<ResourceSnapshot, Map<string, ReadonlyMap<string, string>>>();
  const want = (snapshot: ResourceSnapshot, typeUrl: string): ReadonlyMap<string, string> => {
    let byType = wanted.get(snapshot);
    if (byType === undefined) {
      byType = new Map();
      wanted.set(snapshot, byType);
    }
    let versions = byType.get(typeUrl);
    if (versions === undefined) {
      versions = new Map(
        [...snapshot.resources(typeUrl)].map(([name, resource]) => [name, resource.version]),
      );
      byType.set(typeUrl, versions);
    }
    return versions;
  };
  return {
    version: String(version),
    publishedAt,
    targets,
    holds: (nodeId, typeUrl, acked) => {
      if (acked === undefined) return false;
      const node = tracker.node(nodeId);
      if (node === undefined) return false;
      const { identity } = node;
      const wildcard = node.types.find((t) => t.typeUrl === typeUrl)?.wildcard ?? true;
      const { snapshot } = selectNodeGroup(config.groups, {
        id: identity.id,
        cluster: identity.cluster,
        metadata: stringMetadata(identity.metadata),
      });
      return heldMatches(wildcard, acked.held, want(snapshot, typeUrl));
    },
  };
}
