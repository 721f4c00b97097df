import { flexRender, type Row, type Table } from "@tanstack/react-table";
import type { ReactNode } from "react";

/**
 * A TanStack table rendered the console's way: sortable column headings are buttons with
 * aria-sort, each row's first cell is its row heading, and `empty` fills one full-width row when
 * no row is left (e.g. after filtering).
 */
export function DataTable<T>({
  table,
  caption,
  className,
  headerClassName = "",
  rowClassName,
  empty,
}: {
  table: Table<T>;
  caption: string;
  /** The table's own classes, e.g. its minimum width. */
  className: string;
  headerClassName?: string;
  rowClassName?: (row: Row<T>) => string;
  empty: ReactNode;
}) {
  const rows = table.getRowModel().rows;
  return (
    <div className="overflow-x-auto rounded-lg border bg-surface shadow-xs">
      <table className={`w-full text-left ${className}`}>
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                const content = flexRender(header.column.columnDef.header, header.getContext());
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={
                      sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined
                    }
                    className={`px-4 py-2.5 font-medium ${headerClassName}`}
                  >
                    {header.column.getCanSort() ? (
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
            <tr
              key={row.id}
              className={`align-middle transition-colors hover:bg-surface-hover ${rowClassName?.(row) ?? ""}`}
            >
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
              <td
                colSpan={table.getVisibleLeafColumns().length}
                className="px-4 py-8 text-center text-fg-subtle"
              >
                {empty}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
