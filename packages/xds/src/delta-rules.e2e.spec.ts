/**
 * The Delta (incremental) rules of the xDS protocol (latest edition of Envoy's xDS protocol page,
 * https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol: "Incremental xDS" and the
 * sections it refers to), each checked over real gRPC streams: on Delta ADS and, where the
 * rule concerns one type, on that type's own Delta service. Every test gets its own server and
 * cache, so the tests run concurrently.
 */
import { Code } from "@connectrpc/connect";
import type { DeltaDiscoveryResponse } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { clusterSpec, configSpec, endpointSpec } from "@switchyard/snapshot/fixtures";
import { it as base, describe } from "vitest";
import {
  type DeltaTestStream,
  deltaNamesOf,
  rawGrpcCall,
  type StreamKind,
  startTestServer,
  type TestServer,
} from "./test-client.js";
import { world } from "./test-world.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;

const it = base.extend<{ xds: TestServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  xds: async ({}, use) => {
    const server = await startTestServer(world());
    await use(server);
    await server.close();
  },
});

/** Runs a rule about one type on Delta ADS and on the type's own Delta service. */
const onBoth = (typeUrl: TypeUrl) =>
  [
    ["Delta ADS", "ads"],
    ["its own Delta service", typeUrl],
  ] as const satisfies readonly (readonly [string, StreamKind])[];

/** What a response carries, compactly: the names sent and the names removed. */
const content = (response: DeltaDiscoveryResponse) => ({
  resources: deltaNamesOf(response),
  removed: response.removedResources,
});

/** Opens a Delta stream and subscribes it with `subscribe`; resolves with the first answer. */
async function subscribe(
  xds: TestServer,
  kind: StreamKind,
  typeUrl: string,
  names: readonly string[],
): Promise<{ stream: DeltaTestStream; first: DeltaDiscoveryResponse }> {
  const stream = xds.client.openDelta(kind);
  stream.request(typeUrl, names);
  return { stream, first: await stream.next() };
}

describe.concurrent.each(onBoth(CDS))("Delta subscribe and unsubscribe on %s", (_, kind) => {
  it("a first request that subscribes nothing is a legacy wildcard: every cluster is sent", async ({
    xds,
    expect,
  }) => {
    const { first } = await subscribe(xds, kind, CDS, []);
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: [] });
  });

  it("subscribing * is an explicit wildcard: every cluster is sent, and new ones as they come", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*"]);
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: [] });
    stream.ack(first);
    xds.publish(world({ withClusterC: true }));
    expect(content(await stream.next())).toEqual({ resources: ["c"], removed: [] });
  });

  it("subscribing names sends only those; a later subscribe sends only the added name", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["a"]);
    expect(content(first)).toEqual({ resources: ["a"], removed: [] });
    stream.ack(first, { resourceNamesSubscribe: ["b"] });
    expect(content(await stream.next())).toEqual({ resources: ["b"], removed: [] });
  });

  it("unsubscribing a name stops its updates, and a named subscription gets no new clusters", async ({
    xds,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["a", "b"]);
    stream.ack(first, { resourceNamesUnsubscribe: ["a"] });
    await stream.expectNoResponse();
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    await stream.expectNoResponse();
    // A new cluster is not covered either: the stream named resources, so it is no wildcard.
    xds.publish(world({ clusterATimeoutMs: 2000, withClusterC: true }));
    await stream.expectNoResponse();
  });

  it("a legacy wildcard stream that subscribes a name keeps the wildcard and gets the name again", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first, { resourceNamesSubscribe: ["a"] });
    const named = await stream.next();
    expect(content(named)).toEqual({ resources: ["a"], removed: [] });
    stream.ack(named);
    xds.publish(world({ withClusterC: true }));
    expect(content(await stream.next())).toEqual({ resources: ["c"], removed: [] });
  });

  it("unsubscribing * (legacy wildcard plus a) keeps a and drops everything else from updates", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first, { resourceNamesSubscribe: ["a"] });
    const named = await stream.next();
    stream.ack(named, { resourceNamesUnsubscribe: ["*"] });
    await stream.expectNoResponse();
    xds.publish(world({ withClusterC: true }));
    await stream.expectNoResponse();
    xds.publish(world({ withClusterC: true, clusterATimeoutMs: 2000 }));
    expect(content(await stream.next())).toEqual({ resources: ["a"], removed: [] });
  });

  it("unsubscribing * from an explicit wildcard leaves nothing subscribed", async ({ xds }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*"]);
    stream.ack(first, { resourceNamesUnsubscribe: ["*"] });
    await stream.expectNoResponse();
    xds.publish(world({ withClusterC: true, clusterATimeoutMs: 2000 }));
    await stream.expectNoResponse();
  });
});

