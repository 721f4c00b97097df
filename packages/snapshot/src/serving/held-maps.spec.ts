import { describe, expect, it } from "vitest";
import { heldAfter, heldVersion, NOTHING_HELD, resourcesVersion } from "./held-maps.js";
import { versionOf } from "./resource-snapshot.js";

const sent = (...pairs: [string, string][]) => pairs.map(([name, version]) => ({ name, version }));

describe("held maps", () => {
  it("streams that send the same list from the same holding share one held map", () => {
    const list = sent(["a", "1"], ["b", "1"]);
    const first = heldAfter(NOTHING_HELD, { replace: false, sent: list, removed: [] });
    const second = heldAfter(NOTHING_HELD, { replace: false, sent: list, removed: [] });
    expect(second).toBe(first);
    expect([...first]).toEqual([
      ["a", "1"],
      ["b", "1"],
    ]);
  });

  it("equal changes in different lists share one held map too; another holding or content does not", () => {
    const first = heldAfter(NOTHING_HELD, { replace: false, sent: sent(["a", "1"]), removed: [] });
    expect(heldAfter(NOTHING_HELD, { replace: false, sent: sent(["a", "1"]), removed: [] })).toBe(
      first,
    );
    expect(
      heldAfter(NOTHING_HELD, { replace: false, sent: sent(["a", "2"]), removed: [] }),
    ).not.toBe(first);
    const next = heldAfter(first, { replace: false, sent: sent(["b", "1"]), removed: [] });
    expect([...next]).toEqual([
      ["a", "1"],
      ["b", "1"],
    ]);
  });

  it("no choice of names and versions spells another change: separators in them do not make two holdings one", () => {
    const honest = heldAfter(NOTHING_HELD, {
      replace: false,
      sent: sent(["n1", "v1"], ["n2", "v2"]),
      removed: [],
    });
    const crafted = heldAfter(NOTHING_HELD, {
      replace: false,
      sent: sent(["n1", "v1\u0000n2\u0001v2"]),
      removed: [],
    });
    const other = heldAfter(NOTHING_HELD, {
      replace: false,
      sent: sent(["n1", "v1"]),
      removed: ["2:n2"],
    });
    expect(crafted).not.toBe(honest);
    expect([...crafted]).toEqual([["n1", "v1\u0000n2\u0001v2"]]);
    expect([...honest]).toEqual([
      ["n1", "v1"],
      ["n2", "v2"],
    ]);
    expect([...other]).toEqual([["n1", "v1"]]);
  });

  it("a whole-state response replaces what was held; removals drop names; the earlier map is never altered", () => {
    const before = heldAfter(NOTHING_HELD, {
      replace: false,
      sent: sent(["a", "1"], ["b", "1"]),
      removed: [],
    });
    const list = sent(["c", "1"]);
    const replaced = heldAfter(before, { replace: true, sent: list, removed: [] });
    const added = heldAfter(before, { replace: false, sent: list, removed: [] });
    expect([...replaced.keys()]).toEqual(["c"]);
    expect([...added.keys()]).toEqual(["a", "b", "c"]);
    const removed = heldAfter(before, { replace: false, sent: list, removed: ["a"] });
    expect([...removed.keys()]).toEqual(["b", "c"]);
    expect([...before.keys()]).toEqual(["a", "b"]);
  });

  it("a held map's version is versionOf its names and versions", () => {
    const held = heldAfter(NOTHING_HELD, { replace: false, sent: sent(["x", "9"]), removed: [] });
    expect(heldVersion(held)).toBe(versionOf([["x", "9"]]));
  });

  it("the version of a snapshot's map is versionOf its resources' names and versions", () => {
    const resources = new Map(
      [
        ["b", "2"],
        ["a", "1"],
      ].map(([name, version]) => [
        name as string,
        { name, version, typeUrl: "t", body: new Uint8Array(), references: [] } as never,
      ]),
    );
    expect(resourcesVersion(resources)).toBe(
      versionOf([
        ["a", "1"],
        ["b", "2"],
      ]),
    );
  });
});
