import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { MIGRATION_LOCK_CONTENT, MIGRATION_LOCK_FILE } from "../src/migration-files.js";
import { scratchFolder } from "../src/throwaway-postgres.js";

/** A new scratch folder that the `postgres` user may enter; `remove()` deletes it. */
export async function tempFolder(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(scratchFolder(), "switchyard-db-spec-"));
  await chmod(path, 0o755);
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Writes `{ folderName: sql }` as a Prisma migrations folder (with its lock file) under `root`. */
export async function writeMigrations(
  root: string,
  migrations: Readonly<Record<string, string>>,
): Promise<string> {
  const dir = join(root, `migrations-${Math.random().toString(36).slice(2)}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, MIGRATION_LOCK_FILE), MIGRATION_LOCK_CONTENT);
  for (const [name, sql] of Object.entries(migrations)) {
    await mkdir(join(dir, name));
    await writeFile(join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

export const CREATE_A = 'CREATE TABLE "A" ("id" INTEGER NOT NULL PRIMARY KEY);\n';
export const CREATE_B = 'CREATE TABLE "B" ("id" INTEGER NOT NULL PRIMARY KEY);\n';

/** Runs `test/<script>` in a new Node process (TypeScript through tsx). */
export function runScript(script: string, args: readonly string[]): ChildProcess {
  return spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL(script, import.meta.url)), ...args],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
}

/** Resolves with the first stdout line of `child`; rejects if it exits first. */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolveLine, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`script exited (${code}) before output`));
    child.once("exit", onExit);
    createInterface({ input: child.stdout as Readable }).once("line", (line) => {
      child.off("exit", onExit);
      resolveLine(line);
    });
  });
}

/** Resolves when `child` has exited. */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolveExit) => child.once("exit", () => resolveExit()));
}

/** Runs `sql` (several statements allowed) at `url`; returns the last statement's rows. */
export async function sql<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = (await client.query<T>(text)) as pg.QueryResult<T> | pg.QueryResult<T>[];
    return (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? [];
  } finally {
    await client.end();
  }
}
