import { Prisma } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type ActivityCounts,
  activityQuery,
  activityWindow,
  readNodeActivity,
} from "./activity-reader.js";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A bucket boundary of five-minute buckets (and of every length that divides an hour). */
const START = Date.UTC(2026, 0, 1, 10);
/** 12 five-minute buckets, the last holding START + 1 h - 1 min: [START, START + 1 h). */
const WINDOW = activityWindow(START + HOUR - MINUTE, HOUR, 12);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});
beforeEach(async () => {
  await database.prisma.$executeRaw`TRUNCATE "XdsNodeHistory"`;
});

type Kind = "connect" | "disconnect" | "sent" | "ack" | "nack";
const rows = (nodeId: string, list: ReadonlyArray<readonly [Kind, number]>) =>
  database.prisma.xdsNodeHistory.createMany({
    data: list.map(([kind, at]) => ({
      nodeId,
      kind,
      at: new Date(at),
      typeUrl: kind === "connect" || kind === "disconnect" ? null : CDS,
      version: kind === "connect" || kind === "disconnect" ? null : "v1",
    })),
  });

const zero: ActivityCounts = { acks: 0, nacks: 0, connects: 0, disconnects: 0 };
const counts = (c: Partial<ActivityCounts>): ActivityCounts => ({ ...zero, ...c });

describe("activityWindow", () => {
  it("ends with the bucket holding now, aligned to the bucket's length since the epoch", () => {
    expect(WINDOW).toEqual({ start: START, end: START + HOUR, bucketMs: 5 * MINUTE, count: 12 });
    // Asked again later within the same bucket: the same buckets.
    expect(activityWindow(START + HOUR - 1, HOUR, 12)).toEqual(WINDOW);
    // At the next bucket's first millisecond the window moves on by one bucket.
    expect(activityWindow(START + HOUR, HOUR, 12).start).toBe(START + 5 * MINUTE);
  });

  it("a window that does not divide evenly gets buckets of whole milliseconds", () => {
    const w = activityWindow(START, 1_000, 3);
    expect(w.bucketMs).toBe(333);
    expect(w.end - w.start).toBe(999);
    expect(w.end).toBeGreaterThan(START);
    expect(w.start).toBeLessThanOrEqual(START);
  });
});

describe("readNodeActivity (XdsNodeHistory, one query)", () => {
  it("counts each node's ACKs, NACKs, connects and disconnects per bucket, oldest first; sent rows are not changes", async () => {
    await rows("envoy-1", [
      ["connect", START + 1_000],
      ["sent", START + 2_000],
      ["ack", START + 2_000],
      ["ack", START + 3_000],
      ["nack", START + 12 * MINUTE],
      ["disconnect", START + 59 * MINUTE],
      ["connect", START + 59 * MINUTE + 30_000],
      ["ack", START + 59 * MINUTE + 31_000],
    ]);
    await rows("envoy-2", [["nack", START + 6 * MINUTE]]);
    const [one, two] = await readNodeActivity(database.prisma, ["envoy-1", "envoy-2"], WINDOW);
    expect(one?.nodeId).toBe("envoy-1");
    expect(one?.buckets).toHaveLength(12);
    expect(one?.buckets[0]).toEqual(counts({ acks: 2, connects: 1 }));
    expect(one?.buckets[2]).toEqual(counts({ nacks: 1 }));
    expect(one?.buckets[11]).toEqual(counts({ acks: 1, connects: 1, disconnects: 1 }));
    for (const i of [1, 3, 4, 5, 6, 7, 8, 9, 10]) expect(one?.buckets[i]).toEqual(zero);
    expect(two?.buckets[1]).toEqual(counts({ nacks: 1 }));
    expect(two?.buckets.reduce((n, b) => n + b.nacks + b.acks, 0)).toBe(1);
  });

  it("counts a row at the window's start in its first bucket, and none a millisecond before it or at its end", async () => {
    await rows("envoy-1", [
      ["ack", START - 1],
      ["ack", START],
      ["nack", START + 5 * MINUTE - 1],
      ["nack", START + 5 * MINUTE],
      ["ack", START + HOUR - 1],
      ["ack", START + HOUR],
    ]);
    const [one] = await readNodeActivity(database.prisma, ["envoy-1"], WINDOW);
    expect(one?.buckets[0]).toEqual(counts({ acks: 1, nacks: 1 }));
    expect(one?.buckets[1]).toEqual(counts({ nacks: 1 }));
    expect(one?.buckets[11]).toEqual(counts({ acks: 1 }));
    const total = one?.buckets.reduce((n, b) => n + b.acks + b.nacks, 0);
    expect(total).toBe(4);
  });

  it("a node without history in the window answers zeros in every bucket, in the order asked", async () => {
    await rows("envoy-1", [["ack", START + MINUTE]]);
    await rows("old", [["ack", START - HOUR]]);
    const answer = await readNodeActivity(
      database.prisma,
      ["never-seen", "old", "envoy-1"],
      WINDOW,
    );
    expect(answer.map((n) => n.nodeId)).toEqual(["never-seen", "old", "envoy-1"]);
    expect(answer[0]?.buckets).toEqual(Array(12).fill(zero));
    expect(answer[1]?.buckets).toEqual(Array(12).fill(zero));
    expect(answer[2]?.buckets[0]).toEqual(counts({ acks: 1 }));
  });

  it("reads only the asked nodes' rows in the window through the (nodeId, at) index, not the whole history", async () => {
    // 2,000 nodes with 100 rows each over two days (200,000 rows), then statistics.
    await database.prisma.$executeRaw`
      INSERT INTO "XdsNodeHistory" ("nodeId", "kind", "at", "typeUrl", "version")
      SELECT 'node-' || n, (ARRAY['ack', 'nack', 'sent', 'connect'])[1 + (i % 4)],
        ${new Date(START - 47 * HOUR).toISOString()}::timestamp(3) + (i * interval '29 minutes'),
        ${CDS}, 'v' || i
      FROM generate_series(1, 2000) AS n, generate_series(1, 100) AS i`;
    await database.prisma.$executeRaw`ANALYZE "XdsNodeHistory"`;
    const ids = Array.from({ length: 50 }, (_, i) => `node-${i * 37 + 1}`);
    const [plan] = await database.prisma.$queryRaw<Array<{ "QUERY PLAN": unknown }>>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${activityQuery(ids, WINDOW)}`,
    );
    const text = JSON.stringify(plan?.["QUERY PLAN"]);
    expect(text).toContain('"Index Name":"XdsNodeHistory_nodeId_at_idx"');
    expect(text).not.toContain("Seq Scan");
    const answer = await readNodeActivity(database.prisma, ids, WINDOW);
    expect(answer).toHaveLength(50);
    // Every 29 minutes over the window's hour: two or three rows per node, never more.
    for (const node of answer) {
      const n = node.buckets.reduce((s, b) => s + b.acks + b.nacks + b.connects, 0);
      expect(n).toBeLessThanOrEqual(3);
    }
  });
});
