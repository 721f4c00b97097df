// Applies the committed migrations directly over `pg` rather than through
// @prisma/schema-engine-wasm's applyMigrations. Measured here, the WASM engine needs ~300 ms before
// its first statement (module load, compile, engine start) where a run with nothing to apply takes
// ~15 ms in all; and it runs scripts through @prisma/adapter-pg's executeScript, which splits the
// file on every ";", so any migration with a function body, DO block or ";" inside a string
// literal fails ("unterminated dollar-quoted string"). The bookkeeping Prisma does is small and documented by its
// `_prisma_migrations` table, reproduced here so the native CLI stays interchangeable.

import { randomUUID } from "node:crypto";
import pg from "pg";
import { DbError } from "./errors.js";
import {
  checksumMatches,
  defaultMigrationsDir,
  type MigrationFile,
  readMigrations,
} from "./migration-files.js";

export interface MigrateOptions {
  /** Folder of Prisma-format migrations. Default: the repository's `prisma/migrations`. */
  readonly migrationsDir?: string;
  /** Receives one line per applied migration. Default: discard. */
  readonly log?: (message: string) => void;
  /** How long to wait while another process migrates the same database. Default: 60 s. */
  readonly lockTimeoutMs?: number;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order; empty when the database was current. */
  readonly applied: readonly string[];
}

/** The advisory lock key Prisma's own engine takes, so the native CLI and this exclude each other. */
const PRISMA_MIGRATE_LOCK = 72707369;

/** Prisma's table, column for column (schema engine, PostgreSQL flavour). */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface AppliedRow {
  readonly migration_name: string;
  readonly checksum: string;
  readonly finished_at: Date | null;
  readonly logs: string | null;
}

/**
 * Brings the database at `databaseUrl` up to the committed migrations. Safe to call on every start
 * and from several processes at once: runs hold Postgres advisory lock 72707369 (Prisma's), so
 * exactly one applies each migration and the others then find nothing to do.
 *
 * Each migration runs in its own transaction together with its `_prisma_migrations` row, so it is
 * recorded if and only if it took effect. Do not put BEGIN/COMMIT in migration files.
 *
 * Refuses (DbError) before applying anything when the recorded history disagrees with the files:
 * an applied migration was edited, the database has migrations this build lacks, or a migration
 * recorded by another tool never finished.
 */
export async function migrate(
  databaseUrl: string,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const migrationsDir = options.migrationsDir ?? defaultMigrationsDir();
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(migrationsDir);
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: "switchyard-migrate",
  });
  // A connection dropped mid-run surfaces as the pending query's rejection; without a listener the
  // client's "error" event would crash the process instead.
  client.on("error", () => {});
  await client.connect();
  try {
    // Session-level: released when this connection closes, whatever happens below.
    await lock(client, options.lockTimeoutMs ?? 60_000);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedRow>(
      `SELECT migration_name, checksum, finished_at, logs FROM _prisma_migrations
       WHERE rolled_back_at IS NULL ORDER BY started_at`,
    );
    const pending = pendingMigrations(migrations, rows, migrationsDir);
    const applied: string[] = [];
    for (const migration of pending) {
      const started = performance.now();
      await apply(client, migration, migrationsDir);
      applied.push(migration.name);
      log(`applied migration ${migration.name} (${Math.round(performance.now() - started)} ms)`);
    }
    return { applied };
  } finally {
    // Closing fails only on a connection that is already broken, and the error that broke it is
    // the one in flight.
    await client.end().catch(() => undefined);
  }
}

async function lock(client: pg.Client, timeoutMs: number): Promise<void> {
  await client.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
  } catch (error) {
    if ((error as { code?: unknown }).code === "55P03") {
      throw new DbError(
        "MIGRATION_LOCK_TIMEOUT",
        `Timed out after ${timeoutMs} ms waiting for another process to finish migrating the ` +
          `database (advisory lock ${PRISMA_MIGRATE_LOCK}). Is a migration stuck? ` +
          "Look for the holder in pg_locks WHERE locktype = 'advisory'.",
        { cause: error },
      );
    }
    throw error;
  }
  await client.query("RESET lock_timeout");
}

