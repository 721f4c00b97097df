import { Prisma, type SqlPool, type SqlRunner } from "@switchyard/db";
import { type Column, chunks, column, quoted, rowsSource } from "../store/bulk-sql.js";
import type {
  ConvergenceRow,
  EventRow,
  HeldSetRow,
  HistoryRow,
  NodeRow,
  TypeRow,
} from "./status-rows.js";

/**
 * Writes node status in bulk: one transaction per batch, rows travelling as one array per column
 * (INSERT ... SELECT FROM UNNEST, as store/draft-store.ts does), so a statement binds a dozen
 * parameters whatever its row count.
 */

/** What one flush writes. */
export interface StatusBatch {
  /** Nodes whose own state (identity, connection) changed: their rows are written whole. */
  readonly nodes: readonly NodeRow[];
  /**
   * Nodes of which only types changed (an ACK, a NACK, a response sent): their rows stay as they
   * are but for `updatedAt`, which the console filters on. A fleet ACKing a change is thousands
   * of these: moving one timestamp each is far cheaper than rewriting every node's identity.
   */
  readonly touched?: { readonly nodeIds: readonly string[]; readonly updatedAt: number };
  readonly types: readonly TypeRow[];
  /** The held sets `types` refer to (each once). */
  readonly heldSets: readonly HeldSetRow[];
  readonly events: readonly EventRow[];
  /** How many of the newest XdsNodeEvent rows to keep; older ones are deleted. */
  readonly keepEvents: number;
  /**
   * Retention: nodes disconnected before this instant (ms) are deleted, with their types and
   * events. Undefined: none are.
   */
  readonly pruneDisconnectedBefore?: number;
  /** Rows appended to XdsNodeHistory (what nodes were sent, ACKed, NACKed; connects). */
  readonly history?: readonly HistoryRow[];
  /**
   * History retention: rows older than `before` (ms) are deleted, and all but about the newest
   * `maxRows`. Undefined: none are (the writer prunes once a minute).
   */
  readonly pruneHistory?: { readonly before: number; readonly maxRows: number };
  /** This replica's tallies of the versions whose convergence moved (XdsVersionConvergence). */
  readonly convergence?: readonly ConvergenceRow[];
}

/**
 * Postgres NOTIFY channel of node status writes (delivered at commit, to every replica). The
 * payload is a JSON array of the node ids written or deleted, or `*` when that list would not
 * fit a notification (8000 bytes): listeners then re-read every node.
 */
export const STATUS_CHANNEL = "switchyard_status";
const MAX_NOTIFY_PAYLOAD = 7_900;

export function statusPayload(nodeIds: Iterable<string>): string {
  const payload = JSON.stringify([...nodeIds]);
  return Buffer.byteLength(payload) <= MAX_NOTIFY_PAYLOAD ? payload : "*";
}

/** The node ids of a status notification, or "all" (`*`, or a payload this version cannot read). */
export function parseStatusPayload(payload: string): ReadonlySet<string> | "all" {
  try {
    const ids: unknown = JSON.parse(payload);
    if (Array.isArray(ids) && ids.every((id) => typeof id === "string")) return new Set(ids);
  } catch {
    // "*" and anything unexpected: re-read everything.
  }
  return "all";
}

function updateAll<Row>(columns: readonly Column<Row>[], key: readonly string[]): Prisma.Sql {
  return Prisma.raw(
    columns
      .filter((c) => !key.includes(c.name))
      .map((c) => `${quoted(c.name)} = EXCLUDED.${quoted(c.name)}`)
      .join(", "),
  );
}

