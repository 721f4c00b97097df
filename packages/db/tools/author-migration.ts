import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  MIGRATION_LOCK_CONTENT,
  MIGRATION_LOCK_FILE,
  readMigrations,
} from "../src/migration-files.js";
import { openSchemaEngine } from "./schema-engine.js";

export interface DiffInput {
  /** A Postgres server the engine may create (and drops) shadow databases on. */
  readonly serverUrl: string;
  readonly schema: { readonly path: string; readonly content: string };
  readonly migrationsDir: string;
}

/**
 * The SQL that takes a database from the committed migrations to `schema`, or null when they
 * already agree. The engine replays the migrations into a fresh shadow database, introspects it
 * and diffs that against the schema: what `prisma migrate dev --create-only` does.
 */
export async function diffMigrationsToSchema(input: DiffInput): Promise<string | null> {
  const migrations = await readMigrations(input.migrationsDir);
  const lockPath = join(input.migrationsDir, MIGRATION_LOCK_FILE);
  const lockContent = existsSync(lockPath)
    ? await readFile(lockPath, "utf8")
    : MIGRATION_LOCK_CONTENT;
  const { engine, close } = await openSchemaEngine(input.serverUrl, input.schema);
  try {
    const result = await engine.diff({
      from: {
        tag: "migrations",
        baseDir: input.migrationsDir,
        lockfile: { path: MIGRATION_LOCK_FILE, content: lockContent },
        shadowDbInitScript: "",
        migrationDirectories: migrations.map((migration) => ({
          path: migration.name,
          migrationFile: {
            path: "migration.sql",
            content: { tag: "ok", value: migration.sql },
          },
        })),
      },
      to: { tag: "schemaDatamodel", files: [input.schema] },
      script: true,
      // Makes the engine say whether there is a difference: 2 if so, 0 if not.
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.exitCode === 2 ? (result.stdout ?? "") : null;
  } finally {
    await close();
  }
}

/** Prisma's folder name: `<UTC yyyymmddhhmmss>_<slug>`. The slug is lower-case [a-z0-9_]. */
export function migrationFolderName(name: string, now: Date, existing: readonly string[]): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 200);
  if (slug === "")
    throw new Error(`"${name}" is not a usable migration name: use letters and digits`);
  let stamp = now.toISOString().replace(/\D/g, "").slice(0, 14);
  // Folders apply in name order: a new one must sort last even if the clock went backwards.
  const last = existing.at(-1)?.slice(0, 14);
  if (last !== undefined && /^\d{14}$/.test(last) && stamp <= last) {
    stamp = String(BigInt(last) + 1n);
  }
  return `${stamp}_${slug}`;
}

/** Writes `<migrationsDir>/<folder>/migration.sql`, and the lock file if it is missing. */
export async function writeMigration(
  migrationsDir: string,
  folder: string,
  sql: string,
): Promise<string> {
  const file = join(migrationsDir, folder, "migration.sql");
  await mkdir(join(migrationsDir, folder), { recursive: true });
  await writeFile(file, sql, { flag: "wx" });
  const lockPath = join(migrationsDir, MIGRATION_LOCK_FILE);
  if (!existsSync(lockPath)) await writeFile(lockPath, MIGRATION_LOCK_CONTENT);
  return file;
}
