import { type Client, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { type Logger, pino } from "pino";
import { type Switchyard, type SwitchyardOptions, startSwitchyard } from "../src/app.js";

export interface Harness {
  readonly database: TestDatabase;
  readonly app: Switchyard;
  /** The console API as `author` (sent as the x-switchyard-author header). */
  api(author?: string): Client<typeof ConfigService>;
  /** The console's base URL, e.g. http://127.0.0.1:41234 */
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/**
 * A Switchyard process on a fresh test database (real Postgres), on free ports. `seed` runs
 * before the server starts, for tests that need stored objects from the beginning.
 */
export async function startHarness(
  options: {
    webConsole?: boolean;
    seed?: (database: TestDatabase) => Promise<void>;
    logger?: Logger;
    /** Options of the app beyond ports, database and console (e.g. staleAfterMs). */
    app?: Pick<SwitchyardOptions, "staleAfterMs" | "retainDisconnectedMs">;
  } = {},
): Promise<Harness> {
  const database = await createTestDatabase();
  await options.seed?.(database);
  const app = await startSwitchyard({
    httpPort: 0,
    xdsPort: 0,
    host: "127.0.0.1",
    databaseUrl: database.url,
    dataDir: "unused-with-a-database-url",
    webConsole: options.webConsole ?? false,
    logger: options.logger ?? pino({ level: "silent" }),
    ...options.app,
  });
  const baseUrl = `http://127.0.0.1:${app.httpPort}`;
  return {
    database,
    app,
    baseUrl,
    api: (author = "test") => {
      const asAuthor: Interceptor = (next) => (request) => {
        request.header.set("x-switchyard-author", author);
        return next(request);
      };
      return createClient(
        ConfigService,
        createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [asAuthor] }),
      );
    },
    stop: async () => {
      await app.stop();
      await database.drop();
    },
  };
}
