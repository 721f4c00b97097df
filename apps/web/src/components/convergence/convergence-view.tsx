"use client";

import type { Convergence, NodeConvergence } from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeConvergenceState } from "@switchyard/proto/switchyard/v1/status_pb";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useId, useMemo } from "react";
import { Button } from "@/components/ui/button";
import { Pager, paged } from "@/components/ui/data-table";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusPill } from "@/components/ui/status-pill";
import {
  type ConvergenceFeed,
  formatMs,
  type NodeRolloutState,
  nodeState,
  nodesByUrgency,
  type RolloutSummary,
  shortTypeName,
  summarizeRollout,
} from "@/lib/convergence";
import { RolloutBar, RolloutHeadline, RolloutStat } from "./rollout-summary";
import { RolloutTraffic } from "./rollout-traffic";
import { useConvergence } from "./use-convergence";

/**
 * A published version rolling out to the fleet, live: how many connected nodes took it, rejected
 * it or are still waiting, how fast (p50/p99 publish → ACK), and each node with its NACK text.
 * Shared by the Changes page (after a publish) and History (after a rollback).
 */
export function ConvergencePanel({ version }: { version: bigint }) {
  const { feed, refresh } = useConvergence(version);
  const titleId = useId();
  const convergence = feed.t === "connecting" ? undefined : feed.convergence;
  const summary = useMemo(
    () => (convergence ? summarizeRollout(convergence) : undefined),
    [convergence],
  );
  return (
    <section
      aria-labelledby={titleId}
      className="overflow-hidden rounded-xl border bg-surface shadow-xs"
    >
      <header className="flex flex-wrap items-center gap-3 border-b px-5 py-3.5">
        <h2 id={titleId} className="text-base font-semibold text-fg">
          Rollout of version <span className="tabular-nums">{version.toString()}</span>
        </h2>
        <FeedBadge feed={feed} />
        {(feed.t === "snapshot" || feed.t === "failed") && (
          <Button className="ml-auto" onClick={refresh}>
            <RefreshIcon className="size-4" />
            {feed.t === "failed" ? "Reconnect" : "Refresh"}
          </Button>
        )}
      </header>
      {feed.t === "failed" && (
        <p
          role="alert"
          className="flex items-center gap-2 border-b border-danger-border bg-danger-soft px-5 py-2.5 text-fg-muted"
        >
          <AlertTriangleIcon className="size-4 shrink-0 text-danger" />
          Live status is unavailable: {feed.error.rawMessage}.
          {feed.convergence ? " Showing the last state received." : ""}
        </p>
      )}
      {feed.t === "snapshot" && (
        <p className="border-b bg-surface-muted px-5 py-2 text-xs text-fg-muted">
          This server does not stream convergence yet: showing the state as read{" "}
          <RelativeTime date={feed.at} />. Refresh to read it again.
        </p>
      )}
      {summary && convergence ? (
        <div className="flex flex-col gap-5 p-5">
          <Summary summary={summary} />
          <RolloutTraffic version={version} />
          <NodeTable convergence={convergence} />
        </div>
      ) : feed.t === "connecting" ? (
        <div aria-busy="true" className="p-5">
          <p role="status" className="text-fg-muted">
            Connecting to the fleet’s status…
          </p>
          <div className="mt-4 h-2 rounded-full bg-surface-muted motion-safe:animate-pulse-late" />
        </div>
      ) : null}
    </section>
  );
}

function FeedBadge({ feed }: { feed: ConvergenceFeed }) {
  switch (feed.t) {
    case "live":
      return (
        <StatusPill tone="success" dot="still">
          Live
        </StatusPill>
      );
    case "connecting":
      return <StatusPill tone="muted">Connecting</StatusPill>;
    case "snapshot":
      return <StatusPill tone="muted">Not live</StatusPill>;
    case "failed":
      return <StatusPill tone="danger">Disconnected</StatusPill>;
  }
}

function Summary({ summary }: { summary: RolloutSummary }) {
  const stat = "text-lg tracking-tight" as const;
  return (
    <div className="flex flex-col gap-4">
      <RolloutHeadline summary={summary} className="text-[15px]" />
      <RolloutBar summary={summary} pulsePending />
      <dl className="grid grid-cols-3 gap-3 md:grid-cols-6">
        <RolloutStat label="Targeted" value={summary.targeted} size={stat} />
        <RolloutStat label="Acked" value={summary.acked} tone="text-success" size={stat} />
        <RolloutStat
          label="Nacked"
          value={summary.nacked}
          tone={summary.nacked > 0 ? "text-danger" : "text-fg"}
          size={stat}
        />
        <RolloutStat label="Pending" value={summary.pending} size={stat} />
        <RolloutStat label="p50 to ACK" value={summary.p50 ?? "—"} size={stat} />
        <RolloutStat
          label="p99 to ACK"
          value={summary.p99 ?? "—"}
          size={stat}
          note={summary.connectedLater}
        />
      </dl>
    </div>
  );
}

