"use client";

import {
  type ColumnDef,
  flexRender,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  type SortingState,
  useReactTable,
} from "@tanstack/react-table";
import { useId, useState } from "react";
import { inputClass } from "@/components/form/field";

/**
 * A searchable, sortable table of stored objects. `searchText` is what the search box matches
 * (case-insensitive), so a cluster can be found by an endpoint's address, not only its name.
 */
export function ConfigTable<T>({
  caption,
  data,
  columns,
  searchText,
  searchPlaceholder,
}: {
  caption: string;
  data: readonly T[];
  columns: ColumnDef<T, unknown>[];
  searchText: (row: T) => string;
  searchPlaceholder: string;
}) {
  const [filter, setFilter] = useState("");
  const [sorting, setSorting] = useState<SortingState>([]);
  const searchId = useId();
  const table = useReactTable({
    data: data as T[],
    columns,
    state: { globalFilter: filter, sorting },
    onGlobalFilterChange: setFilter,
    onSortingChange: setSorting,
    globalFilterFn: (row, _column, value: string) =>
      searchText(row.original).toLowerCase().includes(value.trim().toLowerCase()),
    getCoreRowModel: getCoreRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  const rows = table.getRowModel().rows;

  return (
    <div className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <label htmlFor={searchId} className="sr-only">
          Search {caption.toLowerCase()}
        </label>
        <input
          id={searchId}
          type="search"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          placeholder={searchPlaceholder}
          className={`${inputClass} max-w-sm`}
        />
        <span className="text-xs text-fg-subtle tabular-nums" aria-live="polite">
          {filter ? `${rows.length} of ${data.length}` : `${data.length}`}{" "}
          {data.length === 1 ? "object" : "objects"}
        </span>
      </div>
      <div className="overflow-x-auto rounded-lg border bg-surface shadow-xs">
        <table className="w-full min-w-[760px] text-left">
          <caption className="sr-only">{caption}</caption>
          <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  const canSort = header.column.getCanSort();
                  const content = flexRender(header.column.columnDef.header, header.getContext());
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={
                        sorted === "asc"
                          ? "ascending"
                          : sorted === "desc"
                            ? "descending"
                            : undefined
                      }
                      className="px-4 py-2.5 font-medium"
                    >
                      {canSort ? (
                        <button
                          type="button"
                          onClick={header.column.getToggleSortingHandler()}
                          className="inline-flex items-center gap-1 rounded hover:text-fg"
                        >
                          {content}
                          <span aria-hidden="true" className="w-2 text-[10px]">
                            {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : ""}
                          </span>
                        </button>
                      ) : (
                        content
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody className="divide-y">
            {rows.map((row) => (
              <tr key={row.id} className="align-middle transition-colors hover:bg-surface-hover">
                {row.getVisibleCells().map((cell, i) =>
                  i === 0 ? (
                    <th key={cell.id} scope="row" className="px-4 py-2.5 font-medium">
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </th>
                  ) : (
                    <td key={cell.id} className="px-4 py-2.5 text-fg-muted">
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ),
                )}
              </tr>
            ))}
            {rows.length === 0 && (
              <tr>
                <td colSpan={columns.length} className="px-4 py-8 text-center text-fg-subtle">
                  Nothing matches “{filter}”.{" "}
                  <button
                    type="button"
                    onClick={() => setFilter("")}
                    className="font-medium text-accent underline-offset-2 hover:underline"
                  >
                    Clear the search
                  </button>
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
