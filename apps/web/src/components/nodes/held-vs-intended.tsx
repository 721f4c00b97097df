"use client";

import type { ObjectChange } from "@switchyard/proto/switchyard/v1/config_pb";
import type { HeldResources, NodeConvergence } from "@switchyard/proto/switchyard/v1/status_pb";
import Link from "next/link";
import { useMemo } from "react";
import {
  compareHeld,
  type LatestChange,
  type ResourceVerdict,
  type TypeSyncState,
} from "@/lib/held-vs-intended";
import { typeLabel } from "@/lib/node-list";

const verdictPresentation: Record<ResourceVerdict, { label: string; className: string }> = {
  current: { label: "current", className: "text-success" },
  outdated: { label: "outdated: runs the previous content", className: "text-danger" },
  missing: { label: "not received", className: "text-danger" },
  "to-remove": { label: "still held: removed in this version", className: "text-warning" },
  "not-for-node": { label: "not for this node", className: "text-fg-subtle" },
  unknown: { label: "cannot tell", className: "text-fg-subtle" },
};

const stateChip: Record<TypeSyncState, { label: string; className: string }> = {
  "in-sync": { label: "in sync", className: "bg-success/10 text-success ring-success/30" },
  behind: { label: "behind", className: "bg-surface-muted text-fg-muted ring-border" },
  nacked: { label: "rejected", className: "bg-danger-soft text-danger ring-danger-border" },
  unknown: { label: "cannot tell", className: "bg-warning-soft text-warning ring-warning-border" },
};

const changeLabel: Record<LatestChange, string> = {
  unchanged: "—",
  added: "added",
  modified: "modified",
  removed: "removed",
};

/**
 * What the node holds (its latest ACK of each type) next to what the latest published version
 * gives it, resource by resource (held-vs-intended.ts).
 */
export function HeldVsIntended({
  held,
  version,
  node,
  changes,
}: {
  held: readonly HeldResources[];
  /** The latest published version; undefined while unknown or when none was published. */
  version: bigint | undefined;
  node: NodeConvergence | undefined;
  changes: readonly ObjectChange[] | undefined;
}) {
  const types = useMemo(() => compareHeld(held, node, changes ?? []), [held, node, changes]);
  return (
    <section
      aria-labelledby="held-title"
      className="overflow-hidden rounded-xl border bg-surface shadow-xs"
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1 border-b px-5 py-3">
        <h2 id="held-title" className="text-sm font-semibold text-fg">
          Held vs latest version
        </h2>
        <p className="text-xs text-fg-subtle">
          {version === undefined ? (
            "No published version to compare with yet."
          ) : (
            <>
              What the node ACKed, against{" "}
              <Link href="/history" className="text-accent hover:underline">
                version {version.toString()}
              </Link>
              {node?.group && <> (node group {node.group})</>}; “latest change” is what that version
              changed.
            </>
          )}
        </p>
      </header>
      {types.length === 0 ? (
        <p className="px-5 py-6 text-center text-fg-subtle">
          The node holds nothing yet: it has not ACKed any resource.
        </p>
      ) : (
        <div className="grid gap-px bg-border md:grid-cols-2">
          {types.map((t) => (
            <div key={t.typeUrl} className="bg-surface">
              <h3 className="flex items-center gap-2 px-5 pt-3 pb-2 text-[13px]">
                <span className="font-mono font-semibold text-fg" title={t.typeUrl}>
                  {typeLabel(t.typeUrl)}
                </span>
                {t.state && (
                  <span
                    className={`rounded px-1.5 py-px text-[11px] font-semibold ring-1 ring-inset ${stateChip[t.state].className}`}
                  >
                    {stateChip[t.state].label}
                  </span>
                )}
                {!t.versionsKnown && (
                  <span className="text-xs text-fg-subtle">resource versions not reported</span>
                )}
              </h3>
              {t.rows.length === 0 ? (
                <p className="px-5 pb-3 text-xs text-fg-subtle">No resource of this type.</p>
              ) : (
                <table className="w-full text-left text-[13px]">
                  <caption className="sr-only">
                    {typeLabel(t.typeUrl)} resources held against the latest version
                  </caption>
                  <thead className="text-xs text-fg-subtle">
                    <tr>
                      <th scope="col" className="px-5 py-1 font-medium">
                        Resource
                      </th>
                      <th scope="col" className="px-3 py-1 font-medium">
                        Held
                      </th>
                      <th scope="col" className="px-3 py-1 font-medium">
                        Latest change
                      </th>
                      <th scope="col" className="px-5 py-1 font-medium">
                        Verdict
                      </th>
                    </tr>
                  </thead>
                  <tbody className="divide-y">
                    {t.rows.map((r) => (
                      <tr key={r.name}>
                        <th
                          scope="row"
                          className="px-5 py-1.5 font-mono text-xs font-medium [overflow-wrap:anywhere]"
                        >
                          {r.name}
                        </th>
                        <td
                          className="max-w-[8rem] truncate px-3 py-1.5 font-mono text-xs text-fg-muted"
                          title={r.heldVersion}
                        >
                          {r.heldVersion === undefined ? "not held" : r.heldVersion || "held"}
                        </td>
                        <td className="px-3 py-1.5 text-xs text-fg-muted">
                          {changeLabel[r.latest]}
                        </td>
                        <td
                          className={`px-5 py-1.5 text-xs font-medium ${verdictPresentation[r.verdict].className}`}
                        >
                          {verdictPresentation[r.verdict].label}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
