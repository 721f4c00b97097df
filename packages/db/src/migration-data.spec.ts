import { cp, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql as query, tempFolder } from "../test/fixtures.js";
import { migrate } from "./migrate.js";
import { defaultMigrationsDir, MIGRATION_LOCK_FILE } from "./migration-files.js";
import { createTestDatabase, type TestDatabase } from "./testing/index.js";

/*
 * Migrations that move data: a database written by an older Switchyard, upgraded by a newer one,
 * keeps what it held. Each case applies the migrations before the one under test, writes rows as
 * the older version did, then applies the rest.
 */

let folder: Awaited<ReturnType<typeof tempFolder>>;
const databases: TestDatabase[] = [];
beforeAll(async () => {
  folder = await tempFolder();
});
afterAll(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  await folder.remove();
});

/** A migrations folder holding the committed migrations up to (not including) `name`'s. */
async function migrationsBefore(suffix: string): Promise<string> {
  const all = (await readdir(defaultMigrationsDir())).filter((n) => /^\d{14}_/.test(n)).sort();
  const index = all.findIndex((n) => n.endsWith(`_${suffix}`));
  if (index < 0) throw new Error(`no migration named ${suffix}`);
  const dir = join(folder.path, `before-${suffix}`);
  await mkdir(dir, { recursive: true });
  await cp(join(defaultMigrationsDir(), MIGRATION_LOCK_FILE), join(dir, MIGRATION_LOCK_FILE));
  for (const name of all.slice(0, index))
    await cp(join(defaultMigrationsDir(), name), join(dir, name), { recursive: true });
  return dir;
}

describe("migrations that move data", () => {
  it("held_sets: what each node held moves into shared held sets, nodes holding the same sharing one", async () => {
    const database = await createTestDatabase({ migrate: false });
    databases.push(database);
    await migrate(database.url, { migrationsDir: await migrationsBefore("held_sets") });
    await query(
      database.url,
      `INSERT INTO "XdsNode" ("id", "cluster", "userAgentName", "replicaId", "variant", "remoteAddress", "openStreams", "connectedSince", "updatedAt")
       VALUES ('a', 'edge', 'envoy', 'r', 'ads-sotw', '127.0.0.1:1', 1, now(), now()),
              ('b', 'edge', 'envoy', 'r', 'ads-sotw', '127.0.0.1:2', 1, now(), now())`,
    );
    await query(
      database.url,
      `INSERT INTO "XdsNodeType" ("nodeId", "typeUrl", "status", "held", "resourceVersionsKnown", "updatedAt")
       VALUES ('a', 'cds', 'SYNCED', '{"blue": "v1", "green": "v2"}', true, now()),
              ('b', 'cds', 'SYNCED', '{"blue": "v1", "green": "v2"}', true, now()),
              ('b', 'lds', 'NOT_SENT', '{}', false, now())`,
    );

    await migrate(database.url);

    const types = await query<{ nodeId: string; typeUrl: string; body: unknown }>(
      database.url,
      `SELECT t."nodeId", t."typeUrl", h."body" FROM "XdsNodeType" t
       LEFT JOIN "XdsHeldSet" h ON h."key" = t."heldKey" ORDER BY t."nodeId", t."typeUrl"`,
    );
    expect(types).toEqual([
      { nodeId: "a", typeUrl: "cds", body: { blue: "v1", green: "v2" } },
      { nodeId: "b", typeUrl: "cds", body: { blue: "v1", green: "v2" } },
      { nodeId: "b", typeUrl: "lds", body: null },
    ]);
    expect(await query(database.url, `SELECT "key" FROM "XdsHeldSet"`)).toHaveLength(1);
  });

  it("cluster_owners_in_snapshots: the latest version records the owners the draft's clusters have", async () => {
    const database = await createTestDatabase({ migrate: false });
    databases.push(database);
    await migrate(database.url, {
      migrationsDir: await migrationsBefore("cluster_owners_in_snapshots"),
    });
    const team = "00000000-0000-4000-8000-00000000000a";
    await query(
      database.url,
      `INSERT INTO "Team" ("id", "name", "updatedAt") VALUES ('${team}', 'team-a', now());
       INSERT INTO "Cluster" ("id", "name", "ownerTeamId", "updatedAt")
       VALUES (gen_random_uuid(), 'owned', '${team}', now()),
              (gen_random_uuid(), 'unowned', NULL, now());
       INSERT INTO "Snapshot" ("version", "author", "message", "previousVersion", "sources", "groups", "changes")
       VALUES (1, 'a', 'first', 0, '{}', '[]', '[]'), (2, 'a', 'second', 1, '{}', '[]', '[]')`,
    );

    await migrate(database.url);

    expect(
      await query(
        database.url,
        `SELECT "version", "clusterOwners" FROM "Snapshot" ORDER BY "version"`,
      ),
    ).toEqual([
      { version: 1, clusterOwners: {} },
      { version: 2, clusterOwners: { owned: team } },
    ]);
  });
});
