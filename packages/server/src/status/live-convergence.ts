import { type CompiledConfig, selectNodeGroup, TYPE_ORDER } from "@switchyard/snapshot";
import type { NodeStatusTracker, Publication } from "@switchyard/status";
import { heldMatches, stringMetadata } from "./convergence-reader.js";

const NOTHING: ReadonlyMap<string, string> = new Map();

/**
 * The publication of `config` as `version` to the nodes connected to this replica now, for the
 * in-process ConvergenceTracker that feeds the convergence-time histogram (metrics.ts). A node
 * holds a type when its latest ACK holds what its node group's snapshot gives it, by the same
 * rule as the database-backed convergence (convergence-reader.ts heldMatches).
 *
 * What each group gives per type (name → version) is taken once, here: `holds` runs on every
 * status change of a targeted node (the ACK path), and the tracker keeps the publications of the
 * last versions (ConvergenceTracker's retainVersions), which must not keep each version's encoded
 * resources alive with them (live-convergence.spec.ts).
 */
export function publicationOf(
  config: CompiledConfig,
  version: number,
  tracker: NodeStatusTracker,
  publishedAt: number,
): Publication {
  const targets = tracker.connectedNodeIds();
  const groups = config.groups.map((group) => ({
    isDefault: group.isDefault,
    selector: group.selector,
    wants: new Map(
      TYPE_ORDER.map((typeUrl) => [
        typeUrl as string,
        new Map(
          [...group.snapshot.resources(typeUrl)].map(([name, resource]) => [
            name,
            resource.version,
          ]),
        ),
      ]),
    ),
  }));
  const groupOf = new WeakMap<object, ReadonlyMap<string, ReadonlyMap<string, string>>>();
  // heldMatches per acked set and wanted set: a node's ACK of one type re-evaluates all its
  // types, and its other types' acked sets are the same objects as at their last evaluation.
  const matched = new WeakMap<object, { want: object; wildcard: boolean; holds: boolean }>();
  return {
    version: String(version),
    publishedAt,
    targets,
    holds: (nodeId, typeUrl, acked) => {
      if (acked === undefined) return false;
      const subscription = tracker.subscription(nodeId, typeUrl);
      if (subscription === undefined) return false;
      const { identity, wildcard } = subscription;
      // A node's group follows from its identity, which the tracker replaces (a new object)
      // only when the node reconnects: chosen once per identity, not on every ACK.
      let wants = groupOf.get(identity);
      if (wants === undefined) {
        wants = selectNodeGroup(groups, {
          id: identity.id,
          cluster: identity.cluster,
          metadata: stringMetadata(identity.metadata),
        }).wants;
        groupOf.set(identity, wants);
      }
      const want = wants.get(typeUrl) ?? NOTHING;
      const known = matched.get(acked.held);
      if (known?.want === want && known.wildcard === wildcard) return known.holds;
      const holds = heldMatches(wildcard, acked.held, want);
      matched.set(acked.held, { want, wildcard, holds });
      return holds;
    },
  };
}
