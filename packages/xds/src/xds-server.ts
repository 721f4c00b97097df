/**
 * The xDS server from socket to handler: its options, the port (cleartext HTTP/2 and HTTP/1.1 told
 * apart, or TLS with ALPN), routes to every discovery service and REST, client certificates read
 * for client-auth.ts, and draining. Long because both kinds of port hand their sockets and HTTP/2
 * sessions to the tracking that close() drains, and certificates are read off those same sockets.
 */
import { setMaxListeners } from "node:events";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";
import type * as tls from "node:tls";
import type { DescService } from "@bufbuild/protobuf";
import { type ConnectRouter, createContextValues, type ServiceImpl } from "@connectrpc/connect";
import { compressionGzip } from "@connectrpc/connect-node";
import { ClusterDiscoveryService } from "@switchyard/proto/envoy/service/cluster/v3/cds_pb";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import { EndpointDiscoveryService } from "@switchyard/proto/envoy/service/endpoint/v3/eds_pb";
import { ListenerDiscoveryService } from "@switchyard/proto/envoy/service/listener/v3/lds_pb";
import {
  RouteDiscoveryService,
  VirtualHostDiscoveryService,
} from "@switchyard/proto/envoy/service/route/v3/rds_pb";
import { RuntimeDiscoveryService } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { SecretDiscoveryService } from "@switchyard/proto/envoy/service/secret/v3/sds_pb";
import { TypeUrl } from "@switchyard/snapshot";
import type { XdsCallbacks } from "./callbacks.js";
import {
  type Authentication,
  ClientAccess,
  type PeerCertificate,
  type XdsAuthMode,
  type XdsCredentials,
} from "./client-auth.js";
import { kAuthentication, kRemoteAddress } from "./context-keys.js";
import { type DeltaStreamOptions, serveDeltaStream } from "./delta-transport.js";
import { GrpcStreams } from "./grpc-streams.js";
import { loggedNodeAdapter, peerWentAway } from "./node-adapter.js";
import { packedFrame } from "./packed-resources.js";
import {
  createRestHandler,
  type HttpRequest,
  type HttpResponse,
  isRestPath,
} from "./rest-handler.js";
import type { ConfigWatcher } from "./snapshot-cache.js";
import { type SotwStreamOptions, serveSotwStream } from "./sotw-transport.js";
import type { TtlOptions } from "./subscription-ttl.js";

