import { diffLines, diffWordsWithSpace } from "diff";

/** One line of a unified diff. Line numbers are 1-based; a side the line is not on has none. */
export interface DiffLine {
  readonly t: "context" | "added" | "removed";
  readonly text: string;
  readonly oldNo: number | undefined;
  readonly newNo: number | undefined;
}

/**
 * A unified diff cut into what is shown and what is folded: runs of unchanged lines further than
 * `context` lines from any change become a `gap` the reader can unfold (its lines are kept).
 */
export type DiffSegment =
  | { readonly t: "lines"; readonly lines: readonly DiffLine[] }
  | { readonly t: "gap"; readonly lines: readonly DiffLine[] };

export interface TextDiff {
  readonly segments: readonly DiffSegment[];
  readonly added: number;
  readonly removed: number;
}

function splitLines(value: string): string[] {
  const lines = value.split("\n");
  // A chunk ends with the newline of its last line: that is not one more, empty line.
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Every line of the two texts, in unified order (removed lines before the lines that replace them). */
export function unifiedLines(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const change of diffLines(before, after)) {
    for (const text of splitLines(change.value)) {
      if (change.added) out.push({ t: "added", text, oldNo: undefined, newNo: newNo++ });
      else if (change.removed) out.push({ t: "removed", text, oldNo: oldNo++, newNo: undefined });
      else out.push({ t: "context", text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return out;
}

/**
 * How many lines the diff of two texts adds and removes. An added or removed object (one side
 * empty) is counted without diffing: a first version adds hundreds of objects at once.
 */
export function lineCounts(before: string, after: string): { added: number; removed: number } {
  if (before === "") return { added: splitLines(after).length, removed: 0 };
  if (after === "") return { added: 0, removed: splitLines(before).length };
  const { added, removed } = diffText(before, after, 0);
  return { added, removed };
}

/**
 * The diff of two texts (YAML of one object before and after), with unchanged stretches folded
 * down to `context` lines either side of each change. A gap shorter than 2 lines is not worth a
 * fold and stays visible.
 */
export function diffText(before: string, after: string, context = 3): TextDiff {
  const lines = unifiedLines(before, after);
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, i) => {
    if (line.t === "context") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) {
      near[j] = true;
    }
  });

  // Runs of lines that are all shown or all folded, then folds too short to be worth it shown.
  const runs: { shown: boolean; lines: DiffLine[] }[] = [];
  lines.forEach((line, i) => {
    const shown = near[i] === true;
    const last = runs.at(-1);
    if (last && last.shown === shown) last.lines.push(line);
    else runs.push({ shown, lines: [line] });
  });
  const segments: DiffSegment[] = [];
  for (const run of runs) {
    const shown = run.shown || run.lines.length < 2;
    const last = segments.at(-1);
    if (shown && last?.t === "lines") {
      segments[segments.length - 1] = { t: "lines", lines: [...last.lines, ...run.lines] };
    } else {
      segments.push({ t: shown ? "lines" : "gap", lines: run.lines });
    }
  }

  return {
    segments,
    added: lines.filter((l) => l.t === "added").length,
    removed: lines.filter((l) => l.t === "removed").length,
  };
}

/** One row of a side-by-side view: the old line on the left, the new one on the right. */
export interface SplitRow {
  readonly left: DiffLine | undefined;
  readonly right: DiffLine | undefined;
}

/**
 * Pairs unified lines into side-by-side rows: an unchanged line sits on both sides, and a run of
 * removed lines is set against the run of added lines that follows it, row by row.
 */
export function splitRows(lines: readonly DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as DiffLine;
    if (line.t === "context") {
      rows.push({ left: line, right: line });
      i++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i]?.t === "removed") removed.push(lines[i++] as DiffLine);
    while (i < lines.length && lines[i]?.t === "added") added.push(lines[i++] as DiffLine);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      rows.push({ left: removed[k], right: added[k] });
    }
  }
  return rows;
}

/** A stretch of a changed line, marked when it is what changed. */
export interface InlinePart {
  readonly text: string;
  readonly changed: boolean;
}

/**
 * What changed within a line replaced by another, word by word, from each side's point of view.
 * Lines that share too little are marked whole: highlighting scattered words helps nobody.
 */
export function inlineChanges(
  oldText: string,
  newText: string,
): { old: InlinePart[]; new: InlinePart[] } {
  const parts = diffWordsWithSpace(oldText, newText);
  const common = parts
    .filter((p) => !p.added && !p.removed)
    .reduce((n, p) => n + p.value.length, 0);
  if (common < Math.max(oldText.length, newText.length) / 3) {
    return { old: [{ text: oldText, changed: true }], new: [{ text: newText, changed: true }] };
  }
  return {
    old: parts.filter((p) => !p.added).map((p) => ({ text: p.value, changed: p.removed })),
    new: parts.filter((p) => !p.removed).map((p) => ({ text: p.value, changed: p.added })),
  };
}
