import {
  flexRender,
  getPaginationRowModel,
  type Row,
  type Table,
  type TableOptions,
} from "@tanstack/react-table";
import { memo, type ReactNode, useEffect } from "react";

/** Rows a table shows at a time: enough to scan, few enough to render fast with 1,000 nodes. */
export const PAGE_SIZE = 50;

/**
 * Table options that show PAGE_SIZE rows at a time. Search, filters and sorting still apply to
 * every row (they run before pagination). A live table passes `live` so that a message changing
 * its data keeps the reader on their page (it is reset explicitly when a filter changes).
 */
export function paged<T>(
  options: { live?: boolean } = {},
): Pick<TableOptions<T>, "getPaginationRowModel" | "initialState" | "autoResetPageIndex"> {
  return {
    getPaginationRowModel: getPaginationRowModel(),
    initialState: { pagination: { pageIndex: 0, pageSize: PAGE_SIZE } },
    ...(options.live ? { autoResetPageIndex: false } : {}),
  };
}

/**
 * A TanStack table rendered the console's way: sortable column headings are buttons with
 * aria-sort, each row's first cell is its row heading, and `empty` fills one full-width row when
 * no row is left (e.g. after filtering). A paged table (`paged()`) gets page controls below it.
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
    <div className="flex flex-col gap-2">
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
                        sorted === "asc"
                          ? "ascending"
                          : sorted === "desc"
                            ? "descending"
                            : undefined
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
              <DataRow
                key={row.id}
                row={row}
                original={row.original}
                columns={table.options.columns}
                className={rowClassName?.(row) ?? ""}
              />
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
      <Pager table={table} label={caption} />
    </div>
  );
}

/**
 * One body row. Memoized on the row's object, the column definitions and its classes: a live
 * message that replaces a few rows re-renders those rows only, not the whole page.
 */
const DataRow = memo(
  function DataRow<T>({ row, className }: RowProps<T>) {
    return (
      <tr className={`align-middle transition-colors hover:bg-surface-hover ${className}`}>
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
    );
  },
  (a, b) => a.original === b.original && a.columns === b.columns && a.className === b.className,
) as <T>(props: RowProps<T> & { key?: string }) => ReactNode;

interface RowProps<T> {
  row: Row<T>;
  /** What the row shows, compared by identity. */
  original: T;
  columns: unknown;
  className: string;
}

/**
 * "Rows 51–100 of 1,000" and First / Previous / Next / Last buttons, for a table with more than
 * one page. A page left beyond the end (the rows shrank under a live table) moves to the last one.
 */
export function Pager<T>({ table, label }: { table: Table<T>; label: string }) {
  const { pageIndex, pageSize } = table.getState().pagination;
  const pageCount = table.getPageCount();
  useEffect(() => {
    if (pageCount > 0 && pageIndex >= pageCount) table.setPageIndex(pageCount - 1);
  }, [table, pageIndex, pageCount]);
  const serverPaged = table.options.manualPagination === true;
  if ((!table.options.getPaginationRowModel && !serverPaged) || pageCount <= 1) return null;
  // A server-paged table knows its total from the server (`rowCount`), not from its rows.
  const total = serverPaged ? table.getRowCount() : table.getPrePaginationRowModel().rows.length;
  const from = Math.min(total, pageIndex * pageSize + 1);
  const to = Math.min(total, (pageIndex + 1) * pageSize);
  const button =
    "inline-flex h-7 items-center rounded-md border bg-surface px-2.5 font-medium text-fg-muted shadow-xs transition-colors hover:bg-surface-hover hover:text-fg disabled:cursor-not-allowed disabled:opacity-50";
  return (
    <nav
      aria-label={`${label}, pages`}
      className="flex flex-wrap items-center justify-between gap-3 text-xs text-fg-muted"
    >
      <p className="tabular-nums" aria-live="polite">
        Rows {from}–{to} of {total.toLocaleString("en")}
      </p>
      <div className="flex items-center gap-1.5">
        <button
          type="button"
          className={button}
          onClick={() => table.firstPage()}
          disabled={!table.getCanPreviousPage()}
        >
          First<span className="sr-only"> page</span>
        </button>
        <button
          type="button"
          className={button}
          onClick={() => table.previousPage()}
          disabled={!table.getCanPreviousPage()}
        >
          Previous<span className="sr-only"> page</span>
        </button>
        <span className="px-1.5 tabular-nums">
          Page {pageIndex + 1} of {pageCount}
        </span>
        <button
          type="button"
          className={button}
          onClick={() => table.nextPage()}
          disabled={!table.getCanNextPage()}
        >
          Next<span className="sr-only"> page</span>
        </button>
        <button
          type="button"
          className={button}
          onClick={() => table.lastPage()}
          disabled={!table.getCanNextPage()}
        >
          Last<span className="sr-only"> page</span>
        </button>
      </div>
    </nav>
  );
}