const nodeColumns: readonly Column<NodeRow>[] = [
  column("id", "text", (n) => n.id),
  column("cluster", "text", (n) => n.cluster),
  column("locality", "jsonb", (n) => n.locality),
  column("metadata", "jsonb", (n) => n.metadata),
  column("userAgentName", "text", (n) => n.userAgentName),
  column("userAgentVersion", "text", (n) => n.userAgentVersion),
  column("clientFeatures", "text[]", (n) => n.clientFeatures),
  column("replicaId", "text", (n) => n.replicaId),
  column("variant", "text", (n) => n.variant),
  column("remoteAddress", "text", (n) => n.remoteAddress),
  column("authenticatedAs", "text", (n) => n.authenticatedAs),
  column("openStreams", "int4", (n) => n.openStreams),
  column("connectedSince", "timestamp(3)", (n) => n.connectedSince),
  column("disconnectedAt", "timestamp(3)", (n) => n.disconnectedAt),
  column("updatedAt", "timestamp(3)", (n) => n.updatedAt),
];

const typeColumns: readonly Column<TypeRow>[] = [
  column("nodeId", "text", (t) => t.nodeId),
  column("typeUrl", "text", (t) => t.typeUrl),
  column("status", "text", (t) => t.status),
  column("staleAt", "timestamp(3)", (t) => t.staleAt),
  column("sentVersion", "text", (t) => t.sentVersion),
  column("sentNonce", "text", (t) => t.sentNonce),
  column("sentAt", "timestamp(3)", (t) => t.sentAt),
  column("ackedVersion", "text", (t) => t.ackedVersion),
  column("ackedNonce", "text", (t) => t.ackedNonce),
  column("ackedAt", "timestamp(3)", (t) => t.ackedAt),
  column("nackErrorDetail", "text", (t) => t.nackErrorDetail),
  column("nackVersion", "text", (t) => t.nackVersion),
  column("nackNonce", "text", (t) => t.nackNonce),
  column("nackAt", "timestamp(3)", (t) => t.nackAt),
  column("nackRejected", "text[]", (t) => t.nackRejected),
  column("heldBack", "jsonb", (t) => t.heldBack),
  column("heldKey", "text", (t) => t.heldKey),
  column("resourceVersionsKnown", "bool", (t) => t.resourceVersionsKnown),
  column("wildcard", "bool", (t) => t.wildcard),
  column("requestedKey", "text", (t) => t.requestedKey),
  column("updatedAt", "timestamp(3)", (t) => t.updatedAt),
];

const eventColumns: readonly Column<EventRow>[] = [
  column("nodeId", "text", (e) => e.nodeId),
  column("kind", "text", (e) => e.kind),
  column("at", "timestamp(3)", (e) => e.at),
  column("replicaId", "text", (e) => e.replicaId),
  column("typeUrl", "text", (e) => e.typeUrl),
  column("detail", "jsonb", (e) => e.detail),
];

const historyColumns: readonly Column<HistoryRow>[] = [
  column("nodeId", "text", (h) => h.nodeId),
  column("kind", "text", (h) => h.kind),
  column("at", "timestamp(3)", (h) => h.at),
  column("typeUrl", "text", (h) => h.typeUrl),
  column("version", "text", (h) => h.version),
  column("nonce", "text", (h) => h.nonce),
  column("errorDetail", "text", (h) => h.errorDetail),
];

async function appendHistory(run: SqlRunner, rows: readonly HistoryRow[]): Promise<void> {
  for (const chunk of chunks(rows)) {
    await run(Prisma.sql`INSERT INTO "XdsNodeHistory" ${rowsSource(historyColumns, chunk)}`);
  }
}

/**
 * Writes this replica's tally of each version, replacing the one it wrote before: a handful of
 * rows per flush (the versions whose convergence moved), one statement each.
 */
async function upsertConvergence(run: SqlRunner, rows: readonly ConvergenceRow[]): Promise<void> {
  for (const row of rows) {
    await run(Prisma.sql`
      INSERT INTO "XdsVersionConvergence"
        ("version", "replicaId", "publishedAt", "targeted", "convergedMs", "nacked", "nackedEver",
         "firstNackAt", "updatedAt")
      VALUES (${row.version}::int4, ${row.replicaId}, ${row.publishedAt}::timestamp(3),
        ${row.targeted}::int4, ${`{${row.convergedMs.join(",")}}`}::int4[], ${row.nacked}::int4,
        ${row.nackedEver}::int4, ${row.firstNackAt}::timestamp(3), ${row.updatedAt}::timestamp(3))
      ON CONFLICT ("version", "replicaId") DO UPDATE SET
        "targeted" = EXCLUDED."targeted", "convergedMs" = EXCLUDED."convergedMs",
        "nacked" = EXCLUDED."nacked", "nackedEver" = EXCLUDED."nackedEver",
        "firstNackAt" = EXCLUDED."firstNackAt", "updatedAt" = EXCLUDED."updatedAt"`);
  }
}

