import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import type { LoadRow } from "@switchyard/status";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { addLoad, readLoad, readLoadAround, rollUpLoad } from "./load-store.js";

const NOW = Date.UTC(2026, 10, 27, 14, 0, 0);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const row = (bucket: number, fields: Partial<LoadRow> = {}): LoadRow => ({
  bucket,
  widthS: 10,
  nodeId: "n1",
  cluster: "blue",
  region: "eu",
  zone: "eu-1",
  subZone: "",
  endpoint: "",
  successful: 1,
  errored: 0,
  issued: 1,
  inProgress: 0,
  dropped: 0,
  ...fields,
});

describe("load samples in PostgreSQL", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });
  beforeEach(async () => {
    await database.prisma.loadSample.deleteMany({});
  });

  it("adds reports of the same bucket and key, whichever replica wrote them; in-progress is the latest", async () => {
    await addLoad(database.prisma, [row(NOW, { successful: 3, inProgress: 2 })]);
    await addLoad(database.prisma, [row(NOW, { successful: 4, errored: 1, inProgress: 5 })]);
    const [point] = await readLoad(database.prisma, { by: "cluster", since: NOW - MINUTE });
    expect(point).toMatchObject({
      series: "blue",
      successful: 7,
      errored: 1,
      inProgress: 5,
      widthS: 10,
    });
  });

  it("stores U+0000 a proxy put in its node id or locality as U+FFFD instead of failing the write", async () => {
    await addLoad(database.prisma, [row(NOW, { nodeId: "n\u0000", zone: "eu\u00001" })]);
    const [point] = await readLoad(database.prisma, { by: "locality", since: NOW - MINUTE });
    expect(point?.series).toBe("eu/eu\ufffd1/");
    const [node] = await readLoad(database.prisma, { by: "node", since: NOW - MINUTE });
    expect(node?.series).toBe("n\ufffd");
  });

  it("reads by cluster, locality, endpoint and node, filtered by cluster and node, endpoints apart from their locality's totals", async () => {
    await addLoad(database.prisma, [
      row(NOW, { successful: 5 }),
      row(NOW, { zone: "eu-2", successful: 2 }),
      row(NOW, { endpoint: "10.0.0.1:80", successful: 5 }),
      row(NOW, { nodeId: "n2", successful: 1 }),
      row(NOW, { cluster: "green", successful: 9 }),
    ]);
    const totals = async (query: Parameters<typeof readLoad>[1]) =>
      Object.fromEntries(
        (await readLoad(database.prisma, query)).map((p) => [p.series, p.successful]),
      );
    const since = NOW - MINUTE;
    expect(await totals({ by: "cluster", since })).toEqual({ blue: 8, green: 9 });
    expect(await totals({ by: "locality", since, cluster: "blue" })).toEqual({
      "eu/eu-1/": 6,
      "eu/eu-2/": 2,
    });
    expect(await totals({ by: "endpoint", since, cluster: "blue" })).toEqual({ "10.0.0.1:80": 5 });
    expect(await totals({ by: "node", since, cluster: "blue" })).toEqual({ n1: 7, n2: 1 });
    expect(await totals({ by: "cluster", since, nodeId: "n2" })).toEqual({ blue: 1 });
  });

  it("rolls 10 s buckets of whole minutes past an hour into 60 s ones, keeps recent ones, and deletes what is past the retention", async () => {
    const old = NOW - 2 * HOUR; // a whole minute
    await addLoad(database.prisma, [
      row(old, { successful: 1, inProgress: 3 }),
      row(old + 10_000, { successful: 2, inProgress: 1 }),
      row(old + 50_000, { successful: 4 }),
      row(NOW - 10 * MINUTE, { successful: 8 }),
      row(NOW - 25 * HOUR, { successful: 16 }),
    ]);
    await rollUpLoad(database.prisma, NOW, { fineForMs: HOUR, retainMs: 24 * HOUR });
    const rows = await database.prisma.loadSample.findMany({ orderBy: { bucket: "asc" } });
    expect(
      rows.map((r) => [r.bucket.getTime(), r.widthS, Number(r.successful), Number(r.inProgress)]),
    ).toEqual([
      [old, 60, 7, 3],
      [NOW - 10 * MINUTE, 10, 8, 0],
    ]);
    // Rolling up again changes nothing: a minute is rolled up once.
    await rollUpLoad(database.prisma, NOW, { fineForMs: HOUR, retainMs: 24 * HOUR });
    expect(await database.prisma.loadSample.count()).toBe(2);
  });

  it("sums each cluster's load before and after a publish; the bucket spanning it, and buckets outside the windows, count in neither", async () => {
    const at = NOW + 5_000; // in the middle of the bucket [NOW, NOW + 10 s)
    await addLoad(database.prisma, [
      row(NOW - 10 * MINUTE, { successful: 1000 }), // before the window
      row(NOW - 2 * MINUTE, { successful: 10, errored: 1 }),
      row(NOW - 10_000, { successful: 20, dropped: 2 }),
      row(NOW, { successful: 500, errored: 500 }), // spans the publish
      row(NOW + 10_000, { successful: 3, errored: 7 }),
      row(NOW + 10_000, { successful: 1, nodeId: "n2" }),
      row(NOW + 10_000, { successful: 99, endpoint: "10.0.0.1:80" }), // endpoint rows are apart
      row(NOW + 10_000, { successful: 50, cluster: "green" }), // not asked for
      row(NOW + 10 * MINUTE, { successful: 1000 }), // after the window
    ]);
    const sides = await readLoadAround(database.prisma, {
      clusters: ["blue", "red"],
      at,
      windowMs: 5 * MINUTE,
    });
    expect(Object.fromEntries(sides)).toEqual({
      blue: {
        before: { successful: 30, errored: 1, dropped: 2 },
        after: { successful: 4, errored: 7, dropped: 0 },
      },
    });
  });
});
