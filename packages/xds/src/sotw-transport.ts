import { create } from "@bufbuild/protobuf";
import { type Any, AnySchema, anyPack, durationFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type DiscoveryRequest,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
  type Resource,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import type { Status } from "@switchyard/proto/google/rpc/status_pb";
import { type ResourceSnapshot, TypeUrl, type XdsResource } from "@switchyard/snapshot";
import { type SotwResponse, SotwSession } from "./ads-sotw-session.js";
import type { XdsCallbacks } from "./callbacks.js";
import { kRemoteAddress } from "./context-keys.js";
import { EventQueue } from "./event-queue.js";
import { nodeIdentity } from "./node-identity.js";
import type { ConfigWatcher, SnapshotWatch } from "./snapshot-cache.js";
import type { Heartbeat, ResourceTtl, TtlOptions } from "./subscription-ttl.js";

type StreamEvent =
  | { readonly t: "request"; readonly request: DiscoveryRequest }
  | { readonly t: "snapshot"; readonly snapshot: ResourceSnapshot }
  | { readonly t: "tick" };

export interface SotwStreamOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks: XdsCallbacks;
  /** The only type URL a per-type service accepts; undefined for ADS. */
  readonly onlyTypeUrl?: string;
  readonly variant: "ads-sotw" | "sotw";
  readonly controlPlaneId: string;
  /** Resource TTLs and heartbeats for clients that support them; none when absent. */
  readonly ttl?: TtlOptions | undefined;
}

/** A resource as a bare Any: its shared, already encoded body, never re-encoded. */
function bodyAny(resource: XdsResource): Any {
  return create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body });
}

/**
 * The envoy.service.discovery.v3.Resource of `resource` (Delta's form, and SotW's with a TTL):
 * name, version, the body as an Any, and the TTL when there is one.
 */
export function wrappedResource(resource: XdsResource, ttl: ResourceTtl | undefined): Resource {
  return create(ResourceSchema, {
    name: resource.name,
    version: resource.version,
    resource: bodyAny(resource),
    ...(ttl ? { ttl: durationFromMs(ttl.ttlMs) } : {}),
  });
}

/** A TTL heartbeat: a Resource with name, version and TTL, and no body. */
export function heartbeatResource(heartbeat: Heartbeat, ttl: ResourceTtl | undefined): Resource {
  return create(ResourceSchema, {
    name: heartbeat.name,
    version: heartbeat.version,
    ...(ttl ? { ttl: durationFromMs(ttl.ttlMs) } : {}),
  });
}

/**
 * The wire form of a response the session (or a REST fetch) decided to send. With a TTL, each
 * resource (and heartbeat) goes as an Any of envoy.service.discovery.v3.Resource (client feature
 * `xds.config.supports-resource-in-sotw`); without, as the bare Any of its body.
 */
export function toDiscoveryResponse(
  response: SotwResponse,
  controlPlaneId: string,
): DiscoveryResponse {
  const { ttl, heartbeats = [] } = response;
  const wrap = ttl !== undefined || heartbeats.length > 0;
  return create(DiscoveryResponseSchema, {
    versionInfo: response.versionInfo,
    typeUrl: response.typeUrl,
    nonce: response.nonce,
    controlPlane: { identifier: controlPlaneId },
    resources: wrap
      ? [
          ...response.resources.map((r) => anyPack(ResourceSchema, wrappedResource(r, ttl))),
          ...heartbeats.map((h) => anyPack(ResourceSchema, heartbeatResource(h, ttl))),
        ]
      : response.resources.map(bodyAny),
  });
}

/** The text of a NACK's `error_detail`, or undefined when the request is no NACK. */
export function errorDetailText(errorDetail: Status | undefined): string | undefined {
  return errorDetail ? errorDetail.message || `gRPC status ${errorDetail.code}` : undefined;
}

/**
 * Runs `tick` on a timer while a stream is open, when TTLs are configured (the session decides
 * which types are due; a tick is cheap). It ticks at a quarter of the heartbeat interval, so a
 * late timer delays a heartbeat by a fraction of the interval, not a whole one. Returns the stop.
 */
