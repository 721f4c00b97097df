/**
 * The audit log: who did what, when, from where, and the diff. recordAudit takes a transaction
 * client so an event commits, or rolls back, with the change it records.
 */

import { Code, ConnectError } from "@connectrpc/connect";
import type { Prisma, PrismaClient, TransactionClient } from "@switchyard/db";
import { quotedInput } from "@switchyard/snapshot";
import { boundedAuditDetail } from "./audit-bounds.js";

export type ActorKind = "user" | "token" | "system";

/** The actions recorded so far; other dotted names ("team.create") are allowed. */
export type AuditAction =
  | "login"
  | "login.failed"
  | "logout"
  | "publish"
  | "rollback"
  | "token.create"
  | "token.revoke"
  | "token.use"
  | "user.create"
  | "user.update"
  | (string & {});

export interface AuditInput {
  /** Username, or "system". */
  readonly actor: string;
  readonly actorKind: ActorKind;
  readonly action: AuditAction;
  /** "cluster/payments-api", "snapshot/42", "user/alice"; omit when nothing in particular. */
  readonly target?: string | null;
  readonly ip?: string | null;
  /** JSON: the diff, the token's name, a failure's reason, ... Stored cut to size (audit-bounds.ts). */
  readonly detail?: Readonly<Record<string, unknown>>;
  /** Defaults to the database's now(). */
  readonly at?: Date;
}

export interface AuditEvent {
  /** The bigserial id as a decimal string (JSON has no 64-bit integers). */
  readonly id: string;
  readonly at: Date;
  readonly actor: string;
  readonly actorKind: ActorKind;
  readonly action: string;
  readonly target: string | null;
  readonly ip: string | null;
  readonly detail: unknown;
}

/** The system's own actions (first admin): `recordAudit(db, { ...SYSTEM_ACTOR, ... })`. */
export const SYSTEM_ACTOR = { actor: "system", actorKind: "system" } as const;

export async function recordAudit(
  db: PrismaClient | TransactionClient,
  event: AuditInput,
): Promise<void> {
  await db.auditEvent.create({ data: auditRow(event) });
}

/**
 * Several events, in a few statements: an import of thousands of objects records one event per
 * object, and one INSERT each (or Prisma's createMany, ~0.5 ms a row building the query) made
 * that the slowest part of it. Each batch goes to Postgres as one JSON parameter.
 */
export async function recordAudits(
  db: PrismaClient | TransactionClient,
  events: readonly AuditInput[],
): Promise<void> {
  for (let start = 0; start < events.length; start += AUDIT_BATCH) {
    const rows = JSON.stringify(events.slice(start, start + AUDIT_BATCH).map(auditRow));
    await db.$executeRaw`
      INSERT INTO "AuditEvent" ("at", "actor", "actorKind", "action", "target", "ip", "detail")
      SELECT COALESCE(e."at", CURRENT_TIMESTAMP), e."actor", e."actorKind", e."action",
             e."target", e."ip", e."detail"
      FROM jsonb_to_recordset(${rows}::jsonb) AS e(
        "at" timestamp(3), "actor" text, "actorKind" text, "action" text, "target" text,
        "ip" text, "detail" jsonb)`;
  }
}

const AUDIT_BATCH = 500;

function auditRow(event: AuditInput) {
  return {
    actor: event.actor,
    actorKind: event.actorKind,
    action: event.action,
    target: event.target ?? null,
    ip: event.ip ?? null,
    detail: boundedAuditDetail(event.detail ?? {}) as Prisma.InputJsonObject,
    ...(event.at === undefined ? {} : { at: event.at }),
  };
}

export interface AuditFilter {
  /** Inclusive. */
  readonly since?: Date;
  /** Exclusive. */
  readonly until?: Date;
  /** Exact username. */
  readonly actor?: string;
  /** Exact action, or a family ending in ".*" ("token.*" matches token.create, token.use, ...). */
  readonly action?: string;
  /** Exact target, or a prefix ending in "*" ("cluster/*"). */
  readonly target?: string;
}

