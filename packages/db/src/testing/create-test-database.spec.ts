import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { exited, firstLine, runScript, sql } from "../../test/fixtures.js";
import { createTestDatabase, type TestDatabase } from "./index.js";

const databases: TestDatabase[] = [];
afterAll(() => Promise.all(databases.map((database) => database.drop())));

async function track(database: Promise<TestDatabase>): Promise<TestDatabase> {
  databases.push(await database);
  return databases.at(-1) as TestDatabase;
}

/** True once `pid` has exited (a zombie waiting for its parent counts as exited). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2) === "Z";
  } catch {
    return true;
  }
}

/**
 * Whether `check` holds within `timeoutMs` (0: now, checked once). Polls in real time: what it
 * waits for is done by other processes (the watchdog shell, Postgres).
 */
async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("createTestDatabase", () => {
  it("gives each call its own fresh, migrated database that the others do not see", async () => {
    const [one, two] = await Promise.all([
      track(createTestDatabase()),
      track(createTestDatabase()),
    ]);
    expect(one.name).not.toBe(two.name);

    await one.prisma.cluster.create({ data: { name: "only-in-one" } });

    expect(await one.prisma.cluster.count()).toBe(1);
    expect(await two.prisma.cluster.count()).toBe(0);
  });

  it("with migrate: false gives an empty database", async () => {
    const database = await track(createTestDatabase({ migrate: false }));

    const tables = await sql(
      database.url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );

    expect(tables).toEqual([]);
  });

  it("drop() disconnects and removes the database, and may be called again", async () => {
    const database = await createTestDatabase();
    await database.prisma.cluster.count();

    await Promise.all([database.drop(), database.drop()]);

    await expect(sql(database.url, "SELECT 1")).rejects.toThrow(/does not exist/);
  });

  // How a test process can end, and who then cleans up: its `exit` handler, its signal handler,
  // or (SIGKILL) the watchdog shell. Vitest ends its workers with SIGTERM whether tests passed or
  // failed; an uncaught error ends a plain Node process through `exit`.
  const endings = [
    { how: "exits by itself", mode: "exit", kill: undefined },
    {
      how: "gets SIGTERM (how vitest ends a worker, failed tests or not)",
      mode: "hang",
      kill: "SIGTERM",
    },
    { how: "is killed with SIGKILL", mode: "hang", kill: "SIGKILL" },
  ] as const;

  it.concurrent.for(endings)(
    "leaves no Postgres process and no folder behind when the test process $how",
    async ({ mode, kill }, { expect }) => {
      const child = runScript("use-test-database.ts", [mode]);
      const { dataDir, pid } = JSON.parse(await firstLine(child)) as {
        dataDir: string;
        pid: number;
      };
      expect(existsSync(dataDir)).toBe(true);
      if (kill) child.kill(kill);
      await exited(child);

      // Synchronous cleanup is done when the process is gone; the watchdog polls every 0.2 s.
      const within = kill === "SIGKILL" ? 3_000 : 0;
      expect(await eventually(() => gone(pid), within)).toBe(true);
      expect(await eventually(() => !existsSync(dataDir), within)).toBe(true);
    },
  );
});
