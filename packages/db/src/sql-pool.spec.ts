import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "../generated/prisma/client.js";
import { createSqlPool, type SqlPool } from "./sql-pool.js";
import { createTestDatabase, type TestDatabase } from "./testing/index.js";

let database: TestDatabase;
let pool: SqlPool;
beforeAll(async () => {
  database = await createTestDatabase();
  pool = createSqlPool(database.url);
  await pool.transaction((run) => run(Prisma.sql`CREATE TABLE t (n int PRIMARY KEY)`));
});
afterAll(async () => {
  await pool?.close();
  await database?.drop();
});

const count = () =>
  pool.transaction(async (run) => {
    const [row] = await run<{ n: number }>(Prisma.sql`SELECT count(*)::int AS n FROM t`);
    return row?.n;
  });

describe("SqlPool.transaction", () => {
  it("commits what the work wrote, binding Prisma.sql values as parameters", async () => {
    const hostile = "1); DROP TABLE t; --";
    const written = await pool.transaction(async (run) => {
      await run(Prisma.sql`INSERT INTO t (n) SELECT unnest(${[1, 2, 3]}::int[])`);
      return run<{ s: string }>(Prisma.sql`SELECT ${hostile}::text AS s`);
    });
    expect(written).toEqual([{ s: hostile }]);
    expect(await count()).toBe(3);
  });

  it("rolls back every statement of a work that rejects, and rejects with its error", async () => {
    const failure = new Error("refused midway");
    await expect(
      pool.transaction(async (run) => {
        await run(Prisma.sql`INSERT INTO t (n) VALUES (10)`);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await count()).toBe(3);
  });

  it("rolls back on a failing statement, and the pool's connection serves the next transaction", async () => {
    await expect(
      pool.transaction(async (run) => {
        await run(Prisma.sql`INSERT INTO t (n) VALUES (20)`);
        await run(Prisma.sql`INSERT INTO t (n) VALUES (1)`);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await count()).toBe(3);
  });

  it("a statement over the statement timeout is cancelled by Postgres", async () => {
    const impatient = createSqlPool(database.url, { statementTimeoutMs: 50 });
    try {
      await expect(
        impatient.transaction((run) => run(Prisma.sql`SELECT pg_sleep(5)`)),
      ).rejects.toThrow(/statement timeout/);
    } finally {
      await impatient.close();
    }
  });

  it("with an idle timeout, closes a connection left idle and opens another for the next work", async () => {
    const backend = (of: SqlPool) =>
      of.transaction(async (run) => {
        const [row] = await run<{ pid: number }>(Prisma.sql`SELECT pg_backend_pid() AS pid`);
        return row?.pid;
      });
    const alive = async (pid: number | undefined) => {
      const [row] = await database.prisma.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid}`;
      return row?.n === 1;
    };
    const idle = createSqlPool(database.url, { idleTimeoutMs: 50 });
    try {
      const first = await backend(idle);
      // Polled, not slept on: the bound only ends a run where the connection is never closed.
      const deadline = Date.now() + 10_000;
      while ((await alive(first)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await alive(first)).toBe(false);
      const second = await backend(idle);
      expect(second).not.toBe(first);
      expect(await count()).toBe(3);
    } finally {
      await idle.close();
    }
  });
});