const stateChip: Record<NodeRolloutState, { label: string; className: string }> = {
  acked: { label: "ACKed", className: "bg-success/10 text-success ring-success/30" },
  nacked: { label: "NACKed", className: "bg-danger-soft text-danger ring-danger-border" },
  pending: { label: "Pending", className: "bg-surface-muted text-fg-muted ring-border" },
};

const typeDot: Record<TypeConvergenceState, string> = {
  [TypeConvergenceState.UNSPECIFIED]: "bg-fg-subtle",
  [TypeConvergenceState.IN_SYNC]: "bg-success",
  [TypeConvergenceState.BEHIND]: "bg-fg-subtle",
  [TypeConvergenceState.NACKED]: "bg-danger",
  [TypeConvergenceState.UNKNOWN]: "bg-warning",
};
const typeStateName: Record<TypeConvergenceState, string> = {
  [TypeConvergenceState.UNSPECIFIED]: "unknown",
  [TypeConvergenceState.IN_SYNC]: "in sync",
  [TypeConvergenceState.BEHIND]: "behind",
  [TypeConvergenceState.NACKED]: "rejected",
  [TypeConvergenceState.UNKNOWN]: "cannot tell",
};

const columns: ColumnDef<NodeConvergence>[] = [
  {
    id: "node",
    header: "Node",
    cell: ({ row }) => (
      <div className="min-w-0">
        <a
          href={`/nodes/${encodeURIComponent(row.original.nodeId)}`}
          className="font-mono text-[13px] font-medium text-fg hover:text-accent hover:underline [overflow-wrap:anywhere]"
        >
          {row.original.nodeId}
        </a>
        <p className="text-xs text-fg-subtle">
          {row.original.cluster || "no cluster"}
          {row.original.group && <> · group {row.original.group}</>}
        </p>
      </div>
    ),
  },
  {
    id: "state",
    header: "State",
    cell: ({ row }) => {
      const chip = stateChip[nodeState(row.original)];
      return (
        <span
          className={`inline-flex rounded px-1.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${chip.className}`}
        >
          {chip.label}
        </span>
      );
    },
  },
  {
    id: "ack",
    header: "Publish → ACK",
    cell: ({ row }) =>
      row.original.ackMs === undefined ? (
        <span className="text-fg-subtle">—</span>
      ) : (
        <span className="tabular-nums">{formatMs(row.original.ackMs)}</span>
      ),
  },
  {
    id: "types",
    header: "Types",
    cell: ({ row }) => (
      <ul className="flex flex-wrap gap-1.5">
        {row.original.types.map((t) => (
          <li
            key={t.typeUrl}
            title={`${t.typeUrl}: ${typeStateName[t.state]}`}
            className="inline-flex items-center gap-1 rounded border bg-surface-muted px-1.5 py-px font-mono text-[11px] text-fg-muted"
          >
            <span aria-hidden="true" className={`size-1.5 rounded-full ${typeDot[t.state]}`} />
            {shortTypeName(t.typeUrl)}
            <span className="sr-only">: {typeStateName[t.state]}</span>
          </li>
        ))}
      </ul>
    ),
  },
  {
    id: "nack",
    header: "NACK",
    cell: ({ row }) =>
      row.original.nackMessage ? (
        <p className="font-mono text-xs text-danger [overflow-wrap:anywhere]">
          <span className="text-fg-subtle">{shortTypeName(row.original.nackTypeUrl)}: </span>
          {row.original.nackMessage}
        </p>
      ) : (
        <span className="text-fg-subtle">—</span>
      ),
  },
];

function NodeTable({ convergence }: { convergence: Convergence }) {
  const data = useMemo(() => nodesByUrgency(convergence.nodes), [convergence.nodes]);
  const table = useReactTable({
    data,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (n) => n.nodeId,
    ...paged<NodeConvergence>({ live: true }),
  });
  if (data.length === 0) {
    return (
      <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-muted">
        No proxy is connected. Point an Envoy or a gRPC xDS client at this server (see{" "}
        <code className="font-mono text-fg">switchyard bootstrap</code>) and it will get this
        version as it connects.
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <div className="overflow-x-auto rounded-lg border">
        <table className="w-full min-w-[760px] text-left">
          <caption className="sr-only">Nodes and their progress towards this version</caption>
          <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col" className="px-3 py-2 font-medium">
                    {flexRender(header.column.columnDef.header, header.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y">
            {table.getRowModel().rows.map((row) => (
              <tr key={row.id} className="align-top">
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className="px-3 py-2.5">
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager table={table} label="Nodes and their progress towards this version" />
    </div>
  );
}
