/**
 * Resource TTLs and heartbeats over real gRPC streams (xDS protocol, "TTL", "SotW TTL"): a client
 * announcing the features gets every resource wrapped with the TTL, then bodiless heartbeats at
 * the same version every `heartbeatMs`; a client without them gets plain resources and no
 * heartbeats. Short intervals keep the suite fast.
 */
import { durationMs } from "@bufbuild/protobuf/wkt";
import type { DiscoveryResponse } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { it as base, describe } from "vitest";
import { FEATURE_RESOURCE_IN_SOTW, FEATURE_RESOURCE_TTL } from "./subscription-ttl.js";
import {
  deltaNamesOf,
  namesOf,
  startTestServer,
  type TestServer,
  unwrapResource,
} from "./test-client.js";
import { world } from "./test-world.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;

/**
 * Heartbeats every 100 ms against a TTL a hundred times longer: "well within the TTL" (half of
 * it) then holds with seconds to spare on a loaded machine, where the test process itself stalls.
 */
const TTL_MS = 10_000;
const HEARTBEAT_MS = 100;

const it = base.extend<{ xds: TestServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  xds: async ({}, use) => {
    const server = await startTestServer(world(), {
      ttl: { ttlMs: TTL_MS, heartbeatMs: HEARTBEAT_MS },
    });
    await use(server);
    await server.close();
  },
});

const bothFeatures = {
  id: "ttl-node",
  clientFeatures: [FEATURE_RESOURCE_TTL, FEATURE_RESOURCE_IN_SOTW],
};

/** The wrapped Resources of a SotW response; fails when an entry is a bare resource. */
function wrapped(response: DiscoveryResponse) {
  return response.resources.map((entry) => {
    const resource = unwrapResource(entry);
    if (!resource) throw new Error(`${entry.typeUrl} is not wrapped in a Resource`);
    return resource;
  });
}

describe.concurrent("SotW TTL", () => {
  it("a client with both features gets resources wrapped with the TTL, then bodiless heartbeats at the same version", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.open("ads", { node: bothFeatures });
    stream.request(EDS, ["a", "b"]);
    const first = await stream.next();
    const resources = wrapped(first);
    expect(resources.map((r) => r.name)).toEqual(["a", "b"]);
    for (const r of resources) {
      expect(r.resource?.typeUrl).toBe(EDS);
      expect(r.resource?.value.length).toBeGreaterThan(0);
      expect(r.ttl && durationMs(r.ttl)).toBe(TTL_MS);
    }

    stream.ack(first, ["a", "b"]);
    const arrivals: number[] = [];
    let previous = first;
    for (let i = 0; i < 2; i++) {
      const heartbeat = await stream.next(TTL_MS / 2);
      arrivals.push(Date.now());
      expect(heartbeat.typeUrl).toBe(EDS);
      expect(heartbeat.versionInfo).toBe(first.versionInfo);
      expect(heartbeat.nonce).not.toBe(previous.nonce);
      const beats = wrapped(heartbeat);
      expect(beats.map((r) => r.name)).toEqual(["a", "b"]);
      for (const beat of beats) {
        expect(beat.resource).toBeUndefined();
        expect(beat.version).toBe(first.versionInfo);
        expect(beat.ttl && durationMs(beat.ttl)).toBe(TTL_MS);
      }
      stream.ack(heartbeat, ["a", "b"]);
      previous = heartbeat;
    }
    const [one = 0, two = 0] = arrivals;
    // At the configured interval: not back to back, and well within the TTL.
    // Spaced by about the interval (not back to back); measured where they arrive, so a first
    // heartbeat read late on a loaded machine narrows the gap: half the interval is the bound.
    expect(two - one).toBeGreaterThanOrEqual(HEARTBEAT_MS / 2);
    expect(two - one).toBeLessThan(TTL_MS / 2);
  });

  it("CDS is refreshed with its full state, wrapped with the TTL (a SotW client reads heartbeats alone as no clusters)", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.open("ads", { node: bothFeatures });
    stream.request(CDS, []);
    const first = await stream.next();
    expect(wrapped(first).map((r) => r.name)).toEqual(["a", "b"]);
    stream.ack(first, []);
    const refresh = await stream.next(TTL_MS / 2);
    const resources = wrapped(refresh);
    expect(resources.map((r) => r.name)).toEqual(["a", "b"]);
    expect(refresh.versionInfo).toBe(first.versionInfo);
    for (const r of resources) {
      expect(r.resource?.value.length).toBeGreaterThan(0);
      expect(r.ttl && durationMs(r.ttl)).toBe(TTL_MS);
    }
  });

  it.for([
    ["no features", []],
    ["the TTL feature only (no resource-in-SotW)", [FEATURE_RESOURCE_TTL]],
  ] as const)(
    "a client with %s gets plain resources and no heartbeats",
    async ([, features], { xds, expect }) => {
      const stream = xds.client.open("ads", {
        node: { id: "plain", clientFeatures: [...features] },
      });
      stream.request(EDS, ["a", "b"]);
      const first = await stream.next();
      expect(first.resources.map((r) => r.typeUrl)).toEqual([EDS, EDS]);
      expect(namesOf(first)).toEqual(["a", "b"]);
      stream.ack(first, ["a", "b"]);
      await stream.expectNoResponse(3 * HEARTBEAT_MS);
    },
  );

  it("without the ttl server option a client with both features gets plain resources and no heartbeats", async ({
    expect,
  }) => {
    const xds = await startTestServer(world());
    try {
      const stream = xds.client.open("ads", { node: bothFeatures });
      stream.request(EDS, ["a"]);
      const first = await stream.next();
      expect(first.resources.map((r) => r.typeUrl)).toEqual([EDS]);
      stream.ack(first, ["a"]);
      await stream.expectNoResponse(3 * HEARTBEAT_MS);
    } finally {
      await xds.close();
    }
  });
});