describe.concurrent.each(onBoth(CDS))("Delta updates on %s", (_, kind) => {
  it("a change to one of many clusters sends exactly that cluster, with its own new version", async ({
    xds,
    expect,
  }) => {
    xds.publish(world({ withClusterC: true }));
    const { stream, first } = await subscribe(xds, kind, CDS, ["*"]);
    expect(content(first)).toEqual({ resources: ["a", "b", "c"], removed: [] });
    const versions = new Map(first.resources.map((r) => [r.name, r.version]));
    expect(new Set(versions.values()).size).toBe(3);
    stream.ack(first);
    await stream.expectNoResponse();

    xds.publish(world({ withClusterC: true, clusterATimeoutMs: 2000 }));
    const update = await stream.next();
    expect(content(update)).toEqual({ resources: ["a"], removed: [] });
    const [a] = update.resources;
    expect(a?.version).not.toBe(versions.get("a"));
    expect(a?.resource?.typeUrl).toBe(CDS);
    expect(a?.resource?.value.length).toBeGreaterThan(0);
  });

  it("a deleted cluster goes in removed_resources, and nothing else is sent", async ({
    xds,
    expect,
  }) => {
    xds.publish(world({ withClusterC: true }));
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first);
    xds.publish(world());
    expect(content(await stream.next())).toEqual({ resources: [], removed: ["c"] });
  });

  it("a resource goes out with the same body bytes SotW sends: never re-encoded", async ({
    xds,
    expect,
  }) => {
    const { first } = await subscribe(xds, kind, CDS, ["a"]);
    const sotw = xds.client.open(kind);
    sotw.request(CDS, ["a"]);
    const sotwFirst = await sotw.next();
    expect(first.resources[0]?.resource?.value).toEqual(sotwFirst.resources[0]?.value);
    const snapshot = xds.cache.watch({ id: "test-node", cluster: "", metadata: {} }, () => {});
    expect(first.resources[0]?.version).toBe(snapshot.current?.get(CDS, "a")?.version);
    snapshot.cancel();
  });

  it("a NACK is recorded, the rejected resources are not resent in a loop, and the next change goes out", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.nack(first, "cluster a: unsupported lb_policy");
    // Recorded once the server has read it (on a loaded machine, later than a quiet window).
    await expect.poll(() => xds.requests.at(-1)?.verdict.t, { timeout: 10_000 }).toBe("nack");
    await stream.expectNoResponse(300);
    expect(xds.requests.at(-1)?.verdict).toEqual({
      t: "nack",
      rejectedVersion: first.systemVersionInfo,
      errorDetail: "cluster a: unsupported lb_policy",
      // The client named the cluster it rejected.
      rejected: new Set(["a"]),
    });
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    expect(deltaNamesOf(await stream.next())).toContain("a");
  });
});

describe.concurrent.each(onBoth(EDS))("Delta EDS on %s", (_, kind) => {
  it("a subscribed name that never existed goes in removed_resources, and is sent once created", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "c"]);
    expect(content(first)).toEqual({ resources: ["a"], removed: ["c"] });
    stream.ack(first);
    xds.publish(world({ withClusterC: true }));
    expect(content(await stream.next())).toEqual({ resources: ["c"], removed: [] });
  });

  it("a request with a stale nonce still has its subscription changes honoured", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a"]);
    stream.ack(first);
    stream.request(EDS, ["b"], [], { responseNonce: "not-a-nonce-we-sent" });
    expect(content(await stream.next())).toEqual({ resources: ["b"], removed: [] });
    expect(xds.requests.at(-1)?.verdict).toEqual({ t: "stale" });
  });

  it("a stale-nonce unsubscribe is honoured too: the name gets no more updates", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "b"]);
    stream.ack(first);
    stream.request(EDS, [], ["a"], { responseNonce: "not-a-nonce-we-sent" });
    await stream.expectNoResponse();
    xds.publish(world({ endpointAPort: 9001 }));
    await stream.expectNoResponse();
    xds.publish(world({ endpointAPort: 9001, endpointBPort: 9001 }));
    expect(content(await stream.next())).toEqual({ resources: ["b"], removed: [] });
  });

  it("only the changed assignment is sent", async ({ xds, expect }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "b"]);
    stream.ack(first);
    xds.publish(world({ endpointBPort: 9001 }));
    expect(content(await stream.next())).toEqual({ resources: ["b"], removed: [] });
  });
});

