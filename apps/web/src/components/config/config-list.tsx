"use client";

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ConnectError } from "@connectrpc/connect";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import type { ReactNode } from "react";
import { useWriteAccess } from "@/components/access/use-write-access";
import { buttonClass } from "@/components/ui/button";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadError, PageHeader, TableSkeleton } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ConfigKindLabel } from "@/lib/write-access";
import { ConfigTable } from "./config-table";
import { DeleteRowButton, RowDeletes } from "./delete-row-button";

/** A link to another stored object, as a small mono chip (a listener's route configuration). */
export const linkChip =
  "inline-flex items-center rounded-md border bg-surface-muted px-1.5 py-0.5 font-mono text-xs text-fg-muted hover:border-border-strong hover:text-fg";

interface Named {
  readonly name: string;
}

/** The first column of every list: the object's name, linking to its editor. */
export function nameColumn<T extends Named>(
  hrefOf: (name: string) => Route,
): ColumnDef<T, unknown> {
  return {
    id: "name",
    header: "Name",
    accessorFn: (o) => o.name,
    cell: ({ row }) => (
      <Link
        href={hrefOf(row.original.name)}
        className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
      >
        {row.original.name}
      </Link>
    ),
  };
}

/** When the object was last saved to the draft, sortable. */
export function updatedColumn<
  T extends { readonly updateTime?: Timestamp | undefined },
>(): ColumnDef<T, unknown> {
  return {
    id: "updated",
    header: "Updated",
    accessorFn: (o) => (o.updateTime ? Number(o.updateTime.seconds) : 0),
    cell: ({ row }) =>
      row.original.updateTime ? (
        <RelativeTime date={timestampDate(row.original.updateTime)} />
      ) : null,
  };
}

/** The last column: "Delete" with a confirmation (DeleteRowButton). */
export function deleteColumn<T extends Named>(options: {
  label: string;
  remove: (name: string) => Promise<unknown>;
  consequence?: string;
}): ColumnDef<T, unknown> {
  return {
    id: "actions",
    header: () => <span className="sr-only">Actions</span>,
    enableSorting: false,
    cell: ({ row }) => (
      <div className="flex justify-end">
        <DeleteRowButton name={row.original.name} {...options} />
      </div>
    ),
  };
}

/**
 * A configuration list page: header with the "New …" link, then the objects in a searchable
 * table, an empty state that explains the kind and creates the first one, a skeleton while
 * loading, or the load error with a retry.
 */
export function ConfigList<D, T>({
  query,
  rowsOf,
  title,
  description,
  newHref,
  newLabel,
  what,
  empty,
  table,
  creates,
}: {
  query: UseQueryResult<D, ConnectError>;
  rowsOf: (data: D) => readonly T[];
  title: string;
  description: string;
  newHref: Route;
  /** The header's link, e.g. "New cluster". */
  newLabel: string;
  /** The kind in the plural, lower case: "Couldn’t load clusters", "Loading clusters…". */
  what: string;
  empty: { icon: ReactNode; title: string; action: string; children: ReactNode };
  table: {
    caption: string;
    columns: ColumnDef<T, unknown>[];
    searchPlaceholder: string;
    searchText: (row: T) => string;
  };
  /** The configuration kind the "New …" link creates: shown only to who may create one. */
  creates?: ConfigKindLabel;
}) {
  const access = useWriteAccess(creates ?? "cluster");
  const canCreate = creates === undefined || access.t === "allowed";
  let body: ReactNode;
  if (query.data) {
    const rows = rowsOf(query.data);
    body =
      rows.length === 0 ? (
        <EmptyState
          icon={empty.icon}
          title={empty.title}
          actions={
            canCreate ? (
              <Link href={newHref} className={buttonClass("primary")}>
                {empty.action}
              </Link>
            ) : undefined
          }
        >
          {empty.children}
        </EmptyState>
      ) : (
        <RowDeletes>
          <ConfigTable data={rows} {...table} />
        </RowDeletes>
      );
  } else if (query.error) {
    body = (
      <LoadError
        what={what}
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label={what} />;
  }

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title={title}
        description={description}
        actions={
          canCreate ? (
            <Link href={newHref} className={buttonClass("primary")}>
              {newLabel}
            </Link>
          ) : undefined
        }
      />
      {body}
    </div>
  );
}
