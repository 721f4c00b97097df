import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CREATE_A, CREATE_B, sql as query, tempFolder, writeMigrations } from "../test/fixtures.js";
import { DbError } from "./errors.js";
import { migrate } from "./migrate.js";
import { checksumOf, defaultMigrationsDir, readMigrations } from "./migration-files.js";
import { createTestDatabase, type TestDatabase } from "./testing/index.js";

let folder: Awaited<ReturnType<typeof tempFolder>>;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  folder = await tempFolder();
});
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  await folder.remove();
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  databases.push(database);
  return database;
}

interface Recorded {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
}

const recorded = (url: string) =>
  query<Recorded>(
    url,
    `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count
     FROM _prisma_migrations ORDER BY started_at`,
  );

async function refusal(promise: Promise<unknown>): Promise<DbError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(DbError);
  return error as DbError;
}

describe("migrate", () => {
  it("applies the committed migrations to an empty database and records each with the file's sha256", async () => {
    const { url } = await emptyDatabase();
    const committed = await readMigrations(defaultMigrationsDir());
    expect(committed.length).toBeGreaterThan(0);

    const result = await migrate(url);

    expect(result.applied).toEqual(committed.map((migration) => migration.name));
    const rows = await recorded(url);
    expect(rows.map((row) => [row.migration_name, row.checksum])).toEqual(
      committed.map((migration) => [migration.name, checksumOf(migration.sql)]),
    );
    for (const row of rows) {
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.map((table) => table.table_name)).toContain("Cluster");
  });

  it("applying again is a no-op", async () => {
    const { url } = await emptyDatabase();
    await migrate(url);
    const before = await recorded(url);

    const result = await migrate(url);

    expect(result.applied).toEqual([]);
    expect(await recorded(url)).toEqual(before);
  });

  it("applies only the migrations added since the last run, in name order", async () => {
    const { url } = await emptyDatabase();
    const first = await writeMigrations(folder.path, { "20260101000000_a": CREATE_A });
    await migrate(url, { migrationsDir: first });
    const second = await writeMigrations(folder.path, {
      "20260101000000_a": CREATE_A,
      "20260102000000_b": CREATE_B,
    });

    expect((await migrate(url, { migrationsDir: second })).applied).toEqual(["20260102000000_b"]);
  });

  it("two concurrent migrate() calls both succeed and apply each migration once", async () => {
    const { url } = await emptyDatabase();

    const [one, two] = await Promise.all([migrate(url), migrate(url)]);

    const committed = await readMigrations(defaultMigrationsDir());
    expect([...one.applied, ...two.applied].sort()).toEqual(committed.map((m) => m.name).sort());
    expect([one.applied.length, two.applied.length]).toContain(0);
    expect((await recorded(url)).length).toBe(committed.length);
  });

  it("refuses a database where an applied migration's file was edited, naming the migration", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, {
      "20260101000000_a": CREATE_A,
      "20260102000000_b": CREATE_B,
    });
    await migrate(url, { migrationsDir: dir });
    await writeFile(join(dir, "20260101000000_a", "migration.sql"), `${CREATE_A}-- edited\n`);

    const error = await refusal(migrate(url, { migrationsDir: dir }));

    expect(error.code).toBe("MIGRATION_EDITED");
    expect(error.message).toContain("20260101000000_a");
    expect(error.message).not.toContain("20260102000000_b");
  });

  it("accepts an applied migration whose file only gained CRLF line endings", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, {
      "20260101000000_a": "SELECT 1;\nSELECT 2;\n",
    });
    await migrate(url, { migrationsDir: dir });
    await writeFile(join(dir, "20260101000000_a", "migration.sql"), "SELECT 1;\r\nSELECT 2;\r\n");

    expect((await migrate(url, { migrationsDir: dir })).applied).toEqual([]);
  });

  it("refuses a database that has a migration this build does not know", async () => {
    const { url } = await emptyDatabase();
    const newer = await writeMigrations(folder.path, {
      "20260101000000_a": CREATE_A,
      "20260102000000_b": CREATE_B,
    });
    await migrate(url, { migrationsDir: newer });
    const older = await writeMigrations(folder.path, { "20260101000000_a": CREATE_A });

    const error = await refusal(migrate(url, { migrationsDir: older }));

    expect(error.code).toBe("MIGRATION_UNKNOWN");
    expect(error.message).toContain("20260102000000_b");
  });

  it("rolls a failing migration back entirely, applies nothing after it, and lets a fixed file through", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, {
      "20260101000000_a": CREATE_A,
      "20260102000000_broken": `${CREATE_B}SELECT * FROM "Missing";\n`,
      "20260103000000_c": 'CREATE TABLE "C" ("id" INTEGER);\n',
    });

    const error = await refusal(migrate(url, { migrationsDir: dir }));

    expect(error.code).toBe("MIGRATION_FAILED");
    expect(error.message).toContain("20260102000000_broken");
    expect(error.message).toContain("at line 2");
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(tables.map((table) => table.table_name)).toEqual(["A", "_prisma_migrations"]);
    const failed = (await recorded(url)).find((row) => row.migration_name.endsWith("_broken"));
    expect(failed?.rolled_back_at).toBeInstanceOf(Date);

    await writeFile(join(dir, "20260102000000_broken", "migration.sql"), CREATE_B);
    expect((await migrate(url, { migrationsDir: dir })).applied).toEqual([
      "20260102000000_broken",
      "20260103000000_c",
    ]);
  });

  it("refuses to go on after a migration that another tool recorded as started but never finished", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, { "20260101000000_a": CREATE_A });
    await migrate(url, { migrationsDir: dir });
    await query(
      url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs)
       VALUES ('x', '${checksumOf(CREATE_B)}', '20260102000000_b', 'boom')`,
    );

    const error = await refusal(migrate(url, { migrationsDir: dir }));

    expect(error.code).toBe("MIGRATION_FAILED_EARLIER");
    expect(error.message).toContain("20260102000000_b");
  });

  it("runs a migration file as Postgres parses it: dollar quotes and semicolons in strings", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, {
      "20260101000000_notify": `CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('switchyard', 'a;b');
  RETURN NULL;
END;
$$;
`,
    });

    expect((await migrate(url, { migrationsDir: dir })).applied).toEqual(["20260101000000_notify"]);
  });

  it("reports a migration folder without migration.sql, naming it", async () => {
    const { url } = await emptyDatabase();
    const dir = await writeMigrations(folder.path, { "20260101000000_a": CREATE_A });
    await mkdir(join(dir, "20260102000000_stray"));

    const error = await refusal(migrate(url, { migrationsDir: dir }));

    expect(error.code).toBe("MIGRATIONS_INVALID");
    expect(error.message).toContain("20260102000000_stray");
  });

  it("gives up with a clear error when another process holds the migration lock too long", async () => {
    const { url } = await emptyDatabase();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query("SELECT pg_advisory_lock(72707369)");

      const error = await refusal(migrate(url, { lockTimeoutMs: 100 }));

      expect(error.code).toBe("MIGRATION_LOCK_TIMEOUT");
    } finally {
      await holder.end();
    }
  });
});
