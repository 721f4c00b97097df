/**
 * Real-stream test helpers: a small xDS SotW and Delta client that opens bidi gRPC streams with
 * Connect's gRPC client, so tests drive the wire protocol as an Envoy would, one request at a
 * time; a raw gRPC call for bytes no client would send; and a server on a free port over its own
 * cache. For tests only, here and in other packages (`@switchyard/xds/testing`); not part of the
 * API.
 *
 * Long because it is the whole of `@switchyard/xds/testing` (package.json exports this one file):
 * the clients and the server they are pointed at, which hands back a client of its own.
 */
import * as http2 from "node:http2";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Any, anyIs, anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { registry } from "@switchyard/proto";
import type { NodeSchema } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import { ClusterDiscoveryService } from "@switchyard/proto/envoy/service/cluster/v3/cds_pb";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import {
  type DeltaDiscoveryRequestSchema,
  type DeltaDiscoveryResponse,
  type DiscoveryRequestSchema,
  type DiscoveryResponse,
  type Resource,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { EndpointDiscoveryService } from "@switchyard/proto/envoy/service/endpoint/v3/eds_pb";
import { ListenerDiscoveryService } from "@switchyard/proto/envoy/service/listener/v3/lds_pb";
import {
  RouteDiscoveryService,
  VirtualHostDiscoveryService,
} from "@switchyard/proto/envoy/service/route/v3/rds_pb";
import { RuntimeDiscoveryService } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { SecretDiscoveryService } from "@switchyard/proto/envoy/service/secret/v3/sds_pb";
import { type ConfigSpec, compile, type SecretOpener, TypeUrl } from "@switchyard/snapshot";
import { type AuthRefusal, combineCallbacks, type XdsCallbacks } from "./callbacks.js";
import { EventQueue } from "./event-queue.js";
import { SnapshotCache } from "./snapshot-cache.js";
import { createXdsServer, type XdsServer, type XdsServerOptions } from "./xds-server.js";

/** A DiscoveryRequest as a plain object: every field optional. */
export type DiscoveryRequestInit = Exclude<
  MessageInitShape<typeof DiscoveryRequestSchema>,
  { $typeName: string }
>;

/** A DeltaDiscoveryRequest as a plain object: every field optional. */
export type DeltaRequestInit = Exclude<
  MessageInitShape<typeof DeltaDiscoveryRequestSchema>,
  { $typeName: string }
>;

/** Which service a stream is opened on: ADS, or the per-type SotW service of one type. */
export type StreamKind = "ads" | TypeUrl;

export interface TestStreamOptions {
  /** The node sent on the stream's first request by `request`. */
  readonly node?: MessageInitShape<typeof NodeSchema>;
}

/** One open SotW stream. Responses are read in arrival order with `next`. */
export interface TestStream {
  /** Sends exactly `request`. */
  send(request: DiscoveryRequestInit): void;
  /**
   * Sends a request for `typeUrl` the way a well-behaved client does: with the node on the
   * stream's first request, echoing the nonce of the latest response of that type returned by
   * `next` and the version it last ACKed. `overrides` replace any of those fields.
   */
  request(
    typeUrl: string,
    resourceNames: readonly string[],
    overrides?: DiscoveryRequestInit,
  ): void;
  /** ACKs `response` (its version and nonce), keeping the subscription `resourceNames`. */
  ack(response: DiscoveryResponse, resourceNames: readonly string[]): void;
  /** NACKs `response`: its nonce, the last ACKed version, and `error_detail` with `message`. */
  nack(response: DiscoveryResponse, resourceNames: readonly string[], message: string): void;
  /** The next response; rejects when none arrives within `timeoutMs` or the stream ends. */
  next(timeoutMs?: number): Promise<DiscoveryResponse>;
  /** The next response, or undefined when none arrives within `ms` (the stream ending rejects). */
  tryNext(ms?: number): Promise<DiscoveryResponse | undefined>;
  /** Asserts that no response arrives within `ms` (keep it short: ~150-300 ms). */
  expectNoResponse(ms?: number): Promise<void>;
  /** Resolves with how the stream ended: undefined when cleanly, else the error status. */
  ended(timeoutMs?: number): Promise<ConnectError | undefined>;
  /** Half-closes the request side. */
  close(): void;
}

/** One open Delta stream. Responses are read in arrival order with `next`. */
export interface DeltaTestStream {
  /** Sends exactly `request`. */
  send(request: DeltaRequestInit): void;
  /**
   * Changes the subscription of `typeUrl` with a request that answers no response (no nonce), with
   * the node on the stream's first request. `overrides` replace any field.
   */
  request(
    typeUrl: string,
    subscribe: readonly string[],
    unsubscribe?: readonly string[],
    overrides?: DeltaRequestInit,
  ): void;
  /** ACKs `response` (its nonce), optionally changing the subscription in the same request. */
  ack(response: DeltaDiscoveryResponse, overrides?: DeltaRequestInit): void;
  /** NACKs `response`: its nonce and `error_detail` with `message`. */
  nack(response: DeltaDiscoveryResponse, message: string): void;
  /** The next response; rejects when none arrives within `timeoutMs` or the stream ends. */
  next(timeoutMs?: number): Promise<DeltaDiscoveryResponse>;
  /** The next response, or undefined when none arrives within `ms` (the stream ending rejects). */
  tryNext(ms?: number): Promise<DeltaDiscoveryResponse | undefined>;
  /** Asserts that no response arrives within `ms` (keep it short: ~150-300 ms). */
  expectNoResponse(ms?: number): Promise<void>;
  /** Resolves with how the stream ended: undefined when cleanly, else the error status. */
  ended(timeoutMs?: number): Promise<ConnectError | undefined>;
  /** Half-closes the request side. */
  close(): void;
}

export interface TestClient {
  open(kind: StreamKind, options?: TestStreamOptions): TestStream;
  /** Opens a Delta stream: Delta ADS, or the per-type Delta service of one type. */
  openDelta(kind: StreamKind, options?: TestStreamOptions): DeltaTestStream;
  /** Aborts the HTTP/2 connection and every stream on it. */
  close(): void;
}

type Outcome<R> =
  | { readonly t: "response"; readonly response: R }
  | { readonly t: "end"; readonly error: ConnectError | undefined };

/** The reading side of a test stream, shared by SotW and Delta. */
interface ResponseReader<R> {
  /** The next response, or undefined after `ms`; rejects when the stream ended. */
  tryNext(ms: number): Promise<R | undefined>;
  expectNoResponse(ms: number): Promise<void>;
  ended(timeoutMs: number): Promise<ConnectError | undefined>;
}

function readResponses<R>(
  responses: AsyncIterable<R>,
  describe: (response: R) => string,
): ResponseReader<R> {
  const outcomes: Outcome<R>[] = [];
  let wake: (() => void) | undefined;
  const ended = (async () => {
    let error: ConnectError | undefined;
    try {
      for await (const response of responses) {
        outcomes.push({ t: "response", response });
        wake?.();
      }
    } catch (cause) {
      error = ConnectError.from(cause);
    }
    outcomes.push({ t: "end", error });
    wake?.();
    return error;
  })();
  const waitForOutcome = async (timeoutMs: number): Promise<Outcome<R> | undefined> => {
    const deadline = Date.now() + timeoutMs;
    while (outcomes.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
    const outcome = outcomes[0];
    // The end stays queued: every later call sees it.
    if (outcome?.t === "response") outcomes.shift();
    return outcome;
  };
  return {
    tryNext: async (ms) => {
      const outcome = await waitForOutcome(ms);
      if (!outcome) return undefined;
      if (outcome.t === "end") {
        throw new Error(
          `the stream ended instead of answering${outcome.error ? `: ${outcome.error.message}` : ""}`,
        );
      }
      return outcome.response;
    },
    expectNoResponse: async (ms) => {
      const outcome = await waitForOutcome(ms);
      if (outcome?.t === "response") {
        throw new Error(`expected no response within ${ms} ms, got ${describe(outcome.response)}`);
      }
      if (outcome?.t === "end") {
        throw new Error(`expected the stream to stay open, it ended: ${outcome.error?.message}`);
      }
    },
    ended: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the stream did not end within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([ended, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** The xDS resource name of a packed resource (`cluster_name` for a ClusterLoadAssignment). */
export function resourceName(resource: DiscoveryResponse["resources"][number]): string {
  const message = anyUnpack(resource, registry) as
    | { name?: unknown; clusterName?: unknown }
    | undefined;
  const name = message?.name ?? message?.clusterName;
  if (typeof name !== "string") throw new Error(`cannot name a resource of ${resource.typeUrl}`);
  return name;
}

/** The names of the resources a response carries, in order. */
export function namesOf(response: DiscoveryResponse): string[] {
  return response.resources.map(resourceName);
}

/** The names of the resources (and heartbeats) a Delta response carries, in order. */
export function deltaNamesOf(response: DeltaDiscoveryResponse): string[] {
  return response.resources.map((r) => r.name);
}

/**
 * The envoy.service.discovery.v3.Resource a SotW response's entry is wrapped in (with a TTL), or
 * undefined when the entry is a bare resource.
 */
export function unwrapResource(entry: Any): Resource | undefined {
  return anyIs(entry, ResourceSchema) ? anyUnpack(entry, ResourceSchema) : undefined;
}

/** How a test client connects: TLS options (an https baseUrl) and metadata sent on every call. */
export interface TestClientOptions {
  /** For an `https://` baseUrl: the CA to trust, and the client certificate to present, if any. */
  readonly tls?: http2.SecureClientSessionOptions;
  /** Metadata (headers) sent on every call, e.g. `{ authorization: "Bearer ..." }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

export function createTestClient(baseUrl: string, options: TestClientOptions = {}): TestClient {
  const sessionManager = new Http2SessionManager(baseUrl, undefined, options.tls);
  const headers = options.headers ?? {};
  const transport = createGrpcTransport({
    baseUrl,
    sessionManager,
    interceptors: [
      (next) => (request) => {
        for (const [name, value] of Object.entries(headers)) request.header.set(name, value);
        return next(request);
      },
    ],
  });
  const open = (kind: StreamKind, options: TestStreamOptions = {}): TestStream => {
    const requests = new EventQueue<DiscoveryRequestInit>();
    const reader = readResponses(
      startCall(kind, requests, transport),
      (r) =>
        `${r.typeUrl} version ${r.versionInfo} nonce ${r.nonce} with [${namesOf(r).join(", ")}]`,
    );
    const nonces = new Map<string, string>();
    const tryNext = async (ms = 200): Promise<DiscoveryResponse | undefined> => {
      const response = await reader.tryNext(ms);
      if (response) nonces.set(response.typeUrl, response.nonce);
      return response;
    };
    const accepted = new Map<string, string>();
    let sentAny = false;
    const send = (request: DiscoveryRequestInit) => {
      sentAny = true;
      requests.push(request);
    };
    const request: TestStream["request"] = (typeUrl, resourceNames, overrides = {}) => {
      send({
        typeUrl,
        resourceNames: [...resourceNames],
        versionInfo: accepted.get(typeUrl) ?? "",
        responseNonce: nonces.get(typeUrl) ?? "",
        ...(sentAny ? {} : { node: options.node ?? { id: "test-node" } }),
        ...overrides,
      });
    };
    return {
      send,
      request,
      ack: (response, resourceNames) => {
        accepted.set(response.typeUrl, response.versionInfo);
        request(response.typeUrl, resourceNames, { responseNonce: response.nonce });
      },
      nack: (response, resourceNames, message) =>
        request(response.typeUrl, resourceNames, {
          responseNonce: response.nonce,
          errorDetail: { code: Code.InvalidArgument, message },
        }),
      next: async (timeoutMs = 2000) => {
        const response = await tryNext(timeoutMs);
        if (!response) throw new Error(`no response within ${timeoutMs} ms`);
        return response;
      },
      tryNext,
      expectNoResponse: (ms = 200) => reader.expectNoResponse(ms),
      ended: (timeoutMs = 2000) => reader.ended(timeoutMs),
      close: () => requests.close(),
    };
  };
  const openDelta = (kind: StreamKind, options: TestStreamOptions = {}): DeltaTestStream => {
    const requests = new EventQueue<DeltaRequestInit>();
    const reader = readResponses(
      startDeltaCall(kind, requests, transport),
      (r) =>
        `${r.typeUrl} nonce ${r.nonce} with [${deltaNamesOf(r).join(", ")}] removing [${r.removedResources.join(", ")}]`,
    );
    let sentAny = false;
    /** Sends `request`, with the node when it is the stream's first. */
    const send = (request: DeltaRequestInit) => {
      const first = !sentAny;
      sentAny = true;
      requests.push(first ? { node: options.node ?? { id: "test-node" }, ...request } : request);
    };
    const tryNext = (ms = 200) => reader.tryNext(ms);
    return {
      send: (request) => {
        sentAny = true;
        requests.push(request);
      },
      request: (typeUrl, subscribe, unsubscribe = [], overrides = {}) =>
        send({
          typeUrl,
          resourceNamesSubscribe: [...subscribe],
          resourceNamesUnsubscribe: [...unsubscribe],
          ...overrides,
        }),
      ack: (response, overrides = {}) =>
        send({ typeUrl: response.typeUrl, responseNonce: response.nonce, ...overrides }),
      nack: (response, message) =>
        send({
          typeUrl: response.typeUrl,
          responseNonce: response.nonce,
          errorDetail: { code: Code.InvalidArgument, message },
        }),
      next: async (timeoutMs = 2000) => {
        const response = await tryNext(timeoutMs);
        if (!response) throw new Error(`no response within ${timeoutMs} ms`);
        return response;
      },
      tryNext,
      expectNoResponse: (ms = 200) => reader.expectNoResponse(ms),
      ended: (timeoutMs = 2000) => reader.ended(timeoutMs),
      close: () => requests.close(),
    };
  };
  return { open, openDelta, close: () => sessionManager.abort() };
}

function startCall(
  kind: StreamKind,
  requests: AsyncIterable<DiscoveryRequestInit>,
  transport: ReturnType<typeof createGrpcTransport>,
): AsyncIterable<DiscoveryResponse> {
  switch (kind) {
    case "ads":
      return createClient(AggregatedDiscoveryService, transport).streamAggregatedResources(
        requests,
      );
    case TypeUrl.Cluster:
      return createClient(ClusterDiscoveryService, transport).streamClusters(requests);
    case TypeUrl.ClusterLoadAssignment:
      return createClient(EndpointDiscoveryService, transport).streamEndpoints(requests);
    case TypeUrl.Listener:
      return createClient(ListenerDiscoveryService, transport).streamListeners(requests);
    case TypeUrl.RouteConfiguration:
      return createClient(RouteDiscoveryService, transport).streamRoutes(requests);
    case TypeUrl.Runtime:
      return createClient(RuntimeDiscoveryService, transport).streamRuntime(requests);
    case TypeUrl.Secret:
      return createClient(SecretDiscoveryService, transport).streamSecrets(requests);
    case TypeUrl.VirtualHost:
      throw new Error("VHDS has no SotW service (VirtualHostDiscoveryService is Delta only)");
  }
}

function startDeltaCall(
  kind: StreamKind,
  requests: AsyncIterable<DeltaRequestInit>,
  transport: ReturnType<typeof createGrpcTransport>,
): AsyncIterable<DeltaDiscoveryResponse> {
  switch (kind) {
    case "ads":
      return createClient(AggregatedDiscoveryService, transport).deltaAggregatedResources(requests);
    case TypeUrl.Cluster:
      return createClient(ClusterDiscoveryService, transport).deltaClusters(requests);
    case TypeUrl.ClusterLoadAssignment:
      return createClient(EndpointDiscoveryService, transport).deltaEndpoints(requests);
    case TypeUrl.Listener:
      return createClient(ListenerDiscoveryService, transport).deltaListeners(requests);
    case TypeUrl.RouteConfiguration:
      return createClient(RouteDiscoveryService, transport).deltaRoutes(requests);
    case TypeUrl.Runtime:
      return createClient(RuntimeDiscoveryService, transport).deltaRuntime(requests);
    case TypeUrl.Secret:
      return createClient(SecretDiscoveryService, transport).deltaSecrets(requests);
    case TypeUrl.VirtualHost:
      return createClient(VirtualHostDiscoveryService, transport).deltaVirtualHosts(requests);
  }
}

/** A gRPC message frame (Compressed-Flag 0) holding `payload`. */
export function grpcFrame(payload: Uint8Array): Uint8Array {
  const frame = Buffer.alloc(5 + payload.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(payload.length, 1);
  frame.set(payload, 5);
  return frame;
}

/**
 * Sends one gRPC message frame holding `payload` (not necessarily a valid DiscoveryRequest) on a
 * raw HTTP/2 stream to `path`, and resolves with the grpc-status and grpc-message it ends with.
 */
export async function rawGrpcCall(
  baseUrl: string,
  path: string,
  payload: Uint8Array,
  timeoutMs = 2000,
): Promise<{ status: number | undefined; message: string | undefined }> {
  const { status, message } = await rawHttp2Exchange(baseUrl, path, [grpcFrame(payload)], {
    timeoutMs,
  });
  return { status, message };
}

export interface RawExchangeOptions {
  /** Default "application/grpc+proto". */
  readonly contentType?: string;
  /** More request headers, e.g. grpc-encoding. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Half-close the request side after the bytes. Default false: the side stays open, as a bidi
   * client's does, so the server must end the call itself.
   */
  readonly halfClose?: boolean;
  /** Half-close the request side only if the server has not ended the call this long after. */
  readonly halfCloseAfterMs?: number;
  /** Rejects when the server has not finished its side by then. Default 2000. */
  readonly timeoutMs?: number;
  /**
   * Send each chunk in a DATA frame of its own (each write waits for the one before to flush;
   * otherwise Node may join them). Default false.
   */
  readonly framePerChunk?: boolean;
}

export interface RawExchangeResult {
  /** The HTTP status (200 for every gRPC call, errors included). */
  readonly httpStatus: number | undefined;
  readonly status: number | undefined;
  readonly message: string | undefined;
  /** The response body's bytes (gRPC frames). */
  readonly body: Buffer;
  /** Whether the request side was half-closed before the server ended the call. */
  readonly halfClosed: boolean;
}

/**
 * Writes `chunks` as they are (gRPC frames, or any bytes at all) as the body of a POST to `path` on
 * a raw HTTP/2 stream, and resolves once the server finished its side with the HTTP status, the
 * grpc-status and grpc-message (from headers or trailers) and the body.
 */
export function rawHttp2Exchange(
  baseUrl: string,
  path: string,
  chunks: readonly Uint8Array[],
  options: RawExchangeOptions = {},
): Promise<RawExchangeResult> {
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Promise((resolve, reject) => {
    // A test may write a frame larger than Node's default 10 MB of session memory allows.
    const session = http2.connect(baseUrl, { maxSessionMemory: 200 });
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`the server did not end the call within ${timeoutMs} ms`));
    }, timeoutMs);
    session.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": options.contentType ?? "application/grpc+proto",
      te: "trailers",
      ...options.headers,
    });
    let halfClosed = false;
    const halfClose = () => {
      halfClosed = true;
      stream.end();
    };
    let written: Promise<unknown> = Promise.resolve();
    for (const chunk of chunks) {
      if (options.framePerChunk) {
        written = written.then(() => new Promise((flushed) => stream.write(chunk, flushed)));
      } else stream.write(chunk);
    }
    if (options.halfClose) void written.then(halfClose);
    const halfCloseTimer =
      options.halfCloseAfterMs === undefined
        ? undefined
        : setTimeout(halfClose, options.halfCloseAfterMs);
    let headers: http2.IncomingHttpHeaders = {};
    const body: Buffer[] = [];
    stream.on("response", (h) => {
      headers = h;
    });
    stream.on("trailers", (h) => {
      headers = { ...headers, ...h };
    });
    stream.on("data", (chunk: Buffer) => body.push(chunk));
    stream.on("error", () => undefined);
    // "end": the server finished its side (the request side may still be open, so no "close").
    stream.on("end", () => {
      clearTimeout(timer);
      clearTimeout(halfCloseTimer);
      session.destroy();
      const httpStatus = headers[":status"];
      const status = headers["grpc-status"];
      const message = headers["grpc-message"];
      resolve({
        httpStatus: typeof httpStatus === "number" ? httpStatus : undefined,
        status: typeof status === "string" ? Number(status) : undefined,
        message: typeof message === "string" ? decodeURIComponent(message) : undefined,
        body: Buffer.concat(body),
        halfClosed,
      });
    });
  });
}

