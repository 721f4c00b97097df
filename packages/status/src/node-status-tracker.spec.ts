/**
 * The cases of NodeStatusTracker: how stream opens, requests, responses, ACKs, NACKs and closes
 * move a node's status, what it holds and its events. Long because it is one suite of one class's
 * rules, each case a short run of events through the same fixtures (streamOf, trackerWithClock).
 */
import type { XdsCallbacks } from "@switchyard/xds";
import { describe, expect, it } from "vitest";
import { CDS, EDS, LDS, nodeLike, RDS, streamOf, trackerWithClock } from "./fixtures.js";
import type { StatusChange } from "./node-status.js";
import type { StreamOpenEvent } from "./node-status-tracker.js";

// Compile-time: the transports' events (proto Node included) are accepted as they are.
type OpenFromServer = Parameters<NonNullable<XdsCallbacks["onStreamOpen"]>>[0];
export const acceptsServerOpen = (event: OpenFromServer): StreamOpenEvent => event;

const statusOf = (
  tracker: ReturnType<typeof trackerWithClock>["tracker"],
  nodeId: string,
  typeUrl: string,
) => tracker.node(nodeId)?.types.find((t) => t.typeUrl === typeUrl)?.status;

describe("NodeStatusTracker", () => {
  it("records the stream's identity from the proto Node, the replica and the connect time", () => {
    const { tracker, now } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("envoy-1"), "ads-delta");
    const node = tracker.node("envoy-1");
    expect(node?.identity).toEqual({
      id: "envoy-1",
      cluster: "edge",
      locality: { region: "eu-west", zone: "eu-west-1a", subZone: "" },
      metadata: { team: "payments" },
      userAgent: { name: "envoy", version: "1.36.2" },
      clientFeatures: ["envoy.lb.does_not_support_overprovisioning"],
    });
    expect(node?.connection).toEqual({
      t: "connected",
      since: now(),
      streams: [
        {
          streamId: 1,
          nodeId: "envoy-1",
          variant: "ads-delta",
          remoteAddress: "10.0.0.1:5000",
          authenticatedAs: "",
          replicaId: "replica-a",
          connectedAt: now(),
        },
      ],
    });
  });

  it("a type requested and not yet answered is NOT_SENT", () => {
    const { tracker } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("envoy-1")).request(CDS);
    expect(statusOf(tracker, "envoy-1", CDS)).toEqual({ t: "NOT_SENT" });
  });

  it("an ACK of the latest response sent makes the type SYNCED, holding what it carried", () => {
    const { tracker, advance, now } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.request(CDS);
    s.respond(CDS, "v1", "n1", { a: "a1", b: "b1" });
    advance(50);
    s.ack(CDS, "v1");
    expect(statusOf(tracker, "envoy-1", CDS)).toEqual({
      t: "SYNCED",
      versionInfo: "v1",
      ackedAt: now(),
    });
    const acked = tracker.node("envoy-1")?.types[0]?.acked;
    expect(acked?.nonce).toBe("n1");
    expect(acked?.resourceVersionsKnown).toBe(true);
    expect([...(acked?.held ?? [])]).toEqual([
      ["a", "a1"],
      ["b", "b1"],
    ]);
  });

  it("a SotW LDS/CDS response replaces what is held; an EDS response adds to it", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1", b: "b1" });
    s.ack(CDS, "v1");
    s.respond(CDS, "v2", "n2", { b: "b2" });
    s.ack(CDS, "v2");
    s.respond(EDS, "e1", "n3", { a: "a1" });
    s.ack(EDS, "e1");
    s.respond(EDS, "e2", "n4", { b: "b1" });
    s.ack(EDS, "e2");
    const types = tracker.node("envoy-1")?.types ?? [];
    const held = (url: string) => [...(types.find((t) => t.typeUrl === url)?.acked?.held ?? [])];
    expect(held(CDS)).toEqual([["b", "b2"]]);
    expect(held(EDS)).toEqual([
      ["a", "a1"],
      ["b", "b1"],
    ]);
  });

  it("nodes that ACK the same responses from the same holding share one held map; a node that got elsewhere has its own", () => {
    const { tracker } = trackerWithClock();
    const streams = [1, 2, 3].map((id) => streamOf(tracker, id, nodeLike(`envoy-${id}`)));
    for (const [i, s] of streams.entries()) {
      s.respond(EDS, "e1", `n${i}a`, { a: "a1", b: "b1" });
      s.ack(EDS, "e1");
    }
    // The third node is sent a different change.
    for (const [i, s] of streams.entries()) {
      s.respond(EDS, "e2", `n${i}b`, i < 2 ? { b: "b2" } : { a: "a2" });
      s.ack(EDS, "e2");
    }
    const heldOf = (id: number) =>
      tracker.node(`envoy-${id}`)?.types.find((t) => t.typeUrl === EDS)?.acked?.held;
    expect(heldOf(1)).toBe(heldOf(2));
    expect([...(heldOf(1) ?? [])]).toEqual([
      ["a", "a1"],
      ["b", "b2"],
    ]);
    expect(heldOf(3)).not.toBe(heldOf(1));
    expect([...(heldOf(3) ?? [])]).toEqual([
      ["a", "a2"],
      ["b", "b1"],
    ]);
  });

  it("nodes sent the same response share one list of what it carried; a different response has its own", () => {
    const { tracker } = trackerWithClock();
    const streams = [1, 2, 3].map((id) => streamOf(tracker, id, nodeLike(`envoy-${id}`)));
    for (const [i, s] of streams.entries())
      s.respond(RDS, "r1", `n${i}`, i < 2 ? { routes: "r1" } : { routes: "r0" });
    const sentOf = (id: number) =>
      tracker.node(`envoy-${id}`)?.types.find((t) => t.typeUrl === RDS)?.sent?.resources;
    expect(sentOf(1)).toBe(sentOf(2));
    expect(sentOf(1)).toEqual([{ name: "routes", version: "r1" }]);
    expect(sentOf(3)).toEqual([{ name: "routes", version: "r0" }]);
  });

  it("a response unanswered for less than the threshold is PENDING, from the threshold on STALE", () => {
    const { tracker, advance, now } = trackerWithClock({ staleAfterMs: 10_000 });
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(LDS, "v1", "n1", { l: "l1" });
    const staleAt = now() + 10_000;
    advance(9_999);
    expect(statusOf(tracker, "envoy-1", LDS)).toMatchObject({ t: "PENDING", staleAt });
    advance(1);
    expect(statusOf(tracker, "envoy-1", LDS)).toMatchObject({
      t: "STALE",
      staleAt,
      sent: { versionInfo: "v1", nonce: "n1" },
    });
  });

  it("a new response after an ACK is PENDING again until it is ACKed", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    s.respond(CDS, "v2", "n2", { a: "a2" });
    expect(statusOf(tracker, "envoy-1", CDS)?.t).toBe("PENDING");
    expect(tracker.node("envoy-1")?.types[0]?.acked?.versionInfo).toBe("v1");
  });

  it("a NACK makes the type NACKED and keeps Envoy's text, the rejected version and nonce", () => {
    const { tracker, advance, now } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    s.respond(CDS, "v2", "n2", { a: "a2" });
    advance(20);
    s.nack(CDS, "v2", "cluster a: unknown load balancing policy");
    expect(statusOf(tracker, "envoy-1", CDS)).toEqual({
      t: "NACKED",
      nack: {
        errorDetail: "cluster a: unknown load balancing policy",
        rejectedVersion: "v2",
        // The text names no resource sent: the whole response was rejected.
        rejected: [],
        nonce: "n2",
        at: now(),
        streamId: 1,
      },
    });
    // The node still holds what it last ACKed.
    expect(tracker.node("envoy-1")?.types[0]?.acked?.held.get("a")).toBe("a1");
    expect(tracker.events().at(-1)).toMatchObject({
      t: "nack",
      nodeId: "envoy-1",
      typeUrl: CDS,
      errorDetail: "cluster a: unknown load balancing policy",
      rejectedVersion: "v2",
      nonce: "n2",
    });
  });

  it("a NACK naming resources records them, and the node holds the rest of the response", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("grpc-1"));
    s.respond(CDS, "v1", "n1", { a: "a1", old: "o1" });
    s.ack(CDS, "v1");
    s.respond(CDS, "v2", "n2", { a: "a2", b: "b1" });
    s.nack(CDS, "v1", "resource index 0: a: INVALID_ARGUMENT: bad", ["a"]);

    const cds = tracker.node("grpc-1")?.types[0];
    expect(cds?.status.t === "NACKED" && cds.status.nack.rejected).toEqual(["a"]);
    // Full state: b arrived, old went, a kept its earlier version.
    expect(Object.fromEntries(cds?.acked?.held ?? [])).toEqual({ a: "a1", b: "b1" });
    expect(tracker.events().at(-1)).toMatchObject({ t: "nack", rejected: ["a"] });
  });

  it("a type with a resource held back as rejected stays NACKED through later ACKs, and recovers once it is not", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("grpc-1"));
    s.request(CDS);
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    s.respond(CDS, "v2", "n2", { a: "a2" });
    s.nack(CDS, "v1", "resource index 0: a: bad", ["a"]);
    s.holdBack([
      { typeUrl: CDS, name: "a", version: "a2", reason: { t: "rejected", errorDetail: "bad" } },
      { typeUrl: RDS, name: "r", version: "r2", reason: { t: "needs", typeUrl: CDS, name: "a" } },
    ]);
    // Another change goes out and is ACKed; a is still held back.
    s.respond(CDS, "v3", "n3", { a: "a1", b: "b1" });
    s.ack(CDS, "v3");

    const cds = tracker.node("grpc-1")?.types.find((t) => t.typeUrl === CDS);
    expect(cds?.status.t).toBe("NACKED");
    expect(cds?.heldBack.map((r) => [r.name, r.reason.t])).toEqual([["a", "rejected"]]);
    expect(tracker.events().some((e) => e.t === "recovered")).toBe(false);

    // A rollback withdraws the bad a: nothing is held back, and the node ACKed what it runs.
    s.holdBack([]);
    expect(statusOf(tracker, "grpc-1", CDS)?.t).toBe("SYNCED");
    expect(tracker.events().at(-1)).toMatchObject({
      t: "recovered",
      typeUrl: CDS,
      versionInfo: "v3",
    });
  });

  it("a SotW client that stops naming a resource no longer holds it (C-core drops EDS names as clusters go)", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("grpc-1"));
    s.request(EDS, ["x", "y"]);
    s.respond(EDS, "v1", "n1", { x: "x1", y: "y1" });
    s.ack(EDS, "v1");

    s.resubscribe(EDS, ["x"]);

    const eds = tracker.node("grpc-1")?.types[0];
    expect(Object.fromEntries(eds?.acked?.held ?? [])).toEqual({ x: "x1" });
    // Still in sync on what it subscribes to.
    expect(eds?.status.t).toBe("SYNCED");
  });

  it("a Delta unsubscribe drops the name from what the node holds", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"), "ads-delta");
    s.request(EDS, ["x", "y"]);
    s.respond(EDS, "v1", "n1", { x: "x1", y: "y1" });
    s.ack(EDS, "v1");

    s.resubscribe(EDS, [], ["y"]);

    expect(Object.fromEntries(tracker.node("envoy-1")?.types[0]?.acked?.held ?? [])).toEqual({
      x: "x1",
    });
  });

  it("a node's new stream starts from what it receives: the gone stream's NACK is history and its names are not held", () => {
    const { tracker } = trackerWithClock();
    const old = streamOf(tracker, 1, nodeLike("grpc-1"));
    old.request(EDS, ["x", "y"]);
    old.respond(EDS, "v1", "n1", { x: "x1", y: "y1" });
    old.ack(EDS, "v1");
    old.respond(EDS, "v2", "n2", { y: "y2" });
    old.nack(EDS, "v1", "resource index 0: y: bad", ["y"]);
    old.close();

    // The client restarts under the same node id and asks for x only.
    const next = streamOf(tracker, 2, nodeLike("grpc-1"));
    next.request(EDS, ["x"]);

    const eds = tracker.node("grpc-1")?.types[0];
    expect(eds?.status.t).not.toBe("NACKED");
    expect(eds?.nack?.errorDetail).toBe("resource index 0: y: bad");
    expect([...(eds?.acked?.held.keys() ?? [])]).toEqual(["x"]);
  });

  it("a node's new Delta stream holds what it declares in initial_resource_versions", () => {
    const { tracker } = trackerWithClock();
    const old = streamOf(tracker, 1, nodeLike("envoy-1"), "ads-delta");
    old.request(CDS, []);
    old.respond(CDS, "v1", "n1", { a: "a1", b: "b1" });
    old.ack(CDS, "v1");
    old.close();

    const next = streamOf(tracker, 2, nodeLike("envoy-1"), "ads-delta");
    tracker.onRequest({
      streamId: 2,
      typeUrl: CDS,
      verdict: { t: "initial" },
      resourceNames: [],
      initialResourceVersions: { a: "a1" },
    });
    next.respond(CDS, "v2", "n2", { c: "c1" });
    next.ack(CDS, "v2");

    expect(Object.fromEntries(tracker.node("envoy-1")?.types[0]?.acked?.held ?? [])).toEqual({
      a: "a1",
      c: "c1",
    });
  });

  it("what a closed stream held back is forgotten with it", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("grpc-1"));
    s.request(CDS);
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.nack(CDS, "", "resource index 0: a: bad", ["a"]);
    s.holdBack([
      { typeUrl: CDS, name: "a", version: "a1", reason: { t: "rejected", errorDetail: "bad" } },
    ]);
    s.close();

    expect(tracker.node("grpc-1")?.types[0]?.heldBack).toEqual([]);
  });

  it("a type stays NACKED while later responses are unanswered, however long", () => {
    const { tracker, advance } = trackerWithClock({ staleAfterMs: 1_000 });
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.nack(CDS, "v1", "bad");
    s.respond(CDS, "v2", "n2", { a: "a2" });
    advance(5_000);
    expect(statusOf(tracker, "envoy-1", CDS)?.t).toBe("NACKED");
  });

  it("a later ACK recovers a NACKED type and records a recovered event", () => {
    const { tracker, advance, now } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.nack(CDS, "v1", "bad");
    const nackedAt = now();
    advance(100);
    s.respond(CDS, "v2", "n2", { a: "a2" });
    s.ack(CDS, "v2");
    expect(statusOf(tracker, "envoy-1", CDS)).toEqual({
      t: "SYNCED",
      versionInfo: "v2",
      ackedAt: now(),
    });
    // The last NACK stays in the ledger for the console.
    expect(tracker.node("envoy-1")?.types[0]?.nack?.errorDetail).toBe("bad");
    expect(tracker.events().map((e) => e.t)).toEqual(["connect", "nack", "recovered"]);
    expect(tracker.events().at(-1)).toMatchObject({
      t: "recovered",
      nodeId: "envoy-1",
      typeUrl: CDS,
      versionInfo: "v2",
      nackedAt,
      at: now(),
    });
  });

  it("a stale request, and a Delta update asking for nothing new, answer nothing and change nothing", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"), "ads-delta");
    s.request(CDS, ["b"]);
    s.respond(CDS, "v1", "n1", { a: "a1" });
    const changes: StatusChange[] = [];
    tracker.subscribe((c) => changes.push(c));
    tracker.onRequest({ streamId: 1, typeUrl: CDS, verdict: { t: "stale" }, resourceNames: ["c"] });
    tracker.onRequest({
      streamId: 1,
      typeUrl: CDS,
      verdict: { t: "update" },
      resourceNames: ["b"],
    });
    expect(statusOf(tracker, "envoy-1", CDS)?.t).toBe("PENDING");
    expect(changes).toEqual([]);
  });

  it("a type subscribed to by name (gRPC's CDS) is not a wildcard; an empty first list or `*` is, and a SotW list without `*` drops it", () => {
    const { tracker } = trackerWithClock();
    const wildcardOf = (nodeId: string, typeUrl: string) =>
      tracker.node(nodeId)?.types.find((t) => t.typeUrl === typeUrl)?.wildcard;
    const grpc = streamOf(tracker, 1, nodeLike("grpc-1"));
    grpc.request(CDS, ["blue"]);
    grpc.request(LDS, []);
    expect(wildcardOf("grpc-1", CDS)).toBe(false);
    expect(wildcardOf("grpc-1", LDS)).toBe(true);
    tracker.onRequest({
      streamId: 1,
      typeUrl: LDS,
      verdict: { t: "ack", version: "v" },
      resourceNames: ["*", "x"],
    });
    expect(wildcardOf("grpc-1", LDS)).toBe(true);
    tracker.onRequest({
      streamId: 1,
      typeUrl: LDS,
      verdict: { t: "ack", version: "v" },
      resourceNames: ["x"],
    });
    expect(wildcardOf("grpc-1", LDS)).toBe(false);

    const delta = streamOf(tracker, 2, nodeLike("envoy-1"), "ads-delta");
    delta.request(CDS, []);
    delta.request(EDS, ["a"]);
    expect(wildcardOf("envoy-1", CDS)).toBe(true);
    expect(wildcardOf("envoy-1", EDS)).toBe(false);
    // Delta names added later keep a wildcard; `*` added later makes one.
    tracker.onRequest({
      streamId: 2,
      typeUrl: CDS,
      verdict: { t: "update" },
      resourceNames: ["b"],
    });
    expect(wildcardOf("envoy-1", CDS)).toBe(true);
    tracker.onRequest({
      streamId: 2,
      typeUrl: EDS,
      verdict: { t: "update" },
      resourceNames: ["*"],
    });
    expect(wildcardOf("envoy-1", EDS)).toBe(true);
  });

  it("keeps the names a node subscribes to: a SotW request's list, a Delta stream's additions less its removals; the same set while unchanged, and one set for nodes asking for the same", () => {
    const { tracker } = trackerWithClock();
    const requestedOf = (nodeId: string, typeUrl: string) =>
      tracker.node(nodeId)?.types.find((t) => t.typeUrl === typeUrl)?.requested;
    const grpc = streamOf(tracker, 1, nodeLike("grpc-1"));
    grpc.request(EDS, ["blue", "green"]);
    const first = requestedOf("grpc-1", EDS);
    expect([...(first ?? [])]).toEqual(["blue", "green"]);
    grpc.resubscribe(EDS, ["green", "blue"]);
    expect(requestedOf("grpc-1", EDS)).toBe(first);
    grpc.resubscribe(EDS, ["green"]);
    expect([...(requestedOf("grpc-1", EDS) ?? [])]).toEqual(["green"]);
    grpc.request(CDS, ["*"]);
    expect(requestedOf("grpc-1", CDS)?.size).toBe(0);

    const delta = streamOf(tracker, 2, nodeLike("envoy-1"), "ads-delta");
    delta.request(EDS, ["a", "b"]);
    delta.resubscribe(EDS, ["c"], ["a"]);
    expect([...(requestedOf("envoy-1", EDS) ?? [])].sort()).toEqual(["b", "c"]);
    const before = requestedOf("envoy-1", EDS);
    delta.resubscribe(EDS, ["b"], ["x"]);
    expect(requestedOf("envoy-1", EDS)).toBe(before);
    // Nodes asking for the same names share one set.
    const other = streamOf(tracker, 4, nodeLike("grpc-2"));
    other.request(EDS, ["green"]);
    expect(requestedOf("grpc-2", EDS)).toBe(requestedOf("grpc-1", EDS));
    // A new Delta stream starts its subscription from nothing.
    const again = streamOf(tracker, 3, nodeLike("envoy-1"), "ads-delta");
    again.request(EDS, ["z"]);
    expect([...(requestedOf("envoy-1", EDS) ?? [])]).toEqual(["z"]);
  });

  it("a Delta response's removed resources leave the held set on ACK", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"), "ads-delta");
    s.respond(CDS, "v1", "n1", { a: "a1", b: "b1" });
    s.ack(CDS, "v1");
    tracker.onResponse({
      streamId: 1,
      typeUrl: CDS,
      versionInfo: "v2",
      nonce: "n2",
      resourceNames: [],
      removed: ["a"],
    });
    s.ack(CDS, "v2");
    expect([...(tracker.node("envoy-1")?.types[0]?.acked?.held ?? [])]).toEqual([["b", "b1"]]);
  });

  it("without resource versions in responses, held resources are known by name only", () => {
    const { tracker } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("envoy-1"));
    tracker.onResponse({
      streamId: 1,
      typeUrl: CDS,
      versionInfo: "v1",
      nonce: "n1",
      resourceNames: ["a"],
    });
    tracker.onRequest({
      streamId: 1,
      typeUrl: CDS,
      verdict: { t: "ack", version: "v1" },
      resourceNames: [],
    });
    const acked = tracker.node("envoy-1")?.types[0]?.acked;
    expect(acked?.resourceVersionsKnown).toBe(false);
    expect([...(acked?.held ?? [])]).toEqual([["a", undefined]]);
  });

  it("a node whose last stream closes is kept as disconnected, with the time and its last stream", () => {
    const { tracker, advance, now } = trackerWithClock();
    const s = streamOf(tracker, 7, nodeLike("envoy-1"));
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    advance(60_000);
    s.close();
    const node = tracker.node("envoy-1");
    expect(node?.connection).toMatchObject({
      t: "disconnected",
      since: now(),
      lastStream: { streamId: 7, replicaId: "replica-a" },
    });
    expect(node?.types[0]?.status.t).toBe("SYNCED");
    expect(tracker.events().at(-1)).toMatchObject({
      t: "disconnect",
      streamId: 7,
      nodeDisconnected: true,
    });
  });

  it("a node stays connected while another of its streams is open, since its first", () => {
    const { tracker, advance, now } = trackerWithClock();
    const since = now();
    const cds = streamOf(tracker, 1, nodeLike("envoy-1"), "sotw");
    advance(10);
    streamOf(tracker, 2, nodeLike("envoy-1"), "sotw");
    cds.close();
    expect(tracker.node("envoy-1")?.connection).toMatchObject({
      t: "connected",
      since,
      streams: [{ streamId: 2 }],
    });
    expect(tracker.events().at(-1)).toMatchObject({ t: "disconnect", nodeDisconnected: false });
  });

  it("a reconnecting node is connected again, since the new stream", () => {
    const { tracker, advance, now } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("envoy-1")).close();
    advance(1_000);
    streamOf(tracker, 2, nodeLike("envoy-1"));
    expect(tracker.node("envoy-1")?.connection).toMatchObject({ t: "connected", since: now() });
  });

  it("pruning forgets only nodes disconnected before the given time", () => {
    const { tracker, advance, now } = trackerWithClock();
    streamOf(tracker, 1, nodeLike("gone")).close();
    advance(1_000);
    const cutoff = now();
    streamOf(tracker, 2, nodeLike("recent")).close();
    streamOf(tracker, 3, nodeLike("live"));
    expect(tracker.pruneDisconnected(cutoff)).toEqual(["gone"]);
    expect(tracker.nodes().map((n) => n.identity.id)).toEqual(["live", "recent"]);
  });

  it("keeps only the newest events up to its capacity, with increasing sequence numbers", () => {
    const { tracker } = trackerWithClock({ eventCapacity: 3 });
    for (let id = 1; id <= 5; id++) streamOf(tracker, id, nodeLike(`envoy-${id}`));
    const events = tracker.events();
    expect(events.map((e) => [e.seq, e.nodeId])).toEqual([
      [3, "envoy-3"],
      [4, "envoy-4"],
      [5, "envoy-5"],
    ]);
    expect(tracker.events(4).map((e) => e.seq)).toEqual([5]);
  });

  it("a node's status for some types has just those types' views, as the whole status has them", () => {
    const { tracker } = trackerWithClock();
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.request(CDS);
    s.request(LDS);
    s.request(RDS, ["routes"]);
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    s.respond(RDS, "r1", "n2", { routes: "r1" });
    const whole = tracker.node("envoy-1");
    const some = tracker.node(
      "envoy-1",
      undefined,
      new Set([RDS, CDS, "type.googleapis.com/unknown"]),
    );
    expect(some?.types.map((t) => t.typeUrl)).toEqual([CDS, RDS]);
    expect(some?.types).toEqual(whole?.types.filter((t) => t.typeUrl !== LDS));
    expect(some?.identity).toBe(whole?.identity);
  });

  it("feeds each change with the node id, the type when one type changed, and whether it was only a response sent", () => {
    const { tracker } = trackerWithClock();
    const changes: StatusChange[] = [];
    const stop = tracker.subscribe((c) => changes.push(c));
    const s = streamOf(tracker, 1, nodeLike("envoy-1"));
    s.request(CDS);
    s.respond(CDS, "v1", "n1", { a: "a1" });
    s.ack(CDS, "v1");
    stop();
    s.close();
    expect(changes).toEqual([
      { nodeId: "envoy-1", typeUrl: undefined },
      { nodeId: "envoy-1", typeUrl: CDS },
      { nodeId: "envoy-1", typeUrl: CDS, sent: true },
      { nodeId: "envoy-1", typeUrl: CDS },
    ]);
  });

  it("a throwing listener does not break the stream's callback; its error is reported", () => {
    const errors: unknown[] = [];
    const { tracker } = trackerWithClock({ onListenerError: (e) => errors.push(e) });
    const seen: StatusChange[] = [];
    tracker.subscribe(() => {
      throw new Error("listener broke");
    });
    tracker.subscribe((c) => seen.push(c));
    expect(() => streamOf(tracker, 1, nodeLike("envoy-1"))).not.toThrow();
    expect(errors).toEqual([new Error("listener broke")]);
    expect(seen).toHaveLength(1);
  });

  it("events for streams it never saw open are ignored", () => {
    const { tracker } = trackerWithClock();
    tracker.onResponse({
      streamId: 9,
      typeUrl: CDS,
      versionInfo: "v",
      nonce: "n",
      resourceNames: [],
    });
    tracker.onRequest({ streamId: 9, typeUrl: CDS, verdict: { t: "initial" }, resourceNames: [] });
    tracker.onStreamClosed({ streamId: 9 });
    expect(tracker.nodes()).toEqual([]);
    expect(tracker.events()).toEqual([]);
  });
});
