/**
 * RTDS over real gRPC streams: runtime layers subscribed by name on SotW and Delta ADS and on the
 * per-type RuntimeDiscoveryService, as Envoy's layered_runtime `rtds_layer` subscribes to them.
 */
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type {
  DeltaDiscoveryResponse,
  DiscoveryResponse,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type Runtime, RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { type ConfigSpec, TypeUrl } from "@switchyard/snapshot";
import { runtimeLayerSpec } from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deltaNamesOf, namesOf, startTestServer, type TestServer } from "./test-client.js";
import { world } from "./test-world.js";

const RTDS = TypeUrl.Runtime;
const node = { id: "rtds-node", cluster: "edge" };

function withFaults(abortPercent: number, extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return {
    ...world(),
    runtimeLayers: [
      runtimeLayerSpec("faults", { "fault.http.abort.abort_percent": abortPercent }),
      runtimeLayerSpec("flags", { "envoy.reloadable_features.example": true }),
    ],
    ...extra,
  };
}

function layerOf(response: DiscoveryResponse): Runtime {
  const [entry] = response.resources;
  const runtime = entry && (anyUnpack(entry, registry) as Runtime | undefined);
  if (!runtime || runtime.$typeName !== RuntimeSchema.typeName) throw new Error("not a Runtime");
  return runtime;
}

function deltaLayerOf(response: DeltaDiscoveryResponse): Runtime {
  const body = response.resources[0]?.resource;
  const runtime = body && (anyUnpack(body, registry) as Runtime | undefined);
  if (!runtime || runtime.$typeName !== RuntimeSchema.typeName) throw new Error("not a Runtime");
  return runtime;
}

describe("RTDS over real streams", () => {
  let xds: TestServer;

  beforeEach(async () => {
    xds = await startTestServer(withFaults(10));
  });

  afterEach(async () => {
    await xds.close();
  });

  it("a SotW ADS client subscribed to one layer by name gets that layer only, then its update", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(RTDS, ["faults"]);
    const first = await stream.next();
    expect(first.typeUrl).toBe(RTDS);
    expect(namesOf(first)).toEqual(["faults"]);
    expect(layerOf(first).layer).toEqual({ "fault.http.abort.abort_percent": 10 });
    stream.ack(first, ["faults"]);
    await stream.expectNoResponse(200);

    xds.publish(withFaults(25));
    const update = await stream.next();
    expect(namesOf(update)).toEqual(["faults"]);
    expect(layerOf(update).layer).toEqual({ "fault.http.abort.abort_percent": 25 });
    expect(update.versionInfo).not.toBe(first.versionInfo);
    stream.ack(update, ["faults"]);
    stream.close();
  });

  it("a Delta ADS client subscribed to one layer by name gets it, its update, and its removal", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(RTDS, ["faults"]);
    const first = await stream.next();
    expect(first.typeUrl).toBe(RTDS);
    expect(deltaNamesOf(first)).toEqual(["faults"]);
    expect(deltaLayerOf(first).layer).toEqual({ "fault.http.abort.abort_percent": 10 });
    stream.ack(first);

    xds.publish(withFaults(25));
    const update = await stream.next();
    expect(deltaNamesOf(update)).toEqual(["faults"]);
    expect(deltaLayerOf(update).layer).toEqual({ "fault.http.abort.abort_percent": 25 });
    expect(update.resources[0]?.version).not.toBe(first.resources[0]?.version);
    stream.ack(update);

    xds.publish({ ...world(), runtimeLayers: [] });
    const removal = await stream.next();
    expect(removal.removedResources).toEqual(["faults"]);
    stream.ack(removal);
    stream.close();
  });

  it("a layer that does not exist is answered as removed on Delta, and sent once it is published", async () => {
    const stream = xds.client.openDelta("ads", { node });
    stream.request(RTDS, ["later"]);
    const missing = await stream.next();
    expect(missing.removedResources).toEqual(["later"]);
    stream.ack(missing);

    xds.publish(withFaults(10, { runtimeLayers: [runtimeLayerSpec("later", { a: 1 })] }));
    const arrived = await stream.next();
    expect(deltaNamesOf(arrived)).toEqual(["later"]);
    stream.ack(arrived);
    stream.close();
  });

  it("a publish changing a cluster and a layer sends the layer only after the cluster is ACKed", async () => {
    const stream = xds.client.open("ads", { node });
    stream.request(TypeUrl.Cluster, []);
    stream.ack(await stream.next(), []);
    stream.request(RTDS, ["faults"]);
    stream.ack(await stream.next(), ["faults"]);

    xds.publish({
      ...withFaults(30),
      ...{ clusters: world({ clusterATimeoutMs: 2000 }).clusters },
    });
    const clusters = await stream.next();
    expect(clusters.typeUrl).toBe(TypeUrl.Cluster);
    await stream.expectNoResponse(200);
    stream.ack(clusters, []);
    const layer = await stream.next();
    expect(layer.typeUrl).toBe(RTDS);
    expect(layerOf(layer).layer).toEqual({ "fault.http.abort.abort_percent": 30 });
    stream.ack(layer, ["faults"]);
    stream.close();
  });

  it("the per-type RuntimeDiscoveryService serves SotW (StreamRuntime) by name", async () => {
    const stream = xds.client.open(RTDS, { node });
    stream.request(RTDS, ["flags"]);
    const first = await stream.next();
    expect(namesOf(first)).toEqual(["flags"]);
    expect(layerOf(first).layer).toEqual({ "envoy.reloadable_features.example": true });
    stream.ack(first, ["flags"]);
    stream.close();
  });

  it("the per-type RuntimeDiscoveryService serves Delta (DeltaRuntime) by name, and its updates", async () => {
    const stream = xds.client.openDelta(RTDS, { node });
    stream.request(RTDS, ["faults", "flags"]);
    const first = await stream.next();
    expect(deltaNamesOf(first).sort()).toEqual(["faults", "flags"]);
    stream.ack(first);
    xds.publish(withFaults(50));
    const update = await stream.next();
    expect(deltaNamesOf(update)).toEqual(["faults"]);
    stream.ack(update);
    stream.close();
  });

  it("the per-type RuntimeDiscoveryService ends a stream that asks for another type", async () => {
    const stream = xds.client.open(RTDS, { node });
    stream.request(TypeUrl.Cluster, []);
    expect(await stream.ended(2000)).toBeDefined();
  });
});
