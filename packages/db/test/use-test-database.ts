// A test process that uses createTestDatabase, prints where its Postgres lives, then ends as told:
//   node --import tsx test/use-test-database.ts <exit|hang>
// "exit": nothing left to do (the event loop must drain by itself); "hang": wait to be killed.
// See create-test-database.spec.ts.
import { createTestDatabase } from "../src/testing/index.js";
import { testServer } from "../src/testing/test-server.js";

await createTestDatabase();
const { postgres } = await testServer();
if (!postgres) throw new Error("expected this process's own Postgres, not a shared one");
process.stdout.write(`${JSON.stringify({ dataDir: postgres.dataDir, pid: postgres.pid })}\n`);

if (process.argv[2] === "hang") setInterval(() => {}, 60_000);