describe.concurrent("Delta TTL", () => {
  it("a client with the TTL feature gets resources with the TTL, then bodiless heartbeats at the same versions", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.openDelta("ads", {
      node: { id: "ttl-node", clientFeatures: [FEATURE_RESOURCE_TTL] },
    });
    stream.request(CDS, ["*"]);
    const first = await stream.next();
    expect(deltaNamesOf(first)).toEqual(["a", "b"]);
    for (const r of first.resources) {
      expect(r.resource?.value.length).toBeGreaterThan(0);
      expect(r.ttl && durationMs(r.ttl)).toBe(TTL_MS);
    }
    const versions = new Map(first.resources.map((r) => [r.name, r.version]));

    stream.ack(first);
    const arrivals: number[] = [];
    for (let i = 0; i < 2; i++) {
      const heartbeat = await stream.next(TTL_MS / 2);
      arrivals.push(Date.now());
      expect(heartbeat.removedResources).toEqual([]);
      expect(deltaNamesOf(heartbeat)).toEqual(["a", "b"]);
      for (const beat of heartbeat.resources) {
        expect(beat.resource).toBeUndefined();
        expect(beat.version).toBe(versions.get(beat.name));
        expect(beat.ttl && durationMs(beat.ttl)).toBe(TTL_MS);
      }
      stream.ack(heartbeat);
    }
    const [one = 0, two = 0] = arrivals;
    // Spaced by about the interval (not back to back); measured where they arrive, so a first
    // heartbeat read late on a loaded machine narrows the gap: half the interval is the bound.
    expect(two - one).toBeGreaterThanOrEqual(HEARTBEAT_MS / 2);
    expect(two - one).toBeLessThan(TTL_MS / 2);
  });

  it("a client without the TTL feature gets resources with no TTL and no heartbeats", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.openDelta("ads");
    stream.request(CDS, ["*"]);
    const first = await stream.next();
    expect(deltaNamesOf(first)).toEqual(["a", "b"]);
    for (const r of first.resources) expect(r.ttl).toBeUndefined();
    stream.ack(first);
    await stream.expectNoResponse(3 * HEARTBEAT_MS);
  });
});
