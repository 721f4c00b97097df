import { Prisma, type PrismaClient } from "@switchyard/db";
import { type HeldAt, type HistoryEntry, type HistoryKind, heldAt } from "./node-history.js";

/**
 * Reads XdsNodeHistory (written by StatusWriter) for GetNodeHistory and ListNodesAt. Times are
 * ms since the epoch.
 */

export const DEFAULT_HISTORY_LIMIT = 1_000;
export const MAX_HISTORY_LIMIT = 10_000;

interface Row {
  readonly nodeId: string;
  readonly kind: string;
  readonly at: Date;
  readonly typeUrl: string | null;
  readonly version: string | null;
  readonly nonce: string | null;
  readonly errorDetail: string | null;
}

const entryOf = (row: Row): HistoryEntry => ({
  kind: row.kind as HistoryKind,
  at: row.at.getTime(),
  typeUrl: row.typeUrl,
  version: row.version,
  nonce: row.nonce,
  errorDetail: row.errorDetail,
});

/** Prisma's DateTime is timestamp(3) without time zone, holding UTC. */
export const sqlTime = (ms: number) => Prisma.sql`${new Date(ms).toISOString()}::timestamp(3)`;

export interface NodeHistoryRange {
  readonly since?: number | undefined;
  readonly until?: number | undefined;
  /** At most this many, the newest in the range. */
  readonly limit: number;
}

/** A node's entries in the range, oldest first; `truncated` when the limit left older ones out. */
export async function readNodeHistory(
  prisma: PrismaClient,
  nodeId: string,
  range: NodeHistoryRange,
): Promise<{ entries: HistoryEntry[]; truncated: boolean }> {
  const since =
    range.since === undefined ? Prisma.empty : Prisma.sql`AND "at" >= ${sqlTime(range.since)}`;
  const until =
    range.until === undefined ? Prisma.empty : Prisma.sql`AND "at" <= ${sqlTime(range.until)}`;
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT "nodeId", "kind", "at", "typeUrl", "version", "nonce", "errorDetail"
    FROM "XdsNodeHistory" WHERE "nodeId" = ${nodeId} ${since} ${until}
    ORDER BY "at" DESC, "id" DESC LIMIT ${range.limit + 1}`;
  const truncated = rows.length > range.limit;
  return { entries: rows.slice(0, range.limit).reverse().map(entryOf), truncated };
}

/**
 * The latest entry of each kind and type of the rows at or before `at` (all `heldAt` needs):
 * the newest sent, ack and nack of every type, and the newest connect and disconnect.
 */
function latestPerKind(where: Prisma.Sql, at: number): Prisma.Sql {
  return Prisma.sql`
    SELECT DISTINCT ON ("nodeId", "typeUrl", "kind")
      "nodeId", "kind", "at", "typeUrl", "version", "nonce", "errorDetail"
    FROM "XdsNodeHistory" WHERE "at" <= ${sqlTime(at)} ${where}
    ORDER BY "nodeId", "typeUrl", "kind", "at" DESC, "id" DESC`;
}

/** What the node held at `at` (heldAt), from its history. */
export async function readNodeHeldAt(
  prisma: PrismaClient,
  nodeId: string,
  at: number,
): Promise<HeldAt> {
  const rows = await prisma.$queryRaw<Row[]>(
    latestPerKind(Prisma.sql`AND "nodeId" = ${nodeId}`, at),
  );
  return heldAt(rows.map(entryOf), at);
}

/** What every node with history held at `at`, sorted by id; at most `limit` nodes. */
export async function readFleetHeldAt(
  prisma: PrismaClient,
  at: number,
  options: { readonly idContains?: string; readonly limit: number },
): Promise<{ nodes: Array<{ nodeId: string; held: HeldAt }>; truncated: boolean }> {
  const contains =
    options.idContains === undefined || options.idContains === ""
      ? Prisma.empty
      : Prisma.sql`AND strpos("nodeId", ${options.idContains}) > 0`;
  const rows = await prisma.$queryRaw<Row[]>(latestPerKind(contains, at));
  const byNode = new Map<string, HistoryEntry[]>();
  for (const row of rows) {
    let entries = byNode.get(row.nodeId);
    if (entries === undefined) {
      entries = [];
      byNode.set(row.nodeId, entries);
    }
    entries.push(entryOf(row));
  }
  const ids = [...byNode.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    nodes: ids
      .slice(0, options.limit)
      .map((nodeId) => ({ nodeId, held: heldAt(byNode.get(nodeId) ?? [], at) })),
    truncated: ids.length > options.limit,
  };
}
