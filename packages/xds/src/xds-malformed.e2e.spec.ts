import * as http from "node:http";
import * as net from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { DiscoveryRequestSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_NODE_ID_BYTES, MAX_TYPE_URL_BYTES } from "./stream-loop.js";
import {
  grpcFrame,
  namesOf,
  rawGrpcCall,
  rawHttp2Exchange,
  type StreamKind,
  startTestServer,
  type TestServer,
  type TestStream,
} from "./test-client.js";
import { world } from "./test-world.js";
import { MAX_REQUEST_BYTES } from "./xds-server.js";

const ADS_PATH = "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources";
const CDS_PATH = "/envoy.service.cluster.v3.ClusterDiscoveryService/StreamClusters";
/** Not a DiscoveryRequest: field 1 (version_info, a string) with a length running past the end. */
const GARBAGE = Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]);

/**
 * Malformed requests end their own stream with a clear status and nothing else: the server keeps
 * serving open and new streams, and nothing reaches `uncaughtException`.
 */
describe("malformed requests never crash the server", () => {
  let server: TestServer;
  let healthy: TestStream;
  const uncaught: unknown[] = [];
  const record = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", record);
    process.on("unhandledRejection", record);
    server = await startTestServer(world());
    // Open before every bad request; checked at the end.
    healthy = server.client.open("ads");
    healthy.request(TypeUrl.Cluster, []);
    const first = await healthy.next();
    healthy.ack(first, []);
  });

  afterAll(async () => {
    process.off("uncaughtException", record);
    process.off("unhandledRejection", record);
    await server?.close();
  });

  async function expectInvalid(kind: StreamKind, send: (stream: TestStream) => void) {
    const stream = server.client.open(kind);
    send(stream);
    // The client keeps its side open, as Envoy does: the server must end the stream itself.
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    return error?.rawMessage ?? "";
  }

  it("a request with an empty type_url ends an ADS stream with InvalidArgument", async () => {
    const message = await expectInvalid("ads", (s) => s.request("", []));
    expect(message).toContain("type_url is empty");
  });

  it("a request with an empty type_url ends a per-type stream with InvalidArgument", async () => {
    const message = await expectInvalid(TypeUrl.ClusterLoadAssignment, (s) => s.request("", []));
    expect(message).toContain("type_url is empty");
  });

  it("a request for another type ends a per-type stream with InvalidArgument naming both types", async () => {
    const message = await expectInvalid(TypeUrl.Cluster, (s) => s.request(TypeUrl.Listener, []));
    expect(message).toContain(TypeUrl.Listener);
    expect(message).toContain(TypeUrl.Cluster);
  });

  it("a request for another type after a valid one still ends the per-type stream", async () => {
    const stream = server.client.open(TypeUrl.RouteConfiguration);
    stream.request(TypeUrl.RouteConfiguration, ["routes-a"]);
    expect(namesOf(await stream.next())).toEqual(["routes-a"]);
    stream.request(TypeUrl.Cluster, []);
    expect((await stream.ended())?.code).toBe(Code.InvalidArgument);
  });

  it("a first request without a node ends the stream with InvalidArgument", async () => {
    const message = await expectInvalid("ads", (s) =>
      s.send({ typeUrl: TypeUrl.Cluster, resourceNames: [] }),
    );
    expect(message).toContain("must carry a node");
  });

  it.each([
    ["an ADS stream", ADS_PATH],
    ["a per-type stream", CDS_PATH],
  ])("garbage bytes in a request frame end %s with InvalidArgument", async (_, path) => {
    const { status, message } = await rawGrpcCall(server.baseUrl, path, GARBAGE);
    expect(status).toBe(Code.InvalidArgument);
    expect(message).toContain("request 1 of this stream is not a valid DiscoveryRequest");
  });

  it("garbage after a valid request names the request that could not be read", async () => {
    const valid = toBinary(
      DiscoveryRequestSchema,
      create(DiscoveryRequestSchema, { typeUrl: TypeUrl.Cluster, node: { id: "raw" } }),
    );
    const { status, message } = await rawHttp2Exchange(server.baseUrl, ADS_PATH, [
      grpcFrame(valid),
      grpcFrame(GARBAGE),
    ]);
    expect(status).toBe(Code.InvalidArgument);
    expect(message).toContain("request 2 of this stream is not a valid DiscoveryRequest");
  });

  it("a frame flagged compressed on a call without grpc-encoding ends the stream with InvalidArgument, not Internal", async () => {
    const frame = grpcFrame(Uint8Array.from([0x0a, 0x00]));
    frame[0] = 1;
    const { status, message } = await rawHttp2Exchange(server.baseUrl, CDS_PATH, [frame]);
    expect(status).toBe(Code.InvalidArgument);
    expect(message).toContain("request 1 of this stream is flagged compressed");
    expect(message).toContain("grpc-encoding");
  });

  it("a frame declaring more than the request size limit ends the stream with ResourceExhausted at once, before its bytes arrive", async () => {
    const header = Buffer.alloc(5);
    header.writeUInt32BE(MAX_REQUEST_BYTES + 1, 1);
    // The client keeps its side open and sends nothing more: only the header can be judged.
    const { status, message } = await rawHttp2Exchange(server.baseUrl, ADS_PATH, [header], {
      timeoutMs: 1_000,
    });
    expect(status).toBe(Code.ResourceExhausted);
    expect(message).toContain("request 1 of this stream is too large for a DiscoveryRequest");
  });

  it("a stream that ends in the middle of a frame names the request cut short", async () => {
    const frame = grpcFrame(Uint8Array.from([0x0a, 0x00]));
    const { status, message } = await rawHttp2Exchange(
      server.baseUrl,
      ADS_PATH,
      [frame.subarray(0, 4)],
      { halfClose: true },
    );
    expect(status).toBe(Code.InvalidArgument);
    expect(message).toContain("in the middle of request 1 of this stream");
  });

  it("a type_url longer than the limit ends the stream with InvalidArgument, without echoing it", async () => {
    const typeUrl = `type.googleapis.com/${"x".repeat(MAX_TYPE_URL_BYTES)}`;
    const message = await expectInvalid(TypeUrl.Cluster, (s) => s.request(typeUrl, []));
    expect(message).toContain(`DiscoveryRequest.type_url is ${typeUrl.length} bytes long`);
    expect(message.length).toBeLessThan(300);
  });

  it("a node id longer than the limit ends the stream with InvalidArgument naming node.id", async () => {
    const stream = server.client.openDelta("ads", {
      node: { id: "n".repeat(MAX_NODE_ID_BYTES + 1) },
    });
    stream.request(TypeUrl.Cluster, []);
    const error = await stream.ended();
    expect(error?.code).toBe(Code.InvalidArgument);
    expect(error?.rawMessage).toContain(
      `DeltaDiscoveryRequest.node.id is ${MAX_NODE_ID_BYTES + 1} bytes long`,
    );
  });

  it("a gRPC stream called over HTTP/1.1 is answered 505 naming the method, not served", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(`${server.baseUrl}${ADS_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/grpc" },
      });
      request.on("error", reject);
      request.on("response", (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.end(grpcFrame(new Uint8Array()));
    });
    expect(answer.status).toBe(505);
    expect(answer.body).toContain(`${ADS_PATH} is a gRPC method: call it over HTTP/2`);
  });

  it("a connection speaking neither HTTP/2 nor HTTP/1.1 is closed", async () => {
    const { port } = new URL(server.baseUrl);
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x05, 0xde, 0xad, 0xbe, 0xef, 0x0d, 0x0a]));
    socket.write("\r\n\r\n");
    socket.resume();
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the connection stayed open")), 2000);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  });

  it("a connection reset in the middle of a request frame is dropped quietly: nothing uncaught, and the next client is served", async () => {
    const { port } = new URL(server.baseUrl);
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => undefined);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
    socket.write(Buffer.from([0x00, 0x00, 0x12, 0x04]));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.resetAndDestroy();
    await closed;
    // Reset before this connection was opened: the server meets the reset first.
    const next = server.client.open(TypeUrl.Cluster);
    next.request(TypeUrl.Cluster, []);
    expect(namesOf(await next.next())).toEqual(["a", "b"]);
    expect(uncaught).toEqual([]);
  });

  it("after all of them the server still serves: open streams get updates, new streams answers", async () => {
    server.publish(world({ clusterATimeoutMs: 2500 }));
    expect(namesOf(await healthy.next())).toEqual(["a", "b"]);

    const fresh = server.client.open(TypeUrl.Cluster);
    fresh.request(TypeUrl.Cluster, []);
    expect(namesOf(await fresh.next())).toEqual(["a", "b"]);
    expect(uncaught).toEqual([]);
  });
});
