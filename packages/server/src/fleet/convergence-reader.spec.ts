import { describe, expect, it } from "vitest";
import { classifyConvergence, type VersionManifests } from "./convergence-reader.js";
import type { NodeRecord, NodeTypeRecord } from "./status-reader.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const EDS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const PUBLISHED = 1_000_000;

const selector = (
  s: Partial<{ nodeIds: string[]; nodeClusters: string[]; nodeMetadata: Record<string, string> }>,
) => ({
  nodeIds: [],
  nodeClusters: [],
  nodeMetadata: {},
  ...s,
});

const manifests: VersionManifests = {
  version: 7,
  publishedAt: PUBLISHED,
  groups: [
    {
      name: "canary",
      isDefault: false,
      priority: 1,
      selector: selector({ nodeMetadata: { track: "canary" } }),
      resources: {
        [CDS]: new Map([["blue", "c2"]]),
        [EDS]: new Map([["blue", "e2"]]),
      },
    },
    {
      name: "default",
      isDefault: true,
      priority: 0,
      selector: selector({}),
      resources: {
        [CDS]: new Map([
          ["blue", "c1"],
          ["green", "g1"],
        ]),
        [EDS]: new Map([
          ["blue", "e1"],
          ["green", "f1"],
        ]),
        [LDS]: new Map([["shop", "l1"]]),
      },
    },
  ],
};

function type(
  typeUrl: string,
  held: Record<string, string | null>,
  options: Partial<NodeTypeRecord> & { ackedAt?: number } = {},
): NodeTypeRecord {
  const { ackedAt = PUBLISHED + 10, ...rest } = options;
  return {
    typeUrl,
    status: "SYNCED",
    staleAt: undefined,
    sent: undefined,
    acked: { version: "v", nonce: "n", at: ackedAt },
    lastNack: undefined,
    heldBack: [],
    held,
    heldKey: JSON.stringify(held),
    resourceVersionsKnown: Object.values(held).every((v) => v !== null),
    // As Envoy subscribes: CDS and LDS as a whole, the others by name.
    wildcard: typeUrl === CDS || typeUrl === LDS,
    requested: [],
    requestedKey: "",
    updatedAt: ackedAt,
    ...rest,
  };
}

function node(
  id: string,
  types: NodeTypeRecord[],
  metadata: unknown = {},
  connectedSince = 0,
): NodeRecord {
  return {
    id,
    cluster: "edge",
    locality: null,
    metadata,
    userAgent: { name: "test", version: undefined },
    clientFeatures: [],
    connection: { t: "connected", since: connectedSince, openStreams: 1 },
    replicaId: "r1",
    variant: "ads-sotw",
    remoteAddress: "127.0.0.1",
    authenticatedAs: "",
    updatedAt: 0,
    types,
  };
}

