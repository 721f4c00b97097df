// Switchyard's own role and database in an embedded cluster. The application connects as
// `switchyard`: a login role with no superuser, CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS
// attribute, owner of the `switchyard` database and of every object in it, and of nothing else.
// It can run migrations there; it cannot read files, run programs or touch another database.

import pg from "pg";
import { type PostgresCredentials, query, urlOf } from "./postgres-credentials.js";

export const APP_ROLE = "switchyard";
export const APP_DATABASE = "switchyard";

const ROLE_ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS";

/**
 * Creates, or brings back to the state above, the role and the database; returns the URL the
 * application connects with. Idempotent: run at every start, it also undoes manual changes to the
 * role's attributes or to who owns what.
 *
 * A cluster from before this role kept Switchyard's tables in the `postgres` database, owned by
 * the superuser: that database is renamed `switchyard` (a new, empty `postgres` takes its place)
 * and everything in it handed to the role. Nothing is copied and nothing is lost.
 */
export async function ensureAppDatabase(
  port: number,
  credentials: PostgresCredentials,
  log: (line: string) => void,
): Promise<string> {
  const superuser = (database: string) => urlOf(port, "postgres", credentials.superuser, database);
  const maintenance = superuser("template1");
  const role = pg.escapeIdentifier(APP_ROLE);
  const database = pg.escapeIdentifier(APP_DATABASE);
  const password = pg.escapeLiteral(credentials.app);

  const roleExists =
    (await query(maintenance, `SELECT 1 FROM pg_roles WHERE rolname = '${APP_ROLE}'`)).rowCount ===
    1;
  await query(
    maintenance,
    `${roleExists ? "ALTER" : "CREATE"} ROLE ${role} WITH ${ROLE_ATTRIBUTES} PASSWORD ${password}`,
  );

  const databases = new Set(
    (await query(maintenance, "SELECT datname FROM pg_database")).rows.map((row) => row.datname),
  );
  if (!databases.has(APP_DATABASE)) {
    const legacy = await query(
      superuser("postgres"),
      "SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS found",
    );
    if (legacy.rows[0]?.found === true) {
      await query(maintenance, `ALTER DATABASE postgres RENAME TO ${database}`);
      databases.delete("postgres");
      log(
        `moved Switchyard's tables from the "postgres" database to "${APP_DATABASE}", owned by ` +
          `the "${APP_ROLE}" role`,
      );
    } else {
      await query(maintenance, `CREATE DATABASE ${database} TEMPLATE template0 ENCODING 'UTF8'`);
    }
  }
  // The maintenance database tools expect (and the test harness uses), empty.
  if (!databases.has("postgres"))
    await query(maintenance, "CREATE DATABASE postgres TEMPLATE template0");
  await query(
    maintenance,
    `ALTER DATABASE ${database} OWNER TO ${role}; REVOKE ALL ON DATABASE ${database} FROM PUBLIC; ` +
      // Nor may the role (or any other) connect to the cluster's other databases.
      "REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC",
  );
  await query(superuser(APP_DATABASE), handOverObjects());
  return urlOf(port, APP_ROLE, credentials.app, APP_DATABASE);
}

/**
 * One statement giving the role every table, view, standalone sequence, type and function of the
 * `public` schema that it does not own yet. (REASSIGN OWNED cannot: the bootstrap superuser owns
 * system objects too.) Sequences owned by a column follow their table.
 */
function handOverObjects(): string {
  const owner = pg.escapeIdentifier(APP_ROLE);
  return `DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN
    SELECT format('ALTER %s %I.%I OWNER TO ${owner}',
                  CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                                 WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE'
                                 ELSE 'TABLE' END,
                  n.nspname, c.relname)
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
      AND pg_get_userbyid(c.relowner) <> '${APP_ROLE}'
      AND NOT (c.relkind = 'S' AND EXISTS (
        SELECT 1 FROM pg_depend d
        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
    UNION ALL
    SELECT format('ALTER %s %I.%I OWNER TO ${owner}',
                  CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, n.nspname, t.typname)
    FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
    WHERE n.nspname = 'public' AND t.typtype IN ('e', 'd', 'r')
      AND pg_get_userbyid(t.typowner) <> '${APP_ROLE}'
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO ${owner}', p.oid::regprocedure)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '${APP_ROLE}'
  LOOP
    EXECUTE statement;
  END LOOP;
END
$$`;
}
