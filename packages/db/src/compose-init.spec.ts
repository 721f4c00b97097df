/**
 * deploy/postgres-init.sql, which the Docker Compose demo's PostgreSQL runs on its first start:
 * Switchyard gets a role of its own that migrates and owns its database, and is no superuser.
 * Run here as the image runs it (psql, one statement at a time, as the superuser) on a throwaway
 * cluster of its own: the role and database names are the cluster's, not a test database's.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "../test/fixtures.js";
import { migrate } from "./migrate.js";
import { startThrowawayPostgres, type ThrowawayPostgres } from "./throwaway-postgres.js";

const INIT_SQL = new URL("../../../deploy/postgres-init.sql", import.meta.url);

describe("the Docker Compose database's init script", () => {
  let cluster: ThrowawayPostgres;
  let appUrl: string;

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    const script = (await readFile(INIT_SQL, "utf8")).replace(/^--.*$/gm, "");
    // The file holds no string with a semicolon: split as psql would run it.
    for (const statement of script.split(";").map((s) => s.trim())) {
      if (statement !== "") await sql(cluster.postgres.superuserUrl, statement);
    }
    const url = new URL(cluster.postgres.superuserUrl);
    url.username = "switchyard";
    url.password = "switchyard";
    url.pathname = "/switchyard";
    appUrl = url.href;
  }, 60_000);

  afterAll(async () => {
    await cluster?.dispose();
  });

  it("gives Switchyard a role that migrates its own database", async () => {
    await migrate(appUrl);
    const [owned] = await sql<{ tables: string; owner: string }>(
      appUrl,
      `SELECT count(*) AS tables, pg_get_userbyid(d.datdba) AS owner
       FROM information_schema.tables t, pg_database d
       WHERE t.table_schema = 'public' AND d.datname = current_database()
       GROUP BY d.datdba`,
    );
    expect(Number(owned?.tables)).toBeGreaterThan(10);
    expect(owned?.owner).toBe("switchyard");
  });

  it("and nothing more: no superuser, no programs or files, no roles, no other database", async () => {
    const attempt = (text: string, url = appUrl) =>
      sql(url, text).then(
        () => "allowed",
        (error: { code?: string }) => error.code,
      );
    expect(
      await sql(
        appUrl,
        "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user",
      ),
    ).toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
    expect(await attempt("COPY (SELECT 1) TO PROGRAM 'true'")).toBe("42501");
    expect(await attempt("SELECT pg_read_file('postgresql.conf')")).toBe("42501");
    expect(await attempt("CREATE ROLE intruder SUPERUSER")).toBe("42501");
    const other = new URL(appUrl);
    other.pathname = "/postgres";
    expect(await attempt("SELECT 1", other.href)).toBe("42501");
  });
});
