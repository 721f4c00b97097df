import { describe, expect, it } from "vitest";
import { diffText, inlineChanges, lineCounts, splitRows, unifiedLines } from "./line-diff";

const lines = (n: number, prefix = "line") =>
  Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join("");

describe("unifiedLines", () => {
  it("numbers each line on the side it is on, removed lines before the lines replacing them", () => {
    expect(unifiedLines("a\nb\nc\n", "a\nB\nc\n")).toEqual([
      { t: "context", text: "a", oldNo: 1, newNo: 1 },
      { t: "removed", text: "b", oldNo: 2, newNo: undefined },
      { t: "added", text: "B", oldNo: undefined, newNo: 2 },
      { t: "context", text: "c", oldNo: 3, newNo: 3 },
    ]);
  });

  it("shows an added object (empty before) as all added lines", () => {
    expect(unifiedLines("", "name: a\nport: 1\n").map((l) => l.t)).toEqual(["added", "added"]);
  });

  it("shows a removed object (empty after) as all removed lines", () => {
    expect(unifiedLines("name: a\n", "").map((l) => l.t)).toEqual(["removed"]);
  });
});

describe("diffText", () => {
  it("counts added and removed lines", () => {
    const d = diffText("a\nb\n", "a\nc\nd\n");
    expect([d.added, d.removed]).toEqual([2, 1]);
  });

  it("folds unchanged lines further than the context from any change, keeping them to unfold", () => {
    const before = lines(20);
    const after = before.replace("line 10\n", "line ten\n");
    const d = diffText(before, after, 3);
    expect(d.segments.map((s) => [s.t, s.lines.length])).toEqual([
      ["gap", 6],
      ["lines", 8],
      ["gap", 7],
    ]);
    expect(d.segments[0]?.lines[0]?.text).toBe("line 1");
  });

  it("does not fold a single unchanged line between two changes' contexts", () => {
    const before = lines(9);
    const after = before.replace("line 1\n", "one\n").replace("line 9\n", "nine\n");
    const d = diffText(before, after, 3);
    expect(d.segments.map((s) => s.t)).toEqual(["lines"]);
  });

  it("has no segments when both sides are equal and empty", () => {
    expect(diffText("", "").segments).toEqual([]);
  });
});

describe("splitRows", () => {
  it("sets a run of removed lines against the added lines that follow it, row by row", () => {
    const rows = splitRows(unifiedLines("a\nb\nc\nz\n", "a\nB\nz\n"));
    expect(rows.map((r) => [r.left?.text, r.right?.text])).toEqual([
      ["a", "a"],
      ["b", "B"],
      ["c", undefined],
      ["z", "z"],
    ]);
  });
});

describe("inlineChanges", () => {
  it("marks only the words that changed when the lines are mostly alike", () => {
    const parts = inlineChanges("  port: 8080", "  port: 9090");
    expect(parts.old.filter((p) => p.changed).map((p) => p.text)).toEqual(["8080"]);
    expect(parts.new.filter((p) => p.changed).map((p) => p.text)).toEqual(["9090"]);
  });

  it("marks the whole line when the two lines have little in common", () => {
    const parts = inlineChanges("cluster: blue", "timeout: 5s");
    expect(parts.old).toEqual([{ text: "cluster: blue", changed: true }]);
  });
});

describe("lineCounts", () => {
  it("counts an added or a removed object's lines without diffing, as the diff would", () => {
    const text = "name: a\nport: 1\n";
    expect(lineCounts("", text)).toEqual({ added: 2, removed: 0 });
    expect(lineCounts(text, "")).toEqual({ added: 0, removed: 2 });
    expect(lineCounts("", "")).toEqual({ added: 0, removed: 0 });
    const d = diffText("", text);
    expect(lineCounts("", text)).toEqual({ added: d.added, removed: d.removed });
  });

  it("counts a modified object's changed lines from its diff", () => {
    expect(lineCounts("a\nb\n", "a\nc\nd\n")).toEqual({ added: 2, removed: 1 });
  });
});
