import { createSqlPool, type SqlPool } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ConvergenceTracker, holdsExactly } from "@switchyard/status";
import { CDS, nodeLike, streamOf, trackerWithClock } from "@switchyard/status/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFleetHeldAt, readNodeHeldAt, readNodeHistory } from "./history-reader.js";
import type { StatusBatch } from "./status-store.js";
import { writeStatusBatch } from "./status-store.js";
import { StatusWriter, type StatusWriterOptions } from "./status-writer.js";
import { readVersionConvergence } from "./version-convergence.js";

let database: TestDatabase;
let pool: SqlPool;
const writers: StatusWriter[] = [];
beforeEach(async () => {
  database = await createTestDatabase();
  pool = createSqlPool(database.url);
});
afterEach(async () => {
  for (const writer of writers.splice(0)) await writer.close();
  await pool.close();
  await database.drop();
});

const START = Date.UTC(2026, 0, 1);

function setup(options: Partial<StatusWriterOptions> = {}) {
  const { tracker, now, advance } = trackerWithClock({ replicaId: "replica-a" }, START);
  const batches: StatusBatch[] = [];
  const writer = new StatusWriter({
    tracker,
    intervalMs: 60_000,
    now,
    write: (batch) => {
      batches.push(batch);
      return writeStatusBatch(pool, batch);
    },
    ...options,
  });
  writers.push(writer);
  return { tracker, now, advance, writer, batches };
}

const historyCount = async () => {
  const [row] = await database.prisma.$queryRaw<Array<{ n: bigint }>>`
    SELECT count(*) AS n FROM "XdsNodeHistory"`;
  return Number(row?.n ?? 0);
};

describe("node history (XdsNodeHistory)", () => {
  it("records each version sent, ACKed and NACKed (with its text) and the connect, in the writer's one transaction per flush", async () => {
    const { now, advance, writer, batches, tracker } = setup();
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v1", "n1", { backend: "v1" });
    advance(100);
    stream.ack(CDS, "v1");
    await writer.flush();
    const ackedV1 = now();
    advance(1_000);
    stream.respond(CDS, "v2", "n2", { backend: "v2" });
    advance(100);
    stream.nack(CDS, "v2", "cluster backend: bad lb_policy");
    await writer.flush();
    advance(1_000);
    // A flush with nothing new for the type appends nothing.
    await writer.flush();
    stream.respond(CDS, "v3", "n3", { backend: "v3" });
    await writer.flush();

    expect(batches).toHaveLength(3);
    const { entries } = await readNodeHistory(database.prisma, "envoy-1", { limit: 100 });
    // A response answered before the write is recorded by its answer; one unanswered as sent.
    expect(entries.map((e) => [e.kind, e.typeUrl, e.version, e.errorDetail])).toEqual([
      ["connect", null, null, null],
      ["ack", CDS, "v1", null],
      ["nack", CDS, "v2", "cluster backend: bad lb_policy"],
      ["sent", CDS, "v3", null],
    ]);
    expect(entries[1]?.at).toBe(ackedV1);

    const between = await readNodeHeldAt(database.prisma, "envoy-1", ackedV1 + 500);
    expect(between.types[0]).toMatchObject({ state: "ACKED", ackedVersion: "v1" });
    const nacked = await readNodeHeldAt(database.prisma, "envoy-1", now() - 1);
    expect(nacked).toMatchObject({ connected: true });
    expect(nacked.types[0]).toMatchObject({
      state: "NACKED",
      ackedVersion: "v1",
      sentVersion: "v2",
      nack: { version: "v2", errorDetail: "cluster backend: bad lb_policy" },
    });
    const after = await readNodeHeldAt(database.prisma, "envoy-1", now());
    expect(after.types[0]).toMatchObject({
      state: "PENDING",
      ackedVersion: "v1",
      sentVersion: "v3",
    });
  });

  it("a node's last stream closing is recorded as a disconnect, and the fleet at T lists each node with what it held", async () => {
    const { now, advance, writer, tracker } = setup();
    const one = streamOf(tracker, 1, nodeLike("envoy-1"));
    const two = streamOf(tracker, 2, nodeLike("envoy-2"));
    for (const stream of [one, two]) {
      stream.request(CDS);
      stream.respond(CDS, "v1", "n1", { backend: "v1" });
      stream.ack(CDS, "v1");
    }
    await writer.flush();
    const before = now();
    advance(1_000);
    one.close();
    two.respond(CDS, "v2", "n2", { backend: "v2" });
    two.ack(CDS, "v2");
    await writer.flush();

    const fleetThen = await readFleetHeldAt(database.prisma, before, { limit: 10 });
    expect(
      fleetThen.nodes.map((n) => [n.nodeId, n.held.connected, n.held.types[0]?.ackedVersion]),
    ).toEqual([
      ["envoy-1", true, "v1"],
      ["envoy-2", true, "v1"],
    ]);
    const fleetNow = await readFleetHeldAt(database.prisma, now(), { limit: 10 });
    expect(
      fleetNow.nodes.map((n) => [n.nodeId, n.held.connected, n.held.types[0]?.ackedVersion]),
    ).toEqual([
      ["envoy-1", false, "v1"],
      ["envoy-2", true, "v2"],
    ]);
    const limited = await readFleetHeldAt(database.prisma, now(), {
      limit: 1,
      idContains: "envoy",
    });
    expect(limited.truncated).toBe(true);
    expect(limited.nodes.map((n) => n.nodeId)).toEqual(["envoy-1"]);
  });

  it("the retention pass deletes history older than SWITCHYARD_HISTORY_RETENTION and keeps at most SWITCHYARD_HISTORY_MAX_ROWS, the newest", async () => {
    const { advance, writer, tracker } = setup({
      historyRetentionMs: 10 * 60_000,
      historyMaxRows: 3,
    });
    const old = streamOf(tracker, 1, nodeLike("old"));
    old.request(CDS);
    old.respond(CDS, "v1", "n1", { backend: "v1" });
    old.ack(CDS, "v1");
    await writer.flush(); // connect and ack of "old" (and the first retention pass)
    expect(await historyCount()).toBe(2);
    advance(11 * 60_000);
    const fresh = streamOf(tracker, 2, nodeLike("fresh"));
    fresh.request(CDS);
    fresh.respond(CDS, "v1", "n1", { backend: "v1" });
    await writer.flush(); // the retention pass: "old" is past 10 min
    const { entries } = await readNodeHistory(database.prisma, "old", { limit: 100 });
    expect(entries).toEqual([]);
    expect(await historyCount()).toBe(2);

    fresh.ack(CDS, "v1");
    advance(10);
    fresh.respond(CDS, "v2", "n2", { backend: "v2" });
    await writer.flush();
    advance(61_000);
    await writer.flush(); // the next retention pass: 4 rows, 3 kept
    const kept = await readNodeHistory(database.prisma, "fresh", { limit: 100 });
    expect(kept.entries.map((e) => `${e.kind}:${e.version ?? ""}`)).toEqual([
      "sent:v1",
      "ack:v1",
      "sent:v2",
    ]);
  });

  it("a flush that fails writes its history with the retry, once", async () => {
    let fail = true;
    const { writer, tracker } = setup({
      onError: () => {},
      write: (batch) => {
        if (fail) return Promise.reject(new Error("database away"));
        return writeStatusBatch(pool, batch);
      },
    });
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v1", "n1", { backend: "v1" });
    stream.ack(CDS, "v1");
    expect(await writer.flush()).toBe(false);
    fail = false;
    expect(await writer.flush()).toBe(true);
    expect(await writer.flush()).toBe(true);
    const { entries } = await readNodeHistory(database.prisma, "envoy-1", { limit: 100 });
    expect(entries.map((e) => e.kind)).toEqual(["connect", "ack"]);
  });
});

