import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { ConfigService, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
} from "@switchyard/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Switchyard, startSwitchyard } from "../src/app.js";
import { seedGrpcService } from "./seed.js";

describe("first slice: config stored in Postgres reaches a real proxyless gRPC client", () => {
  let database: TestDatabase;
  let backend: EchoBackend;
  let app: Switchyard;

  beforeAll(async () => {
    database = await createTestDatabase();
    backend = await startEchoBackend("payments-1");
    await seedGrpcService(database.prisma, "payments", [backend.port]);
    app = await startSwitchyard({
      httpPort: 0,
      xdsPort: 0,
      host: "127.0.0.1",
      databaseUrl: database.url,
      dataDir: "unused-with-a-database-url",
      webConsole: false,
      logger: pino({ level: "silent" }),
    });
  });

  afterAll(async () => {
    await app?.stop();
    await backend?.stop();
    await database?.drop();
  });

  it("sends an RPC dialed as xds:///payments to the backend stored as the cluster's endpoint", async () => {
    const client = createXdsEchoClient("payments", {
      server: `127.0.0.1:${app.xdsPort}`,
      nodeId: "slice-client",
    });
    try {
      expect(await callUntilReady(client)).toBe("payments-1");
      expect(backend.served).toBeGreaterThan(0);
    } finally {
      client.close();
    }
  });

  it("lists what is stored through the console API", async () => {
    const api = createClient(
      ConfigService,
      createConnectTransport({ baseUrl: `http://127.0.0.1:${app.httpPort}`, httpVersion: "1.1" }),
    );
    const { resources } = await api.listResources({});
    expect(resources.map((r) => [r.kind, r.name])).toEqual([
      [ResourceKind.CLUSTER, "payments-backend"],
      [ResourceKind.LISTENER, "payments"],
      [ResourceKind.ROUTE_CONFIGURATION, "payments-routes"],
    ]);
    expect(resources.find((r) => r.name === "payments")?.references).toEqual(["payments-routes"]);
    expect(resources.find((r) => r.name === "payments-backend")?.description).toContain(
      "1 endpoint",
    );
  });
});
