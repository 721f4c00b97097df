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
import { grpcFrame, rawHttp2Exchange } from "./test-client.js";

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
 * stream's signal, "hold" for the test's release.
 */
function echo(seen: Seen[], held: Promise<void>) {
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
        if (nonce === "hold") await held;
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
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const streams = new GrpcStreams(options);
  const connect = connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    routes: (router) =>
      streams.register(router, AggregatedDiscoveryService, {
        streamAggregatedResources: echo(seen, held),
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
  return { baseUrl, seen, close, release };
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

/** grpc-status of a call that ended well (Connect's Code has no name for it). */
const GRPC_OK = 0;
const ADS_PATH = "/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources";

/** A request framed as gRPC sends it: flags, length, then the message. */
function framed(init: Parameters<typeof create<typeof DiscoveryRequestSchema>>[1]): Uint8Array {
  return grpcFrame(toBinary(DiscoveryRequestSchema, create(DiscoveryRequestSchema, init)));
}

/** The nonces of the responses in a raw call's body. */
function noncesIn(body: Buffer): string[] {
  const nonces: string[] = [];
  for (let offset = 0; offset < body.length; ) {
    const end = offset + 5 + body.readUInt32BE(offset + 1);
    nonces.push(fromBinary(DiscoveryResponseSchema, body.subarray(offset + 5, end)).nonce);
    offset = end;
  }
  return nonces;
}

describe("the xDS streams' gRPC handler", () => {
  it("reads messages split anywhere across DATA frames, and several in one frame, whole and in order", async () => {
    const w = await world();
    const bytes = Buffer.concat(
      ["a", "b", "c", "d", "e"].map((nonce) => framed({ responseNonce: nonce, versionInfo: "1" })),
    );
    // One byte a frame for the first message, then a frame ending mid-header, then the rest.
    const frames = [
      ...Array.from(bytes.subarray(0, 12), (byte) => Uint8Array.of(byte)),
      bytes.subarray(12, 30),
      bytes.subarray(30),
    ];
    const answer = await rawHttp2Exchange(w.baseUrl, ADS_PATH, frames, {
      framePerChunk: true,
      halfClose: true,
    });
    expect([noncesIn(answer.body), answer.status]).toEqual([["a", "b", "c", "d", "e"], GRPC_OK]);
  });

  it("a client writing far more than the implementation reads is held, and each request arrives in order once it reads again", async () => {
    const w = await world();
    const count = 1_000;
    const payload = "x".repeat(1_000); // 1 MB in all: far past an HTTP/2 window (64 KiB)
    const frames = [
      framed({ responseNonce: "hold" }),
      ...Array.from({ length: count }, (_, i) =>
        framed({ responseNonce: `n${i}`, resourceNames: [payload] }),
      ),
    ];
    const exchange = rawHttp2Exchange(w.baseUrl, ADS_PATH, frames, {
      halfClose: true,
      timeoutMs: 30_000,
    });
    // The implementation holds on the first request while the client writes the rest.
    while ((w.seen[0]?.requests.length ?? 0) < 1) await new Promise(setImmediate);
    w.release();
    const answer = await exchange;
    expect([noncesIn(answer.body), answer.status]).toEqual([
      ["hold", ...Array.from({ length: count }, (_, i) => `n${i}`)],
      GRPC_OK,
    ]);
  });

  it("a grpc-timeout longer than a Node timer holds (99999999H) leaves the stream open, not ended at once", async () => {
    const w = await world();
    const answer = await rawHttp2Exchange(
      w.baseUrl,
      ADS_PATH,
      [framed({ responseNonce: "a" }), framed({ responseNonce: "b" })],
      { headers: { "grpc-timeout": "99999999H" }, halfCloseAfterMs: 300 },
    );
    expect([noncesIn(answer.body), answer.status, answer.halfClosed]).toEqual([
      ["a", "b"],
      GRPC_OK,
      true,
    ]);
  });

  it("refuses what is not a gRPC call of the method: another HTTP method 405, another content type 415", async () => {
    const w = await world();
    const put = await rawHttp2Exchange(w.baseUrl, ADS_PATH, [], { headers: { ":method": "PUT" } });
    const text = await rawHttp2Exchange(w.baseUrl, ADS_PATH, [], { contentType: "text/plain" });
    expect([put.httpStatus, text.httpStatus]).toEqual([405, 415]);
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
