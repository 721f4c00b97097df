// The passwords of an embedded cluster: random, made when the cluster is, kept in a 0600 file in
// its data directory (readable by the account that runs Switchyard; Postgres never reads it).
// Any local process can reach 127.0.0.1, so a password everyone knows would let any local user in
// as superuser: able to make itself a Switchyard admin, or run programs (COPY ... TO PROGRAM).

import { randomBytes } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { DbError } from "./errors.js";

export interface PostgresCredentials {
  /** Password of the bootstrap superuser `postgres`: only for setting the cluster up. */
  readonly superuser: string;
  /** Password of the `switchyard` role, which the application connects as. */
  readonly app: string;
}

export const CREDENTIALS_FILE = "switchyard-credentials.json";

/**
 * What clusters made before random passwords used for `postgres`. Only ever tried to take such a
 * cluster over (see `secureSuperuser`), then replaced.
 */
export const LEGACY_PASSWORD = "password";

export function newCredentials(): PostgresCredentials {
  return { superuser: newPassword(), app: newPassword() };
}

function newPassword(): string {
  return randomBytes(24).toString("base64url");
}

/** Writes the credentials file atomically, 0600, into `dataDir`. */
export async function writeCredentials(
  dataDir: string,
  credentials: PostgresCredentials,
): Promise<void> {
  const file = join(dataDir, CREDENTIALS_FILE);
  const staging = `${file}.new`;
  await writeFile(staging, `${JSON.stringify(credentials)}\n`, { mode: 0o600, flag: "w" });
  await rename(staging, file);
}

/** The credentials of `dataDir`'s cluster; undefined when it predates the file. */
export async function readCredentials(dataDir: string): Promise<PostgresCredentials | undefined> {
  const file = join(dataDir, CREDENTIALS_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed = (() => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  })();
  if (typeof parsed?.superuser !== "string" || typeof parsed.app !== "string") {
    throw new DbError(
      "DATA_DIR_UNUSABLE",
      `${file} is not a Switchyard credentials file (expected {"superuser": "...", "app": "..."}). ` +
        "Restore it from a backup of the data directory.",
    );
  }
  return { superuser: parsed.superuser, app: parsed.app };
}

export function urlOf(port: number, user: string, password: string, database: string): string {
  const url = new URL(`postgresql://127.0.0.1:${port}/${database}`);
  url.username = user;
  url.password = password;
  return url.href;
}

/**
 * Makes sure the superuser's password is `credentials.superuser`. A cluster made before random
 * passwords (or one whose switch to them was interrupted) still answers to the legacy password:
 * it is changed then. Any other failure to log in is an error that says what to check.
 */
export async function secureSuperuser(
  port: number,
  credentials: PostgresCredentials,
  log: (line: string) => void,
): Promise<void> {
  const current = urlOf(port, "postgres", credentials.superuser, "template1");
  const failure = await query(current, "SELECT 1").then(
    () => undefined,
    (error: unknown) => error,
  );
  if (failure === undefined) return;
  if ((failure as { code?: string }).code !== "28P01") throw failure;
  const legacy = urlOf(port, "postgres", LEGACY_PASSWORD, "template1");
  const taken = await query(
    legacy,
    `ALTER ROLE postgres PASSWORD ${pg.escapeLiteral(credentials.superuser)}`,
  ).then(
    () => true,
    () => false,
  );
  if (!taken) {
    throw new DbError(
      "POSTGRES_FAILED",
      `The embedded PostgreSQL refuses the superuser password kept in ${CREDENTIALS_FILE} of its ` +
        "data directory. Restore that file from a backup of the data directory.",
      { cause: failure },
    );
  }
  log("replaced the well-known password of the embedded PostgreSQL's superuser with a random one");
}

/** Runs `sql` on a fresh connection to `url`. */
export async function query(url: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}
