import { createServer } from "node:net";
import { createSqlPool, listenForNotifications, type SqlPool } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { NodeStatusTracker } from "@switchyard/status";
import {
  CDS,
  EDS,
  LDS,
  nodeLike,
  RDS,
  streamOf,
  trackerWithClock,
} from "@switchyard/status/fixtures";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/** A tracker on a hand-driven clock, at a realistic date (rows carry timestamps). */
const trackerAt = (replicaId = "replica-a") =>
  trackerWithClock({ replicaId }, Date.UTC(2026, 0, 1));

import { getNode, listNodes } from "./status-reader.js";
import {
  parseStatusPayload,
  STATUS_CHANNEL,
  type StatusBatch,
  statusPayload,
  writeStatusBatch,
} from "./status-store.js";
import { StatusWriter, type StatusWriterOptions } from "./status-writer.js";

let database: TestDatabase;
let pool: SqlPool;
const writers: StatusWriter[] = [];
beforeEach(async () => {
  database = await createTestDatabase();
  pool = createSqlPool(database.url);
});
afterEach(async () => {
  for (const writer of writers.splice(0)) await writer.close();
  vi.useRealTimers();
  await pool.close();
  await database.drop();
});

/**
 * A writer on the test database that counts its transactions (`writing` is the latest); its
 * interval is long unless set.
 */
function writerFor(
  tracker: NodeStatusTracker,
  options: Partial<StatusWriterOptions> = {},
): {
  writer: StatusWriter;
  transactions: () => number;
  writing: () => Promise<unknown>;
  errors: unknown[];
} {
  let transactions = 0;
  let writing: Promise<unknown> = Promise.resolve();
  const errors: unknown[] = [];
  const writer = new StatusWriter({
    tracker,
    intervalMs: 60_000,
    onError: (error) => errors.push(error),
    write: (batch) => {
      transactions += 1;
      writing = writeStatusBatch(pool, batch);
      return writing;
    },
    ...options,
  });
  writers.push(writer);
  return { writer, transactions: () => transactions, writing: () => writing, errors };
}

/**
 * 300 nodes that asked for CDS, on a tracker whose clock starts at `start`, and a writer of them
 * every 50 ms (more than 50 nodes pending is busy: writes 200 ms apart) counting its writes and
 * type rows; `advance` moves the clock and the interval on, 50 ms at a time, each write awaited.
 */