/**
 * Deletes history older than `before`, then all rows but the newest `maxRows` by id: ids come
 * from one sequence, so `max(id) - maxRows` is found from the primary key without counting
 * (ids a rolled-back write took leave gaps: then somewhat fewer rows are kept).
 */
async function pruneHistory(run: SqlRunner, before: number, maxRows: number): Promise<void> {
  const oldest = new Date(before).toISOString();
  await run(Prisma.sql`DELETE FROM "XdsNodeHistory" WHERE "at" < ${oldest}::timestamp(3)`);
  await run(Prisma.sql`
    DELETE FROM "XdsVersionConvergence" WHERE "publishedAt" < ${oldest}::timestamp(3)`);
  await run(Prisma.sql`
    DELETE FROM "XdsNodeHistory"
    WHERE "id" <= (SELECT max("id") FROM "XdsNodeHistory") - ${maxRows}::bigint`);
}

/**
 * Upserts nodes. A disconnect does not overwrite a node that is connected through another
 * replica: the node moved there, and the old replica's stream closing says nothing about it
 * (status-writer.spec.ts, "a disconnect seen by one replica ...").
 */
async function upsertNodes(run: SqlRunner, nodes: readonly NodeRow[]): Promise<void> {
  const set = updateAll(nodeColumns, ["id"]);
  for (const chunk of chunks(nodes)) {
    await run(Prisma.sql`
      INSERT INTO "XdsNode" ${rowsSource(nodeColumns, chunk)}
      ON CONFLICT ("id") DO UPDATE SET ${set}
      WHERE EXCLUDED."disconnectedAt" IS NULL
         OR "XdsNode"."disconnectedAt" IS NOT NULL
         OR "XdsNode"."replicaId" = EXCLUDED."replicaId"`);
  }
}

/** Moves the `updatedAt` of nodes whose rows are otherwise unchanged (StatusBatch.touched). */
async function touchNodes(
  run: SqlRunner,
  nodeIds: readonly string[],
  updatedAt: number,
): Promise<void> {
  // Prisma's DateTime is timestamp(3) without time zone, holding UTC (as bulk-sql.ts writes it).
  const at = new Date(updatedAt).toISOString();
  for (const chunk of chunks(nodeIds)) {
    await run(Prisma.sql`
      UPDATE "XdsNode" SET "updatedAt" = ${at}::timestamp(3) WHERE "id" = ANY(${chunk}::text[])`);
  }
}

const heldSetColumns: readonly Column<HeldSetRow>[] = [
  column("key", "text", (h) => h.key),
  column("body", "jsonb-text", (h) => h.json),
];

/** Held sets are immutable; writing one again only marks it as still in use. */
async function upsertHeldSets(run: SqlRunner, sets: readonly HeldSetRow[]): Promise<void> {
  for (const chunk of chunks(sets)) {
    await run(Prisma.sql`
      INSERT INTO "XdsHeldSet" ${rowsSource(heldSetColumns, chunk)}
      ON CONFLICT ("key") DO UPDATE SET "touchedAt" = now()`);
  }
}

/** How long an unreferenced held set is kept (a node may come back to it). */
const HELD_SET_GRACE = "10 minutes";

async function collectHeldSets(run: SqlRunner): Promise<void> {
  // touchedAt is refreshed under the row lock by every write referring to the set, so a set
  // written again concurrently is re-checked and kept. "heldKey" has no index on purpose: every
  // ACK moves it, and an index would make those writes non-HOT (schema.prisma, XdsNodeType); this
  // pass, once a minute, scans the table instead.
  await run(
    Prisma.raw(`
    DELETE FROM "XdsHeldSet" h
    WHERE h."touchedAt" < now() - interval '${HELD_SET_GRACE}'
      AND NOT EXISTS (SELECT 1 FROM "XdsNodeType" t WHERE t."heldKey" = h."key")
      AND NOT EXISTS (SELECT 1 FROM "XdsNodeType" t WHERE t."requestedKey" = h."key")`),
  );
}

