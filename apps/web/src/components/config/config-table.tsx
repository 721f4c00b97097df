"use client";

import {
  type ColumnDef,
  getCoreRowModel,
  getFilteredRowModel,
  getSortedRowModel,
  type SortingState,
  useReactTable,
} from "@tanstack/react-table";
import { useId, useState } from "react";
import { inputClass } from "@/components/form/field";
import { DataTable, paged } from "@/components/ui/data-table";

/**
 * A searchable, sortable table of stored objects. `searchText` is what the search box matches
 * (case-insensitive), so a cluster can be found by an endpoint's address, not only its name.
 * Shows a page of rows at a time; search and sorting cover every row and return to page 1.
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
    ...paged<T>(),
  });
  const matching = table.getPrePaginationRowModel().rows.length;

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
          {filter ? `${matching} of ${data.length}` : `${data.length}`}{" "}
          {data.length === 1 ? "object" : "objects"}
        </span>
      </div>
      <DataTable
        table={table}
        caption={caption}
        className="min-w-[760px]"
        empty={
          <>
            Nothing matches “{filter}”.{" "}
            <button
              type="button"
              onClick={() => setFilter("")}
              className="font-medium text-accent underline-offset-2 hover:underline"
            >
              Clear the search
            </button>
          </>
        }
      />
    </div>
  );
}
