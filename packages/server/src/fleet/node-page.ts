import { Code, ConnectError } from "@connectrpc/connect";
import { type HealthCounts, healthCounts, type NodeHealth, nodeHealth } from "./fleet-summary.js";
import type { NodeRecord } from "./status-reader.js";

/**
 * One page of the Nodes list, computed by the server (WatchNodes with page_size): a text search,
 * health filters, a sort order and counts by health, so a watcher of a large fleet receives one
 * page instead of every node. Pure: the watch keeps the records and calls nodePage on each change.
 */

export const NODE_PAGE_MAX = 500;

const HEALTHS: readonly NodeHealth[] = ["synced", "stale", "nacked", "pending", "disconnected"];

/** Worst first: the order of "status" ascending. */
const healthRank: Record<NodeHealth, number> = {
  nacked: 0,
  stale: 1,
  pending: 2,
  synced: 3,
  disconnected: 4,
};

const userAgent = (node: NodeRecord) =>
  [node.userAgent.name, node.userAgent.version].filter(Boolean).join(" ");

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SORTS = {
  node: (a: NodeRecord, b: NodeRecord) => compareText(a.id, b.id),
  status: (a: NodeRecord, b: NodeRecord) => healthRank[nodeHealth(a)] - healthRank[nodeHealth(b)],
  connection: (a: NodeRecord, b: NodeRecord) => a.connection.since - b.connection.since,
  replica: (a: NodeRecord, b: NodeRecord) => compareText(a.replicaId, b.replicaId),
  variant: (a: NodeRecord, b: NodeRecord) => compareText(a.variant, b.variant),
  agent: (a: NodeRecord, b: NodeRecord) => compareText(userAgent(a), userAgent(b)),
} as const;

type SortKey = keyof typeof SORTS;

export interface NodePageQuery {
  readonly pageSize: number;
  readonly page: number;
  /** Lower case; "" matches every node. */
  readonly text: string;
  /** Empty: every health. */
  readonly health: ReadonlySet<NodeHealth>;
  readonly sort: SortKey;
  readonly descending: boolean;
}

const invalid = (message: string) => new ConnectError(message, Code.InvalidArgument);

/** The paging fields of a WatchNodesRequest, checked; InvalidArgument naming the bad field. */
export function nodePageQuery(request: {
  readonly pageSize: number;
  readonly page: number;
  readonly query: string;
  readonly health: readonly string[];
  readonly sort: string;
}): NodePageQuery {
  if (request.pageSize > NODE_PAGE_MAX)
    throw invalid(`page_size ${request.pageSize} is over the maximum of ${NODE_PAGE_MAX}`);
  const health = new Set<NodeHealth>();
  request.health.forEach((h, i) => {
    if (!(HEALTHS as readonly string[]).includes(h))
      throw invalid(`health[${i}]: "${h}" is not one of ${HEALTHS.join(", ")}`);
    health.add(h as NodeHealth);
  });
  const descending = request.sort.startsWith("-");
  const key = (descending ? request.sort.slice(1) : request.sort) || "node";
  if (!Object.hasOwn(SORTS, key))
    throw invalid(
      `sort: "${request.sort}" is not one of ${Object.keys(SORTS).join(", ")} (with an optional leading "-")`,
    );
  return {
    pageSize: request.pageSize,
    page: request.page,
    text: request.query.trim().toLowerCase(),
    health,
    sort: key as SortKey,
    descending,
  };
}

function matchesText(node: NodeRecord, text: string): boolean {
  if (text === "") return true;
  return [node.id, node.cluster, node.replicaId, userAgent(node), node.remoteAddress, node.variant]
    .join("\n")
    .toLowerCase()
    .includes(text);
}

export interface NodePage {
  /** The page's nodes, in order. */
  readonly nodes: readonly NodeRecord[];
  /** Nodes matching every filter. */
  readonly total: number;
  /** The page sent: the one asked for, or the last one when that is past the end. */
  readonly page: number;
  /** Every watched node (text and health filters not applied), by health. */
  readonly counts: HealthCounts;
}

export function nodePage(nodes: Iterable<NodeRecord>, query: NodePageQuery): NodePage {
  const all = [...nodes];
  const matching = all.filter(
    (node) =>
      matchesText(node, query.text) &&
      (query.health.size === 0 || query.health.has(nodeHealth(node))),
  );
  const compare = SORTS[query.sort];
  const sign = query.descending ? -1 : 1;
  // Ties (and the "node" order) by id, ascending, so a page is stable as statuses change.
  matching.sort((a, b) => sign * compare(a, b) || compareText(a.id, b.id));
  const lastPage = Math.max(0, Math.ceil(matching.length / query.pageSize) - 1);
  const page = Math.min(query.page, lastPage);
  return {
    nodes: matching.slice(page * query.pageSize, (page + 1) * query.pageSize),
    total: matching.length,
    page,
    counts: healthCounts(all),
  };
}