function fanOut(start: number) {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  let clock = start;
  const tracker = new NodeStatusTracker({ replicaId: "replica-a", now: () => clock });
  const counts = { writes: 0, typeRows: 0 };
  let written: Promise<unknown> = Promise.resolve();
  const { writer } = writerFor(tracker, {
    intervalMs: 50,
    busyIntervalMs: 200,
    busyNodes: 50,
    now: () => clock,
    write: (batch) => {
      counts.writes += 1;
      counts.typeRows += batch.types.length;
      written = writeStatusBatch(pool, batch);
      return written;
    },
  });
  const streams = Array.from({ length: 300 }, (_, i) =>
    streamOf(tracker, i + 1, nodeLike(`node-${String(i).padStart(3, "0")}`)),
  );
  for (const stream of streams) stream.request(CDS);
  return {
    writer,
    streams,
    counts,
    async advance(ms: number) {
      for (let t = 0; t < ms; t += 50) {
        clock += 50;
        await vi.advanceTimersByTimeAsync(50);
        await written;
      }
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("StatusWriter", () => {
  it("a flurry of 2,000 ACKs across 200 nodes is written in a handful of transactions", async () => {
    // The flush interval is the one timer here: faked, so that 10 rounds 20 ms apart span exactly
    // 4 intervals (at 50, 100, 150 and 200 ms), whatever the machine's load.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const tracker = new NodeStatusTracker({ replicaId: "replica-a" });
    const { writer, transactions, writing } = writerFor(tracker, { intervalMs: 50 });
    const streams = Array.from({ length: 200 }, (_, i) => {
      const stream = streamOf(tracker, i + 1, nodeLike(`node-${String(i).padStart(3, "0")}`));
      stream.request(CDS);
      return stream;
    });
    // 10 rounds of respond + ACK per node, arriving over 200 ms as a burst of traffic would.
    let acks = 0;
    for (let round = 1; round <= 10; round++) {
      for (const [i, stream] of streams.entries()) {
        stream.respond(CDS, `v${round}`, `n${round}-${i}`, { backend: `v${round}` });
        stream.ack(CDS, `v${round}`);
        acks += 1;
      }
      await vi.advanceTimersByTimeAsync(20);
      // The write an interval started is real I/O: let it end, so that the next interval finds
      // no flush in flight and writes what came meanwhile.
      await writing();
    }
    await writer.flush();

    expect(acks).toBe(2_000);
    // One transaction per interval: the interval at 200 ms wrote the last round, and the final
    // flush found nothing left.
    expect(transactions()).toBe(4);
    const nodes = await listNodes(database.prisma, { status: "SYNCED", held: true });
    expect(nodes).toHaveLength(200);
    expect(nodes.every((n) => n.types[0]?.acked?.version === "v10")).toBe(true);
    expect(nodes[0]?.types[0]?.held).toEqual({ backend: "v10" });
    // 200 nodes holding the same thing share one stored set.
    expect(new Set(nodes.map((n) => n.types[0]?.heldKey)).size).toBe(1);
    // At most one stored set per transaction.
    expect(await database.prisma.xdsHeldSet.count()).toBeLessThanOrEqual(4);
  });

  it("while a fan-out keeps more than busyNodes nodes pending, writes come busyIntervalMs apart, each node's send and ACK in one row write", async () => {
    const { writer, streams, counts, advance } = fanOut(1_000_000);
    // The first interval writes the connects at once: nothing was written before.
    await advance(50);
    expect(counts.writes).toBe(1);
    // A change reaches every node over 200 ms (sent, then ACKed), more than busyNodes pending
    // from the first interval on: the intervals at 100, 150 and 200 ms wait; the one at 250 ms,
    // 200 ms after the last write, writes.
    for (let step = 0; step < 4; step++) {
      for (const [i, stream] of streams.entries()) {
        if (i % 4 !== step) continue;
        stream.respond(CDS, "v2", `n2-${i}`, { backend: "v2" });
        stream.ack(CDS, "v2");
      }
      await advance(50);
      expect(counts.writes).toBe(step < 3 ? 1 : 2);
    }
    const before = counts.typeRows;
    await writer.flush();
    expect(counts.typeRows).toBe(before);
    // One row write per node for the change (sent and ACKed together), and every node SYNCED on v2.
    expect(before).toBe(300 + 300);
    const nodes = await listNodes(database.prisma, { status: "SYNCED", held: true });
    expect(nodes).toHaveLength(300);
    expect(nodes.every((n) => n.types[0]?.acked?.version === "v2")).toBe(true);
  });

  it("a node only sent a response is passed over by the interval's next write and written by the one after: with its answer if it came, as PENDING if not", async () => {
    // Now: rows read PENDING until the tracker's stale threshold, read against the real clock.
    const { writer, streams, counts, advance } = fanOut(Date.now());
    const written = () => [counts.writes, counts.typeRows];
    await advance(50);
    expect(written()).toEqual([1, 300]);
    // Every node is sent v2; none answers before the next busy write, which passes them all over.
    for (const [i, stream] of streams.entries()) stream.respond(CDS, "v2", `n2-${i}`, { b: "v2" });
    await advance(200);
    expect(written()).toEqual([1, 300]);
    // Half answer; the write after writes every node: the ACKed SYNCED, the others PENDING.
    for (const stream of streams.slice(0, 150)) stream.ack(CDS, "v2");
    await advance(200);
    expect(written()).toEqual([2, 600]);
    expect(await listNodes(database.prisma, { status: "SYNCED" })).toHaveLength(150);
    expect(await listNodes(database.prisma, { status: "PENDING" })).toHaveLength(150);
    // An explicit flush passes nothing over.
    for (const [i, stream] of streams.entries()) stream.respond(CDS, "v3", `n3-${i}`, { b: "v3" });
    await writer.flush();
    expect(written()).toEqual([3, 900]);
  });

  it("a handful of nodes changing is written at the next interval, however recent the last write", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    let clock = 1_000_000;
    const tracker = new NodeStatusTracker({ replicaId: "replica-a", now: () => clock });
    const { transactions, writing } = writerFor(tracker, {
      intervalMs: 50,
      busyIntervalMs: 10_000,
      busyNodes: 100,
      now: () => clock,
    });
    const stream = streamOf(tracker, 1, nodeLike("node-a"));
    stream.request(CDS);
    for (let round = 1; round <= 3; round++) {
      stream.respond(CDS, `v${round}`, `n${round}`, { backend: `v${round}` });
      stream.ack(CDS, `v${round}`);
      clock += 50;
      await vi.advanceTimersByTimeAsync(50);
      await writing();
      expect(transactions()).toBe(round);
    }
  });

  it("nodes written by two replicas to one database are all listed, each with its replica", async () => {
    const a = trackerAt("replica-a");
    const b = trackerAt("replica-b");
    const writerA = writerFor(a.tracker, { now: a.now }).writer;
    const writerB = writerFor(b.tracker, { now: b.now }).writer;
    streamOf(a.tracker, 1, nodeLike("envoy-1")).request(CDS);
    streamOf(b.tracker, 1, nodeLike("envoy-2")).request(LDS);
    await Promise.all([writerA.flush(), writerB.flush()]);

    const nodes = await listNodes(database.prisma);
    expect(nodes.map((n) => [n.id, n.replicaId, n.types.map((t) => t.typeUrl)])).toEqual([
      ["envoy-1", "replica-a", [CDS]],
      ["envoy-2", "replica-b", [LDS]],
    ]);
    expect(await listNodes(database.prisma, { replicaId: "replica-b" })).toHaveLength(1);
  });

  it("an ACK moves its node's updatedAt, which live feeds compare, and leaves the node as connected", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    await writer.flush();
    const updatedAt = async () =>
      (await database.prisma.xdsNode.findUniqueOrThrow({ where: { id: "envoy-1" } })).updatedAt;
    const before = await updatedAt();

    advance(5_000);
    stream.respond(CDS, "v1", "n1", { backend: "v1" });
    stream.ack(CDS, "v1");
    await writer.flush();

    expect((await updatedAt()).getTime()).toBe(before.getTime() + 5_000);
    const [node] = await listNodes(database.prisma, { connected: true });
    expect(node?.id).toBe("envoy-1");
    expect(node?.types[0]?.acked?.version).toBe("v1");
  });

  it("a node whose streams closed is kept, as disconnected since the close", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    const connectedAt = now();
    await writer.flush();
    advance(5_000);
    stream.close();
    await writer.flush();

    const node = await getNode(database.prisma, "envoy-1");
    expect(node?.connection).toEqual({
      t: "disconnected",
      since: connectedAt + 5_000,
      connectedSince: connectedAt,
    });
    expect(node?.events.map((e) => e.kind)).toEqual(["disconnect", "connect"]);
    expect(await listNodes(database.prisma, { connected: true })).toEqual([]);
    expect(await listNodes(database.prisma, { connected: false })).toHaveLength(1);
  });

  it("a disconnect seen by one replica does not hide the node connected through another", async () => {
    const a = trackerAt("replica-a");
    const b = trackerAt("replica-b");
    const writerA = writerFor(a.tracker, { now: a.now }).writer;
    const writerB = writerFor(b.tracker, { now: b.now }).writer;
    const onA = streamOf(a.tracker, 1, nodeLike("envoy-1"));
    await writerA.flush();
    b.advance(1_000);
    streamOf(b.tracker, 7, nodeLike("envoy-1"));
    await writerB.flush();
    onA.close();
    await writerA.flush();

    const node = await getNode(database.prisma, "envoy-1");
    expect(node?.replicaId).toBe("replica-b");
    expect(node?.connection.t).toBe("connected");
  });

  it("a NACK's text, version and nonce are stored, and a later ACK clears NACKED", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v2", "nonce-2", { backend: "v2" });
    stream.nack(CDS, "v2", "cluster backend: bad lb_policy", ["backend"]);
    const rejected = { t: "rejected" as const, errorDetail: "cluster backend: bad lb_policy" };
    stream.holdBack([{ typeUrl: CDS, name: "backend", version: "v2", reason: rejected }]);
    await writer.flush();

    const nacked = await getNode(database.prisma, "envoy-1", { at: now() });
    expect(nacked?.types[0]?.status).toBe("NACKED");
    expect(nacked?.types[0]?.lastNack).toEqual({
      errorDetail: "cluster backend: bad lb_policy",
      version: "v2",
      nonce: "nonce-2",
      at: now(),
      rejected: ["backend"],
    });
    expect(nacked?.types[0]?.heldBack).toEqual([
      { name: "backend", version: "v2", reason: rejected },
    ]);
    expect(await listNodes(database.prisma, { status: "NACKED" })).toHaveLength(1);

    advance(1_000);
    stream.holdBack([]);
    stream.respond(CDS, "v3", "nonce-3", { backend: "v3" });
    stream.ack(CDS, "v3");
    await writer.flush();

    const recovered = await getNode(database.prisma, "envoy-1", { at: now() });
    expect(recovered?.types[0]?.status).toBe("SYNCED");
    expect(recovered?.types[0]?.heldBack).toEqual([]);
    expect(recovered?.types[0]?.acked).toEqual({ version: "v3", nonce: "nonce-3", at: now() });
    expect(recovered?.types[0]?.lastNack?.version).toBe("v2");
    expect(recovered?.events.map((e) => e.kind)).toEqual(["recovered", "nack", "connect"]);
    expect(recovered?.events[1]?.detail).toMatchObject({
      errorDetail: "cluster backend: bad lb_policy",
      rejectedVersion: "v2",
      nonce: "nonce-2",
    });
    expect(await listNodes(database.prisma, { status: "NACKED" })).toEqual([]);
  });

  it("U+0000 from an xDS client (Postgres cannot hold it), in its node, types, NACK text or subscribed names, is stored as U+FFFD, and every other node's status is still written", async () => {
    const { tracker, now } = trackerAt();
    const { writer, errors } = writerFor(tracker, { now });
    const odd = streamOf(
      tracker,
      1,
      nodeLike("nul\u0000node", {
        cluster: "edge\u0000",
        metadata: { "key\u0000": "value\u0000", nested: ["\u0000"] },
        clientFeatures: ["feature\u0000"],
      }),
    );
    odd.request(`${CDS}\u0000`);
    odd.request(CDS);
    odd.request(EDS, ["a\u0000b"]);
    odd.respond(CDS, "v1", "nonce-1", { backend: "v1" });
    odd.nack(CDS, "v1", "bad\u0000cluster");
    streamOf(tracker, 2, nodeLike("envoy-1")).request(CDS);

    expect(await writer.flush()).toBe(true);
    expect(errors).toEqual([]);
    expect((await listNodes(database.prisma)).map((n) => n.id)).toEqual([
      "envoy-1",
      "nul\ufffdnode",
    ]);
    const stored = await getNode(database.prisma, "nul\ufffdnode", { at: now() });
    expect(stored?.cluster).toBe("edge\ufffd");
    expect(stored?.metadata).toEqual({ "key\ufffd": "value\ufffd", nested: ["\ufffd"] });
    expect(stored?.clientFeatures).toEqual(["feature\ufffd"]);
    expect(stored?.types.map((t) => t.typeUrl)).toEqual([CDS, `${CDS}\ufffd`, EDS]);
    // A name it subscribes to, kept for Client Status Discovery.
    expect(stored?.types.find((t) => t.typeUrl === EDS)?.requested).toEqual(["a\ufffdb"]);
    expect(stored?.types[0]?.lastNack?.errorDetail).toBe("bad\ufffdcluster");
  });

  it("a response left unanswered past the stale threshold reads as STALE", async () => {
    const { tracker, now } = trackerAt();
    const { writer } = writerFor(tracker, { now });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v1", "nonce-1", { backend: "v1" });
    await writer.flush();

    const pending = await listNodes(database.prisma, { status: "PENDING", at: now() });
    expect(pending.map((n) => n.types[0]?.status)).toEqual(["PENDING"]);
    const later = now() + 10_000;
    const stale = await listNodes(database.prisma, { status: "STALE", at: later });
    expect(stale.map((n) => n.types[0]?.status)).toEqual(["STALE"]);
    expect(await listNodes(database.prisma, { status: "PENDING", at: later })).toEqual([]);
  });

  it("events beyond the retention bound are deleted, the newest kept", async () => {
    const { tracker, now } = trackerAt();
    const { writer } = writerFor(tracker, { now, keepEvents: 5 });
    for (let i = 1; i <= 12; i++) streamOf(tracker, i, nodeLike(`envoy-${i}`));
    await writer.flush();
    for (let i = 13; i <= 20; i++) streamOf(tracker, i, nodeLike(`envoy-${i}`));
    await writer.flush();

    const events = await database.prisma.xdsNodeEvent.findMany({ orderBy: { id: "asc" } });
    expect(events.map((e) => e.nodeId)).toEqual([16, 17, 18, 19, 20].map((i) => `envoy-${i}`));
    expect(await listNodes(database.prisma)).toHaveLength(20);
  });

  it("a flush while the database is unreachable keeps the changes and writes them once it is back", async () => {
    const unreachable = createSqlPool(
      `postgresql://postgres:password@127.0.0.1:${await closedPort()}/none`,
    );
    let reachable = false;
    const { tracker, now } = trackerAt();
    const { writer, errors } = writerFor(tracker, {
      now,
      write: (batch: StatusBatch) => writeStatusBatch(reachable ? pool : unreachable, batch),
    });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.nack(CDS, "v1", "bad");

    expect(await writer.flush()).toBe(false);
    expect(errors).toHaveLength(1);
    expect(await listNodes(database.prisma)).toEqual([]);

    stream.respond(CDS, "v2", "nonce-2", { backend: "v2" });
    expect(await writer.flush()).toBe(false);
    expect(errors).toHaveLength(2);

    reachable = true;
    expect(await writer.flush()).toBe(true);
    const node = await getNode(database.prisma, "envoy-1", { at: now() });
    expect(node?.types.map((t) => [t.typeUrl, t.status, t.sent?.version])).toEqual([
      [CDS, "NACKED", "v2"],
    ]);
    expect(node?.events.map((e) => e.kind)).toEqual(["nack", "connect"]);
    await unreachable.close();
  });

  it("never has more than one flush in flight: flushes asked for during one wait for it", async () => {
    const { tracker, now } = trackerAt();
    let inFlight = 0;
    let most = 0;
    let writes = 0;
    let firstStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      firstStarted = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { writer } = writerFor(tracker, {
      now,
      intervalMs: 3_600_000,
      write: async (batch) => {
        inFlight += 1;
        writes += 1;
        most = Math.max(most, inFlight);
        firstStarted();
        await held;
        await writeStatusBatch(pool, batch);
        inFlight -= 1;
      },
    });
    streamOf(tracker, 1, nodeLike("envoy-1"));
    const first = writer.flush();
    await started;
    // The first write is held open: these overlap it, for certain.
    streamOf(tracker, 2, nodeLike("envoy-2"));
    const more = [writer.flush(), writer.flush()];
    release();
    expect(await Promise.all([first, ...more])).toEqual([true, true, true]);
    expect(most).toBe(1);
    expect(writes).toBeGreaterThanOrEqual(2);
    expect((await listNodes(database.prisma)).map((n) => n.id)).toEqual(["envoy-1", "envoy-2"]);
  });

  it("tells every replica which nodes a flush wrote, in one notification at commit", async () => {
    const notifications: string[] = [];
    let notified!: () => void;
    const firstNotification = new Promise<void>((resolve) => {
      notified = resolve;
    });
    const listener = await listenForNotifications({
      url: database.url,
      channels: [STATUS_CHANNEL],
      onNotification: (_channel, payload) => {
        notifications.push(payload);
        notified();
      },
    });
    try {
      const { tracker, now } = trackerAt();
      const { writer } = writerFor(tracker, { now });
      streamOf(tracker, 1, nodeLike("envoy-1")).request(CDS);
      streamOf(tracker, 2, nodeLike("envoy-2"));
      await writer.flush();
      await firstNotification;
      expect(notifications.map(parseStatusPayload)).toEqual([new Set(["envoy-1", "envoy-2"])]);
    } finally {
      await listener.close();
    }
  });

  it("a notification too large for Postgres asks listeners to re-read every node", () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => `envoy-with-a-long-node-id-${i}`);
    expect(statusPayload(ids)).toBe("*");
    expect(parseStatusPayload("*")).toBe("all");
    expect(parseStatusPayload(statusPayload(["a"]))).toEqual(new Set(["a"]));
  });

  it("deletes nodes disconnected for longer than the retention, with their events, and keeps the rest", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now, retainDisconnectedMs: 60 * 60_000 });
    streamOf(tracker, 1, nodeLike("gone-long-ago")).close();
    const recent = streamOf(tracker, 2, nodeLike("gone-recently"));
    streamOf(tracker, 3, nodeLike("still-here"));
    await writer.flush();
    advance(50 * 60_000);
    recent.close();
    await writer.flush();
    advance(20 * 60_000);
    await writer.flush();

    expect((await listNodes(database.prisma)).map((n) => n.id)).toEqual([
      "gone-recently",
      "still-here",
    ]);
    const events = await database.prisma.xdsNodeEvent.findMany();
    expect(events.some((e) => e.nodeId === "gone-long-ago")).toBe(false);
  });

  it("a node ACKing a new version rewrites no indexed column of its rows, in tables that keep room in their pages: PostgreSQL can update them in place (HOT)", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(RDS, ["routes-0", "routes-1"]);
    stream.respond(RDS, "v1", "n1", { "routes-0": "a1", "routes-1": "b1" });
    stream.ack(RDS, "v1");
    await writer.flush();
    const rows = () =>
      database.prisma.$queryRaw<Array<{ table: string; row: Record<string, unknown> }>>`
        SELECT 'XdsNode' AS "table", to_jsonb(n) AS "row" FROM "XdsNode" n
        UNION ALL SELECT 'XdsNodeType', to_jsonb(t) FROM "XdsNodeType" t`;
    const before = await rows();

    advance(5_000);
    stream.respond(RDS, "v2", "n2", { "routes-0": "a2", "routes-1": "b1" });
    stream.ack(RDS, "v2");
    await writer.flush();

    const after = await rows();
    const changed = new Set<string>();
    for (const { table, row } of after) {
      const old = before.find((b) => b.table === table)?.row ?? {};
      for (const [column, value] of Object.entries(row))
        if (JSON.stringify(value) !== JSON.stringify(old[column]))
          changed.add(`${table}.${column}`);
    }
    // The write happened, and moved what an ACK moves.
    expect(changed).toContain("XdsNodeType.ackedVersion");
    expect(changed).toContain("XdsNodeType.heldKey");
    expect(changed).toContain("XdsNode.updatedAt");
    const indexed = await database.prisma.$queryRaw<Array<{ column: string }>>`
      SELECT c.relname || '.' || a.attname AS "column"
      FROM pg_index i
      JOIN pg_class c ON c.oid = i.indrelid
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE c.relname IN ('XdsNode', 'XdsNodeType')`;
    expect(indexed.map((i) => i.column)).toContain("XdsNodeType.status");
    expect(indexed.map((i) => i.column).filter((column) => changed.has(column))).toEqual([]);
    const options = await database.prisma.$queryRaw<Array<{ name: string; options: string[] }>>`
      SELECT relname AS "name", reloptions AS "options" FROM pg_class
      WHERE relname IN ('XdsNode', 'XdsNodeType') ORDER BY relname`;
    expect(options).toEqual([
      { name: "XdsNode", options: ["fillfactor=70"] },
      { name: "XdsNodeType", options: ["fillfactor=70"] },
    ]);
  });

  it("a retention pass deletes the held sets no type refers to once unused past the grace, and keeps the rest", async () => {
    const { tracker, now, advance } = trackerAt();
    const { writer } = writerFor(tracker, { now, retainDisconnectedMs: 60 * 60_000 });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(RDS, ["routes-0"]);
    stream.respond(RDS, "v1", "n1", { "routes-0": "a1" });
    stream.ack(RDS, "v1");
    await writer.flush();
    advance(1_000);
    stream.respond(RDS, "v2", "n2", { "routes-0": "a2" });
    stream.ack(RDS, "v2");
    await writer.flush();
    const held = async () =>
      (
        await database.prisma.xdsNodeType.findUniqueOrThrow({
          where: { nodeId_typeUrl: { nodeId: "envoy-1", typeUrl: RDS } },
        })
      ).heldKey;
    const current = await held();
    const sets = async () =>
      (await database.prisma.xdsHeldSet.findMany({ select: { key: true } })).map((h) => h.key);
    // v1's set, v2's set and the requested names' set.
    expect(await sets()).toHaveLength(3);
    await database.prisma.$executeRaw`
      UPDATE "XdsHeldSet" SET "touchedAt" = now() - interval '11 minutes'`;

    advance(60_000); // a retention pass comes at most once a minute
    stream.request(CDS);
    await writer.flush();

    const left = await sets();
    expect(left).toHaveLength(2);
    expect(left).toContain(current);
    expect(await held()).toBe(current);
  });
});