export interface XdsServerOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks?: XdsCallbacks;
  /** Identifies this replica in DiscoveryResponse.control_plane. */
  readonly controlPlaneId: string;
  /**
   * How long a REST-JSON request at the current version waits for a change before it is answered
   * 304 Not Modified. Default 30 000 ms. An Envoy polling over REST must allow for it in its
   * `api_config_source.request_timeout` (default 1 s), or it sees every long poll time out.
   */
  readonly restLongPollTimeoutMs?: number;
  /**
   * Resource TTLs: every resource sent on a SotW or Delta stream to a client that supports them
   * (client features `xds.config.supports-resource-ttl`, and for SotW also
   * `xds.config.supports-resource-in-sotw`) carries `ttlMs`, refreshed by heartbeats every
   * `heartbeatMs` (default half the TTL). Absent: no TTLs, no heartbeats.
   */
  readonly ttl?: TtlOptions;
  /**
   * Compress responses (gzip) for clients that accept it. Off by default, as in gRPC servers
   * generally: xDS responses repeat the same bytes to every proxy, and compressing them per stream
   * costs far more CPU than the bandwidth it saves on a datacenter network (the fleet benchmark:
   * a third of the server's CPU time with it on).
   */
  readonly compression?: boolean;
  /**
   * Serve over TLS (HTTP/2 over TLS for gRPC, with HTTP/1.1 also offered by ALPN for REST-JSON)
   * instead of cleartext. PEM text. `clientCa` is the CA client certificates must be signed by;
   * it is needed, and only used, with `auth.mode` "mtls".
   */
  readonly tls?: XdsTlsOptions;
  /** Client authentication (client-auth.ts). Default: mode "none", everyone is served. */
  readonly auth?: { readonly mode: XdsAuthMode; readonly credentials?: XdsCredentials };
  /**
   * Serve secrets (SDS: private keys) to clients that did not authenticate. Default false: with
   * auth mode "none" every client is anonymous, and gets every other type but no Secret (a
   * per-type SDS stream and the REST secrets endpoint are refused UNAUTHENTICATED; ADS leaves
   * them out and reports it through `onSecretsWithheld`). Anyone who reaches an open xDS port,
   * a web page through DNS rebinding included, would otherwise read every private key.
   */
  readonly anonymousSecrets?: boolean;
  /**
   * The host names REST-JSON discovery answers to, besides IP addresses and localhost (Envoy's
   * REST fetcher sends its cluster's name as Host). Any other Host is refused (421): a web page
   * reaching the port through DNS rebinding carries its own name.
   */
  readonly restHosts?: readonly string[];
  /**
   * How long `close` lets ended streams' final frames (UNAVAILABLE, GOAWAY) leave before it
   * destroys the connections still open. Default 1 s.
   */
  readonly drainGraceMs?: number;
  /**
   * The xdstp:// authorities served (xdstp-naming.ts): a resource stored as NAME is also served
   * as `xdstp://AUTHORITY/TYPE/NAME`. Default: none.
   */
  readonly authorities?: readonly string[];
  /**
   * The largest SotW or Delta response sent to a node whose group sets no limit of its own
   * (NodeGroupSpec.maxResponseBytes in @switchyard/snapshot): a larger one goes in several
   * responses where the protocol allows it (response-split.ts); SotW LDS/CDS never do. Default
   * 4 MiB, gRPC's default max receive message size. REST-JSON responses are never split.
   */
  readonly maxResponseBytes?: number;
  /**
   * Further gRPC services on the port beside discovery (Client Status Discovery, load
   * reporting), each registered on the port's router. The port's client authentication is not
   * theirs: each authenticates its own callers.
   */
  readonly services?: ReadonlyArray<(router: ConnectRouter) => void>;
}

export interface XdsTlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly clientCa?: string | Buffer;
}

export interface XdsServer {
  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(port: number, host: string): Promise<number>;
  /**
   * Replaces the accepted credentials. Open streams whose credential is gone end with
   * UNAUTHENTICATED, those no longer entitled to their node group with PERMISSION_DENIED.
   * Throws, changing nothing, on inconsistent credentials.
   */
  setCredentials(credentials: XdsCredentials): void;
  /**
   * Drains: stops accepting connections, ends every open stream with UNAVAILABLE (xDS clients
   * reconnect at once, to another replica) and every pending long poll, sends GOAWAY, and after
   * `drainGraceMs` destroys what is still open. Resolves once everything is closed; calling it
   * again returns the same promise.
   */
  close(): Promise<void>;
}

const DEFAULT_REST_LONG_POLL_TIMEOUT_MS = 30_000;
const DEFAULT_DRAIN_GRACE_MS = 1_000;
/**
 * The largest request message accepted, in bytes: a frame declaring more ends its stream with
 * RESOURCE_EXHAUSTED at once, before its bytes are buffered (without a bound, one client could make
 * the server hold gigabytes). An Envoy naming 100,000 EDS resources sends ~3 MB; gRPC servers
 * accept 4 MiB by default.
 */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;
/** Node's timers fire at once for longer delays (they overflow a signed 32-bit int). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What every gRPC call on the xDS port accepts: streams (grpc-streams.ts) and unary alike. */
function grpcLimits(options: XdsServerOptions) {
  return {
    acceptCompression: options.compression === true ? [compressionGzip] : [],
    readMaxBytes: MAX_REQUEST_BYTES,
  };
}

