"use client";

import { Fragment, type ReactNode, useMemo, useState } from "react";
import {
  type DiffLine,
  type DiffSegment,
  diffText,
  type InlinePart,
  inlineChanges,
  lineCounts,
  splitRows,
} from "@/lib/line-diff";

export type DiffMode = "unified" | "split";

/** Word-level changes of each replaced line, keyed by the line, from pairing removed with added. */
function inlineParts(lines: readonly DiffLine[]): Map<DiffLine, InlinePart[]> {
  const parts = new Map<DiffLine, InlinePart[]>();
  for (const row of splitRows(lines)) {
    if (row.left?.t === "removed" && row.right?.t === "added") {
      const inline = inlineChanges(row.left.text, row.right.text);
      parts.set(row.left, inline.old);
      parts.set(row.right, inline.new);
    }
  }
  return parts;
}

const rowTone: Record<DiffLine["t"], string> = {
  context: "",
  added: "bg-success/10",
  removed: "bg-danger/10",
};
const markTone: Record<DiffLine["t"], string> = {
  context: "",
  added: "bg-success/25 rounded-sm",
  removed: "bg-danger/25 rounded-sm",
};
const sign: Record<DiffLine["t"], string> = { context: " ", added: "+", removed: "−" };
const srLabel: Record<DiffLine["t"], string> = {
  context: "",
  added: "added: ",
  removed: "removed: ",
};

function LineText({ line, parts }: { line: DiffLine; parts: InlinePart[] | undefined }) {
  return (
    <>
      <span className="sr-only">{srLabel[line.t]}</span>
      {parts
        ? parts.map((p, i) =>
            p.changed ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one line never reorder
              <mark key={i} className={`text-inherit ${markTone[line.t]}`}>
                {p.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: parts of one line never reorder
              <Fragment key={i}>{p.text}</Fragment>
            ),
          )
        : line.text}
    </>
  );
}

const numCell =
  "w-10 select-none px-2 text-right align-top text-fg-subtle tabular-nums whitespace-nowrap";
const textCell = "px-2 align-top whitespace-pre-wrap [overflow-wrap:anywhere]";

/**
 * The before/after diff of one object's YAML, unified or side by side, with unchanged stretches
 * folded behind a button that unfolds them.
 */
export function TextDiff({
  before,
  after,
  mode,
  label,
}: {
  before: string;
  after: string;
  mode: DiffMode;
  /** Names the table for screen readers, e.g. "Changes to cluster backend". */
  label: string;
}) {
  const diff = useMemo(() => diffText(before, after), [before, after]);
  const [unfolded, setUnfolded] = useState<ReadonlySet<number>>(new Set());
  const allLines = useMemo(() => diff.segments.flatMap((s) => s.lines), [diff]);
  const parts = useMemo(() => inlineParts(allLines), [allLines]);

  if (diff.segments.length === 0) {
    return <p className="px-4 py-3 text-fg-subtle">No content on either side.</p>;
  }
  const columns = 4;

  const body: ReactNode[] = [];
  diff.segments.forEach((segment: DiffSegment, index) => {
    if (segment.t === "gap" && !unfolded.has(index)) {
      const n = segment.lines.length;
      body.push(
        <tr
          key={`gap-${segment.lines[0]?.oldNo}-${segment.lines[0]?.newNo}`}
          className="bg-surface-muted"
        >
          <td colSpan={columns} className="p-0">
            <button
              type="button"
              onClick={() => setUnfolded(new Set([...unfolded, index]))}
              className="flex w-full items-center gap-2 px-3 py-1 text-left text-xs text-fg-subtle transition-colors hover:bg-surface-hover hover:text-fg"
            >
              <span aria-hidden="true">⋯</span> Show {n} unchanged {n === 1 ? "line" : "lines"}
            </button>
          </td>
        </tr>,
      );
      return;
    }
    if (mode === "unified") {
      for (const line of segment.lines) {
        body.push(
          <tr key={`${line.t}-${line.oldNo}-${line.newNo}`} className={rowTone[line.t]}>
            <td className={numCell}>{line.oldNo}</td>
            <td className={numCell}>{line.newNo}</td>
            <td aria-hidden="true" className="w-4 select-none text-center align-top text-fg-subtle">
              {sign[line.t]}
            </td>
            <td className={textCell}>
              <LineText line={line} parts={parts.get(line)} />
            </td>
          </tr>,
        );
      }
    } else {
      for (const row of splitRows(segment.lines)) {
        const key = `${row.left?.oldNo ?? "x"}-${row.right?.newNo ?? "x"}`;
        body.push(
          <tr key={key}>
            <td className={`${numCell} ${row.left ? rowTone[row.left.t] : "bg-surface-muted"}`}>
              {row.left?.oldNo}
            </td>
            <td
              className={`${textCell} w-1/2 border-r ${row.left ? rowTone[row.left.t] : "bg-surface-muted"}`}
            >
              {row.left && <LineText line={row.left} parts={parts.get(row.left)} />}
            </td>
            <td className={`${numCell} ${row.right ? rowTone[row.right.t] : "bg-surface-muted"}`}>
              {row.right?.newNo}
            </td>
            <td
              className={`${textCell} w-1/2 ${row.right ? rowTone[row.right.t] : "bg-surface-muted"}`}
            >
              {row.right && <LineText line={row.right} parts={parts.get(row.right)} />}
            </td>
          </tr>,
        );
      }
    }
  });

  return (
    <div className="overflow-x-auto">
      <table className="w-full table-fixed border-collapse font-mono text-[12.5px] leading-5">
        <caption className="sr-only">{label}</caption>
        <colgroup>
          {mode === "unified" ? (
            <>
              <col className="w-11" />
              <col className="w-11" />
              <col className="w-5" />
              <col />
            </>
          ) : (
            <>
              <col className="w-11" />
              <col />
              <col className="w-11" />
              <col />
            </>
          )}
        </colgroup>
        <thead className="sr-only">
          {mode === "unified" ? (
            <tr>
              <th scope="col">Old line</th>
              <th scope="col">New line</th>
              <th scope="col">Change</th>
              <th scope="col">Text</th>
            </tr>
          ) : (
            <tr>
              <th scope="col">Old line</th>
              <th scope="col">Before</th>
              <th scope="col">New line</th>
              <th scope="col">After</th>
            </tr>
          )}
        </thead>
        <tbody>{body}</tbody>
      </table>
    </div>
  );
}

/** +12 −3, in the colours of the diff. */
export function LineStats({ before, after }: { before: string; after: string }) {
  const { added, removed } = useMemo(() => lineCounts(before, after), [before, after]);
  return (
    <span className="flex items-center gap-1.5 font-mono text-xs tabular-nums">
      <span className="text-success">
        +{added}
        <span className="sr-only"> lines added</span>
      </span>
      <span className="text-danger">
        −{removed}
        <span className="sr-only"> lines removed</span>
      </span>
    </span>
  );
}
