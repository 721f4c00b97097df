"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { SnapshotInfo } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Rollout } from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { VersionConvergence } from "@switchyard/proto/switchyard/v1/status_pb";
import { type ColumnDef, flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import type { Route } from "next";
import { RolloutMarks } from "@/components/rollouts/rollout-marks";
import { PAGE_SIZE, Pager, paged } from "@/components/ui/data-table";
import { Link } from "@/components/ui/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { convergenceLine } from "@/lib/version-convergence";

function versionHref(version: bigint): Route {
  return `/history?version=${version}` as Route;
}

const columns: ColumnDef<SnapshotInfo>[] = [
  {
    id: "version",
    header: "Version",
    cell: ({ row, table }) => {
      const s = row.original;
      const selected = (table.options.meta as TableMeta).selected === s.version;
      return (
        <Link
          href={versionHref(s.version)}
          scroll={false}
          aria-current={selected ? "true" : undefined}
          className="font-mono text-[13px] font-semibold text-fg tabular-nums after:absolute after:inset-0 hover:text-accent"
        >
          v{s.version.toString()}
        </Link>
      );
    },
  },
  {
    id: "message",
    header: "Message",
    cell: ({ row, table }) => {
      const s = row.original;
      const meta = table.options.meta as TableMeta;
      const rollouts = meta.rollouts.get(s.version);
      const convergence = meta.convergence.get(s.version);
      return (
        <div className="min-w-0">
          <p className="truncate text-fg" title={s.message}>
            {s.message || <span className="text-fg-subtle">No message</span>}
          </p>
          {s.rolledBackFrom > 0n && (
            <p className="mt-0.5 text-xs text-warning">
              Rollback to v{s.rolledBackFrom.toString()}
            </p>
          )}
          <RolloutMarks rollouts={rollouts} className="mt-0.5" />
          {convergence && (
            <p
              className={`mt-0.5 truncate text-xs ${convergence.nackedEver > 0 ? "text-danger" : "text-fg-subtle"}`}
            >
              <span className="sr-only">Convergence: </span>
              {convergenceLine(convergence)}
            </p>
          )}
        </div>
      );
    },
  },
  {
    id: "author",
    header: "Author",
    cell: ({ row }) => <span className="text-fg-muted">{row.original.author || "anonymous"}</span>,
  },
  {
    id: "time",
    header: "Published",
    cell: ({ row }) =>
      row.original.createTime ? (
        <RelativeTime date={timestampDate(row.original.createTime)} className="text-fg-muted" />
      ) : null,
  },
  {
    id: "changes",
    header: "Changes",
    cell: ({ row }) => {
      const s = row.original;
      return (
        <span className="flex gap-2 font-mono text-xs tabular-nums">
          <span className="text-success">+{s.added}</span>
          <span className="text-warning">~{s.modified}</span>
          <span className="text-danger">−{s.removed}</span>
          <span className="sr-only">
            {s.added} added, {s.modified} modified, {s.removed} removed
          </span>
        </span>
      );
    },
  },
];

interface TableMeta {
  selected: bigint | undefined;
  /** The rollouts of each version (rollout-marks.tsx). */
  rollouts: ReadonlyMap<bigint, readonly Rollout[]>;
  /** How each version converged over the fleet (ListVersionConvergence). */
  convergence: ReadonlyMap<bigint, VersionConvergence>;
}

/**
 * Every published version, newest first; a row links to that version's diff, and a version that
 * went out as rollouts links to each, with how it ended, and each says how it converged (time
 * to 100% of the nodes connected at its publish, its NACKs).
 */
export function VersionTable({
  snapshots,
  selected,
  rollouts,
  convergence,
}: {
  snapshots: readonly SnapshotInfo[];
  selected: bigint | undefined;
  rollouts: ReadonlyMap<bigint, readonly Rollout[]>;
  convergence: ReadonlyMap<bigint, VersionConvergence>;
}) {
  const table = useReactTable({
    data: snapshots as SnapshotInfo[],
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (s) => s.version.toString(),
    meta: { selected, rollouts, convergence } satisfies TableMeta,
    ...paged<SnapshotInfo>(),
    // Open on the page that holds the selected version (a link to an older one).
    initialState: {
      pagination: {
        pageIndex: Math.max(
          0,
          Math.floor(snapshots.findIndex((s) => s.version === selected) / PAGE_SIZE),
        ),
        pageSize: PAGE_SIZE,
      },
    },
  });
  const latest = snapshots[0]?.version;
  return (
    <div className="flex flex-col gap-2">
      <div className="max-h-[26rem] overflow-auto rounded-lg border bg-surface shadow-xs">
        <table className="w-full min-w-[720px] table-fixed text-left">
          <caption className="sr-only">Published versions, newest first</caption>
          <colgroup>
            <col className="w-28" />
            <col />
            <col className="w-36" />
            <col className="w-36" />
            <col className="w-32" />
          </colgroup>
          <thead className="sticky top-0 z-10 border-b bg-surface-muted text-xs text-fg-subtle">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => (
                  <th key={header.id} scope="col" className="px-4 py-2.5 font-medium">
                    {flexRender(header.column.columnDef.header, header.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y">
            {table.getRowModel().rows.map((row) => {
              const isSelected = row.original.version === selected;
              return (
                <tr
                  key={row.id}
                  className={`relative transition-colors ${
                    isSelected ? "bg-accent-soft" : "hover:bg-surface-hover"
                  }`}
                >
                  {row.getVisibleCells().map((cell) => (
                    <td key={cell.id} className="px-4 py-2.5 align-top">
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                      {cell.column.id === "version" && row.original.version === latest && (
                        <span className="ml-2 rounded-full bg-success/10 px-1.5 py-px text-[11px] font-medium text-success ring-1 ring-success/30 ring-inset">
                          live
                        </span>
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <Pager table={table} label="Published versions" />
    </div>
  );
}
