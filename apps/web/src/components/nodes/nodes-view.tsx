"use client";

import { timestampDate, timestampMs } from "@bufbuild/protobuf/wkt";
import type { NodeSummary } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  type ColumnDef,
  getCoreRowModel,
  type SortingState,
  useReactTable,
} from "@tanstack/react-table";
import { useSearchParams } from "next/navigation";
import { type ReactNode, useEffect, useId, useMemo, useState } from "react";
import { inputClass } from "@/components/form/field";
import { DataTable } from "@/components/ui/data-table";
import { Link } from "@/components/ui/link";
import { LoadError, PageHeader, TableSkeleton } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import {
  filterFromParams,
  NODES_PAGE_SIZE,
  nodePageRequest,
  searchOfFilter,
} from "@/lib/node-filter-params";
import { type NodeHealth, nodeHealth, nodeHealths, nodeHref, userAgent } from "@/lib/node-list";
import { ActivitySparkline, NodeActivityProvider } from "./activity-sparkline";
import { LiveBadge } from "./live-badge";
import { NoNodes } from "./no-nodes";
import { HealthBadge, healthPresentation, TypeChips } from "./status-chips";
import { useNodePage } from "./use-nodes";

const columns: ColumnDef<NodeSummary>[] = [
  {
    id: "node",
    header: "Node",
    accessorFn: (n) => n.id,
    cell: ({ row }) => (
      <div className="min-w-0">
        <Link
          href={nodeHref(row.original.id)}
          className="font-mono text-[13px] font-medium text-fg hover:text-accent hover:underline [overflow-wrap:anywhere]"
        >
          {row.original.id}
        </Link>
        <p className="text-xs font-normal text-fg-subtle">
          {row.original.cluster ? `cluster ${row.original.cluster}` : "no cluster"}
        </p>
      </div>
    ),
  },
  {
    id: "status",
    header: "Status",
    // Sorted by the server (node-page.ts): worst first.
    accessorFn: (n) => nodeHealth(n),
    cell: ({ row }) => <HealthBadge health={nodeHealth(row.original)} />,
  },
  {
    id: "types",
    header: "Types",
    enableSorting: false,
    cell: ({ row }) => <TypeChips types={row.original.types} dim={!row.original.connected} />,
  },
  {
    id: "recent",
    header: () => (
      <span title="Versions ACKed (blue), connections (grey) and NACKs (red), per five minutes">
        Last hour
      </span>
    ),
    enableSorting: false,
    cell: ({ row }) => <ActivitySparkline nodeId={row.original.id} />,
  },
  {
    id: "connection",
    header: "Connection",
    accessorFn: (n) => {
      const t = n.connected ? n.connectedSince : n.disconnectedAt;
      return t ? timestampDate(t).getTime() : 0;
    },
    cell: ({ row }) => {
      const n = row.original;
      const t = n.connected ? n.connectedSince : n.disconnectedAt;
      return (
        <span className="text-xs whitespace-nowrap">
          {n.connected ? "Connected " : "Disconnected "}
          {t ? <RelativeTime date={timestampDate(t)} /> : "—"}
          {n.connected && n.openStreams > 1 && (
            <span className="block text-fg-subtle">{n.openStreams} streams</span>
          )}
        </span>
      );
    },
  },
  {
    id: "replica",
    header: "Replica",
    accessorFn: (n) => n.replica,
    cell: ({ row }) => (
      <span className="font-mono text-xs [overflow-wrap:anywhere]">
        {row.original.replica || "—"}
      </span>
    ),
  },
  {
    id: "variant",
    header: "Variant",
    accessorFn: (n) => n.variant,
    cell: ({ row }) => (
      <span className="font-mono text-xs whitespace-nowrap">{row.original.variant || "—"}</span>
    ),
  },
  {
    id: "agent",
    header: "User agent",
    accessorFn: userAgent,
    cell: ({ row }) => <span className="text-xs">{userAgent(row.original) || "—"}</span>,
  },
];

/**
 * Every node any replica has seen, live over WatchNodes with paging: search, filter by status and
 * by connection, sort; the server applies them to every node and sends the page shown (and the
 * counts), so the page costs the same with ten nodes or ten thousand. Each row links to the
 * node's page.
 */