describe("classifyConvergence", () => {
  it("a node subscribing to CDS by name (a gRPC client) is in sync holding only the clusters it asked for; a wildcard one needs them all", () => {
    const result = classifyConvergence(manifests, [
      node("grpc", [type(CDS, { green: "g1" }, { wildcard: false })]),
      node("envoy", [type(CDS, { green: "g1" })]),
      node("grpc-old", [type(CDS, { green: "g0" }, { wildcard: false })]),
    ]);
    expect(result.nodes.map((n) => [n.nodeId, n.state])).toEqual([
      ["envoy", "PENDING"],
      ["grpc", "ACKED"],
      ["grpc-old", "PENDING"],
    ]);
  });

  it("classifies ACKED, NACKED and PENDING nodes with per-type states and percentiles", () => {
    const result = classifyConvergence(manifests, [
      // In sync everywhere; EDS compares only the names held.
      node("a", [
        type(CDS, { blue: "c1", green: "g1" }, { ackedAt: PUBLISHED + 40 }),
        type(EDS, { blue: "e1" }, { ackedAt: PUBLISHED + 100 }),
        type(LDS, { shop: "l1" }),
      ]),
      // Already held everything before the publish: 0 ms.
      node("b", [type(CDS, { blue: "c1", green: "g1" }, { ackedAt: PUBLISHED - 500 })]),
      // CDS missing a cluster (whole set compared): behind; a NACK from before the publish does not count.
      node("c", [
        type(
          CDS,
          { blue: "c1" },
          {
            lastNack: {
              errorDetail: "old",
              version: "x",
              nonce: undefined,
              at: PUBLISHED - 1,
              rejected: [],
            },
          },
        ),
        type(EDS, { blue: "e0" }),
      ]),
      // Canary by metadata, NACKed after the publish.
      node(
        "d",
        [
          type(
            CDS,
            { blue: "c1" },
            {
              status: "NACKED",
              ackedAt: PUBLISHED - 100,
              lastNack: {
                errorDetail: "unsupported lb_policy: LEAST_REQUEST",
                version: "v2",
                nonce: "n2",
                rejected: [],
                at: PUBLISHED + 5,
              },
            },
          ),
          type(EDS, { blue: "e2" }),
        ],
        { track: "canary", weight: 3 },
      ),
      // Held versions unknown.
      node("e", [type(CDS, { blue: null, green: null })]),
      // Requested nothing yet.
      node("f", []),
      // Never ACKed.
      node("g", [type(LDS, {}, { acked: undefined, status: "PENDING" })]),
    ]);

    expect(result).toMatchObject({
      version: 7,
      publishedAt: PUBLISHED,
      targeted: 7,
      acked: 2,
      nacked: 1,
      pending: 4,
      durations: { count: 2, p50: 0, p99: 100, max: 100 },
    });
    const byId = Object.fromEntries(result.nodes.map((n) => [n.nodeId, n]));
    expect(result.nodes.map((n) => n.nodeId)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(byId.a).toMatchObject({ state: "ACKED", ackMs: 100, group: "default" });
    expect(byId.b).toMatchObject({ state: "ACKED", ackMs: 0 });
    expect(byId.c?.state).toBe("PENDING");
    expect(byId.c?.types.map((t) => [t.typeUrl, t.state])).toEqual([
      [CDS, "BEHIND"],
      [EDS, "BEHIND"],
    ]);
    expect(byId.d).toMatchObject({
      state: "NACKED",
      group: "canary",
      nack: { typeUrl: CDS, errorDetail: "unsupported lb_policy: LEAST_REQUEST" },
    });
    expect(byId.d?.types.map((t) => t.state)).toEqual(["NACKED", "IN_SYNC"]);
    expect(byId.e?.types[0]?.state).toBe("UNKNOWN");
    expect(byId.e?.state).toBe("PENDING");
    expect(byId.f).toMatchObject({ state: "PENDING", types: [] });
    expect(byId.g?.types[0]?.state).toBe("BEHIND");
  });

  it("counts in p50/p99 to ACK only the nodes connected when the version was published; those that connected later are counted apart", () => {
    const all = { blue: "c1", green: "g1" };
    const result = classifyConvergence(manifests, [
      // Connected before the publish: 20 ms and 40 ms to ACK.
      node("early-1", [type(CDS, all, { ackedAt: PUBLISHED + 20 })], {}, PUBLISHED - 60_000),
      node("early-2", [type(CDS, all, { ackedAt: PUBLISHED + 40 })], {}, PUBLISHED),
      // Connected 13 s after the publish and ACKed at once: 13 s from the publish, which is not
      // how fast the version spread.
      node("late-1", [type(CDS, all, { ackedAt: PUBLISHED + 13_005 })], {}, PUBLISHED + 13_000),
      node("late-2", [type(CDS, all, { ackedAt: PUBLISHED + 14_010 })], {}, PUBLISHED + 14_000),
      // Connected later and not in sync yet: pending, not "connected later" in the summary.
      node(
        "late-3",
        [type(CDS, { blue: "c0" }, { ackedAt: PUBLISHED + 15_010 })],
        {},
        PUBLISHED + 15_000,
      ),
    ]);

    expect(result.durations).toEqual({ count: 2, p50: 20, p99: 40, max: 40 });
    expect(result.connectedLater).toBe(2);
    expect(result.acked).toBe(4);
    expect(result.nodes.map((n) => [n.nodeId, n.state, n.ackMs, n.connectedAfterPublish])).toEqual([
      ["early-1", "ACKED", 20, false],
      ["early-2", "ACKED", 40, false],
      ["late-1", "ACKED", 13_005, true],
      ["late-2", "ACKED", 14_010, true],
      ["late-3", "PENDING", undefined, true],
    ]);
  });

  it("has no percentiles when only nodes that connected after the publish ACKed", () => {
    const result = classifyConvergence(manifests, [
      node(
        "late",
        [type(CDS, { blue: "c1", green: "g1" }, { ackedAt: PUBLISHED + 13_005 })],
        {},
        PUBLISHED + 13_000,
      ),
    ]);
    expect(result.durations).toEqual({ count: 0, p50: undefined, p99: undefined, max: undefined });
    expect(result.connectedLater).toBe(1);
  });

  it("a held name the version no longer has is behind; a type the version has no opinion on is in sync", () => {
    const secret = "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret";
    const result = classifyConvergence(manifests, [
      node("x", [type(EDS, { blue: "e1", gone: "z" })]),
      node("y", [type(secret, { s: "1" }), type(LDS, { shop: "l1" })]),
    ]);
    expect(result.nodes.map((n) => n.state)).toEqual(["PENDING", "ACKED"]);
  });

  it("summarizes nothing when no node is connected", () => {
    const result = classifyConvergence(manifests, []);
    expect(result).toMatchObject({
      targeted: 0,
      acked: 0,
      durations: { count: 0, p99: undefined },
    });
  });
});
