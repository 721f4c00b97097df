import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { nodeSummary, TYPE, typeStatus } from "./node-fixtures";
import {
  applyNodesMessage,
  healthCounts,
  matchesFilter,
  type NodeFilter,
  nodeHealth,
  nodeHref,
  sortedNodes,
  typeLabel,
} from "./node-list";

const msg = (init: { reset?: boolean; nodes?: string[]; removed?: string[] }) => ({
  reset: init.reset ?? false,
  nodes: (init.nodes ?? []).map((id) => nodeSummary(id)),
  removedIds: init.removed ?? [],
});

describe("applyNodesMessage", () => {
  it("a reset message replaces everything held, so a reconnect starts from the server's list", () => {
    const before = applyNodesMessage(undefined, msg({ reset: true, nodes: ["a", "b"] }));
    const after = applyNodesMessage(before, msg({ reset: true, nodes: ["c"] }));
    expect([...after.keys()]).toEqual(["c"]);
  });

  it("a change message replaces the nodes it carries and drops removed ids, keeping the rest", () => {
    const start = applyNodesMessage(undefined, msg({ reset: true, nodes: ["a", "b"] }));
    const changed = nodeSummary("a", { connected: false });
    const next = applyNodesMessage(start, { reset: false, nodes: [changed], removedIds: ["b"] });
    expect([...next.keys()]).toEqual(["a"]);
    expect(next.get("a")?.connected).toBe(false);
    // The previous state is not mutated (React compares by reference).
    expect([...start.keys()]).toEqual(["a", "b"]);
  });

  it("sorts by id", () => {
    const index = applyNodesMessage(undefined, msg({ reset: true, nodes: ["b", "a", "c"] }));
    expect(sortedNodes(index).map((n) => n.id)).toEqual(["a", "b", "c"]);
  });
});

describe("nodeHealth", () => {
  const withCds = (status: NodeTypeStatus) =>
    nodeSummary("n", { types: [typeStatus(TYPE.CDS, { status }), typeStatus(TYPE.LDS)] });

  it("is synced when every requested type is SYNCED", () => {
    expect(nodeHealth(nodeSummary("n"))).toBe("synced");
  });
  it("puts a NACK first, then STALE, then anything unanswered or unsent", () => {
    expect(nodeHealth(withCds(NodeTypeStatus.NACKED))).toBe("nacked");
    expect(nodeHealth(withCds(NodeTypeStatus.STALE))).toBe("stale");
    expect(nodeHealth(withCds(NodeTypeStatus.PENDING))).toBe("pending");
    expect(nodeHealth(withCds(NodeTypeStatus.NOT_SENT))).toBe("pending");
  });
  it("a connected node that requested nothing yet is pending", () => {
    expect(nodeHealth(nodeSummary("n", { types: [] }))).toBe("pending");
  });
  it("a node with no open stream is disconnected, whatever it last held", () => {
    expect(nodeHealth(nodeSummary("n", { connected: false }))).toBe("disconnected");
  });
});

describe("healthCounts", () => {
  it("counts each node once, under its worst status, and the connected ones", () => {
    const counts = healthCounts([
      nodeSummary("a"),
      nodeSummary("b", { types: [typeStatus(TYPE.CDS, { status: NodeTypeStatus.NACKED })] }),
      nodeSummary("c", { connected: false }),
    ]);
    expect(counts).toEqual({
      synced: 1,
      stale: 0,
      nacked: 1,
      pending: 0,
      disconnected: 1,
      total: 3,
      connected: 2,
    });
  });
});

describe("typeLabel", () => {
  it("names the core xDS types by their service's short name", () => {
    expect(Object.values(TYPE).map(typeLabel)).toEqual(["CDS", "EDS", "LDS", "RDS"]);
  });
  it("keeps the message name of a type it does not know", () => {
    expect(typeLabel("type.googleapis.com/acme.v1.Thing")).toBe("Thing");
  });
});

describe("matchesFilter", () => {
  const all: NodeFilter = { query: "", health: new Set(), connectedOnly: false };

  it("finds a node by cluster or user agent, ignoring case", () => {
    const node = nodeSummary("edge-1", { cluster: "Frontend", userAgent: "envoy" });
    expect(matchesFilter(node, { ...all, query: "frontend" })).toBe(true);
    expect(matchesFilter(node, { ...all, query: "ENVOY" })).toBe(true);
    expect(matchesFilter(node, { ...all, query: "backend" })).toBe(false);
  });
  it("keeps only the chosen statuses, and only connected nodes when asked", () => {
    const gone = nodeSummary("gone", { connected: false });
    expect(matchesFilter(gone, { ...all, health: new Set(["synced"]) })).toBe(false);
    expect(matchesFilter(gone, { ...all, health: new Set(["disconnected"]) })).toBe(true);
    expect(matchesFilter(gone, { ...all, connectedOnly: true })).toBe(false);
  });
});

describe("nodeHref", () => {
  it("encodes ids with slashes, spaces and percent signs into one path segment", () => {
    expect(nodeHref("sidecar~10.0.0.1~pod/ns 100%")).toBe(
      "/nodes/sidecar~10.0.0.1~pod%2Fns%20100%25",
    );
  });
});