export function NodesView() {
  const params = useSearchParams();
  const [filter, setFilterState] = useState(() => filterFromParams(params));
  const [sorting, setSorting] = useState<SortingState>([]);
  const [pageIndex, setPageIndex] = useState(0);
  // A new filter or sort order starts again at page 1; a live message keeps the page.
  const setFilter: typeof setFilterState = (update) => {
    setFilterState(update);
    setPageIndex(0);
  };
  const { query, health, connectedOnly } = filter;
  // The search applies (and goes back to page 1) once the text rests: see settledQuery.
  const setQuery = (q: string) => setFilterState((f) => ({ ...f, query: q }));
  const setConnectedOnly = (on: boolean) => setFilter((f) => ({ ...f, connectedOnly: on }));
  // The filters are the page's state and the URL follows them (read once, on arrival), so a
  // filtered view can be shared. replaceState keeps typing out of the history and off the server;
  // Next.js folds it into useSearchParams. Also re-run when the URL changed from outside (the
  // sidebar's Nodes link while here), so the URL never disagrees with what is shown.
  const search = searchOfFilter(filter);
  useEffect(() => {
    const agrees = params.toString() === search.slice(1) && window.location.search === search;
    if (!agrees)
      window.history.replaceState(window.history.state, "", `${window.location.pathname}${search}`);
  }, [search, params]);
  const searchId = useId();

  // Typing asks the server once the text rests, not per keystroke.
  const settledQuery = useSettled(query, 200);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new search starts at page 1
  useEffect(() => setPageIndex(0), [settledQuery]);
  const request = nodePageRequest({ ...filter, query: settledQuery }, sorting[0], pageIndex);
  const { page, current, state, reconnectNow } = useNodePage(request, JSON.stringify(request));
  const counts = page?.counts;
  const total = counts?.total ?? 0;

  const table = useReactTable({
    data: (page?.nodes ?? []) as NodeSummary[],
    columns,
    state: { sorting, pagination: { pageIndex, pageSize: NODES_PAGE_SIZE } },
    onSortingChange: (update) => {
      setSorting(update);
      setPageIndex(0);
    },
    onPaginationChange: (update) => {
      const next =
        typeof update === "function" ? update({ pageIndex, pageSize: NODES_PAGE_SIZE }) : update;
      setPageIndex(next.pageIndex);
    },
    getRowId: (n) => n.id,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualPagination: true,
    rowCount: page?.total ?? 0,
  });
  // The server answers a page past the end (the list shrank) with the last one.
  useEffect(() => {
    if (current && page !== undefined && page.page !== pageIndex) setPageIndex(page.page);
  }, [current, page, pageIndex]);
  // The sparklines read the activity of the rows on screen only, in one request.
  const shownIds = useMemo(() => (page?.nodes ?? []).map((n) => n.id), [page]);
  const shownChanged = useMemo(
    () =>
      Math.max(
        0,
        ...(page?.nodes ?? []).map((n) => (n.updateTime ? timestampMs(n.updateTime) : 0)),
      ),
    [page],
  );
  const filtered = query !== "" || health.size > 0 || connectedOnly;
  const clear = () => setFilter({ query: "", health: new Set(), connectedOnly: false });
  const toggle = (h: NodeHealth) =>
    setFilter((f) => {
      const next = new Set(f.health);
      if (!next.delete(h)) next.add(h);
      return { ...f, health: next };
    });

  let body: ReactNode;
  if (page === undefined) {
    body =
      state.t === "ended" ? (
        <LoadError what="the nodes" error={state.error} onRetry={reconnectNow} retrying={false} />
      ) : (
        <>
          <TableSkeleton label="the nodes" />
          {state.t === "reconnecting" && (
            <p role="alert" className="text-center text-sm text-fg-muted">
              Can’t reach the live status yet ({state.error.rawMessage}); retrying.
            </p>
          )}
        </>
      );
  } else if (total === 0) {
    body = <NoNodes />;
  } else {
    body = (
      <div className="flex flex-col gap-3">
        <div className="flex flex-wrap items-center gap-x-5 gap-y-3">
          <label htmlFor={searchId} className="sr-only">
            Search nodes
          </label>
          <input
            id={searchId}
            type="search"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="Search by id, cluster, replica, user agent…"
            className={`${inputClass} w-full max-w-xs`}
          />
          <fieldset className="flex flex-wrap items-center gap-1.5">
            <legend className="sr-only">Status</legend>
            {nodeHealths.map((h) => {
              const on = health.has(h);
              return (
                <label
                  key={h}
                  className={`inline-flex cursor-pointer items-center gap-1.5 rounded-full border px-2.5 py-1 text-xs font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 ${
                    on
                      ? "border-accent bg-accent-soft text-fg"
                      : "bg-surface text-fg-muted hover:bg-surface-hover"
                  }`}
                >
                  <input
                    type="checkbox"
                    className="sr-only"
                    checked={on}
                    onChange={() => toggle(h)}
                  />
                  <span
                    aria-hidden="true"
                    className={`size-1.5 rounded-full ${healthPresentation[h].dot}`}
                  />
                  {healthPresentation[h].label}
                  <span className="tabular-nums text-fg-subtle">{counts?.[h] ?? 0}</span>
                </label>
              );
            })}
          </fieldset>
          <label className="inline-flex items-center gap-2 text-xs text-fg-muted">
            <input
              type="checkbox"
              checked={connectedOnly}
              onChange={(e) => setConnectedOnly(e.target.checked)}
              className="size-3.5 accent-accent"
            />
            Connected only
          </label>
          <span className="ml-auto text-xs text-fg-subtle tabular-nums" aria-live="polite">
            {filtered ? `${page.total} of ${total}` : total} {total === 1 ? "node" : "nodes"}
          </span>
        </div>
        <NodeActivityProvider nodeIds={shownIds} changed={shownChanged}>
          <DataTable
            table={table}
            caption="Nodes"
            className="min-w-[1080px]"
            headerClassName="whitespace-nowrap"
            rowClassName={(row) => (row.original.connected ? "" : "text-fg-subtle")}
            empty={
              <>
                No node matches these filters.{" "}
                <button
                  type="button"
                  onClick={clear}
                  className="font-medium text-accent underline-offset-2 hover:underline"
                >
                  Clear the filters
                </button>
              </>
            }
          />
        </NodeActivityProvider>
      </div>
    );
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Nodes"
        description={
          counts && total > 0 ? (
            <>
              <span className="tabular-nums">{counts.connected}</span> connected
              {counts.disconnected > 0 && (
                <>
                  {" "}
                  · <span className="tabular-nums">{counts.disconnected}</span> recently
                  disconnected
                </>
              )}
              . Every proxy any replica serves, and whether it took what was sent.
            </>
          ) : (
            "Every proxy any replica serves, and whether it took what was sent."
          )
        }
        actions={<LiveBadge state={state} onReconnect={reconnectNow} />}
      />
      {body}
    </div>
  );
}

/** `value`, once it has not changed for `ms` (the first value at once). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
