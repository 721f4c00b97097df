/**
 * A running Switchyard on a real database holding a large config, with a fleet of simulated
 * proxies connected: the setting of the console and fleet benchmarks.
 */
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { type Switchyard, startSwitchyard } from "@switchyard/server";
import { ADMIN_PASSWORD, SnapshotStore, writeObjects } from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { pino } from "pino";
import type { FleetVariant } from "./fleet.js";
import { forkFleet, type RemoteFleet } from "./fleet-process.js";

export interface FleetWorld {
  readonly database: TestDatabase;
  readonly app: Switchyard;
  readonly baseUrl: string;
  readonly fleet: RemoteFleet;
  stop(): Promise<void>;
}

export async function startFleetWorld(options: {
  readonly clusters: number;
  readonly routes: number;
  readonly nodes: number;
  readonly variant: FleetVariant;
  readonly webConsole: boolean;
}): Promise<FleetWorld> {
  const database = await createTestDatabase();
  const spec = largeConfigSpec(options.clusters, options.routes);
  await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 120_000 });
  await new SnapshotStore(database.prisma).publishDraft({
    message: "benchmark config",
    author: "bench",
  });
  const app = await startSwitchyard({
    httpPort: 0,
    xdsPort: 0,
    host: "127.0.0.1",
    databaseUrl: database.url,
    dataDir: "unused-with-a-database-url",
    webConsole: options.webConsole,
    adminPassword: ADMIN_PASSWORD,
    logger: pino({ level: "warn" }),
  });
  const fleet = forkFleet({
    xdsUrl: `http://127.0.0.1:${app.xdsPort}`,
    count: options.nodes,
    variant: options.variant,
  });
  // Connected and holding everything: every cluster, and the routes of every listener.
  try {
    await fleet.holding({
      [TypeUrl.Cluster]: spec.clusters.length,
      [TypeUrl.RouteConfiguration]: spec.routeConfigurations.length,
    });
  } catch (error) {
    await fleet.close();
    await app.stop();
    await database.drop();
    throw error;
  }
  return {
    database,
    app,
    baseUrl: `http://127.0.0.1:${app.httpPort}`,
    fleet,
    stop: async () => {
      await fleet.close();
      await app.stop();
      await database.drop();
    },
  };
}