export interface ListAuditOptions extends AuditFilter {
  /** 1 to 1000; default 100. */
  readonly limit?: number;
  /** `nextCursor` of the previous page. */
  readonly cursor?: string | null;
}

export interface AuditPage {
  /** Newest first. */
  readonly events: readonly AuditEvent[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

export const AUDIT_PAGE_MAX = 1000;

/** One page of events matching the filter, newest first (by id, the order of commit start). */
export async function listAudit(
  prisma: PrismaClient,
  options: ListAuditOptions = {},
): Promise<AuditPage> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
    throw new ConnectError(
      `limit must be 1 to ${AUDIT_PAGE_MAX}, not ${limit}`,
      Code.InvalidArgument,
    );
  let before: bigint | undefined;
  if (options.cursor != null && options.cursor !== "") {
    if (!/^\d{1,19}$/.test(options.cursor))
      throw new ConnectError(
        `cursor ${quotedInput(options.cursor)} is not one this server gave`,
        Code.InvalidArgument,
      );
    before = BigInt(options.cursor);
  }
  const rows = await prisma.auditEvent.findMany({
    where: { ...whereOf(options), ...(before === undefined ? {} : { id: { lt: before } }) },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map((row) => ({
      id: row.id.toString(),
      at: row.at,
      actor: row.actor,
      actorKind: row.actorKind as ActorKind,
      action: row.action,
      target: row.target,
      ip: row.ip,
      detail: row.detail,
    })),
    nextCursor: rows.length > limit && last !== undefined ? last.id.toString() : null,
  };
}

function whereOf(filter: AuditFilter): Prisma.AuditEventWhereInput {
  const where: Prisma.AuditEventWhereInput = {};
  if (filter.since !== undefined || filter.until !== undefined)
    where.at = {
      ...(filter.since === undefined ? {} : { gte: filter.since }),
      ...(filter.until === undefined ? {} : { lt: filter.until }),
    };
  if (filter.actor !== undefined) where.actor = filter.actor;
  if (filter.action !== undefined)
    where.action = filter.action.endsWith(".*")
      ? { startsWith: filter.action.slice(0, -1) }
      : filter.action;
  if (filter.target !== undefined)
    where.target = filter.target.endsWith("*")
      ? { startsWith: filter.target.slice(0, -1) }
      : filter.target;
  return where;
}

export type AuditExportFormat = "ndjson" | "csv";

const CSV_COLUMNS = ["id", "at", "actor", "actorKind", "action", "target", "ip", "detail"] as const;

/**
 * Every event matching the filter, newest first, as NDJSON lines or CSV rows (header first), each
 * chunk ending in "\n". Pages through the table, so memory stays flat on a large export.
 */
export async function* exportAudit(
  prisma: PrismaClient,
  filter: AuditFilter,
  format: AuditExportFormat,
): AsyncGenerator<string> {
  if (format === "csv") yield `${CSV_COLUMNS.join(",")}\n`;
  let cursor: string | null = null;
  do {
    const page: AuditPage = await listAudit(prisma, { ...filter, limit: AUDIT_PAGE_MAX, cursor });
    for (const event of page.events)
      yield format === "csv" ? `${csvRow(event)}\n` : `${JSON.stringify(event)}\n`;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

function csvRow(event: AuditEvent): string {
  const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
    id: event.id,
    at: event.at.toISOString(),
    actor: event.actor,
    actorKind: event.actorKind,
    action: event.action,
    target: event.target ?? "",
    ip: event.ip ?? "",
    detail: JSON.stringify(event.detail),
  };
  return CSV_COLUMNS.map((column) => csvCell(cells[column])).join(",");
}

/**
 * RFC 4180 quoting, and a leading "'" on text a spreadsheet would run as a formula (OWASP CSV
 * injection): usernames and targets are user-chosen.
 */
function csvCell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
