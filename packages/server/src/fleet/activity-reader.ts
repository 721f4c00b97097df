import { Prisma, type PrismaClient } from "@switchyard/db";
import { sqlTime } from "./history-reader.js";

/**
 * Recent activity per node (StatusService.GetNodeActivity): the XdsNodeHistory rows of each kind
 * that counts as a change, counted per time bucket, for the Nodes table's sparklines. Times are
 * ms since the epoch.
 */

/** The window counted: `count` buckets of `bucketMs`, [start, end). */
export interface ActivityWindow {
  readonly start: number;
  readonly end: number;
  readonly bucketMs: number;
  readonly count: number;
}

/** One node's changes in one bucket: its history rows of each kind. */
export interface ActivityCounts {
  readonly acks: number;
  readonly nacks: number;
  readonly connects: number;
  readonly disconnects: number;
}

export interface NodeActivityRecord {
  readonly nodeId: string;
  /** `window.count` entries, oldest first. */
  readonly buckets: readonly ActivityCounts[];
}

const ZERO: ActivityCounts = { acks: 0, nacks: 0, connects: 0, disconnects: 0 };

/**
 * The window of `count` buckets that `windowMs` cut into (each floor(windowMs / count) ms long),
 * aligned to multiples of the bucket's length since the epoch, its last bucket holding `now`:
 * two reads within one bucket count the same buckets, and a bucket's count only ever grows while
 * it is the last. Pure.
 */
export function activityWindow(now: number, windowMs: number, count: number): ActivityWindow {
  const bucketMs = Math.floor(windowMs / count);
  const end = (Math.floor(now / bucketMs) + 1) * bucketMs;
  return { start: end - bucketMs * count, end, bucketMs, count };
}

interface Row {
  readonly nodeId: string;
  readonly bucket: number;
  readonly acks: number;
  readonly nacks: number;
  readonly connects: number;
  readonly disconnects: number;
}

/**
 * The counts of `nodeIds`' rows in `window`, GROUP BY node and bucket: only those nodes' rows in
 * the window are read, through the ("nodeId", "at") index (one range per id), so the cost
 * follows the rows counted, not the fleet's size or the history's length.
 */
export function activityQuery(nodeIds: readonly string[], window: ActivityWindow): Prisma.Sql {
  const start = sqlTime(window.start);
  return Prisma.sql`
    SELECT "nodeId",
      floor(extract(epoch FROM ("at" - ${start})) * 1000 / ${window.bucketMs}::bigint)::int
        AS "bucket",
      (count(*) FILTER (WHERE "kind" = 'ack'))::int AS "acks",
      (count(*) FILTER (WHERE "kind" = 'nack'))::int AS "nacks",
      (count(*) FILTER (WHERE "kind" = 'connect'))::int AS "connects",
      (count(*) FILTER (WHERE "kind" = 'disconnect'))::int AS "disconnects"
    FROM "XdsNodeHistory"
    WHERE "nodeId" = ANY(${nodeIds as string[]}::text[])
      AND "at" >= ${start} AND "at" < ${sqlTime(window.end)}
      AND "kind" IN ('ack', 'nack', 'connect', 'disconnect')
    GROUP BY 1, 2`;
}

/**
 * Each of `nodeIds` (distinct) with its counts per bucket of `window`, in the order given; a
 * node without rows in the window gets zeros. One query (activityQuery).
 */
export async function readNodeActivity(
  prisma: PrismaClient,
  nodeIds: readonly string[],
  window: ActivityWindow,
): Promise<NodeActivityRecord[]> {
  const rows = await prisma.$queryRaw<Row[]>(activityQuery(nodeIds, window));
  const byNode = new Map<string, ActivityCounts[]>(
    nodeIds.map((id) => [id, Array.from({ length: window.count }, () => ZERO)]),
  );
  for (const row of rows) {
    const buckets = byNode.get(row.nodeId);
    if (buckets === undefined || row.bucket < 0 || row.bucket >= window.count) continue;
    buckets[row.bucket] = {
      acks: row.acks,
      nacks: row.nacks,
      connects: row.connects,
      disconnects: row.disconnects,
    };
  }
  return [...byNode].map(([nodeId, buckets]) => ({ nodeId, buckets }));
}