describe("version convergence (XdsVersionConvergence)", () => {
  /** Published version rows, as publish writes them (only their numbers and times matter here). */
  const published = async (...versions: Array<[number, number]>) => {
    for (const [version, at] of versions)
      await database.prisma.snapshot.create({
        data: {
          version,
          createdAt: new Date(at),
          author: "test",
          message: `v${version}`,
          previousVersion: version - 1,
          sources: {},
          groups: [],
          changes: [],
        },
      });
  };

  function tracked() {
    // The writer reads the tallies at flush time, from the tracker made for its node tracker.
    const source = { takeChanged: () => convergence.takeChanged() };
    const world = setup({ convergence: source });
    const convergence = new ConvergenceTracker({ nodes: world.tracker });
    world.tracker.subscribe((change) => convergence.onChange(change));
    const publish = (version: number, wants: string, targets: string[]) =>
      convergence.publish({
        version: String(version),
        publishedAt: world.now(),
        targets,
        holds: holdsExactly(() => new Map([["backend", wants]])),
      });
    return { ...world, publish };
  }

  it("time to 50/99/100% counts from the publish over the nodes connected then, across replicas' writes", async () => {
    const { tracker, advance, now, writer, publish } = tracked();
    const streams = ["envoy-1", "envoy-2", "envoy-3", "envoy-4"].map((id, i) => {
      const stream = streamOf(tracker, i + 1, nodeLike(id));
      stream.request(CDS);
      stream.respond(CDS, "v1", `n1-${i}`, { backend: "b1" });
      stream.ack(CDS, "v1");
      return stream;
    });
    advance(1_000);
    const publishedAt = now();
    await published([1, publishedAt - 1_000], [2, publishedAt]);
    publish(2, "b2", ["envoy-1", "envoy-2", "envoy-3", "envoy-4"]);
    for (const [i, delay] of [120, 300].entries()) {
      const stream = streams[i];
      stream?.respond(CDS, "v2", `n2-${i}`, { backend: "b2" });
      advance(publishedAt + delay - now());
      stream?.ack(CDS, "v2");
    }
    streams[2]?.respond(CDS, "v2", "n2-2", { backend: "b2" });
    advance(50);
    streams[2]?.nack(CDS, "v2", "cluster backend: bad lb_policy");
    await writer.flush();

    let [latest] = await readVersionConvergence(database.prisma, { limit: 10 });
    expect(latest).toMatchObject({
      version: 2,
      publishedAt,
      targeted: 4,
      converged: 2,
      nacked: 1,
      nackedEver: 1,
      firstNackAt: publishedAt + 350,
      msTo50: 300,
      msTo99: undefined,
      msTo100: undefined,
      replicas: 1,
    });
    // Another replica's tally of the same version adds its nodes: 2 of 4 more, both fast.
    await database.prisma.xdsVersionConvergence.create({
      data: {
        version: 2,
        replicaId: "replica-b",
        publishedAt: new Date(publishedAt),
        targeted: 2,
        convergedMs: [10, 20],
        nacked: 0,
        nackedEver: 0,
        updatedAt: new Date(now()),
      },
    });
    // The NACKing node recovers, the last one converges.
    streams[2]?.respond(CDS, "v2", "n2-2b", { backend: "b2" });
    advance(publishedAt + 900 - now());
    streams[2]?.ack(CDS, "v2");
    streams[3]?.respond(CDS, "v2", "n2-3", { backend: "b2" });
    advance(publishedAt + 1_500 - now());
    streams[3]?.ack(CDS, "v2");
    await writer.flush();
    [latest] = await readVersionConvergence(database.prisma, { limit: 10 });
    expect(latest).toMatchObject({
      targeted: 6,
      converged: 6,
      nacked: 0,
      nackedEver: 1,
      msTo50: 120,
      msTo99: 1_500,
      msTo100: 1_500,
      replicas: 2,
    });
  });

  it("a history retention of 0 turns the history off: status is written, no history row and no tally", async () => {
    const source = { takeChanged: () => convergence.takeChanged() };
    const { tracker, writer, now } = setup({ historyRetentionMs: 0, convergence: source });
    const convergence = new ConvergenceTracker({ nodes: tracker });
    tracker.subscribe((change) => convergence.onChange(change));
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v1", "n1", { backend: "b1" });
    stream.ack(CDS, "v1");
    await published([1, now()]);
    convergence.publish({
      version: "1",
      publishedAt: now(),
      targets: ["envoy-1"],
      holds: holdsExactly(() => new Map([["backend", "b1"]])),
    });
    expect(await writer.flush()).toBe(true);
    expect(await database.prisma.xdsNodeType.count()).toBe(1);
    expect(await historyCount()).toBe(0);
    expect(await database.prisma.xdsVersionConvergence.count()).toBe(0);
  });

  it("a version published while no node was connected here writes nothing and reads as targeting none", async () => {
    const { writer, publish, now } = tracked();
    await published([1, now()]);
    publish(1, "b1", []);
    await writer.flush();
    expect(await database.prisma.xdsVersionConvergence.count()).toBe(0);
    const [only] = await readVersionConvergence(database.prisma, { limit: 10 });
    expect(only).toMatchObject({ version: 1, targeted: 0, converged: 0, msTo100: undefined });
  });

  it("a node that already held the version counts as converged at 0 ms and as already holding it", async () => {
    const { tracker, writer, publish, now } = tracked();
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    stream.respond(CDS, "v1", "n1", { backend: "b1" });
    stream.ack(CDS, "v1");
    await published([1, now()]);
    publish(1, "b1", ["envoy-1"]);
    await writer.flush();
    const [only] = await readVersionConvergence(database.prisma, { limit: 10 });
    expect(only).toMatchObject({ targeted: 1, converged: 1, alreadyHeld: 1, msTo100: 0 });
  });

  it("pages back from before_version, newest first, and drops tallies with the history's retention", async () => {
    const { tracker, writer, publish, now, advance } = tracked();
    const stream = streamOf(tracker, 1, nodeLike("envoy-1"));
    stream.request(CDS);
    await published([1, now()], [2, now() + 1], [3, now() + 2]);
    for (const version of [1, 2, 3]) publish(version, `b${version}`, ["envoy-1"]);
    await writer.flush();
    const page = await readVersionConvergence(database.prisma, { limit: 2, beforeVersion: 3 });
    expect(page.map((v) => [v.version, v.targeted])).toEqual([
      [2, 1],
      [1, 1],
    ]);
    // Past the retention, the next pruning flush deletes them with the history.
    const pruning = setup({ historyRetentionMs: 1_000 });
    advance(5_000);
    pruning.advance(now() - pruning.now());
    await pruning.writer.flush();
    expect(await database.prisma.xdsVersionConvergence.count()).toBe(0);
  });
});
