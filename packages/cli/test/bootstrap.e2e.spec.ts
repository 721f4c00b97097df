/**
 * What `switchyard bootstrap --grpc` prints is a bootstrap a real proxyless gRPC client starts
 * from as it is: the client dials `xds:///shop` and its RPC reaches the backend the shop routes to.
 */
import { type Harness, openShop, startHarness } from "@switchyard/server/testing";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./processes.js";

describe("switchyard bootstrap --grpc", () => {
  let backend: EchoBackend;
  let harness: Harness;
  let shop: XdsEchoClient;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    harness = await startHarness();
    shop = await openShop(harness, backend, "shop-client");
  });

  afterAll(async () => {
    shop?.close();
    await harness?.stop();
    await backend?.stop();
  });

  it("prints a bootstrap with which a real gRPC client's RPC reaches the backend", async () => {
    const bootstrap = run([
      "bootstrap",
      "--grpc",
      "--node-id",
      "bootstrapped",
      "--xds-address",
      `127.0.0.1:${harness.app.xdsPort}`,
    ]);
    expect(await bootstrap.exited).toBe(0);
    const client = createXdsEchoClient("shop", {
      server: "",
      nodeId: "",
      bootstrap: JSON.parse(bootstrap.output()) as object,
    });
    try {
      expect(await callUntilReady(client)).toBe("blue");
    } finally {
      client.close();
    }
  });
});
