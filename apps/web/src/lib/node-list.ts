import {
  type NodeSummary,
  NodeTypeStatus,
  type WatchNodesResponse,
} from "@switchyard/proto/switchyard/v1/status_pb";

/** The nodes a WatchNodes stream has described so far, by id. Never mutated: replaced. */
export type NodeIndex = ReadonlyMap<string, NodeSummary>;

/**
 * Folds one WatchNodes message into what the view holds: a `reset` message replaces everything
 * (the first message of every stream, so a reconnect starts clean); later messages replace the
 * nodes they carry and drop `removedIds`.
 */
export function applyNodesMessage(
  index: NodeIndex | undefined,
  message: Pick<WatchNodesResponse, "reset" | "nodes" | "removedIds">,
): NodeIndex {
  const next = new Map(message.reset || index === undefined ? [] : index);
  for (const node of message.nodes) next.set(node.id, node);
  for (const id of message.removedIds) next.delete(id);
  return next;
}

/** Sorted by id, as the server sorts. */
export function sortedNodes(index: NodeIndex): NodeSummary[] {
  return [...index.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * One word for a node, worst first: a connected node is `nacked` if any type's latest answer is a
 * NACK, else `stale` if a response went unanswered past the threshold, else `pending` if something
 * is unanswered or not sent yet (or it requested nothing yet), else `synced`. A node with no open
 * stream is `disconnected`, whatever it last held.
 */
export type NodeHealth = "synced" | "stale" | "nacked" | "pending" | "disconnected";

export const nodeHealths: readonly NodeHealth[] = [
  "synced",
  "stale",
  "nacked",
  "pending",
  "disconnected",
];

export function nodeHealth(node: NodeSummary): NodeHealth {
  if (!node.connected) return "disconnected";
  const has = (s: NodeTypeStatus) => node.types.some((t) => t.status === s);
  if (has(NodeTypeStatus.NACKED)) return "nacked";
  if (has(NodeTypeStatus.STALE)) return "stale";
  if (node.types.length === 0 || node.types.some((t) => t.status !== NodeTypeStatus.SYNCED))
    return "pending";
  return "synced";
}

export type HealthCounts = Readonly<Record<NodeHealth, number>> & {
  readonly total: number;
  readonly connected: number;
};

export function healthCounts(nodes: Iterable<NodeSummary>): HealthCounts {
  const counts = { synced: 0, stale: 0, nacked: 0, pending: 0, disconnected: 0, total: 0 };
  for (const node of nodes) {
    counts[nodeHealth(node)] += 1;
    counts.total += 1;
  }
  return { ...counts, connected: counts.total - counts.disconnected };
}

const typeLabels: Readonly<Record<string, string>> = {
  "envoy.config.cluster.v3.Cluster": "CDS",
  "envoy.config.endpoint.v3.ClusterLoadAssignment": "EDS",
  "envoy.config.listener.v3.Listener": "LDS",
  "envoy.config.route.v3.RouteConfiguration": "RDS",
  "envoy.config.route.v3.ScopedRouteConfiguration": "SRDS",
  "envoy.config.route.v3.VirtualHost": "VHDS",
  "envoy.extensions.transport_sockets.tls.v3.Secret": "SDS",
  "envoy.service.runtime.v3.Runtime": "RTDS",
};

/** "CDS" for the Cluster type URL, and so on; an unknown type keeps its message name. */
export function typeLabel(typeUrl: string): string {
  const name = typeUrl.slice(typeUrl.indexOf("/") + 1);
  return typeLabels[name] ?? name.slice(name.lastIndexOf(".") + 1);
}

export interface NodeFilter {
  /** Matched, case-insensitively, against id, cluster, replica, user agent and address. */
  readonly query: string;
  /** Empty: every health. */
  readonly health: ReadonlySet<NodeHealth>;
  readonly connectedOnly: boolean;
}

export function userAgent(node: NodeSummary): string {
  return [node.userAgentName, node.userAgentVersion].filter(Boolean).join(" ");
}

export function matchesFilter(node: NodeSummary, filter: NodeFilter): boolean {
  if (filter.connectedOnly && !node.connected) return false;
  if (filter.health.size > 0 && !filter.health.has(nodeHealth(node))) return false;
  const query = filter.query.trim().toLowerCase();
  if (query === "") return true;
  return [node.id, node.cluster, node.replica, userAgent(node), node.remoteAddress, node.variant]
    .join("\n")
    .toLowerCase()
    .includes(query);
}

/** The console path of a node's page: ids can hold any character, "/" and "%" included. */
export function nodeHref(id: string): `/nodes/${string}` {
  return `/nodes/${encodeURIComponent(id)}`;
}
