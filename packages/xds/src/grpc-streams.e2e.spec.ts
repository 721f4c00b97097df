/**
 * The xDS streams' gRPC handler (grpc-streams.ts) over real HTTP/2, with Connect's own gRPC client:
 * what Connect's handler did for a stream, it does (compression both ways, deadlines, errors as
 * trailers, the client going away, oversized messages), on a test implementation of ADS. (Every
 * case passed on Connect's own handler too, registered with `router.service`, when it was
 * written.)
 */
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type HandlerContext } from "@connectrpc/connect";
import { compressionGzip, connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import {
  type DiscoveryRequest,
  DiscoveryRequestSchema,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { afterEach, describe, expect, it } from "vitest";
import { type GrpcStreamOptions, GrpcStreams } from "./grpc-streams.js";

/** What the test implementation saw of its last stream. */
interface Seen {
  readonly requests: DiscoveryRequest[];
  aborted?: unknown;
  /** Settles when the stream's signal aborts (on any end: Connect's context aborts it then). */
  readonly abort: Promise<void>;
  readonly ended: Promise<void>;
}

/**
 * ADS that answers each request with a response whose nonce is the request's `response_nonce`
 * and whose version_info repeats it `version_info` times (a large response on demand);
 * `response_nonce` "fail" throws a ConnectError, "crash" a plain Error, "wait" waits for the
 * stream's signal.
 */
function echo(seen: Seen[]) {
  return async function* (
    requests: AsyncIterable<DiscoveryRequest>,
    context: HandlerContext,
  ): AsyncGenerator<DiscoveryResponse> {
    let end = () => {};
    const record: Seen = {
      requests: [],
      ended: new Promise((resolve) => (end = resolve)),
      abort: new Promise((resolve) =>
        context.signal.addEventListener("abort", () => {
          record.aborted = context.signal.reason ?? "aborted";
          resolve();
        }),
      ),
    };
    seen.push(record);
    try {
      for await (const request of requests) {
        record.requests.push(request);
        const nonce = request.responseNonce;
        if (nonce === "fail") throw new ConnectError("no such type", Code.InvalidArgument);
        if (nonce === "crash") throw new Error("secret internals");
        if (nonce === "wait") {
          await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
          continue;
        }
        yield create(DiscoveryResponseSchema, {
          nonce,
          versionInfo: nonce.repeat(Number(request.versionInfo || "1")),
        });
      }
    } finally {
      end();
    }
  };
}

async function serve(options: GrpcStreamOptions) {
  const seen: Seen[] = [];
  const streams = new GrpcStreams(options);
  const connect = connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    routes: (router) =>
      streams.register(router, AggregatedDiscoveryService, {
        streamAggregatedResources: echo(seen),
      }),
  });
  const server = http2.createServer((request, response) => {
    if (!streams.serve(request, response)) connect(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  return { baseUrl, seen, close };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.map((c) => c()));
  cleanup = [];
});

async function world(
  options: GrpcStreamOptions = { acceptCompression: [], readMaxBytes: 1024 * 1024 },
  compressed = false,
) {
  const server = await serve(options);
  cleanup.push(server.close);
  const client = createClient(
    AggregatedDiscoveryService,
    createGrpcTransport({
      baseUrl: server.baseUrl,
      ...(compressed
        ? { sendCompression: compressionGzip, acceptCompression: [compressionGzip] }
        : {}),
    }),
  );
  return { ...server, client };
}

async function* requests(...inits: Parameters<typeof create<typeof DiscoveryRequestSchema>>[1][]) {
  for (const init of inits) yield create(DiscoveryRequestSchema, init);
}

async function collect(stream: AsyncIterable<DiscoveryResponse>): Promise<DiscoveryResponse[]> {
  const all: DiscoveryResponse[] = [];
  for await (const response of stream) all.push(response);
  return all;
}

async function failure(stream: AsyncIterable<DiscoveryResponse>): Promise<ConnectError> {
  try {
    await collect(stream);
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("the stream ended without an error");
}

/** A request framed as gRPC sends it: flags, length, then the message. */
function framed(init: Parameters<typeof create<typeof DiscoveryRequestSchema>>[1]): Buffer {
  const body = toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, init));
  const frame = Buffer.alloc(5 + body.length);
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return frame;
}

