/**
 * What opening an xDS stream costs the server, apart from what it sends: 2,000 ADS streams over
 * 20 HTTP/2 connections, each sending one CDS request and reading one response of one small
 * cluster, then one more request each (answered by nothing). The server runs in a process of its
 * own (this file, forked) and is charged its CPU; three servers are measured in the same run:
 * - the floor: bare `node:http2` stream events answering with a pre-encoded response;
 * - the xDS streams' gRPC transport (`GrpcStreams`, grpc-streams.ts, on node:http2's request and
 *   response) with an implementation that only answers: the transport as Switchyard runs it;
 * - the real xDS server (`createXdsServer`) on a one-cluster snapshot, without status tracking.
 * The difference between the first two is the gRPC transport's; between the last two, the xDS
 * layer's.
 */
import { fork } from "node:child_process";
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { createXdsServer, GrpcStreams, SnapshotCache } from "@switchyard/xds";
import { createTestClient } from "@switchyard/xds/testing";
import type { Figure } from "./config.bench.js";
import { cpuSeconds, settled } from "./process-usage.js";

const STREAMS = 2_000;
const PER_CONNECTION = 100;

type Variant = "floor" | "transport" | "xds";

/** Starts the `variant` server on a free port; resolves with the port. */
async function serveVariant(variant: Variant): Promise<number> {
  if (variant === "xds") {
    const cache = new SnapshotCache();
    cache.setConfig(compile(largeConfigSpec(1, 1)), 1);
    return createXdsServer({ watcher: cache, controlPlaneId: "bench" }).listen(0, "127.0.0.1");
  }
  const response = create(DiscoveryResponseSchema, { nonce: "1", typeUrl: TypeUrl.Cluster });
  let server: http2.Http2Server;
  if (variant === "floor") {
    const body = toBinary(DiscoveryResponseSchema, response);
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    server = http2.createServer();
    server.on("stream", (stream) => {
      let answered = false;
      stream.on("data", () => {
        if (answered) return;
        answered = true;
        stream.respond({ ":status": 200, "content-type": "application/grpc" });
        stream.write(frame);
      });
      stream.on("error", () => undefined);
    });
  } else {
    const streams = new GrpcStreams({ acceptCompression: [], readMaxBytes: 1 << 20 });
    const connect = connectNodeAdapter({
      grpc: true,
      connect: false,
      grpcWeb: false,
      routes: (router) =>
        streams.register(router, AggregatedDiscoveryService, {
          async *streamAggregatedResources(requests) {
            for await (const request of requests) if (request.responseNonce === "") yield response;
          },
        }),
    });
    server = http2.createServer((request, response) => {
      if (!streams.serve(request, response)) connect(request, response);
    });
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Server CPU µs per stream opened (one request, one response) and per further request. */
async function measure(variant: Variant): Promise<{ open: number; request: number }> {
  const child = fork(fileURLToPath(import.meta.url), [variant], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pid = child.pid ?? 0;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once("message", (message: { port: number }) => resolve(message.port));
      child.once("exit", (code) => reject(new Error(`the ${variant} server exited (${code})`)));
    });
    await settled(pid);
    const clients = Array.from({ length: STREAMS / PER_CONNECTION }, () =>
      createTestClient(`http://127.0.0.1:${port}`),
    );
    try {
      const before = cpuSeconds(pid);
      const streams = Array.from({ length: STREAMS }, (_, i) => {
        const client = clients[Math.floor(i / PER_CONNECTION)];
        if (client === undefined) throw new Error("no client");
        const stream = client.open("ads", { node: { id: `node-${i}`, cluster: "bench" } });
        stream.request(TypeUrl.Cluster, []);
        return stream;
      });
      await Promise.all(streams.map((stream) => stream.next(60_000)));
      const opened = cpuSeconds(pid);
      // A request no response answers (a stale nonce): its reading alone.
      for (const stream of streams)
        stream.request(TypeUrl.Cluster, [], { versionInfo: "x", responseNonce: "stale" });
      await settled(pid);
      const requested = cpuSeconds(pid);
      for (const stream of streams) stream.close();
      return {
        open: ((opened - before) * 1e6) / STREAMS,
        request: ((requested - opened) * 1e6) / STREAMS,
      };
    } finally {
      for (const client of clients) client.close();
    }
  } finally {
    child.kill("SIGTERM");
  }
}

export async function streamSetupFigures(): Promise<Figure[]> {
  const floor = await measure("floor");
  const transport = await measure("transport");
  const xds = await measure("xds");
  const ratio = (value: number) => `×${(value / Math.max(floor.open, 1)).toFixed(1)}`;
  return [
    {
      name: `an xDS stream opened (one request, one response; ${STREAMS.toLocaleString("en")} streams): server CPU`,
      value: xds.open,
      unit: "µs",
      note: `floor (bare node:http2) ${floor.open.toFixed(0)} µs, ${ratio(xds.open)}; the gRPC transport alone ${transport.open.toFixed(0)} µs, ${ratio(transport.open)}`,
    },
    {
      name: "… a further request on it, answered by nothing: server CPU",
      value: xds.request,
      unit: "µs",
      note: `floor ${floor.request.toFixed(0)} µs; the gRPC transport alone ${transport.request.toFixed(0)} µs`,
    },
  ];
}

const variant = process.argv[2];
if (variant === "floor" || variant === "transport" || variant === "xds") {
  const port = await serveVariant(variant);
  process.send?.({ port });
}