/** What `XdsCallbacks.onRequest` was told about one request. */
export type RequestEvent = Parameters<NonNullable<XdsCallbacks["onRequest"]>>[0];
/** What `XdsCallbacks.onSecretsWithheld` was told about one stream. */
export type SecretsWithheldEvent = Parameters<NonNullable<XdsCallbacks["onSecretsWithheld"]>>[0];

/** What `XdsCallbacks.onStreamOpen` was told about one stream. */
export type StreamOpenEvent = Parameters<NonNullable<XdsCallbacks["onStreamOpen"]>>[0];

/** A real xDS server on a free port over its own SnapshotCache, with a client connected to it. */
export interface TestServer {
  readonly baseUrl: string;
  readonly client: TestClient;
  readonly cache: SnapshotCache;
  /** Every request the server saw, with its verdict, in order. */
  readonly requests: readonly RequestEvent[];
  /** Every stream the server opened (served), in order. */
  readonly opened: readonly StreamOpenEvent[];
  /** Every refusal for want of a credential or an entitlement, in order. */
  readonly refusals: readonly AuthRefusal[];
  /** Every ADS stream that asked for secrets it was not served (anonymous), in order. */
  readonly withheld: readonly SecretsWithheldEvent[];
  /** The server itself (e.g. to replace its credentials). */
  readonly server: XdsServer;
  /** Compiles `spec` (which must compile cleanly) and installs it as the next version. */
  publish(spec: ConfigSpec): void;
  close(): Promise<void>;
}

