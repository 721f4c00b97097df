import type { CompiledGroup } from "./compile.js";

/** The identity a node presents in the first request of a stream (envoy.config.core.v3.Node). */
export interface NodeIdentity {
  readonly id: string;
  readonly cluster: string;
  /** Top-level string values of node.metadata; other values cannot be selected on. */
  readonly metadata: { readonly [key: string]: string };
}

/** What choosing a group reads of it: a compiled group, or anything that keeps these two. */
type SelectableGroup = Pick<CompiledGroup, "isDefault" | "selector">;

function matches(group: SelectableGroup, node: NodeIdentity): boolean {
  const { nodeIds, nodeClusters, nodeMetadata } = group.selector;
  const metadataKeys = Object.keys(nodeMetadata);
  if (nodeIds.length === 0 && nodeClusters.length === 0 && metadataKeys.length === 0) return false;
  return (
    (nodeIds.length === 0 || nodeIds.includes(node.id)) &&
    (nodeClusters.length === 0 || nodeClusters.includes(node.cluster)) &&
    metadataKeys.every((key) => node.metadata[key] === nodeMetadata[key])
  );
}

/**
 * The group a node belongs to: the first non-default group (in priority order) whose every
 * selector matches, else the default group. `groups` comes from `compile` and always holds one
 * default group.
 */
export function selectNodeGroup<G extends SelectableGroup>(
  groups: readonly G[],
  node: NodeIdentity,
): G {
  const chosen =
    groups.find((group) => !group.isDefault && matches(group, node)) ??
    groups.find((group) => group.isDefault);
  if (!chosen) throw new Error("compiled config has no default node group");
  return chosen;
}
