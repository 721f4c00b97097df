import { type ConfigSpec, compile } from "@switchyard/snapshot";
import { endpointSpec, grpcServiceSpec } from "@switchyard/snapshot/fixtures";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SnapshotCache } from "./snapshot-cache.js";
import { createXdsServer, type XdsServer } from "./xds-server.js";

describe("the xDS server with a real proxyless gRPC client", () => {
  let alpha: EchoBackend;
  let beta: EchoBackend;
  let server: XdsServer;
  let port: number;
  let client: XdsEchoClient;
  const cache = new SnapshotCache();
  let version = 0;
  const publish = (spec: ConfigSpec) => {
    const compiled = compile(spec);
    expect(compiled.issues).toEqual([]);
    version += 1;
    cache.setConfig(compiled, version);
  };

  beforeAll(async () => {
    [alpha, beta] = await Promise.all([startEchoBackend("alpha"), startEchoBackend("beta")]);
    publish(grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", alpha.port)]));
    server = createXdsServer({ watcher: cache, controlPlaneId: "test" });
    port = await server.listen(0, "127.0.0.1");
    client = createXdsEchoClient("greeter", { server: `127.0.0.1:${port}`, nodeId: "e2e-client" });
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
    await Promise.all([alpha?.stop(), beta?.stop()]);
  });

  it("routes an RPC dialed as xds:///greeter to the cluster's endpoint", async () => {
    expect(await callUntilReady(client)).toBe("alpha");
  });

  it("moves RPCs to the new endpoint when the endpoints change", async () => {
    publish(grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", beta.port)]));
    const deadline = Date.now() + 5000;
    let answer = await client.call();
    while (answer !== "beta" && Date.now() < deadline) answer = await client.call();
    expect(answer).toBe("beta");
  });
});
