import { type NodeSummary, NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { XDS_SERVICE_NAME } from "@switchyard/proto/type-url";

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

/** By message name: the URL's prefix may vary. SRDS is named though not served (clients ask). */
const typeLabels: Readonly<Record<string, string>> = Object.fromEntries([
  ...Object.entries(XDS_SERVICE_NAME).map(([url, label]) => [
    url.slice(url.indexOf("/") + 1),
    label,
  ]),
  ["envoy.config.route.v3.ScopedRouteConfiguration", "SRDS"],
]);

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

/** The console path of a node's page: ids can hold any character, "/" and "%" included. */
export function nodeHref(id: string): `/nodes/${string}` {
  return `/nodes/${encodeURIComponent(id)}`;
}
