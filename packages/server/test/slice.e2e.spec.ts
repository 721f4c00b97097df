import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { seedGrpcService } from "./seed.js";

describe("first slice: config stored in Postgres and published reaches a real proxyless gRPC client", () => {
  let backend: EchoBackend;
  let harness: Harness;

  beforeAll(async () => {
    backend = await startEchoBackend("payments-1");
    harness = await startHarness({
      seed: (database) => seedGrpcService(database.prisma, "payments", [backend.port]),
    });
    await harness.api().publish({ message: "first slice" });
  });

  afterAll(async () => {
    await harness?.stop();
    await backend?.stop();
  });

  it("sends an RPC dialed as xds:///payments to the backend stored as the cluster's endpoint", async () => {
    const client = createXdsEchoClient("payments", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
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
    const { resources } = await harness.api().listResources({});
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
