import { describe, expect, it } from "vitest";
import { type HistoryEntry, heldAt } from "./node-history.js";
import { historyMark, historyRows, type TypeRow } from "./status-rows.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";

const entry = (
  kind: HistoryEntry["kind"],
  at: number,
  typeUrl: string | null = null,
  version: string | null = null,
  errorDetail: string | null = null,
): HistoryEntry => ({ kind, at, typeUrl, version, nonce: null, errorDetail });

/** Connected at 0; CDS v1 sent at 10, ACKed at 11; v2 sent at 20, NACKed at 21; v3 ACKed at 31. */
const history: HistoryEntry[] = [
  entry("connect", 0),
  entry("sent", 10, CDS, "v1"),
  entry("ack", 11, CDS, "v1"),
  entry("sent", 20, CDS, "v2"),
  entry("nack", 21, CDS, "v2", "cluster backend: bad lb_policy"),
  entry("sent", 30, CDS, "v3"),
  entry("ack", 31, CDS, "v3"),
  entry("sent", 12, LDS, "v1"),
  entry("disconnect", 40),
];

describe("heldAt", () => {
  it("a type holds its latest ACK at or before T: v1 between the v1 and v3 ACKs, v3 after", () => {
    expect(heldAt(history, 15).types.find((t) => t.typeUrl === CDS)).toMatchObject({
      state: "ACKED",
      ackedVersion: "v1",
      ackedAt: 11,
      nack: null,
    });
    expect(heldAt(history, 35).types.find((t) => t.typeUrl === CDS)).toMatchObject({
      state: "ACKED",
      ackedVersion: "v3",
    });
  });

  it("after a NACK the type still holds the version it ACKed before, and shows the NACK's text", () => {
    const cds = heldAt(history, 25).types.find((t) => t.typeUrl === CDS);
    expect(cds).toMatchObject({
      state: "NACKED",
      ackedVersion: "v1",
      sentVersion: "v2",
      nack: { version: "v2", errorDetail: "cluster backend: bad lb_policy", at: 21 },
    });
  });

  it("a response sent and not yet answered at T is PENDING, the previous ACK still held", () => {
    expect(heldAt(history, 30).types.find((t) => t.typeUrl === CDS)).toMatchObject({
      state: "PENDING",
      ackedVersion: "v1",
      sentVersion: "v3",
    });
    expect(heldAt(history, 35).types.find((t) => t.typeUrl === LDS)).toMatchObject({
      state: "PENDING",
      ackedVersion: null,
    });
  });

  it("connected between its connect and disconnect, not after; unknown before any", () => {
    expect(heldAt(history, 5)).toMatchObject({ connected: true, connectionSince: 0 });
    expect(heldAt(history, 45)).toMatchObject({ connected: false, connectionSince: 40 });
    expect(heldAt(history.slice(1), 5)).toMatchObject({ connected: null, types: [] });
    // Envoy keeps its config while disconnected.
    expect(heldAt(history, 45).types.find((t) => t.typeUrl === CDS)?.ackedVersion).toBe("v3");
  });

  it("ignores what came after T, whatever the order the rows come in, and sorts types by URL", () => {
    const shuffled = [...history].reverse();
    expect(heldAt(shuffled, 25)).toEqual(heldAt(history, 25));
    expect(heldAt(history, 11).types.map((t) => t.typeUrl)).toEqual([CDS]);
    expect(heldAt(history, 35).types.map((t) => t.typeUrl)).toEqual([CDS, LDS]);
  });

  it("a response sent and ACKed in the same millisecond reads as ACKED", () => {
    const same = [entry("ack", 10, CDS, "v1"), entry("sent", 10, CDS, "v1")];
    expect(heldAt(same, 10).types[0]?.state).toBe("ACKED");
  });
});

describe("historyRows", () => {
  const base: TypeRow = {
    nodeId: "envoy-1",
    typeUrl: CDS,
    status: "PENDING",
    staleAt: null,
    sentVersion: "v1",
    sentNonce: "n1",
    sentAt: 10,
    ackedVersion: null,
    ackedNonce: null,
    ackedAt: null,
    nackErrorDetail: null,
    nackVersion: null,
    nackNonce: null,
    nackAt: null,
    nackRejected: [],
    heldBack: [],
    heldKey: "",
    resourceVersionsKnown: false,
    wildcard: true,
    requestedKey: "",
    updatedAt: 10,
  };

  it("appends only what is new since the last written mark: a second response in the same millisecond counts (its nonce differs)", () => {
    expect(historyRows(base, undefined).map((r) => r.kind)).toEqual(["sent"]);
    expect(historyRows(base, historyMark(base))).toEqual([]);
    const again = { ...base, sentVersion: "v2", sentNonce: "n2" };
    expect(historyRows(again, historyMark(base)).map((r) => r.version)).toEqual(["v2"]);
  });

  it("a response answered before the write is recorded by its answer alone (half the rows of a fan-out); heldAt reads the answer as sent too", () => {
    const acked = { ...base, ackedVersion: "v1", ackedNonce: "n1", ackedAt: 11 };
    const rows = historyRows(acked, undefined);
    expect(rows.map((r) => r.kind)).toEqual(["ack"]);
    expect(heldAt(rows, 11).types[0]).toMatchObject({
      state: "ACKED",
      ackedVersion: "v1",
      sentVersion: "v1",
    });
    // Answered earlier, sent again since: the new response is recorded.
    const resent = { ...acked, sentVersion: "v2", sentNonce: "n2", sentAt: 12 };
    expect(historyRows(resent, historyMark(acked)).map((r) => r.kind)).toEqual(["sent"]);
  });

  it("a NACK row carries the rejected version and Envoy's text", () => {
    const nacked = {
      ...base,
      nackVersion: "v1",
      nackNonce: "n1",
      nackAt: 11,
      nackErrorDetail: "bad lb_policy",
    };
    expect(historyRows(nacked, historyMark(base))).toEqual([
      {
        nodeId: "envoy-1",
        typeUrl: CDS,
        kind: "nack",
        at: 11,
        version: "v1",
        nonce: "n1",
        errorDetail: "bad lb_policy",
      },
    ]);
  });
});
