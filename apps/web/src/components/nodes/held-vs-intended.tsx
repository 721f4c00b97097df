"use client";

import type { NodeDetail } from "@switchyard/proto/switchyard/v1/status_pb";
import type { Route } from "next";
import { useMemo, useState } from "react";
import { Link } from "@/components/ui/link";
import {
  compareHeld,
  type ResourceVerdict,
  rowsWorthShowing,
  type TypeComparison,
} from "@/lib/held-vs-intended";
import { typeLabel } from "@/lib/node-list";

const verdictPresentation: Record<ResourceVerdict, { label: string; className: string }> = {
  "in-sync": { label: "in sync", className: "text-success" },
  "different-version": { label: "different version", className: "text-danger" },
  missing: { label: "missing", className: "text-danger" },
  extra: { label: "extra", className: "text-warning" },
  unknown: { label: "cannot tell", className: "text-fg-subtle" },
};

const chip = {
  inSync: { label: "in sync", className: "bg-success/10 text-success ring-success/30" },
  differs: { label: "differs", className: "bg-danger-soft text-danger ring-danger-border" },
  unknown: {
    label: "cannot tell",
    className: "bg-warning-soft text-warning ring-warning-border",
  },
} as const;

function typeChip(t: TypeComparison) {
  if (t.inSync) return chip.inSync;
  const differs = t.rows.some((r) => r.verdict !== "in-sync" && r.verdict !== "unknown");
  return differs ? chip.differs : chip.unknown;
}

/**
 * What the node holds (its latest ACK of each type) next to what the latest published version
 * gives it (NodeDetail.held[].intended), resource by resource (held-vs-intended.ts).
 */
export function HeldVsIntended({ node }: { node: NodeDetail }) {
  const published = node.intendedVersion > 0n;
  const types = useMemo(() => compareHeld(node.held), [node.held]);
  // Per type, the resources held back because of a NACK, and why (TypeStatus.held_back).
  const heldBack = useMemo(
    () =>
      new Map(
        (node.summary?.types ?? []).map((type) => [
          type.typeUrl,
          new Map(
            type.heldBack.map((resource) => [
              resource.name,
              resource.reason.case === "needs"
                ? `held back: needs ${typeLabel(resource.reason.value.typeUrl)} ${resource.reason.value.name}`
                : "rejected by the node",
            ]),
          ),
        ]),
      ),
    [node.summary],
  );
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
          {published ? (
            <>
              What the node ACKed, against what{" "}
              <Link
                href={`/history?version=${node.intendedVersion}` as Route}
                className="text-accent hover:underline"
              >
                version {node.intendedVersion.toString()}
              </Link>{" "}
              gives it
              {node.intendedGroup ? (
                <>
                  {" "}
                  (node group <span className="font-mono text-fg-muted">{node.intendedGroup}</span>)
                </>
              ) : (
                " (no node group selects it)"
              )}
              .
            </>
          ) : (
            "No published version to compare with yet."
          )}
        </p>
      </header>
      {!published ? null : types.length === 0 ? (
        <p className="px-5 py-6 text-center text-fg-subtle">
          The node holds nothing yet: it has not requested any resource type.
        </p>
      ) : (
        <div className="grid gap-px bg-border md:grid-cols-2">
          {types.map((t) => (
            <TypeRows key={t.typeUrl} type={t} heldBack={heldBack.get(t.typeUrl)} />
          ))}
        </div>
      )}
    </section>
  );
}

/**
 * Rows of one type shown before "Show all": every row that is not in sync, and in-sync rows up to
 * this many. A proxy holding 500 clusters and their endpoints listed them all, ten thousand
 * elements the page laid out before anyone could use it; what needs reading is what differs.
 */
const ROWS_SHOWN = 20;

function TypeRows({
  type: t,
  heldBack,
}: {
  type: TypeComparison;
  /** Resource name → why it is held back from the node. */
  heldBack: ReadonlyMap<string, string> | undefined;
}) {
  const c = typeChip(t);
  const [all, setAll] = useState(false);
  const rows = all ? t.rows : rowsWorthShowing(t.rows, ROWS_SHOWN);
  const hidden = t.rows.length - rows.length;
  return (
    <div className="bg-surface">
      <h3 className="flex items-center gap-2 px-5 pt-3 pb-2 text-[13px]">
        <span className="font-mono font-semibold text-fg" title={t.typeUrl}>
          {typeLabel(t.typeUrl)}
        </span>
        <span
          className={`rounded px-1.5 py-px text-[11px] font-semibold ring-1 ring-inset ${c.className}`}
        >
          {c.label}
        </span>
        {!t.versionsKnown && (
          <span className="text-xs text-fg-subtle">resource versions not reported</span>
        )}
      </h3>
      {t.rows.length === 0 ? (
        <p className="px-5 pb-3 text-xs text-fg-subtle">
          No resource of this type held or intended.
        </p>
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
                Intended
              </th>
              <th scope="col" className="px-5 py-1 font-medium">
                Verdict
              </th>
            </tr>
          </thead>
          <tbody className="divide-y">
            {rows.map((r) => (
              <tr key={r.name}>
                <th
                  scope="row"
                  className="px-5 py-1.5 font-mono text-xs font-medium [overflow-wrap:anywhere]"
                >
                  {r.name}
                </th>
                <VersionCell version={r.held} absent="not held" />
                <VersionCell version={r.intended} absent="not intended" />
                <td
                  className={`px-5 py-1.5 text-xs font-medium ${verdictPresentation[r.verdict].className}`}
                >
                  {verdictPresentation[r.verdict].label}
                  {heldBack?.has(r.name) && (
                    <span className="block font-normal text-danger">{heldBack.get(r.name)}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {hidden > 0 && (
        <p className="flex items-center gap-2 px-5 pt-1 pb-3 text-xs text-fg-subtle">
          {hidden.toLocaleString("en")} more in sync.
          <button
            type="button"
            onClick={() => setAll(true)}
            className="font-medium text-accent underline-offset-2 hover:underline"
          >
            Show all {t.rows.length.toLocaleString("en")}
          </button>
        </p>
      )}
    </div>
  );
}

function VersionCell({ version, absent }: { version: string | undefined; absent: string }) {
  return (
    <td
      className="max-w-[8rem] truncate px-3 py-1.5 font-mono text-xs text-fg-muted"
      title={version}
    >
      {version === undefined ? (
        <span className="font-sans text-fg-subtle">{absent}</span>
      ) : (
        version || "—"
      )}
    </td>
  );
}
