import { type NodeFilter, type NodeHealth, nodeHealths } from "./node-list";

/*
 * The Nodes page's filters in its URL, so a filtered view can be shared or bookmarked:
 * `?q=TEXT&status=nacked,stale&connected=1`. Parameters left at their default are left out, and
 * unknown statuses are ignored (an old link keeps working when a status is renamed).
 */

const isHealth = (value: string): value is NodeHealth =>
  (nodeHealths as readonly string[]).includes(value);

export function filterFromParams(params: Pick<URLSearchParams, "get">): NodeFilter {
  const status = (params.get("status") ?? "").split(",").filter(isHealth);
  return {
    query: params.get("q") ?? "",
    health: new Set(status),
    connectedOnly: params.get("connected") === "1",
  };
}

/** The search part of the URL for `filter`, "?…" or "" when nothing is filtered. */
export function searchOfFilter(filter: NodeFilter): string {
  const params = new URLSearchParams();
  if (filter.query !== "") params.set("q", filter.query);
  // In the order the page lists the statuses, so one view has one URL.
  const status = nodeHealths.filter((h) => filter.health.has(h));
  if (status.length > 0) params.set("status", status.join(","));
  if (filter.connectedOnly) params.set("connected", "1");
  const search = params.toString();
  return search === "" ? "" : `?${search}`;
}

/** Nodes per page of the Nodes list. */
export const NODES_PAGE_SIZE = 50;

/**
 * The WatchNodes request for a view of the Nodes list: its filters, its sort (a column id of the
 * table, which are the server's sort keys) and its page. "Connected only" is every health but
 * disconnected (intersected with the chosen ones); chosen healths go in the page's order.
 */
export function nodePageRequest(
  filter: NodeFilter,
  sort: { readonly id: string; readonly desc: boolean } | undefined,
  page: number,
): {
  pageSize: number;
  page: number;
  query: string;
  health: NodeHealth[];
  sort: string;
  connectedOnly: boolean;
} {
  let health = nodeHealths.filter((h) => filter.health.has(h));
  let connectedOnly = false;
  if (filter.connectedOnly) {
    const connected = (health.length > 0 ? health : nodeHealths).filter(
      (h) => h !== "disconnected",
    );
    // Only "disconnected" chosen, and connected only: nothing can match; say so to the server.
    if (connected.length === 0) connectedOnly = true;
    else health = connected;
  }
  return {
    pageSize: NODES_PAGE_SIZE,
    page,
    query: filter.query.trim(),
    health,
    sort: sort ? `${sort.desc ? "-" : ""}${sort.id}` : "",
    connectedOnly,
  };
}
