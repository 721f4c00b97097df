import { describe, expect, it } from "vitest";
import { type HistoryPoint, historyLanes } from "./node-history";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const point = (kind: string, at: number, version = "", errorDetail = ""): HistoryPoint => ({
  kind,
  at,
  typeUrl: kind === "connect" || kind === "disconnect" ? "" : CDS,
  version,
  errorDetail,
});

describe("historyLanes", () => {
  it("a type's lane holds each ACKed version from its ACK to the next, the last up to the end", () => {
    const lanes = historyLanes(
      [
        point("connect", 0),
        point("sent", 1, "v1"),
        point("ack", 2, "v1"),
        point("ack", 5, "v1"),
        point("ack", 10, "v2"),
      ],
      20,
    );
    expect(lanes.types).toEqual([CDS]);
    expect(lanes.held).toEqual([
      { typeUrl: CDS, version: "v1", from: 2, to: 10 },
      { typeUrl: CDS, version: "v2", from: 10, to: 20 },
    ]);
  });

  it("a NACK is a mark with its text, and leaves the held version as it was", () => {
    const lanes = historyLanes(
      [point("ack", 2, "v1"), point("nack", 6, "v2", "bad lb_policy")],
      20,
    );
    expect(lanes.nacks).toEqual([
      { typeUrl: CDS, at: 6, version: "v2", errorDetail: "bad lb_policy" },
    ]);
    expect(lanes.held).toEqual([{ typeUrl: CDS, version: "v1", from: 2, to: 20 }]);
  });

  it("connected spans run from a connect to the disconnect, the open one to the end", () => {
    const lanes = historyLanes(
      [point("connect", 0), point("disconnect", 4), point("connect", 8)],
      20,
    );
    expect(lanes.connected).toEqual([
      { from: 0, to: 4 },
      { from: 8, to: 20 },
    ]);
  });
});
