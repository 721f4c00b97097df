import pg from "pg";
import type { RunningPostgres } from "../embedded-postgres.js";
import { migrate } from "../migrate.js";
import { startThrowawayPostgres } from "../throwaway-postgres.js";

/** The Postgres of this test process, and a pool on its `postgres` database. */
export interface TestServer {
  /** The superuser URL of its `postgres` database. */
  readonly superuserUrl: string;
  /** This process's own Postgres; undefined on a run's shared one (sharedTestServer). */
  readonly postgres: RunningPostgres | undefined;
  readonly admin: pg.Pool;
  /** URL of `name` on this server. */
  urlOf(name: string): string;
  /** Name of a database that migrate() brought up to date, to clone migrated databases from. */
  migratedTemplate(): Promise<string>;
}

let server: Promise<TestServer> | undefined;

/**
 * Set by `sharedTestServer` (a test runner's global setup) for the test processes it starts: the
 * superuser URL of one Postgres and the name of its migrated template, as JSON. Each test file
 * then clones databases from it instead of starting a Postgres of its own.
 */
export const SHARED_TEST_POSTGRES = "SWITCHYARD_TEST_POSTGRES";

/** A migrated template's name on a shared server: clones may be taken from it concurrently. */
const TEMPLATE = "switchyard_migrated_template";

/**
 * Starts one throwaway Postgres with a migrated template for every test process of a run, and
 * tells them through SHARED_TEST_POSTGRES (inherited by the processes started after it). Answers
 * what stops it. For a test runner's global setup (vitest `globalSetup`).
 */
export async function sharedTestServer(): Promise<() => Promise<void>> {
  // One per run: when several packages' tests run as projects of one run (the root
  // vitest.config.ts), the first project's global setup starts it and the others use it.
  if (process.env[SHARED_TEST_POSTGRES]) return async () => {};
  const { postgres, dispose } = await startThrowawayPostgres();
  const admin = new pg.Client({ connectionString: postgres.superuserUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${TEMPLATE}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgres.superuserUrl);
  url.pathname = `/${TEMPLATE}`;
  await migrate(url.href);
  process.env[SHARED_TEST_POSTGRES] = JSON.stringify({
    superuserUrl: postgres.superuserUrl,
    template: TEMPLATE,
  });
  return dispose;
}

/** The run's shared Postgres (SHARED_TEST_POSTGRES), when a global setup started one. */
function sharedServer(): TestServer | undefined {
  const shared = process.env[SHARED_TEST_POSTGRES];
  if (!shared) return undefined;
  const { superuserUrl, template } = JSON.parse(shared) as {
    superuserUrl: string;
    template: string;
  };
  const admin = new pg.Pool({ connectionString: superuserUrl, max: 2, allowExitOnIdle: true });
  admin.on("error", () => {});
  const urlOf = (name: string) => {
    const url = new URL(superuserUrl);
    url.pathname = `/${name}`;
    return url.href;
  };
  return {
    superuserUrl,
    postgres: undefined,
    admin,
    urlOf,
    migratedTemplate: async () => template,
  };
}

/**
 * The run's shared Postgres when a global setup started one (sharedTestServer); else this
 * process's own throwaway Postgres, started on first call (see startThrowawayPostgres: it is
 * gone when the process ends, however it ends).
 */
export function testServer(): Promise<TestServer> {
  const shared = server === undefined ? sharedServer() : undefined;
  if (shared) server = Promise.resolve(shared);
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
        const name = TEMPLATE;
        await admin.query(`CREATE DATABASE "${name}"`);
        await migrate(urlOf(name));
        return name;
      })();
      return template;
    };
    return { superuserUrl: postgres.superuserUrl, postgres, admin, urlOf, migratedTemplate };
  })();
  return server;
}
