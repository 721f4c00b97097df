import { describe, expect, it } from "vitest";
import { fleetSummary, nodeHealth } from "./fleet-summary.js";
import { nodeRecord, typeRecord } from "./record-fixtures.js";

const type = typeRecord;
const node = nodeRecord;

describe("the fleet at a glance", () => {
  it("gives each node its worst word: disconnected, nacked, stale, pending, synced", () => {
    expect(nodeHealth(node("a", [type("NACKED")], false))).toBe("disconnected");
    expect(nodeHealth(node("b", [type("SYNCED"), type("STALE"), type("NACKED")]))).toBe("nacked");
    expect(nodeHealth(node("c", [type("SYNCED"), type("STALE"), type("PENDING")]))).toBe("stale");
    expect(nodeHealth(node("d", [type("SYNCED"), type("NOT_SENT")]))).toBe("pending");
    expect(nodeHealth(node("e", []))).toBe("pending");
    expect(nodeHealth(node("f", [type("SYNCED")]))).toBe("synced");
  });

  it("counts nodes by health, and lists current NACKs first, then the newest recovered ones", () => {
    const summary = fleetSummary(
      [
        node("a", [type("SYNCED", { text: "old, recovered", at: 10 })]),
        node("b", [type("NACKED", { text: "bad cluster", at: 5 })]),
        node("c", [type("SYNCED", { text: "newer, recovered", at: 20 })]),
        node("d", [type("SYNCED")], false),
      ],
      2,
    );
    expect(summary.counts).toEqual({
      total: 4,
      connected: 3,
      disconnected: 1,
      synced: 2,
      stale: 0,
      nacked: 1,
      pending: 0,
    });
    expect(summary.recentNacks.map((n) => [n.nodeId, n.message, n.current])).toEqual([
      ["b", "bad cluster", true],
      ["c", "newer, recovered", false],
    ]);
  });
});
