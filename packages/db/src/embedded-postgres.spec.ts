import { spawn } from "node:child_process";
import { chmod, cp, lstat, mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, firstLine, runScript, sql, tempFolder } from "../test/fixtures.js";
import { packagedBinaries, processesUsing, startEmbeddedPostgres } from "./embedded-postgres.js";
import { DbError } from "./errors.js";
import { freePort } from "./free-port.js";
import { CREDENTIALS_FILE, readCredentials, urlOf } from "./postgres-credentials.js";

// One data directory, initialised by the first test and reused by the others (initdb is the slow
// part). Tests run in order and each leaves Postgres stopped.
let folder: Awaited<ReturnType<typeof tempFolder>>;
let dataDir: string;

beforeAll(async () => {
  folder = await tempFolder();
  dataDir = join(folder.path, "postgres");
});
afterAll(async () => {
  await folder.remove();
});

const asRoot = process.getuid?.() === 0;

async function rejection(promise: Promise<unknown>): Promise<DbError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DbError);
  return error as DbError;
}

describe("startEmbeddedPostgres", () => {
  it("initialises a new data directory, and a restart on it keeps the data", async () => {
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir, port });
    expect(new URL(first.url).username).toBe("switchyard");
    expect(new URL(first.url).pathname).toBe("/switchyard");
    await sql(first.url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('first run')");
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir, port });
    try {
      expect(await sql(second.url, "SELECT value FROM kept")).toEqual([{ value: "first run" }]);
    } finally {
      await second.stop();
    }
  });

  it("stop() leaves no Postgres process behind, and may be called again", async () => {
    const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    expect((await processesUsing(dataDir)).length).toBeGreaterThan(0);

    await Promise.all([postgres.stop(), postgres.stop()]);
    await postgres.stop();

    expect(await processesUsing(dataDir)).toEqual([]);
  });

  it("starts again, data intact, after the process that started Postgres was SIGKILLed", async () => {
    const port = await freePort();
    const holder = runScript("hold-postgres.ts", [dataDir, String(port)]);
    expect(await firstLine(holder)).toBe("ready");
    holder.kill("SIGKILL");
    await exited(holder);
    // Postgres itself survived its starter and still holds the directory and the port.
    expect((await processesUsing(dataDir)).length).toBeGreaterThan(0);

    const log: string[] = [];
    const postgres = await startEmbeddedPostgres({ dataDir, port, log: (line) => log.push(line) });
    try {
      expect(log.join("\n")).toMatch(/was left running .* which has exited/);
      expect(await sql(postgres.url, "SELECT value FROM kept ORDER BY value")).toEqual([
        { value: "first run" },
        { value: "written before SIGKILL" },
      ]);
    } finally {
      await postgres.stop();
    }
    expect(await processesUsing(dataDir)).toEqual([]);
  });

  it.runIf(asRoot)(
    "starts despite a stale postmaster.pid whose PID now belongs to another process of the postgres user",
    async () => {
      // Postgres alone refuses this case ("lock file already exists"): the PID looks alive.
      const uid = Number((await readFile("/etc/passwd", "utf8")).match(/^postgres:x:(\d+):/m)?.[1]);
      const impostor = spawn("sleep", ["30"], { uid, stdio: "ignore" });
      try {
        await writeFile(join(dataDir, "postmaster.pid"), `${impostor.pid}\n${dataDir}\n`);

        const postgres = await startEmbeddedPostgres({ dataDir, port: await freePort() });
        await postgres.stop();
      } finally {
        impostor.kill();
      }
    },
  );

  it("refuses a second Postgres on a data directory that a live process is using", async () => {
    const first = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    try {
      const error = await rejection(startEmbeddedPostgres({ dataDir, port: await freePort() }));
      expect(error.code).toBe("DATA_DIR_IN_USE");
      expect(error.message).toContain(dataDir);
    } finally {
      await first.stop();
    }
  });

  it("a busy port is refused with an error that names it and says how to choose another", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const error = await rejection(startEmbeddedPostgres({ dataDir, port }));
      expect(error.code).toBe("PORT_IN_USE");
      expect(error.message).toContain(`port ${port}`);
      expect(error.message).toMatch(/choose another port/);
      expect(await processesUsing(dataDir)).toEqual([]);
    } finally {
      blocker.close();
    }
  });

  it.runIf(asRoot)(
    "puts a cluster the postgres user could not reach (below a 0700 folder) in the relocation root, and finds it again through the link",
    async () => {
      const locked = join(folder.path, "locked");
      await mkdir(locked);
      await chmod(locked, 0o700);
      const requested = join(locked, "postgres");
      const relocationRoot = join(folder.path, "relocated");
      const log: string[] = [];

      const first = await startEmbeddedPostgres({
        dataDir: requested,
        port: await freePort(),
        relocationRoot,
        log: (line) => log.push(line),
      });
      await sql(first.url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('relocated')");
      await first.stop();

      expect(first.dataDir.startsWith(`${relocationRoot}/`)).toBe(true);
      expect((await lstat(requested)).isSymbolicLink()).toBe(true);
      expect(log.join("\n")).toContain(`cannot enter ${locked}`);
      expect(log.join("\n")).toContain(first.dataDir);
      const second = await startEmbeddedPostgres({ dataDir: requested, port: await freePort() });
      try {
        expect(second.dataDir).toBe(first.dataDir);
        expect(await sql(second.url, "SELECT value FROM kept")).toEqual([{ value: "relocated" }]);
      } finally {
        await second.stop();
      }
    },
  );

  it.runIf(asRoot)(
    "runs PostgreSQL from a copy of its binaries when they are installed below a folder the postgres user cannot enter (npm install in /root)",
    async () => {
      const locked = join(folder.path, "locked-checkout");
      await mkdir(locked);
      await chmod(locked, 0o700);
      const packaged = await packagedBinaries();
      const installed = join(locked, "native");
      await cp(dirname(dirname(packaged.postgres)), installed, {
        recursive: true,
        verbatimSymlinks: true,
      });
      const binaries = {
        postgres: join(installed, "bin", "postgres"),
        initdb: join(installed, "bin", "initdb"),
      };
      const relocationRoot = join(folder.path, "relocated-binaries");
      const start = async (log: string[]) =>
        startEmbeddedPostgres({
          dataDir: join(folder.path, "run-from-copy"),
          port: await freePort(),
          relocationRoot,
          binaries,
          log: (line) => log.push(line),
        });

      const log: string[] = [];
      const first = await start(log);
      try {
        expect(await sql(first.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
      } finally {
        await first.stop();
      }
      expect(log.join("\n")).toContain(`cannot enter ${locked}`);
      expect(log.join("\n")).toMatch(
        new RegExp(`runs from a copy of its binaries in ${relocationRoot}/postgresql-[0-9a-f]{16}`),
      );
      // The next start runs the same copy, without copying again.
      const again: string[] = [];
      const second = await start(again);
      await second.stop();
      expect(again.join("\n")).not.toContain("copy of its binaries");
    },
  );

  it.runIf(asRoot)(
    "refuses a relocation root below a folder the postgres user cannot enter, naming that folder",
    async () => {
      const locked = join(folder.path, "locked-too");
      await mkdir(locked);
      await chmod(locked, 0o700);

      const error = await rejection(
        startEmbeddedPostgres({
          dataDir: join(locked, "postgres"),
          port: await freePort(),
          relocationRoot: join(locked, "elsewhere"),
        }),
      );

      expect(error.code).toBe("DATA_DIR_UNUSABLE");
      expect(error.message).toContain(`cannot enter ${locked}`);
    },
  );

  it("refuses to initialise a non-empty folder that is not a data directory", async () => {
    const foreign = join(folder.path, "foreign");
    await mkdir(foreign);
    await writeFile(join(foreign, "notes.txt"), "not Postgres");

    const error = await rejection(startEmbeddedPostgres({ dataDir: foreign, port: 1 }));

    expect(error.code).toBe("DATA_DIR_UNUSABLE");
    expect(await readFile(join(foreign, "notes.txt"), "utf8")).toBe("not Postgres");
  });
});

describe("who may connect to the embedded PostgreSQL", () => {
  let postgres: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  beforeAll(async () => {
    postgres = await startEmbeddedPostgres({ dataDir, port: await freePort() });
  });
  afterAll(async () => {
    await postgres.stop();
  });

  it("refuses the superuser with the well-known password any local process could try", async () => {
    const refused = await sql(
      urlOf(postgres.port, "postgres", "password", "postgres"),
      "SELECT 1",
    ).then(
      () => undefined,
      (error: { code?: string }) => error.code,
    );

    expect(refused).toBe("28P01"); // invalid_password
  });

  it("keeps the random passwords in a file only its owner may read, in the data directory", async () => {
    const file = join(postgres.dataDir, CREDENTIALS_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const credentials = await readCredentials(postgres.dataDir);
    expect(credentials?.superuser).toMatch(/^[\w-]{32}$/);
    expect(credentials?.app).not.toBe(credentials?.superuser);
    expect(decodeURIComponent(new URL(postgres.url).password)).toBe(credentials?.app);
  });

  it("gives the application a role that is no superuser: it cannot run programs, read files, make roles or reach other databases", async () => {
    const attempt = (text: string, url = postgres.url) =>
      sql(url, text).then(
        () => "allowed",
        (error: { code?: string }) => error.code,
      );

    expect(
      await sql(
        postgres.url,
        "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = current_user",
      ),
    ).toEqual([{ rolsuper: false, rolcreaterole: false, rolcreatedb: false }]);
    expect(await attempt("COPY (SELECT 1) TO PROGRAM 'true'")).toBe("42501");
    expect(await attempt("SELECT pg_read_file('postgresql.conf')")).toBe("42501");
    expect(await attempt("CREATE ROLE intruder SUPERUSER")).toBe("42501");
    expect(await attempt("ALTER ROLE switchyard SUPERUSER")).toBe("42501");
    const other = new URL(postgres.url);
    other.pathname = "/postgres";
    expect(await attempt("SELECT 1", other.href)).toBe("42501");
  });

  it("lets the application own its database, so that migrations can make tables there", async () => {
    await sql(postgres.url, "CREATE TABLE owned_here (id int); DROP TABLE owned_here");
    expect(
      await sql(
        postgres.url,
        "SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = current_database()",
      ),
    ).toEqual([{ owner: "switchyard" }]);
  });
});

describe("a cluster made before random passwords", () => {
  it("has its well-known password replaced and its tables moved to the application's database and role, data kept", async () => {
    const legacyDir = join(folder.path, "legacy");
    const port = await freePort();
    // Made as earlier versions made it: the superuser's password is "password" and the tables, in
    // the `postgres` database, belong to the superuser.
    const made = await startEmbeddedPostgres({ dataDir: legacyDir, port });
    const credentials = await readCredentials(legacyDir);
    const asSuperuser = (database: string) =>
      urlOf(port, "postgres", credentials?.superuser ?? "", database);
    await sql(
      asSuperuser("postgres"),
      `CREATE TABLE _prisma_migrations (id text); CREATE TYPE "Kind" AS ENUM ('a', 'b');
       CREATE TABLE "Kept" (id serial PRIMARY KEY, kind "Kind", value text);
       INSERT INTO "Kept" (kind, value) VALUES ('a', 'from before');
       CREATE FUNCTION kept_count() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM "Kept"'`,
    );
    for (const statement of [
      "DROP DATABASE switchyard WITH (FORCE)",
      "DROP ROLE switchyard",
      "ALTER ROLE postgres PASSWORD 'password'",
    ]) {
      await sql(asSuperuser("template1"), statement);
    }
    await made.stop();
    await rm(join(legacyDir, CREDENTIALS_FILE));

    const log: string[] = [];
    const postgres = await startEmbeddedPostgres({
      dataDir: legacyDir,
      port,
      log: (line) => log.push(line),
    });
    try {
      expect(await sql(postgres.url, 'SELECT kind, value FROM "Kept"')).toEqual([
        { kind: "a", value: "from before" },
      ]);
      expect(await sql(postgres.url, "SELECT kept_count() AS n")).toEqual([{ n: "1" }]);
      await sql(postgres.url, `INSERT INTO "Kept" (kind, value) VALUES ('b', 'after')`);
      expect(
        await sql(
          postgres.url,
          "SELECT DISTINCT pg_get_userbyid(relowner) AS owner FROM pg_class WHERE relnamespace = 'public'::regnamespace",
        ),
      ).toEqual([{ owner: "switchyard" }]);
      const refused = await sql(urlOf(port, "postgres", "password", "postgres"), "SELECT 1").then(
        () => undefined,
        (error: { code?: string }) => error.code,
      );
      expect(refused).toBe("28P01");
      expect(log.join("\n")).toMatch(/replaced the well-known password/);
    } finally {
      await postgres.stop();
    }
  });
});
