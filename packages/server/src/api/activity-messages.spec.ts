import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { type Timestamp, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { GetNodeActivityRequestSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeActivityOf } from "./activity-messages.js";

const MINUTE = 60_000;
const NOW = Date.UTC(2026, 0, 1, 10, 59, 30);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.prisma.xdsNodeHistory.createMany({
    data: [
      { nodeId: "envoy-1", kind: "connect", at: new Date(NOW - 50 * MINUTE) },
      { nodeId: "envoy-1", kind: "nack", at: new Date(NOW - 2 * MINUTE), version: "v2" },
    ],
  });
});
afterAll(async () => {
  await database.drop();
});

type Init = MessageInitShape<typeof GetNodeActivityRequestSchema>;
const request = (init: Init) =>
  create(GetNodeActivityRequestSchema, { nodeIds: ["envoy-1"], ...init });

const ms = (t: Timestamp | undefined) => (t === undefined ? Number.NaN : timestampMs(t));

/** A database that must not be asked: a refused request reads nothing. */
const untouchable = new Proxy({} as PrismaClient, {
  get() {
    throw new Error("a refused request queried the database");
  },
});

async function refusal(init: Init) {
  const error = await nodeActivityOf(untouchable, request(init), NOW).then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  expect(error?.code).toBe(Code.InvalidArgument);
  return {
    message: error?.rawMessage ?? "",
    paths: error?.findDetails(ValidationErrorsSchema)[0]?.issues.map((i) => i.path) ?? [],
  };
}

describe("GetNodeActivity", () => {
  it("by default counts the last hour in 12 five-minute buckets, aligned, the last holding now", async () => {
    const answer = await nodeActivityOf(database.prisma, request({}), NOW);
    expect(answer.bucketMs).toBe(5 * MINUTE);
    expect(answer.bucketCount).toBe(12);
    const start = ms(answer.start);
    const end = ms(answer.end);
    expect(start).toBe(Date.UTC(2026, 0, 1, 10));
    expect(end).toBe(Date.UTC(2026, 0, 1, 11));
    const [node] = answer.nodes;
    expect(node?.buckets.map((b) => ms(b.start))).toEqual(
      Array.from({ length: 12 }, (_, i) => start + i * 5 * MINUTE),
    );
    expect(node?.buckets[1]).toMatchObject({ connects: 1, nacks: 0 });
    expect(node?.buckets[11]).toMatchObject({ nacks: 1, connects: 0 });
  });

  it("honours window_seconds and buckets, and answers a repeated id once", async () => {
    const answer = await nodeActivityOf(
      database.prisma,
      request({ nodeIds: ["envoy-1", "other", "envoy-1"], windowSeconds: 600, buckets: 10 }),
      NOW,
    );
    expect(answer.bucketMs).toBe(MINUTE);
    expect(answer.nodes.map((n) => n.nodeId)).toEqual(["envoy-1", "other"]);
    // The connect 50 minutes ago is outside the ten minutes.
    expect(answer.nodes[0]?.buckets.map((b) => b.connects + b.nacks)).toEqual([
      0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
    ]);
    expect(answer.nodes[1]?.buckets.every((b) => b.nacks + b.acks === 0)).toBe(true);
  });

  it.each<[string, Init, string, RegExp]>([
    ["no node ids", { nodeIds: [] }, "node_ids", /node_ids: name at least one node/],
    [
      "more than 500 node ids",
      { nodeIds: Array.from({ length: 501 }, (_, i) => `n${i}`) },
      "node_ids",
      /node_ids: 501 ids are more than the 500/,
    ],
    ["an empty id", { nodeIds: ["a", "b", ""] }, "node_ids[2]", /node_ids: id 3 is empty/],
    [
      "an id longer than a node id can be",
      { nodeIds: ["x".repeat(10_000)] },
      "node_ids[0]",
      /node_ids: id 1 is 10000 bytes long, more than a node id can be \(1024\)/,
    ],
    ["a window under a minute", { windowSeconds: 59 }, "window_seconds", /window_seconds: 59/],
    [
      "a window over a day",
      { windowSeconds: 86_401 },
      "window_seconds",
      /window_seconds: 86401 is outside 60 to 86400/,
    ],
    ["more than 120 buckets", { buckets: 121 }, "buckets", /buckets: 121 is more than 120/],
    [
      "buckets shorter than a second",
      { windowSeconds: 60, buckets: 61 },
      "buckets",
      /shorter than a second each; ask for at most 60/,
    ],
  ])("refuses %s, naming the field, before reading anything", async (_, init, path, message) => {
    const refused = await refusal(init);
    expect(refused.message).toMatch(message);
    expect(refused.paths).toEqual([path]);
  });

  it("does not echo a long id back whole", async () => {
    const refused = await refusal({ nodeIds: ["x".repeat(10_000)] });
    expect(refused.message.length).toBeLessThan(200);
  });
});