/**
 * The gRPC services of the port: the discovery streams served by `streams` (grpc-streams.ts), the
 * rest by the Connect router the returned function fills.
 */
function xdsRoutes(
  options: XdsServerOptions,
  access: ClientAccess,
  closing: AbortSignal,
  streams: GrpcStreams,
) {
  const common = {
    watcher: options.watcher,
    callbacks: options.callbacks ?? {},
    controlPlaneId: options.controlPlaneId,
    ttl: options.ttl,
    authorities: options.authorities,
    maxResponseBytes: options.maxResponseBytes,
    access,
    anonymousSecrets: options.anonymousSecrets,
    closing,
  };
  const ads: SotwStreamOptions = { ...common, variant: "ads-sotw" };
  /** A per-type SotW service: one type only (a request for another ends the stream). */
  const only = (typeUrl: TypeUrl): SotwStreamOptions => ({
    ...common,
    variant: "sotw",
    onlyTypeUrl: typeUrl,
  });
  const cds = only(TypeUrl.Cluster);
  const eds = only(TypeUrl.ClusterLoadAssignment);
  const lds = only(TypeUrl.Listener);
  const rds = only(TypeUrl.RouteConfiguration);
  const rtds = only(TypeUrl.Runtime);
  const sds = only(TypeUrl.Secret);
  const deltaAds: DeltaStreamOptions = { ...common, variant: "ads-delta" };
  /** A per-type Delta service: one type only (a request for another ends the stream). */
  const deltaOnly = (typeUrl: TypeUrl): DeltaStreamOptions => ({
    ...common,
    variant: "delta",
    onlyTypeUrl: typeUrl,
  });
  const deltaCds = deltaOnly(TypeUrl.Cluster);
  const deltaEds = deltaOnly(TypeUrl.ClusterLoadAssignment);
  const deltaLds = deltaOnly(TypeUrl.Listener);
  const deltaRds = deltaOnly(TypeUrl.RouteConfiguration);
  const deltaRtds = deltaOnly(TypeUrl.Runtime);
  const deltaSds = deltaOnly(TypeUrl.Secret);
  const deltaVhds = deltaOnly(TypeUrl.VirtualHost);
  // Methods left out (the unary Fetch* that REST-JSON maps to) answer Unimplemented.
  return (router: ConnectRouter) => {
    // Each stream goes to grpc-streams.ts; unary methods to Connect's handler.
    const service = <S extends DescService>(desc: S, impl: Partial<ServiceImpl<S>>) =>
      streams.register(router, desc, impl);
    service(AggregatedDiscoveryService, {
      streamAggregatedResources: (requests, context) => serveSotwStream(requests, context, ads),
      deltaAggregatedResources: (requests, context) =>
        serveDeltaStream(requests, context, deltaAds),
    });
    service(ClusterDiscoveryService, {
      streamClusters: (requests, context) => serveSotwStream(requests, context, cds),
      deltaClusters: (requests, context) => serveDeltaStream(requests, context, deltaCds),
    });
    service(EndpointDiscoveryService, {
      streamEndpoints: (requests, context) => serveSotwStream(requests, context, eds),
      deltaEndpoints: (requests, context) => serveDeltaStream(requests, context, deltaEds),
    });
    service(ListenerDiscoveryService, {
      streamListeners: (requests, context) => serveSotwStream(requests, context, lds),
      deltaListeners: (requests, context) => serveDeltaStream(requests, context, deltaLds),
    });
    service(RouteDiscoveryService, {
      streamRoutes: (requests, context) => serveSotwStream(requests, context, rds),
      deltaRoutes: (requests, context) => serveDeltaStream(requests, context, deltaRds),
    });
    service(RuntimeDiscoveryService, {
      streamRuntime: (requests, context) => serveSotwStream(requests, context, rtds),
      deltaRuntime: (requests, context) => serveDeltaStream(requests, context, deltaRtds),
    });
    service(SecretDiscoveryService, {
      streamSecrets: (requests, context) => serveSotwStream(requests, context, sds),
      deltaSecrets: (requests, context) => serveDeltaStream(requests, context, deltaSds),
    });
    // VHDS is Delta only: the service has no SotW method (xDS protocol, "RPC Services and
    // Methods for Each Variant").
    service(VirtualHostDiscoveryService, {
      deltaVirtualHosts: (requests, context) => serveDeltaStream(requests, context, deltaVhds),
    });
    for (const register of options.services ?? []) register(router);
  };
}

