import { hashOrder, type RolloutState, startRollout } from "@switchyard/rollout";
import { describe, expect, it } from "vitest";
import type { VersionManifests } from "../fleet/convergence-reader.js";
import { nodeRecord } from "../fleet/record-fixtures.js";
import type { NodeRecord, NodeTypeRecord } from "../fleet/status-reader.js";
import { nodeEvents } from "./rollout-events.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const T0 = 1_000_000;
const selector = { nodeIds: [], nodeClusters: [], nodeMetadata: {} };
const manifests = (version: number, blue: string): VersionManifests => ({
  version,
  publishedAt: T0,
  groups: [
    {
      name: "default",
      isDefault: true,
      priority: 0,
      selector,
      resources: { [CDS]: new Map([["blue", blue]]) },
    },
  ],
});
const FROM = manifests(1, "b1");
const TO = manifests(2, "b2");

/** CDS holding blue at `version`, ACKed at `at`; a NACK when `nack` is given. */
function cds(version: string, at: number, nack?: { text: string; at: number }): NodeTypeRecord {
  return {
    typeUrl: CDS,
    status: nack ? "NACKED" : "SYNCED",
    staleAt: undefined,
    sent: { version: "x", nonce: "n", at },
    acked: { version: "x", nonce: "n", at },
    lastNack: nack && {
      errorDetail: nack.text,
      version: "y",
      nonce: "m",
      at: nack.at,
      rejected: [],
    },
    heldBack: [],
    held: { blue: version },
    heldKey: `blue@${version}`,
    requested: [],
    requestedKey: "",
    resourceVersionsKnown: true,
    wildcard: true,
    updatedAt: at,
  };
}

const node = (id: string, held: NodeTypeRecord, since = T0 - 1_000): NodeRecord =>
  nodeRecord(id, [held], true, { connection: { t: "connected", since, openStreams: 1 } });

/** A one-node first wave already sent to `n-1` (ACKed when `acked`). */
function rollout(acked: boolean): RolloutState {
  const start = startRollout({
    id: "1",
    group: "default",
    plan: {
      onFailure: "rollback",
      waves: [{ share: { t: "count", count: 1 }, bakeMs: 60_000, ackTimeoutMs: 30_000 }],
    },
    fromVersion: 1,
    toVersion: 2,
    clusters: [],
    nodes: [{ id: "n-1", zone: "", metadata: {} }],
    now: T0,
  }).state;
  if (!acked) return start;
  const entry = start.nodes["n-1"];
  if (!entry?.sent) throw new Error("n-1 was not sent the version");
  return {
    ...start,
    nodes: { "n-1": { ...entry, sent: { ...entry.sent, ack: { t: "acked", at: T0 + 10 } } } },
  };
}

describe("the rollout core's events from node status", () => {
  it("a node holding what the new version gives it has ACKed it; one holding the previous one has not", () => {
    const seen = new Map<string, number>();
    const state = rollout(false);
    const holding = nodeEvents({
      state,
      records: [node("n-1", cds("b2", T0 + 5))],
      complete: false,
      to: TO,
      from: FROM,
      seen,
      now: T0 + 20,
    });
    expect(holding).toEqual([{ t: "ack", now: T0 + 20, nodeId: "n-1", version: 2 }]);
    const behind = nodeEvents({
      state,
      records: [node("n-1", cds("b1", T0 + 5))],
      complete: false,
      to: TO,
      from: FROM,
      seen: new Map(),
      now: T0 + 20,
    });
    expect(behind).toEqual([]);
  });

  it("a node that reconnected ACKs again in the same read when it holds the version already (its earlier ACK counted for the stream before)", () => {
    const seen = new Map([["n-1", T0 - 1_000]]);
    const events = nodeEvents({
      state: rollout(true),
      records: [node("n-1", cds("b2", T0 + 500), T0 + 400)],
      complete: false,
      to: TO,
      from: FROM,
      seen,
      now: T0 + 600,
    });
    expect(events.map((e) => e.t)).toEqual(["disconnect", "connect", "ack"]);
  });

  it("a NACK from before the node was sent the version, or from before it reconnected, is not a NACK of it", () => {
    const stale = nodeEvents({
      state: rollout(false),
      records: [node("n-1", cds("b1", T0 - 50, { text: "old", at: T0 - 100 }))],
      complete: false,
      to: TO,
      from: FROM,
      seen: new Map(),
      now: T0 + 20,
    });
    expect(stale).toEqual([]);
    const fresh = nodeEvents({
      state: rollout(false),
      records: [node("n-1", cds("b1", T0 - 50, { text: "bad cluster", at: T0 + 10 }))],
      complete: false,
      to: TO,
      from: FROM,
      seen: new Map(),
      now: T0 + 20,
    });
    expect(fresh).toEqual([
      { t: "nack", now: T0 + 20, nodeId: "n-1", version: 2, detail: "bad cluster" },
    ]);
  });

  it("nodes connecting in one read are taken in the order of their hash, not of their ids", () => {
    const state = { ...rollout(false), nodes: {} };
    const ids = ["a", "b", "c", "d"];
    const events = nodeEvents({
      state,
      records: ids.map((id) => node(id, cds("b1", T0))),
      complete: true,
      to: TO,
      from: FROM,
      seen: new Map(),
      now: T0 + 20,
    });
    const connects = events.flatMap((e) => (e.t === "connect" ? [e.node.id] : []));
    expect(connects).toEqual(hashOrder(ids));
  });
});
