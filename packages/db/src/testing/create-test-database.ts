import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client.js";
import { createPrismaClient } from "../client.js";
import { testServer } from "./test-server.js";

export interface TestDatabaseOptions {
  /** Apply the committed migrations. Default: true; false gives an empty database. */
  readonly migrate?: boolean;
}

export interface TestDatabase {
  /** A database name unique within the test process's Postgres. */
  readonly name: string;
  readonly url: string;
  /** A client for this database; `drop()` disconnects it. */
  readonly prisma: PrismaClient;
  /** Disconnects `prisma` and drops the database, closing any other connection to it. Idempotent. */
  drop(): Promise<void>;
}

let created = 0;

/**
 * A fresh database in this test process's own embedded Postgres (started on first use, gone when
 * the process ends, even after a failed test or a kill). Databases do not see each other, so tests
 * may run concurrently. Call `drop()` when done to keep the cluster small; whatever is not dropped
 * disappears with the process.
 *
 * Migrated databases are file copies of one template database that migrate() brought up to date
 * once per process: the same tables and `_prisma_migrations` rows, in ~15 ms instead of ~60 ms.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const server = await testServer();
  created += 1;
  const name = `test_${process.pid}_${created}_${randomBytes(3).toString("hex")}`;
  const template = options.migrate === false ? "template1" : await server.migratedTemplate();
  await server.admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY FILE_COPY`);
  const url = server.urlOf(name);
  const prisma = createPrismaClient(url);
  let dropping: Promise<void> | undefined;
  return {
    name,
    url,
    prisma,
    drop() {
      dropping ??= (async () => {
        await prisma.$disconnect();
        await server.admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      })();
      return dropping;
    },
  };
}
