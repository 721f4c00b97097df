import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultMigrationsDir } from "../src/migration-files.js";
import { testServer } from "../src/testing/test-server.js";
import { diffMigrationsToSchema, migrationFolderName } from "./author-migration.js";

const migrationsDir = defaultMigrationsDir();
const schemaPath = resolve(migrationsDir, "../schema.prisma");

async function diff(schema: string): Promise<string | null> {
  const { superuserUrl } = await testServer();
  return diffMigrationsToSchema({
    serverUrl: superuserUrl,
    schema: { path: "schema.prisma", content: schema },
    migrationsDir,
  });
}

describe("diffMigrationsToSchema", () => {
  it("finds nothing to author: the committed migrations produce exactly prisma/schema.prisma", async () => {
    // Fails when schema.prisma changed without `npm run db:migration:new -- <name>`.
    expect(await diff(await readFile(schemaPath, "utf8"))).toBeNull();
  });

  it("turns a schema change into SQL for that change alone", async () => {
    const schema = `${await readFile(schemaPath, "utf8")}
model Probe {
  id   Int    @id
  note String @default("")
}
`;

    const sql = await diff(schema);

    expect(sql).toContain('CREATE TABLE "Probe"');
    expect(sql).not.toContain('"Cluster"');
  });
});

describe("migrationFolderName", () => {
  const noon = new Date("2026-03-04T12:34:56.789Z");

  it("is Prisma's <UTC yyyymmddhhmmss>_<lower-case slug>", () => {
    expect(migrationFolderName("Add listener tags!", noon, [])).toBe(
      "20260304123456_add_listener_tags",
    );
  });

  it("sorts after every existing folder even when the clock is behind them", () => {
    expect(migrationFolderName("next", noon, ["20270101000000_init"])).toBe("20270101000001_next");
  });

  it("rejects a name with no letters or digits", () => {
    expect(() => migrationFolderName("--", noon, [])).toThrow(/not a usable migration name/);
  });
});
