import { Prisma } from "@switchyard/db";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHUNK_ROWS, chunks, column, rowsSource } from "./bulk-sql.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

interface Row {
  readonly n: number | bigint | null;
  readonly s: string | null;
  readonly tags: readonly string[];
  readonly doc: unknown;
  readonly at: number;
  readonly ok: boolean;
}

const columns = [
  column<Row>("n", "int8", (r) => r.n),
  column<Row>("s", "text", (r) => r.s),
  column<Row>("tags", "text[]", (r) => r.tags),
  column<Row>("doc", "jsonb", (r) => r.doc),
  column<Row>("at", "timestamp(3)", (r) => r.at),
  column<Row>("ok", "bool", (r) => r.ok),
];

/** Writes `rows` into a temporary table through rowsSource and reads them back in order. */
function roundTrip(rows: readonly Row[]) {
  return database.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(
      `CREATE TEMP TABLE t (seq serial, n int8, s text, tags text[], doc jsonb, at timestamp(3), ok bool) ON COMMIT DROP`,
    );
    for (const chunk of chunks(rows))
      await tx.$executeRaw`INSERT INTO t ${rowsSource(columns, chunk)}`;
    return tx.$queryRaw<
      { n: bigint | null; s: string | null; tags: string[]; doc: unknown; at: Date; ok: boolean }[]
    >(Prisma.sql`SELECT n, s, tags, doc, at, ok FROM t ORDER BY seq`);
  });
}

describe("bulk writes (rowsSource)", () => {
  it("writes every row in order with each column's value as given, over several statements", async () => {
    const rows: Row[] = Array.from({ length: CHUNK_ROWS + 7 }, (_, i) => ({
      n: i % 5 === 0 ? null : i,
      s: i % 7 === 0 ? null : `row "${i}", with \\ and , and {braces}`,
      tags: i % 3 === 0 ? [] : ["NULL", "", `t${i}`, 'a "quoted", tag'],
      doc: { i, nested: { list: [i, "x"] } },
      at: Date.UTC(2026, 10, 27, 12, 0, 0, i % 1000),
      ok: i % 2 === 0,
    }));
    const back = await roundTrip(rows);
    expect(back).toHaveLength(rows.length);
    back.forEach((row, i) => {
      const sent = rows[i] as Row;
      expect(row).toEqual({
        n: sent.n === null ? null : BigInt(sent.n),
        s: sent.s,
        tags: sent.tags,
        doc: sent.doc,
        at: new Date(sent.at),
        ok: sent.ok,
      });
    });
  });

  it("stores a lone surrogate as U+FFFD rather than failing the write, and takes a bigint", async () => {
    const [row] = await roundTrip([
      { n: 2n ** 40n, s: "a\ud800b", tags: ["x\udc00"], doc: { k: "\ud800" }, at: 0, ok: true },
    ]);
    expect(row?.n).toBe(2n ** 40n);
    expect(row?.s).toBe("a\ufffdb");
    expect(row?.tags).toEqual(["x\ufffd"]);
    expect(row?.doc).toEqual({ k: "\ufffd" });
  });

  it("refuses a number JSON cannot carry (NaN would read as NULL), naming the column", async () => {
    await expect(
      roundTrip([{ n: Number.NaN, s: "x", tags: [], doc: {}, at: 0, ok: true }]),
    ).rejects.toThrow("column n: NaN is not a finite number");
  });
});
