import { RelativeTime } from "@/components/ui/relative-time";
import type { InventoryGroup, InventoryRow, ReferenceTarget } from "@/lib/inventory";

/** One kind's stored objects. Each row is a link target (`#cluster-backend`) for references. */
export function ResourceTable({ group }: { group: InventoryGroup }) {
  return (
    <div className="overflow-x-auto rounded-lg border bg-surface shadow-xs">
      <table className="w-full min-w-[720px] table-fixed text-left">
        <caption className="sr-only">{group.kind.title}</caption>
        <colgroup>
          <col className="w-[26%]" />
          <col />
          <col className="w-[26%]" />
          <col className="w-36" />
        </colgroup>
        <thead className="border-b bg-surface-muted text-xs font-medium text-fg-subtle">
          <tr>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Name
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Description
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              References
            </th>
            <th scope="col" className="px-4 py-2.5 font-medium">
              Last updated
            </th>
          </tr>
        </thead>
        <tbody className="divide-y">
          {group.rows.map((row) => (
            <Row key={row.anchor} row={row} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Row({ row }: { row: InventoryRow }) {
  return (
    <tr
      id={row.anchor}
      className="scroll-mt-24 align-baseline transition-colors hover:bg-surface-hover target:bg-accent-soft"
    >
      <th
        scope="row"
        className="px-4 py-3 font-mono text-[13px] font-medium text-fg [overflow-wrap:anywhere]"
      >
        {row.name}
      </th>
      <td className="px-4 py-3 text-fg-muted [overflow-wrap:anywhere]">
        {row.description || <Absent label="No description" />}
      </td>
      <td className="px-4 py-3">
        {row.references.length > 0 ? (
          <ul className="flex flex-wrap gap-1.5">
            {row.references.map((ref) => (
              <li key={ref.name} className="min-w-0">
                <Reference target={ref} />
              </li>
            ))}
          </ul>
        ) : (
          <Absent label="No references" />
        )}
      </td>
      <td className="px-4 py-3 whitespace-nowrap text-fg-muted tabular-nums">
        {row.updated ? <RelativeTime date={row.updated} /> : <Absent label="Unknown" />}
      </td>
    </tr>
  );
}

const chip =
  "inline-flex max-w-full items-center rounded-md border px-1.5 py-0.5 font-mono text-xs [overflow-wrap:anywhere]";

function Reference({ target }: { target: ReferenceTarget }) {
  if (target.t === "missing") {
    return (
      <span
        className={`${chip} border-dashed border-warning-border bg-warning-soft text-warning`}
        title={`Nothing named “${target.name}” is stored`}
      >
        {target.name}
        <span className="sr-only"> (not stored)</span>
      </span>
    );
  }
  return (
    <a
      href={`#${encodeURIComponent(target.anchor)}`}
      className={`${chip} bg-surface-muted text-fg-muted transition-colors hover:border-border-strong hover:text-fg`}
      title={`Go to ${target.kind.singular} “${target.name}”`}
    >
      {target.name}
    </a>
  );
}

function Absent({ label }: { label: string }) {
  return (
    <span className="text-fg-subtle">
      <span aria-hidden="true">—</span>
      <span className="sr-only">{label}</span>
    </span>
  );
}