/**
 * With `tls`, the server speaks TLS and `baseUrl` is https://localhost:PORT (the server
 * certificate must name localhost); the default `client` then trusts no CA of its own, so pass
 * TestClientOptions to createTestClient for a client that connects.
 */
export async function startTestServer(
  initial: ConfigSpec,
  serverOptions: Partial<
    Pick<
      XdsServerOptions,
      | "restLongPollTimeoutMs"
      | "ttl"
      | "tls"
      | "auth"
      | "authorities"
      | "anonymousSecrets"
      | "restHosts"
      | "maxResponseBytes"
    >
  > & {
    /** Opens the sealed private keys of `initial`'s and later specs' secrets. */
    readonly openSecret?: SecretOpener;
    /** More hooks, called after the recording ones (a status tracker, say). */
    readonly callbacks?: XdsCallbacks;
  } = {},
  clientOptions: TestClientOptions = {},
): Promise<TestServer> {
  const { openSecret, callbacks: more, ...options } = serverOptions;
  const cache = new SnapshotCache();
  let version = 0;
  const publish = (spec: ConfigSpec) => {
    const compiled = compile(spec, openSecret ? { openSecret } : {});
    if (compiled.issues.length > 0) {
      throw new Error(`the test config does not compile: ${JSON.stringify(compiled.issues)}`);
    }
    version += 1;
    cache.setConfig(compiled, version);
  };
  publish(initial);
  const requests: RequestEvent[] = [];
  const opened: StreamOpenEvent[] = [];
  const refusals: AuthRefusal[] = [];
  const withheld: SecretsWithheldEvent[] = [];
  const server = createXdsServer({
    watcher: cache,
    controlPlaneId: "test",
    callbacks: combineCallbacks(
      {
        onRequest: (event) => requests.push(event),
        onStreamOpen: (event) => opened.push(event),
        onAuthRefused: (event) => refusals.push(event),
        onSecretsWithheld: (event) => withheld.push(event),
      },
      more ?? {},
    ),
    ...options,
  });
  const port = await server.listen(0, "127.0.0.1");
  const baseUrl = options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`;
  const client = createTestClient(baseUrl, clientOptions);
  return {
    baseUrl,
    client,
    cache,
    requests,
    opened,
    refusals,
    withheld,
    server,
    publish,
    close: async () => {
      client.close();
      await server.close();
    },
  };
}
