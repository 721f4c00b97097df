import pg from "pg";
import type { RunningPostgres } from "../embedded-postgres.js";
import { migrate } from "../migrate.js";
import { startThrowawayPostgres } from "../throwaway-postgres.js";

/** The one embedded Postgres of this test process, and a pool on its `postgres` database. */
export interface TestServer {
  readonly postgres: RunningPostgres;
  readonly admin: pg.Pool;
  /** URL of `name` on this server. */
  urlOf(name: string): string;
  /** Name of a database that migrate() brought up to date, to clone migrated databases from. */
  migratedTemplate(): Promise<string>;
}

let server: Promise<TestServer> | undefined;

/**
 * This process's throwaway Postgres, started on first call (see startThrowawayPostgres: it is
 * gone when the process ends, however it ends).
 */
export function testServer(): Promise<TestServer> {
  server ??= (async () => {
    const { postgres } = await startThrowawayPostgres();
    // allowExitOnIdle: an idle pool must not keep a finished test process alive.
    const admin = new pg.Pool({
      connectionString: postgres.superuserUrl,
      max: 2,
      allowExitOnIdle: true,
    });
    // An idle connection broken by Postgres shutting down (at process end) is simply replaced.
    admin.on("error", () => {});
    const urlOf = (name: string) => {
      const url = new URL(postgres.superuserUrl);
      url.pathname = `/${name}`;
      return url.href;
    };
    let template: Promise<string> | undefined;
    const migratedTemplate = () => {
      template ??= (async () => {
        const name = "switchyard_migrated_template";
        await admin.query(`CREATE DATABASE "${name}"`);
        await migrate(urlOf(name));
        return name;
      })();
      return template;
    };
    return { postgres, admin, urlOf, migratedTemplate };
  })();
  return server;
}
