import { spawn } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, firstLine, runScript, sql, tempFolder } from "../test/fixtures.js";
import { processesUsing, startEmbeddedPostgres } from "./embedded-postgres.js";
import { DbError } from "./errors.js";
import { freePort } from "./free-port.js";

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
    expect(first.url).toBe(`postgresql://postgres:password@127.0.0.1:${port}/postgres`);
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
    "refuses a data directory below a folder the postgres user cannot enter, naming that folder",
    async () => {
      const locked = join(folder.path, "locked");
      await mkdir(locked);
      await chmod(locked, 0o700);

      const error = await rejection(
        startEmbeddedPostgres({ dataDir: join(locked, "postgres"), port: await freePort() }),
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
