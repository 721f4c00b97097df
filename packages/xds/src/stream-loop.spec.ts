import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createHandlerContext } from "@connectrpc/connect";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import {
  type DiscoveryRequest,
  DiscoveryRequestSchema,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, type ResourceSnapshot, TypeUrl, versionOf } from "@switchyard/snapshot";
import { clusterSpec, configSpec, endpointSpec } from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue.js";
import { SnapshotCache } from "./snapshot-cache.js";
import { serveSotwStream } from "./sotw-transport.js";

/**
 * The stream loop driven without a socket: the test is the writer, so a response it does not
 * take is a response the loop cannot write, as with a proxy that stopped reading (HTTP/2 flow
 * control keeps Connect's writer from asking for the next one).
 */

// A full collection on demand, to see what a stream keeps alive.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Full collections, each in a new job (WeakRef targets stay alive until the current job ends),
 * until `collected()` or a few have run: one may leave what the runner's job still held.
 * Something really kept alive stays through every one.
 */
async function collectUntil(collected: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 5 && !collected(); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
}

/**
 * Lets the loop run until it waits for the test. Without a socket or a TTL timer it runs on
 * promises alone, so by the next turn of the event loop it has done all it can: what it has not
 * done by then, it will not do until the test acts.
 */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const CDS = TypeUrl.Cluster;

/** The config of `version`: one cluster, whose connect timeout is the version. */
const configOf = (version: number) =>
  compile(
    configSpec({
      clusters: [clusterSpec("a", [endpointSpec("10.0.0.1", 8080)], { connectTimeoutMs: version })],
    }),
  );

const snapshotOf = (cache: SnapshotCache): ResourceSnapshot => {
  const snapshot = cache.config?.groups[0]?.snapshot;
  if (!snapshot) throw new Error("no config installed");
  return snapshot;
};

/** The SotW version_info of the clusters of `snapshot`. */
const cdsVersion = (snapshot: ResourceSnapshot) =>
  versionOf([...snapshot.resources(CDS).values()].map((r) => [r.name, r.version]));

function openStream(cache: SnapshotCache) {
  const source = new EventQueue<DiscoveryRequest>();
  let read = 0;
  const requests = (async function* () {
    for await (const request of source) {
      read += 1;
      yield request;
    }
  })();
  const context = createHandlerContext({
    service: AggregatedDiscoveryService,
    method: AggregatedDiscoveryService.method.streamAggregatedResources,
    protocolName: "grpc",
    requestMethod: "POST",
    url: "http://switchyard.test/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
  });
  const responses = serveSotwStream(requests, context, {
    watcher: cache,
    callbacks: {},
    variant: "ads-sotw",
    controlPlaneId: "test",
  });
  return {
    send: (init: Parameters<typeof create<typeof DiscoveryRequestSchema>>[1]) =>
      source.push(create(DiscoveryRequestSchema, init)),
    ack: (response: DiscoveryResponse) =>
      source.push(
        create(DiscoveryRequestSchema, {
          typeUrl: response.typeUrl,
          versionInfo: response.versionInfo,
          responseNonce: response.nonce,
        }),
      ),
    async next(): Promise<DiscoveryResponse> {
      const next = await responses.next();
      if (next.done) throw new Error("the stream ended");
      // As a client reads it: the loop's messages carry pre-encoded fields (packed-resources.ts).
      return fromBinary(DiscoveryResponseSchema, toBinary(DiscoveryResponseSchema, next.value));
    },
    /** Requests the loop has read from the client so far. */
    get read() {
      return read;
    },
    async close() {
      source.close();
      await responses.return(undefined);
    },
  };
}

describe("the stream loop, with a client that does not take its responses", () => {
  it("keeps only the latest snapshot: the versions published meanwhile are not kept alive, and the next response is the latest", async () => {
    const cache = new SnapshotCache();
    cache.setConfig(configOf(1), 1);
    const stream = openStream(cache);
    stream.send({ node: { id: "stuck" }, typeUrl: CDS });
    const first = await stream.next();
    expect(first.versionInfo).toBe(cdsVersion(snapshotOf(cache)));

    // The loop now waits for its response to be taken; 20 versions are published meanwhile.
    const published: Array<WeakRef<ResourceSnapshot>> = [];
    for (let version = 2; version <= 21; version++) {
      cache.setConfig(configOf(version), version);
      published.push(new WeakRef(snapshotOf(cache)));
    }
    await collectUntil(() => published.slice(0, -1).every((ref) => ref.deref() === undefined));
    const alive = published.map((ref) => ref.deref() !== undefined);
    expect(alive).toEqual([...Array(19).fill(false), true]);

    stream.ack(first);
    const next = await stream.next();
    expect(next.versionInfo).toBe(cdsVersion(snapshotOf(cache)));
    await stream.close();
  });

  it("stops reading requests while 64 wait, so that HTTP/2 flow control holds the client's next ones", async () => {
    const cache = new SnapshotCache();
    cache.setConfig(configOf(1), 1);
    const stream = openStream(cache);
    stream.send({ node: { id: "stuck" }, typeUrl: CDS });
    await stream.next();
    // Requests with a stale nonce: read, then ignored, whenever the loop gets to them.
    for (let i = 0; i < 1000; i++) stream.send({ typeUrl: CDS, responseNonce: "stale" });
    await settle();
    // The first request, and the 64 queued behind the response not taken.
    expect(stream.read).toBe(1 + 64);

    // Once the response is taken, every request is read.
    const reading = stream.next();
    await settle();
    expect(stream.read).toBe(1001);
    await stream.close();
    await reading.catch(() => undefined);
  });
});
