import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import type { NodeIdentity } from "@switchyard/snapshot";

/** The selector-relevant identity of an Envoy/gRPC node: id, cluster and string metadata. */
export function nodeIdentity(node: Node): NodeIdentity {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(node.metadata ?? {})) {
    if (typeof value === "string") metadata[key] = value;
  }
  return { id: node.id, cluster: node.cluster, metadata };
}