function checkTtl(ttl: TtlOptions): void {
  const check = (name: string, value: number) => {
    if (!Number.isInteger(value) || value <= 0 || value > MAX_TIMER_MS) {
      throw new RangeError(
        `${name} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${value}`,
      );
    }
  };
  check("ttl.ttlMs", ttl.ttlMs);
  if (ttl.heartbeatMs !== undefined) check("ttl.heartbeatMs", ttl.heartbeatMs);
}

/**
 * The client certificate of `socket`'s connection as the TLS layer judged it against the client
 * CA (the handshake requests one but accepts any, or none: client-auth.ts decides). On a
 * cleartext connection: none. For HTTP/2, `request.socket` is a proxy of the session's TLS
 * socket, so duck typing rather than `instanceof`.
 */
function peerCertificate(socket: net.Socket | tls.TLSSocket): PeerCertificate {
  if (!("getPeerCertificate" in socket) || typeof socket.getPeerCertificate !== "function") {
    return { t: "none" };
  }
  const certificate = socket.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return { t: "none" };
  const cn = certificate.subject?.CN;
  const commonName = Array.isArray(cn) ? (cn[0] ?? "") : (cn ?? "");
  if (!socket.authorized) {
    const error = socket.authorizationError;
    return {
      t: "untrusted",
      subject: commonName,
      error: error instanceof Error ? error.message : String(error ?? "not verified"),
    };
  }
  const sans = subjectAltNames(certificate.subjectaltname ?? "");
  const names = [
    ...sans.filter((san) => san.kind === "URI").map((san) => san.value),
    ...sans.filter((san) => san.kind === "DNS").map((san) => san.value),
    ...(commonName ? [commonName] : []),
  ];
  return { t: "trusted", names };
}

/** Node's `subjectaltname` ("DNS:a, URI:b", values JSON-quoted when they contain separators). */
function subjectAltNames(text: string): { kind: string; value: string }[] {
  const result: { kind: string; value: string }[] = [];
  const entry = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, )?/g;
  for (let match = entry.exec(text); match !== null; match = entry.exec(text)) {
    const [, kind = "", raw = ""] = match;
    if (kind === "" && raw === "") break;
    result.push({
      kind: kind.trim(),
      value: raw.startsWith('"') ? (JSON.parse(raw) as string) : raw,
    });
  }
  return result;
}

/** The first bytes of every HTTP/2 connection (RFC 9113 §3.4); no HTTP/1 method starts so. */
const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
const PREFACE_BYTES_TO_DECIDE = 4;

/**
 * The xDS server: one plaintext port serving gRPC over HTTP/2 (h2c) through Connect, and
 * REST-JSON discovery (`POST /v3/discovery:*`) over HTTP/1.1 or HTTP/2.
 *
 * Node's `allowHTTP1` works only with TLS (it relies on ALPN), so the port is a plain TCP server
 * that reads each connection's first bytes and hands it to the HTTP/2 server when they are the
 * HTTP/2 preface, else to an HTTP/1.1 server. Both route `/v3/discovery:*` to the REST handler and
 * everything else to Connect. `close` destroys open connections, since an HTTP/2 server never
 * finishes closing while a stream is open (Node's http2 `server.close()` waits for every session
 * to close; seen with Node 20).
 *
 * With `tls`, the port is an HTTP/2-over-TLS server instead, offering HTTP/1.1 too (ALPN), so the
 * REST-JSON endpoints keep working over TLS. Every call is authenticated per `auth` before it is
 * served (client-auth.ts).
 */
