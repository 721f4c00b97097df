// npm run migration:new -w @switchyard/db -- <name>   (at the root: npm run db:migration:new -- <name>)
//
// Writes prisma/migrations/<timestamp>_<name>/migration.sql with the SQL that takes a database
// from the committed migrations to prisma/schema.prisma, or prints "no changes". Offline: the
// schema engine (WASM) works against a throwaway embedded Postgres started and removed here.

import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { defaultMigrationsDir, readMigrations } from "../src/migration-files.js";
import { startThrowawayPostgres } from "../src/throwaway-postgres.js";
import { diffMigrationsToSchema, migrationFolderName, writeMigration } from "./author-migration.js";

async function main(args: string[]): Promise<number> {
  const name = args.join(" ").trim();
  if (name === "" || name.startsWith("-")) {
    console.error("usage: npm run db:migration:new -- <name>   (for example: add_listener_tags)");
    return 2;
  }
  const migrationsDir = defaultMigrationsDir();
  const repoRoot = resolve(migrationsDir, "../..");
  const schemaPath = resolve(migrationsDir, "../schema.prisma");
  const folder = migrationFolderName(
    name,
    new Date(),
    (await readMigrations(migrationsDir)).map((migration) => migration.name),
  );

  const started = performance.now();
  const throwaway = await startThrowawayPostgres();
  let sql: string | null;
  try {
    sql = await diffMigrationsToSchema({
      serverUrl: throwaway.postgres.superuserUrl,
      schema: { path: "schema.prisma", content: await readFile(schemaPath, "utf8") },
      migrationsDir,
    });
  } finally {
    await throwaway.dispose();
  }
  const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (sql === null) {
    console.log(
      `no changes: the migrations already match ${relative(repoRoot, schemaPath)} (${took})`,
    );
    return 0;
  }
  const file = await writeMigration(migrationsDir, folder, sql);
  console.log(`wrote ${relative(repoRoot, file)} (${took})`);
  console.log(
    "Review it (data-dependent changes, such as a new required column on a table with rows, need " +
      "hand edits), then commit it. It is applied by migrate(): at server start, and in tests.",
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
