import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { nodeSummary, TYPE, typeStatus } from "./node-fixtures";
import { nodeHealth, nodeHref, typeLabel } from "./node-list";

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

describe("typeLabel", () => {
  it("names the core xDS types by their service's short name", () => {
    expect(Object.values(TYPE).map(typeLabel)).toEqual(["CDS", "EDS", "LDS", "RDS"]);
  });
  it("keeps the message name of a type it does not know", () => {
    expect(typeLabel("type.googleapis.com/acme.v1.Thing")).toBe("Thing");
  });
});

describe("nodeHref", () => {
  it("encodes ids with slashes, spaces and percent signs into one path segment", () => {
    expect(nodeHref("sidecar~10.0.0.1~pod/ns 100%")).toBe(
      "/nodes/sidecar~10.0.0.1~pod%2Fns%20100%25",
    );
  });
});