async function upsertTypes(run: SqlRunner, types: readonly TypeRow[]): Promise<void> {
  const set = updateAll(typeColumns, ["nodeId", "typeUrl"]);
  for (const chunk of chunks(types)) {
    await run(Prisma.sql`
      INSERT INTO "XdsNodeType" ${rowsSource(typeColumns, chunk)}
      ON CONFLICT ("nodeId", "typeUrl") DO UPDATE SET ${set}`);
  }
}

/** Inserts events, then deletes all but the newest `keep` (ids grow with insertion). */
async function appendEvents(
  run: SqlRunner,
  events: readonly EventRow[],
  keep: number,
): Promise<void> {
  if (events.length === 0) return;
  for (const chunk of chunks(events)) {
    await run(Prisma.sql`INSERT INTO "XdsNodeEvent" ${rowsSource(eventColumns, chunk)}`);
  }
  await run(Prisma.sql`
    DELETE FROM "XdsNodeEvent" WHERE "id" <= (
      SELECT "id" FROM "XdsNodeEvent" ORDER BY "id" DESC OFFSET ${keep} LIMIT 1)`);
}

/** Deletes the nodes disconnected before `before` (types cascade), and their events. */
async function pruneDisconnected(run: SqlRunner, before: number): Promise<string[]> {
  const deleted = await run<{ id: string }>(Prisma.sql`
    DELETE FROM "XdsNode" WHERE "disconnectedAt" < ${new Date(before).toISOString()}::timestamp(3)
    RETURNING "id"`);
  const ids = deleted.map((row) => row.id);
  if (ids.length > 0)
    await run(Prisma.sql`DELETE FROM "XdsNodeEvent" WHERE "nodeId" = ANY(${ids}::text[])`);
  return ids;
}

/**
 * Writes `batch` in one transaction: nodes first, since types refer to them; then notifies every
 * replica (STATUS_CHANNEL) of the nodes it touched. Resolves with the ids of pruned nodes.
 *
 * Through a pool of its own (SqlPool, @switchyard/db), not Prisma: this is the write a fan-out
 * to a fleet makes every second. A busy server (a fleet reconnecting) may take seconds to get a
 * connection: it is background work, and waiting beats failing and retrying.
 */
export async function writeStatusBatch(pool: SqlPool, batch: StatusBatch): Promise<string[]> {
  return pool.transaction(async (run) => {
    await upsertNodes(run, batch.nodes);
    if (batch.touched) await touchNodes(run, batch.touched.nodeIds, batch.touched.updatedAt);
    await upsertHeldSets(run, batch.heldSets);
    await upsertTypes(run, batch.types);
    await appendEvents(run, batch.events, batch.keepEvents);
    if (batch.history !== undefined) await appendHistory(run, batch.history);
    if (batch.convergence !== undefined) await upsertConvergence(run, batch.convergence);
    if (batch.pruneHistory !== undefined)
      await pruneHistory(run, batch.pruneHistory.before, batch.pruneHistory.maxRows);
    const pruned =
      batch.pruneDisconnectedBefore === undefined
        ? []
        : await pruneDisconnected(run, batch.pruneDisconnectedBefore);
    if (batch.pruneDisconnectedBefore !== undefined) await collectHeldSets(run);
    const touched = new Set([
      ...batch.nodes.map((n) => n.id),
      ...(batch.touched?.nodeIds ?? []),
      ...batch.types.map((t) => t.nodeId),
      ...batch.events.map((e) => e.nodeId),
      ...pruned,
    ]);
    if (touched.size > 0)
      await run(Prisma.sql`SELECT pg_notify(${STATUS_CHANNEL}, ${statusPayload(touched)})`);
    return pruned;
  });
}
