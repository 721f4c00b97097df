// A process that starts embedded Postgres, stores a row, says "ready", then waits to be killed:
// the "server killed with SIGKILL" case of embedded-postgres.spec.ts.
//   node --import tsx test/hold-postgres.ts <dataDir> <port>
import pg from "pg";
import { startEmbeddedPostgres } from "../src/embedded-postgres.js";

const [dataDir = "", port = ""] = process.argv.slice(2);
const postgres = await startEmbeddedPostgres({ dataDir, port: Number(port) });
const client = new pg.Client({ connectionString: postgres.url });
await client.connect();
await client.query("CREATE TABLE IF NOT EXISTS kept (value text)");
await client.query("INSERT INTO kept VALUES ('written before SIGKILL')");
await client.end();
process.stdout.write("ready\n");
setInterval(() => {}, 60_000);