export function createXdsServer(options: XdsServerOptions): XdsServer {
  const mode = options.auth?.mode ?? "none";
  if (mode === "mtls" && options.tls?.clientCa === undefined) {
    throw new TypeError(
      'auth mode "mtls" needs TLS with a client CA (tls.cert, tls.key and tls.clientCa)',
    );
  }
  const access = new ClientAccess(mode, options.auth?.credentials);
  /** Aborted by close: REST long polls answer, gRPC streams end with UNAVAILABLE. */
  const closing = new AbortController();
  // Every open stream listens on it (to drain when the server closes): thousands of listeners is
  // the design, not a leak, so Node's warning past 10 is off for this signal.
  setMaxListeners(0, closing.signal);
  const authenticate = (request: HttpRequest): Authentication => {
    const authorization = request.headers.authorization;
    return access.authenticate({
      certificate: mode === "mtls" ? peerCertificate(request.socket) : { t: "none" },
      authorization: typeof authorization === "string" ? authorization : undefined,
    });
  };
  const contextValues = (request: HttpRequest) =>
    createContextValues()
      .set(
        kRemoteAddress,
        `${request.socket.remoteAddress ?? ""}:${request.socket.remotePort ?? ""}`,
      )
      .set(kAuthentication, authenticate(request));
  const streams = new GrpcStreams({
    ...grpcLimits(options),
    frame: packedFrame,
    // "Only the first request on a stream is guaranteed to carry the node identifier ... It is
    // sufficient to only check the first message" (xDS protocol, "Basic Protocol Overview"), and
    // only the first is read (stream-loop.ts). Envoy repeats its Node, 20–30 kB with its list of
    // extensions, in every request unless set_node_on_first_message_only: decoding it took ~0.5 ms
    // of every ACK, the rest of the request ~10 µs (the fleet suite's request-parse figure).
    firstRequestOnly: ["node"],
    contextValues,
  });
  const connect = loggedNodeAdapter(
    {
      ...grpcLimits(options),
      grpc: true,
      connect: false,
      grpcWeb: false,
      routes: xdsRoutes(options, access, closing.signal, streams),
      contextValues,
    },
    (method, reason) =>
      options.callbacks?.onHandlerFailed?.({ method, reason, peerGone: peerWentAway(reason) }),
  );
  const longPollTimeoutMs = options.restLongPollTimeoutMs ?? DEFAULT_REST_LONG_POLL_TIMEOUT_MS;
  if (
    !Number.isInteger(longPollTimeoutMs) ||
    longPollTimeoutMs < 0 ||
    longPollTimeoutMs > MAX_TIMER_MS
  ) {
    throw new RangeError(
      `restLongPollTimeoutMs must be a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${longPollTimeoutMs}`,
    );
  }
  if (options.ttl) checkTtl(options.ttl);
  const rest = createRestHandler({
    watcher: options.watcher,
    controlPlaneId: options.controlPlaneId,
    longPollTimeoutMs,
    closing: closing.signal,
    access,
    authenticate,
    callbacks: options.callbacks ?? {},
    authorities: options.authorities,
    anonymousSecrets: options.anonymousSecrets === true,
    hosts: options.restHosts,
  });
  const handler = (request: HttpRequest, response: HttpResponse) => {
    if (isRestPath(request.url)) rest(request, response);
    else if (!streams.serve(request, response)) connect(request, response);
  };
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.Http2Session>();
  const trackSessions = (h2: http2.Http2Server | http2.Http2SecureServer) =>
    h2.on("session", (session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    });
  /** Connections speaking HTTP/2 (gRPC), drained gracefully by close. */
  const http2Sockets = new WeakSet<net.Socket>();
  const trackSocket = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  let closed: Promise<void> | undefined;
  const server = options.tls
    ? secureServer(options.tls, mode, handler, trackSessions, trackSocket, http2Sockets)
    : cleartextServer(handler, trackSessions, trackSocket, http2Sockets);

  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        server.once("error", onError);
        server.listen(port, host, () => {
          server.off("error", onError);
          resolve((server.address() as net.AddressInfo).port);
        });
      }),
    setCredentials: (credentials) => access.setCredentials(credentials),
    close: () => {
      // Draining: refuse new connections, end every stream with UNAVAILABLE (clients reconnect
      // at once, through the load balancer, to another replica), say GOAWAY, and give the final
      // frames a moment to leave before destroying what is left.
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        closing.abort();
        // HTTP/1.1 (REST-JSON) connections have no GOAWAY: their long polls end with them.
        for (const socket of sockets) if (!http2Sockets.has(socket)) socket.destroy();
        for (const session of sessions) if (!session.closed) session.close();
        const grace = setTimeout(() => {
          for (const session of sessions) session.destroy();
          for (const socket of sockets) socket.destroy();
        }, options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS);
        grace.unref();
        server.once("close", () => clearTimeout(grace));
      });
      return closed;
    },
  };
}

