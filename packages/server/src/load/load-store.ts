/**
 * LoadSample rows in PostgreSQL (prisma/schema.prisma): reports added into their buckets in bulk,
 * 10 s buckets older than an hour rolled up into 60 s ones, and buckets past the retention
 * deleted. Any replica may write the same bucket: counts add up in the database.
 */
import { Prisma, type PrismaClient } from "@switchyard/db";
import type { LoadRow } from "@switchyard/status";
import { storableText } from "../fleet/status-rows.js";
import { type Column, chunks, column, rowsSource } from "../store/bulk-sql.js";

// Node ids, localities and endpoint addresses come from proxies: U+0000, which Postgres text
// cannot hold, is stored as U+FFFD (storableText), or one report would fail every write.
const columns: readonly Column<LoadRow>[] = [
  column("bucket", "timestamp(3)", (r) => r.bucket),
  column("widthS", "int4", (r) => r.widthS),
  column("nodeId", "text", (r) => storableText(r.nodeId)),
  column("cluster", "text", (r) => storableText(r.cluster)),
  column("region", "text", (r) => storableText(r.region)),
  column("zone", "text", (r) => storableText(r.zone)),
  column("subZone", "text", (r) => storableText(r.subZone)),
  column("endpoint", "text", (r) => storableText(r.endpoint)),
  column("successful", "int8", (r) => r.successful),
  column("errored", "int8", (r) => r.errored),
  column("issued", "int8", (r) => r.issued),
  column("inProgress", "int8", (r) => r.inProgress),
  column("dropped", "int8", (r) => r.dropped),
];

/** Adds `rows` to their buckets, in one transaction. */
export async function addLoad(prisma: PrismaClient, rows: readonly LoadRow[]): Promise<void> {
  if (rows.length === 0) return;
  await prisma.$transaction(async (tx) => {
    for (const chunk of chunks(rows)) {
      await tx.$executeRaw`
        INSERT INTO "LoadSample" ${rowsSource(columns, chunk)}
        ON CONFLICT ("bucket", "widthS", "nodeId", "cluster", "region", "zone", "subZone", "endpoint")
        DO UPDATE SET
          "successful" = "LoadSample"."successful" + EXCLUDED."successful",
          "errored" = "LoadSample"."errored" + EXCLUDED."errored",
          "issued" = "LoadSample"."issued" + EXCLUDED."issued",
          "dropped" = "LoadSample"."dropped" + EXCLUDED."dropped",
          "inProgress" = EXCLUDED."inProgress"`;
    }
  });
}

/** The width of recent buckets (the report interval asked for) and of rolled-up ones, seconds. */
export const FINE_WIDTH_S = 10;
export const COARSE_WIDTH_S = 60;

/**
 * Rolls 10 s buckets that started more than `fineForMs` before `now` into 60 s buckets, and deletes
 * buckets that started more than `retainMs` before `now`, in one transaction.
 */
export async function rollUpLoad(
  prisma: PrismaClient,
  now: number,
  options: { readonly fineForMs: number; readonly retainMs: number },
): Promise<void> {
  // Whole minutes only: a minute is rolled up once, when all of its 10 s buckets are old enough.
  const fineBefore = new Date(
    Math.floor((now - options.fineForMs) / (COARSE_WIDTH_S * 1000)) * COARSE_WIDTH_S * 1000,
  ).toISOString();
  const retainAfter = new Date(now - options.retainMs).toISOString();
  await prisma.$transaction([
    prisma.$executeRaw`
      INSERT INTO "LoadSample" ("bucket", "widthS", "nodeId", "cluster", "region", "zone",
        "subZone", "endpoint", "successful", "errored", "issued", "inProgress", "dropped")
      SELECT date_trunc('minute', "bucket"), ${COARSE_WIDTH_S}, "nodeId", "cluster", "region",
        "zone", "subZone", "endpoint", sum("successful"), sum("errored"), sum("issued"),
        max("inProgress"), sum("dropped")
      FROM "LoadSample"
      WHERE "widthS" = ${FINE_WIDTH_S} AND "bucket" < ${fineBefore}::timestamp(3)
      GROUP BY 1, 3, 4, 5, 6, 7, 8
      ON CONFLICT ("bucket", "widthS", "nodeId", "cluster", "region", "zone", "subZone", "endpoint")
      DO UPDATE SET
        "successful" = "LoadSample"."successful" + EXCLUDED."successful",
        "errored" = "LoadSample"."errored" + EXCLUDED."errored",
        "issued" = "LoadSample"."issued" + EXCLUDED."issued",
        "dropped" = "LoadSample"."dropped" + EXCLUDED."dropped",
        "inProgress" = GREATEST("LoadSample"."inProgress", EXCLUDED."inProgress")`,
    prisma.$executeRaw`
      DELETE FROM "LoadSample"
      WHERE "widthS" = ${FINE_WIDTH_S} AND "bucket" < ${fineBefore}::timestamp(3)`,
    prisma.$executeRaw`DELETE FROM "LoadSample" WHERE "bucket" < ${retainAfter}::timestamp(3)`,
  ]);
}

/** What a load series is broken down by. */
export type LoadDimension = "cluster" | "locality" | "endpoint" | "node";

export interface LoadQuery {
  /** Only this cluster's load; all clusters when undefined. */
  readonly cluster?: string;
  /** Only what this node reported. */
  readonly nodeId?: string;
  readonly by: LoadDimension;
  /** From this instant (ms) to now. */
  readonly since: number;
}

export interface LoadPoint {
  /** The series: the cluster, "region/zone/sub_zone", the endpoint or the node id. */
  readonly series: string;
  readonly bucket: number;
  readonly widthS: number;
  readonly successful: number;
  readonly errored: number;
  readonly issued: number;
  readonly inProgress: number;
  readonly dropped: number;
}