describe.concurrent.each(onBoth(CDS))("Delta wildcard plus a name on %s", (_, kind) => {
  it("[*, a] then unsubscribing a answers a in resources: the wildcard still covers it", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*", "a"]);
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: [] });
    stream.ack(first, { resourceNamesUnsubscribe: ["a"] });
    expect(content(await stream.next())).toEqual({ resources: ["a"], removed: [] });
  });

  it("[*, nowhere] then unsubscribing nowhere answers it in removed_resources: nothing covers it", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*", "nowhere"]);
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: ["nowhere"] });
    stream.ack(first, { resourceNamesUnsubscribe: ["nowhere"] });
    expect(content(await stream.next())).toEqual({ resources: [], removed: ["nowhere"] });
  });
});

describe.concurrent.each(onBoth(CDS))("Delta reconnect on %s", (_, kind) => {
  it("initial_resource_versions suppresses resends of what the client already has", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*"]);
    stream.ack(first);
    const held = Object.fromEntries(first.resources.map((r) => [r.name, r.version]));
    stream.close();
    await stream.ended();

    // Same versions: nothing to send.
    const again = xds.client.openDelta(kind);
    again.request(CDS, ["*"], [], { initialResourceVersions: held });
    await again.expectNoResponse();
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    expect(content(await again.next())).toEqual({ resources: ["a"], removed: [] });

    // One outdated, one gone: only those.
    const third = xds.client.openDelta(kind);
    third.request(CDS, ["*"], [], {
      initialResourceVersions: { ...held, gone: "v1" },
    });
    expect(content(await third.next())).toEqual({ resources: ["a"], removed: ["gone"] });
  });
});

describe.concurrent("Delta per-type services and malformed requests", () => {
  it("a per-type Delta stream refuses another type with InvalidArgument naming both types", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.openDelta(CDS);
    stream.request(LDS, []);
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toContain(LDS);
    expect(error?.rawMessage).toContain(CDS);
  });

  it("a per-type Delta stream refuses another type after serving its own", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, EDS, EDS, ["a"]);
    stream.ack(first);
    stream.request(CDS, []);
    expect((await stream.ended())?.code).toBe(Code.InvalidArgument);
  });

  it.for([
    ["Delta ADS", "ads"],
    ["a per-type Delta stream", CDS],
  ] as const)(
    "an empty type_url ends %s with InvalidArgument",
    async ([, kind], { xds, expect }) => {
      const stream = xds.client.openDelta(kind);
      stream.request("", ["a"]);
      const error = await stream.ended();
      expect(error?.code).toBe(Code.InvalidArgument);
      expect(error?.rawMessage).toContain("type_url is empty");
    },
  );

  it("a first Delta request without a node ends the stream with InvalidArgument", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.openDelta("ads");
    stream.send({ typeUrl: CDS });
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toContain("must carry a node");
  });

  it.for([
    [
      "Delta ADS",
      "/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources",
    ],
    ["a per-type Delta stream", "/envoy.service.cluster.v3.ClusterDiscoveryService/DeltaClusters"],
  ] as const)(
    "garbage bytes in a request frame end %s with InvalidArgument",
    async ([, path], { xds, expect }) => {
      const garbage = Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]);
      const { status, message } = await rawGrpcCall(xds.baseUrl, path, garbage);
      expect(status).toBe(Code.InvalidArgument);
      expect(message).toContain("not a valid DeltaDiscoveryRequest");
    },
  );

  it("after a malformed Delta stream the server still serves Delta streams", async ({
    xds,
    expect,
  }) => {
    const bad = xds.client.openDelta("ads");
    bad.request("", []);
    expect((await bad.ended())?.code).toBe(Code.InvalidArgument);
    const { first } = await subscribe(xds, "ads", CDS, []);
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: [] });
  });
});

describe.concurrent.each(onBoth(LDS))("Delta wildcard on an empty type, on %s", (_, kind) => {
  it("a wildcard subscription to a type with nothing in it is answered at once with an empty response, and a listener added later is sent", async ({
    expect,
  }) => {
    const noListeners = configSpec({
      clusters: [clusterSpec("a", [endpointSpec("10.0.0.1", 80)])],
    });
    const xds = await startTestServer(noListeners);
    try {
      const { stream, first } = await subscribe(xds, kind, LDS, ["*"]);
      expect(content(first)).toEqual({ resources: [], removed: [] });
      stream.ack(first);
      xds.publish(world());
      expect(deltaNamesOf(await stream.next())).toEqual(["svc-a", "svc-b"]);
      stream.close();
    } finally {
      await xds.close();
    }
  });
});