type Handler = (request: HttpRequest, response: HttpResponse) => void;

/**
 * HTTP/2 over TLS, with HTTP/1.1 by ALPN for REST-JSON. In mtls mode a client certificate is
 * requested and checked against the client CA, but not required by the handshake: the call is
 * refused with a readable UNAUTHENTICATED instead (client-auth.ts).
 */
function secureServer(
  options: XdsTlsOptions,
  mode: XdsAuthMode,
  handler: Handler,
  trackSessions: (h2: http2.Http2SecureServer) => void,
  trackSocket: (socket: net.Socket) => void,
  http2Sockets: WeakSet<net.Socket>,
): net.Server {
  const mtls = mode === "mtls";
  const h2 = http2.createSecureServer(
    {
      cert: options.cert,
      key: options.key,
      allowHTTP1: true,
      ...(mtls ? { ca: options.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
    },
    handler,
  );
  trackSessions(h2);
  h2.on("secureConnection", (socket: tls.TLSSocket) => {
    trackSocket(socket);
    if (socket.alpnProtocol === "h2") http2Sockets.add(socket);
  });
  // A failed handshake (say, a cleartext client) must not become an uncaught error.
  h2.on("tlsClientError", () => undefined);
  return h2;
}

/** Cleartext: HTTP/2 (h2c) or HTTP/1.1 told apart by each connection's first bytes. */
function cleartextServer(
  handler: Handler,
  trackSessions: (h2: http2.Http2Server) => void,
  trackSocket: (socket: net.Socket) => void,
  http2Sockets: WeakSet<net.Socket>,
): net.Server {
  const h2 = http2.createServer(handler);
  const h1 = http.createServer(handler);
  trackSessions(h2);
  return net.createServer({ pauseOnConnect: true }, (socket) => {
    trackSocket(socket);
    // A reset before the protocol is known must not become an uncaught 'error' event; after the
    // hand-over the HTTP server handles the socket's errors as well.
    socket.on("error", () => socket.destroy());
    // The bytes read so far, handed back to the chosen server with unshift.
    let seen = Buffer.alloc(0);
    const decide = () => {
      for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) {
        seen = Buffer.concat([seen, chunk]);
      }
      const compared = Math.min(seen.length, HTTP2_PREFACE.length);
      const http2Like = seen.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
      if (http2Like && compared < PREFACE_BYTES_TO_DECIDE) return;
      socket.off("readable", decide);
      socket.unshift(seen);
      if (http2Like) http2Sockets.add(socket);
      (http2Like ? h2 : h1).emit("connection", socket);
    };
    socket.on("readable", decide);
  });
}