/** What a raw HTTP/2 call got back: status, response messages' nonces, trailers. */
interface RawAnswer {
  readonly status: number;
  readonly nonces: string[];
  readonly trailers: http2.IncomingHttpHeaders;
}

/**
 * One call over a bare HTTP/2 client, with the headers and the body's writes (each its own DATA
 * frame) given; `wantResponses` responses read, the client half-closes: its answer.
 */
async function rawCall(
  baseUrl: string,
  headers: http2.OutgoingHttpHeaders,
  writes: Buffer[],
  wantResponses = 0,
): Promise<RawAnswer> {
  const session = http2.connect(baseUrl);
  try {
    const stream = session.request({
      ":method": "POST",
      ":path": "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources",
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    let status = 0;
    let trailers: http2.IncomingHttpHeaders = {};
    let body = Buffer.alloc(0);
    const nonces: string[] = [];
    let gotAll = () => {};
    const all = new Promise<void>((resolve) => (gotAll = resolve));
    if (wantResponses === 0) gotAll();
    stream.on("response", (h) => (status = Number(h[":status"])));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("close", () => gotAll());
    stream.on("data", (chunk: Buffer) => {
      body = Buffer.concat([body, chunk]);
      while (body.length >= 5 && body.length >= 5 + body.readUInt32BE(1)) {
        const end = 5 + body.readUInt32BE(1);
        nonces.push(fromBinary(DiscoveryResponseSchema, body.subarray(5, end)).nonce);
        body = body.subarray(end);
        if (nonces.length === wantResponses) gotAll();
      }
    });
    for (const write of writes) {
      await new Promise<void>((resolve, reject) =>
        stream.write(write, (error) => (error ? reject(error) : resolve())),
      );
    }
    await all;
    stream.end();
    await new Promise<void>((resolve) => stream.on("close", resolve));
    return { status, nonces, trailers };
  } finally {
    session.close();
  }
}

describe("the xDS streams' gRPC handler", () => {
  it("reads messages split anywhere across DATA frames, and several in one frame, whole and in order", async () => {
    const w = await world();
    const bytes = Buffer.concat(
      ["a", "b", "c", "d", "e"].map((nonce) => framed({ responseNonce: nonce, versionInfo: "1" })),
    );
    // One byte a frame for the first message, then a frame ending mid-header, then the rest.
    const writes = [
      ...Array.from(bytes.subarray(0, 12), (byte) => Buffer.from([byte])),
      bytes.subarray(12, 30),
      bytes.subarray(30),
    ];
    const answer = await rawCall(w.baseUrl, {}, writes, 5);
    expect(answer.nonces).toEqual(["a", "b", "c", "d", "e"]);
    expect(answer.trailers["grpc-status"]).toBe("0");
  });

  it("a grpc-timeout longer than a Node timer holds (99999999H) leaves the stream open, not ended at once", async () => {
    const w = await world();
    const answer = await rawCall(
      w.baseUrl,
      { "grpc-timeout": "99999999H" },
      [framed({ responseNonce: "a" }), framed({ responseNonce: "b" })],
      2,
    );
    expect([answer.nonces, answer.trailers["grpc-status"]]).toEqual([["a", "b"], "0"]);
  });

  it("refuses what is not a gRPC call of the method: another HTTP method 405, another content type 415", async () => {
    const w = await world();
    const put = await rawCall(w.baseUrl, { ":method": "PUT" }, []);
    const text = await rawCall(w.baseUrl, { "content-type": "text/plain" }, []);
    expect([put.status, text.status]).toEqual([405, 415]);
    expect(w.seen).toEqual([]);
  });

  it("answers each request in order and ends with OK when the client half-closes", async () => {
    const w = await world();
    const responses = await collect(
      w.client.streamAggregatedResources(requests({ responseNonce: "a" }, { responseNonce: "b" })),
    );
    expect(responses.map((r) => r.nonce)).toEqual(["a", "b"]);
    await w.seen[0]?.ended;
  });

  it("decodes a field named first-request-only from a stream's first request only (xDS: the node), and every other field of every request", async () => {
    const w = await world({
      acceptCompression: [],
      readMaxBytes: 1024 * 1024,
      firstRequestOnly: ["node"],
    });
    await collect(
      w.client.streamAggregatedResources(
        requests(
          { responseNonce: "a", node: { id: "envoy-1", cluster: "c" }, resourceNames: ["x"] },
          { responseNonce: "b", node: { id: "envoy-1", cluster: "c" }, resourceNames: ["y"] },
        ),
      ),
    );
    const seen = w.seen[0]?.requests ?? [];
    expect(seen.map((r) => [r.responseNonce, r.node?.id, r.resourceNames])).toEqual([
      ["a", "envoy-1", ["x"]],
      ["b", undefined, ["y"]],
    ]);
  });

  it("with gzip accepted, takes compressed requests and compresses responses of 1 KiB or more", async () => {
    const w = await world(
      { acceptCompression: [compressionGzip], readMaxBytes: 1024 * 1024 },
      true,
    );
    let encoding: string | null = null;
    const responses = await collect(
      w.client.streamAggregatedResources(
        requests({ responseNonce: "x", versionInfo: "5000" }, { responseNonce: "y" }),
        { onHeader: (header) => (encoding = header.get("grpc-encoding")) },
      ),
    );
    expect(encoding).toBe("gzip");
    expect(responses.map((r) => r.versionInfo.length)).toEqual([5000, 1]);
    expect(w.seen[0]?.requests.map((r) => r.responseNonce)).toEqual(["x", "y"]);
  });

  it("without compression accepted, a compressed request ends the stream UNIMPLEMENTED before the implementation reads it", async () => {
    const w = await world(undefined, true);
    const error = await failure(
      w.client.streamAggregatedResources(requests({ responseNonce: "a" })),
    );
    expect(error.code).toBe(Code.Unimplemented);
    expect(error.rawMessage).toMatch(/gzip/);
    expect(w.seen[0]?.requests ?? []).toEqual([]);
  });

  it("an implementation's ConnectError ends the stream with its code and message; the responses before it arrive", async () => {
    const w = await world();
    const received: string[] = [];
    const stream = w.client.streamAggregatedResources(
      requests({ responseNonce: "a" }, { responseNonce: "fail" }),
    );
    const error = await failure(
      (async function* () {
        for await (const response of stream) {
          received.push(response.nonce);
          yield response;
        }
      })(),
    );
    expect(received).toEqual(["a"]);
    expect([error.code, error.rawMessage]).toEqual([Code.InvalidArgument, "no such type"]);
    expect(w.seen[0]?.aborted).toBeInstanceOf(ConnectError);
  });

  it("any other error ends the stream INTERNAL without its text", async () => {
    const w = await world();
    const error = await failure(
      w.client.streamAggregatedResources(requests({ responseNonce: "crash" })),
    );
    expect([error.code, error.rawMessage]).toEqual([Code.Internal, "internal error"]);
  });

  it("past the client's deadline (grpc-timeout) the stream ends DEADLINE_EXCEEDED and the implementation's signal aborts", async () => {
    const w = await world();
    const error = await failure(
      w.client.streamAggregatedResources(requests({ responseNonce: "wait" }), { timeoutMs: 300 }),
    );
    expect(error.code).toBe(Code.DeadlineExceeded);
    await w.seen[0]?.ended;
    expect(w.seen[0]?.aborted).toBeDefined();
  });

  it("a client that goes away ends the implementation and aborts its signal", async () => {
    const w = await world();
    const abort = new AbortController();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const stream = w.client.streamAggregatedResources(
      (async function* () {
        yield create(DiscoveryRequestSchema, { responseNonce: "a" });
        await held; // the client never half-closes
      })(),
      { signal: abort.signal },
    );
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.nonce).toBe("a");
    abort.abort();
    await w.seen[0]?.ended;
    await w.seen[0]?.abort;
    release();
  });

  it("a message over readMaxBytes is refused RESOURCE_EXHAUSTED, naming both sizes, before it is parsed", async () => {
    const w = await world({ acceptCompression: [], readMaxBytes: 1000 });
    const error = await failure(
      w.client.streamAggregatedResources(requests({ responseNonce: "n".repeat(2000) })),
    );
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.rawMessage).toMatch(
      /message size 200\d is larger than configured readMaxBytes 1000/,
    );
    expect(w.seen[0]?.requests ?? []).toEqual([]);
  });
});