/** Checks the recorded history against the files; returns the files still to apply, in order. */
export function pendingMigrations(
  migrations: readonly MigrationFile[],
  rows: readonly AppliedRow[],
  migrationsDir: string,
): MigrationFile[] {
  const unfinished = rows.find((row) => row.finished_at === null);
  if (unfinished) {
    const reason = unfinished.logs?.split("\n", 1)[0];
    throw new DbError(
      "MIGRATION_FAILED_EARLIER",
      `Migration ${unfinished.migration_name} was started on this database and never finished` +
        `${reason ? ` (${reason})` : ""}, so no further migration is applied. Check what it ` +
        "changed and repair the database by hand, then mark it rolled back: UPDATE " +
        `_prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${unfinished.migration_name}' ` +
        "AND finished_at IS NULL (or `prisma migrate resolve --rolled-back` with the native CLI).",
    );
  }
  const files = new Map(migrations.map((migration) => [migration.name, migration]));
  const unknown = rows.filter((row) => !files.has(row.migration_name));
  if (unknown.length > 0) {
    throw new DbError(
      "MIGRATION_UNKNOWN",
      `The database has migration(s) ${unknown.map((row) => row.migration_name).join(", ")} ` +
        `applied, which ${migrationsDir} does not contain: it was migrated by a newer build. ` +
        "Run that build, or restore the missing migration folders.",
    );
  }
  const edited = rows.filter((row) => {
    const file = files.get(row.migration_name);
    return file !== undefined && !checksumMatches(file.sql, row.checksum);
  });
  if (edited.length > 0) {
    const names = edited.map((row) => row.migration_name).join(", ");
    throw new DbError(
      "MIGRATION_EDITED",
      `Migration(s) ${names} changed after being applied to this database (the checksum of ` +
        "migration.sql differs from the one recorded in _prisma_migrations). Applied migrations " +
        "must not change: restore the file(s) from version control, and put the change in a new " +
        "migration (npm run db:migration:new -- <name>).",
    );
  }
  const applied = new Set(rows.map((row) => row.migration_name));
  return migrations.filter((migration) => !applied.has(migration.name));
}

async function apply(
  client: pg.Client,
  migration: MigrationFile,
  migrationsDir: string,
): Promise<void> {
  const id = randomUUID();
  const startedAt = new Date();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at)
       VALUES ($1, $2, $3, $4)`,
      [id, migration.checksum, migration.name, startedAt],
    );
    // No parameters: pg uses the simple query protocol, which runs the whole multi-statement file
    // as Postgres parses it (dollar quotes, strings and comments included).
    await client.query(migration.sql);
    await client.query(
      `UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1
       WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    const where = describePosition(migration.sql, error);
    const message = error instanceof Error ? error.message : String(error);
    let unrecorded = "";
    try {
      await client.query("ROLLBACK");
      // Kept for the audit trail, already marked rolled back: the transaction undid the
      // migration, so fixing it and starting again is safe.
      await client.query(
        `INSERT INTO _prisma_migrations
           (id, checksum, migration_name, logs, started_at, rolled_back_at)
         VALUES ($1, $2, $3, $4, $5, clock_timestamp())`,
        [id, migration.checksum, migration.name, `${message}${where}`, startedAt],
      );
    } catch (recordError) {
      unrecorded = ` (the failure could not be recorded: ${String(recordError)})`;
    }
    throw new DbError(
      "MIGRATION_FAILED",
      `Migration ${migration.name} failed${where}: ${message}. It was rolled back and no later ` +
        `migration was applied${unrecorded}. Fix the cause (the data, or ` +
        `${migrationsDir}/${migration.name}/migration.sql if no database has applied it yet) ` +
        "and start again.",
      { cause: error },
    );
  }
}

/** " at line N" for a Postgres error that carries a character position into `sql`. */
function describePosition(sql: string, error: unknown): string {
  const position = Number((error as { position?: unknown }).position);
  if (!Number.isInteger(position) || position < 1) return "";
  return ` at line ${sql.slice(0, position - 1).split("\n").length}`;
}
