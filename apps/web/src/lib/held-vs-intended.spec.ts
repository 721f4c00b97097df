import { create } from "@bufbuild/protobuf";
import { HeldResourcesSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { compareHeld, type ResourceRow, rowsWorthShowing } from "./held-vs-intended";
import { TYPE } from "./node-fixtures";

const held = (
  typeUrl: string,
  resources: Record<string, string>,
  intended: Record<string, string>,
  versionsKnown = true,
) => create(HeldResourcesSchema, { typeUrl, resources, intended, versionsKnown });

const verdicts = (result: ReturnType<typeof compareHeld>, typeUrl: string) =>
  result.find((t) => t.typeUrl === typeUrl)?.rows.map((r) => [r.name, r.verdict]);

describe("compareHeld", () => {
  it("a type whose held resources are exactly the intended ones, at the same versions, is in sync", () => {
    const result = compareHeld([
      held(TYPE.CDS, { blue: "a1", green: "b2" }, { blue: "a1", green: "b2" }),
    ]);
    expect(result[0]?.inSync).toBe(true);
    expect(verdicts(result, TYPE.CDS)).toEqual([
      ["blue", "in-sync"],
      ["green", "in-sync"],
    ]);
  });

  it("names a held resource at another version, an intended one not held (missing) and a held one not intended (extra), sorted by name", () => {
    const result = compareHeld([
      held(
        TYPE.CDS,
        { blue: "a1", old: "c3", green: "b2" },
        { blue: "a2", green: "b2", red: "d4" },
      ),
    ]);
    expect(result[0]?.inSync).toBe(false);
    expect(result[0]?.rows).toEqual([
      { name: "blue", held: "a1", intended: "a2", verdict: "different-version" },
      { name: "green", held: "b2", intended: "b2", verdict: "in-sync" },
      { name: "old", held: "c3", intended: undefined, verdict: "extra" },
      { name: "red", held: undefined, intended: "d4", verdict: "missing" },
    ]);
  });

  it("compares each type on its own, in the order the server sent them", () => {
    const result = compareHeld([
      held(TYPE.CDS, { blue: "1" }, { blue: "1" }),
      held(TYPE.EDS, { blue: "1" }, { blue: "2" }),
    ]);
    expect(result.map((t) => [t.typeUrl, t.inSync])).toEqual([
      [TYPE.CDS, true],
      [TYPE.EDS, false],
    ]);
  });

  it("cannot tell a held and intended resource apart when the transport did not report held versions", () => {
    const result = compareHeld([held(TYPE.LDS, { shop: "" }, { shop: "v9" }, false)]);
    expect(verdicts(result, TYPE.LDS)).toEqual([["shop", "unknown"]]);
    expect(result[0]?.versionsKnown).toBe(false);
  });

  it("a type with nothing held and nothing intended is in sync and has no rows", () => {
    const result = compareHeld([held(TYPE.RDS, {}, {})]);
    expect(result[0]).toMatchObject({ rows: [], inSync: true });
  });
});

describe("rowsWorthShowing", () => {
  const row = (name: string, verdict: ResourceRow["verdict"]): ResourceRow => ({
    name,
    held: "1",
    intended: verdict === "in-sync" ? "1" : "2",
    verdict,
  });

  it("keeps every row not in sync, in order, and fills the room with in-sync rows", () => {
    const rows = [
      row("a", "in-sync"),
      row("b", "missing"),
      row("c", "in-sync"),
      row("d", "in-sync"),
      row("e", "different-version"),
    ];
    expect(rowsWorthShowing(rows, 3).map((r) => r.name)).toEqual(["a", "b", "e"]);
    expect(rowsWorthShowing(rows, 10)).toEqual(rows);
  });

  it("shows every difference even beyond the room", () => {
    const rows = Array.from({ length: 30 }, (_, i) => row(`r${i}`, i % 2 ? "extra" : "in-sync"));
    expect(rowsWorthShowing(rows, 20)).toHaveLength(15 + 5);
    expect(rowsWorthShowing(rows, 4).every((r) => r.verdict === "extra")).toBe(true);
  });
});
