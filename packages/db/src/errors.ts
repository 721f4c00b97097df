/**
 * What went wrong, for callers that react differently to each case (the server, for instance,
 * turns PORT_IN_USE into advice about its own port flag).
 */
export type DbErrorCode =
  /** The embedded Postgres port is taken by another process. */
  | "PORT_IN_USE"
  /** The data directory cannot be used: a parent not enterable by `postgres`, or foreign content. */
  | "DATA_DIR_UNUSABLE"
  /** Another live Postgres, not left behind by a dead Switchyard process, runs on the data directory. */
  | "DATA_DIR_IN_USE"
  /** Postgres did not start, or did not stop, for another reason; the message quotes its log. */
  | "POSTGRES_FAILED"
  /** The migrations folder is malformed (a folder without migration.sql, an unreadable file). */
  | "MIGRATIONS_INVALID"
  /** An applied migration's file no longer matches what was applied. */
  | "MIGRATION_EDITED"
  /** The database has applied migrations that this build's migrations folder does not contain. */
  | "MIGRATION_UNKNOWN"
  /** A migration recorded as started but never finished (left by another tool) blocks the rest. */
  | "MIGRATION_FAILED_EARLIER"
  /** A migration failed now; its transaction was rolled back. */
  | "MIGRATION_FAILED"
  /** Another process held the migration lock for longer than the timeout. */
  | "MIGRATION_LOCK_TIMEOUT";

/** The one error type `@switchyard/db` throws; `cause` keeps the underlying error. */
export class DbError extends Error {
  override readonly name = "DbError";

  constructor(
    readonly code: DbErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Prisma's codes for a database that cannot be reached or went away (prisma.io/docs, error reference). */
const UNREACHABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const UNREACHABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

/**
 * Whether `error` (or one of its causes) says the database is unreachable or went away mid-call:
 * refused or dropped connections, Postgres shutting down or restarting (SQLSTATE 57P01-57P03,
 * class 08), Prisma's connection and pool errors. Not for errors of the query itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (UNREACHABLE_PRISMA_CODES.has(code) || UNREACHABLE_SOCKET_CODES.has(code)) return true;
      if (/^(57P0[123]|08...)$/.test(code)) return true;
    }
    if (/Connection terminated|Can't reach database server|Connection refused/i.test(e.message))
      return true;
    e = e.cause;
  }
  return false;
}