const seriesOf: Record<LoadDimension, Prisma.Sql> = {
  cluster: Prisma.sql`"cluster"`,
  locality: Prisma.sql`"region" || '/' || "zone" || '/' || "subZone"`,
  endpoint: Prisma.sql`"endpoint"`,
  node: Prisma.sql`"nodeId"`,
};

/**
 * The load matching `query`, per series and bucket, oldest first. Locality and endpoint rows are
 * apart (a locality's totals would count its endpoints twice): by endpoint reads endpoint rows,
 * the other breakdowns the localities' totals.
 */
export async function readLoad(prisma: PrismaClient, query: LoadQuery): Promise<LoadPoint[]> {
  const rows = await prisma.$queryRaw<
    {
      series: string;
      bucket: Date;
      widthS: number;
      successful: bigint;
      errored: bigint;
      issued: bigint;
      inProgress: bigint;
      dropped: bigint;
    }[]
  >`
    SELECT ${seriesOf[query.by]} AS "series", "bucket", "widthS",
      sum("successful") AS "successful", sum("errored") AS "errored", sum("issued") AS "issued",
      sum("inProgress") AS "inProgress", sum("dropped") AS "dropped"
    FROM "LoadSample"
    WHERE "bucket" >= ${new Date(query.since).toISOString()}::timestamp(3)
      AND ${query.by === "endpoint" ? Prisma.sql`"endpoint" <> ''` : Prisma.sql`"endpoint" = ''`}
      ${query.cluster === undefined ? Prisma.empty : Prisma.sql`AND "cluster" = ${query.cluster}`}
      ${query.nodeId === undefined ? Prisma.empty : Prisma.sql`AND "nodeId" = ${query.nodeId}`}
    GROUP BY 1, 2, 3
    ORDER BY 2, 1`;
  return rows.map((r) => ({
    series: r.series,
    bucket: r.bucket.getTime(),
    widthS: r.widthS,
    successful: Number(r.successful),
    errored: Number(r.errored),
    issued: Number(r.issued),
    inProgress: Number(r.inProgress),
    dropped: Number(r.dropped),
  }));
}

/** One side of a publish: what the clusters reported before it, or after it. */
export interface SideTotals {
  readonly successful: number;
  readonly errored: number;
  readonly dropped: number;
}

export interface LoadAroundQuery {
  readonly clusters: readonly string[];
  /** The publish (ms). */
  readonly at: number;
  /** The length of each side (ms). */
  readonly windowMs: number;
}

/**
 * Per cluster, the load reported in the window before `at` and in the window after it. Buckets are
 * by report arrival: one that spans `at` holds both sides and counts in neither.
 */
export async function readLoadAround(
  prisma: PrismaClient,
  query: LoadAroundQuery,
): Promise<Map<string, { before: SideTotals; after: SideTotals }>> {
  const out = new Map<string, { before: SideTotals; after: SideTotals }>();
  if (query.clusters.length === 0) return out;
  const at = new Date(query.at).toISOString();
  const rows = await prisma.$queryRaw<
    { cluster: string; after: boolean; successful: bigint; errored: bigint; dropped: bigint }[]
  >`
    SELECT "cluster", "bucket" >= ${at}::timestamp(3) AS "after",
      sum("successful") AS "successful", sum("errored") AS "errored", sum("dropped") AS "dropped"
    FROM "LoadSample"
    WHERE "endpoint" = '' AND "cluster" = ANY(${query.clusters as string[]}::text[])
      AND "bucket" >= ${new Date(query.at - query.windowMs).toISOString()}::timestamp(3)
      AND "bucket" < ${new Date(query.at + query.windowMs).toISOString()}::timestamp(3)
      AND ("bucket" >= ${at}::timestamp(3)
        OR "bucket" + make_interval(secs => "widthS") <= ${at}::timestamp(3))
    GROUP BY 1, 2`;
  const none: SideTotals = { successful: 0, errored: 0, dropped: 0 };
  for (const row of rows) {
    const entry = out.get(row.cluster) ?? { before: none, after: none };
    const totals = {
      successful: Number(row.successful),
      errored: Number(row.errored),
      dropped: Number(row.dropped),
    };
    out.set(row.cluster, row.after ? { ...entry, after: totals } : { ...entry, before: totals });
  }
  return out;
}

/**
 * Per node and cluster, the load of `clusters` in the 10 s buckets that start in [from, to): what
 * a rollout's traffic gate counts (the core splits it between the wave's nodes and the others).
 */
export async function readLoadByNode(
  prisma: PrismaClient,
  query: { readonly clusters: readonly string[]; readonly from: number; readonly to: number },
): Promise<{ nodeId: string; cluster: string; successful: number; errored: number }[]> {
  if (query.clusters.length === 0 || query.to <= query.from) return [];
  const rows = await prisma.$queryRaw<
    { nodeId: string; cluster: string; successful: bigint; errored: bigint }[]
  >`
    SELECT "nodeId", "cluster", sum("successful") AS "successful", sum("errored") AS "errored"
    FROM "LoadSample"
    WHERE "endpoint" = '' AND "widthS" = ${FINE_WIDTH_S}
      AND "cluster" = ANY(${query.clusters as string[]}::text[])
      AND "bucket" >= ${new Date(query.from).toISOString()}::timestamp(3)
      AND "bucket" < ${new Date(query.to).toISOString()}::timestamp(3)
    GROUP BY 1, 2`;
  return rows.map((r) => ({
    nodeId: r.nodeId,
    cluster: r.cluster,
    successful: Number(r.successful),
    errored: Number(r.errored),
  }));
}