export function startHeartbeatTimer(ttl: TtlOptions | undefined, tick: () => void): () => void {
  if (!ttl) return () => undefined;
  const heartbeatMs = ttl.heartbeatMs ?? ttl.ttlMs / 2;
  const timer = setInterval(tick, Math.max(5, Math.floor(heartbeatMs / 4)));
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Rejects a request whose type the stream cannot serve. Like every malformed request, it ends its
 * own stream with InvalidArgument and a message saying what to fix, and nothing else: the server
 * goes on serving every other stream (xds-malformed.e2e.spec.ts).
 */
function checkTypeUrl(request: DiscoveryRequest, onlyTypeUrl: string | undefined): void {
  if (request.typeUrl === "") {
    throw new ConnectError(
      `DiscoveryRequest.type_url is empty: every request must name its resource type (for example "${onlyTypeUrl ?? TypeUrl.Cluster}")`,
      Code.InvalidArgument,
    );
  }
  if (onlyTypeUrl !== undefined && request.typeUrl !== onlyTypeUrl) {
    throw new ConnectError(
      `DiscoveryRequest.type_url "${request.typeUrl}" is not served by this service, which serves only "${onlyTypeUrl}": request it on its own service or on ADS`,
      Code.InvalidArgument,
    );
  }
}

/** The node of a stream's first request, which must carry one. */
function firstNode(request: DiscoveryRequest): Node {
  if (!request.node) {
    throw new ConnectError(
      "the first DiscoveryRequest of a stream must carry a node (DiscoveryRequest.node with at least an id): it selects the configuration the stream is served",
      Code.InvalidArgument,
    );
  }
  return request.node;
}

/**
 * The status a stream ends with when reading a request fails. Connect reports a message that does
 * not decode as Internal ("parse binary"); it is the client's fault, so it becomes InvalidArgument.
 */
export function readError(error: unknown, messageName = "DiscoveryRequest"): unknown {
  if (
    error instanceof ConnectError &&
    error.code === Code.Internal &&
    error.rawMessage.startsWith("parse binary")
  ) {
    return new ConnectError(
      `a request on this stream is not a valid ${messageName} (${error.rawMessage})`,
      Code.InvalidArgument,
      undefined,
      undefined,
      error,
    );
  }
  return error;
}

let streamCounter = 0;

/** A process-wide stream id, shared by SotW and Delta streams so callbacks can tell them apart. */
export function nextStreamId(): number {
  streamCounter += 1;
  return streamCounter;
}

/**
 * Serves one SotW stream (ADS or a per-type service): reads requests and snapshot changes as one
 * ordered event sequence, feeds them to the pure SotwSession, and yields its responses.
 */
export async function* serveSotwStream(
  requests: AsyncIterable<DiscoveryRequest>,
  context: HandlerContext,
  options: SotwStreamOptions,
): AsyncGenerator<DiscoveryResponse> {
  const streamId = nextStreamId();
  const events = new EventQueue<StreamEvent>();
  const session = new SotwSession(options.ttl ? { ttl: options.ttl } : {});
  let node: Node | undefined;
  let watch: SnapshotWatch | undefined;

  // Requests are read concurrently with snapshot changes. The reader is never awaited: when the
  // stream fails (say, on a malformed request) the client may keep its side open, and the error
  // must reach it now; the reader ends when Connect finishes the call.
  void (async () => {
    try {
      for await (const request of requests) events.push({ t: "request", request });
      events.close();
    } catch (error) {
      events.fail(readError(error));
    }
  })();
  let stopHeartbeats: () => void = () => undefined;

  try {
    for await (const event of events) {
      let responses: SotwResponse[];
      if (event.t === "snapshot") {
        responses = session.onSnapshot(event.snapshot);
      } else if (event.t === "tick") {
        responses = session.onHeartbeat(Date.now());
      } else {
        const { request } = event;
        checkTypeUrl(request, options.onlyTypeUrl);
        if (!node) {
          // The node is only guaranteed on the first request of a stream (shared/spec:
          // "Basic Protocol Overview"): it is read once and kept; later requests may omit it.
          node = firstNode(request);
          session.onNode(node);
          options.callbacks.onStreamOpen?.({
            streamId,
            node,
            variant: options.variant,
            remoteAddress: context.values.get(kRemoteAddress),
          });
          watch = options.watcher.watch(nodeIdentity(node), (snapshot) =>
            events.push({ t: "snapshot", snapshot }),
          );
          if (watch.current) session.onSnapshot(watch.current);
          stopHeartbeats = startHeartbeatTimer(options.ttl, () => events.push({ t: "tick" }));
        }
        const result = session.onRequest({
          typeUrl: request.typeUrl,
          resourceNames: request.resourceNames,
          versionInfo: request.versionInfo,
          responseNonce: request.responseNonce,
          errorDetail: errorDetailText(request.errorDetail),
        });
        options.callbacks.onRequest?.({
          streamId,
          typeUrl: request.typeUrl,
          verdict: result.verdict,
          resourceNames: request.resourceNames,
        });
        responses = result.responses;
      }
      for (const response of responses) {
        options.callbacks.onResponse?.({
          streamId,
          typeUrl: response.typeUrl,
          versionInfo: response.versionInfo,
          nonce: response.nonce,
          resourceNames: [
            ...response.resources.map((r) => r.name),
            ...(response.heartbeats ?? []).map((h) => h.name),
          ],
        });
        yield toDiscoveryResponse(response, options.controlPlaneId);
      }
    }
  } finally {
    stopHeartbeats();
    watch?.cancel();
    events.close();
    if (node) options.callbacks.onStreamClosed?.({ streamId });
  }
}
