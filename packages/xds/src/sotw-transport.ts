import { create } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type DiscoveryRequest,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import { type SotwResponse, SotwSession } from "./ads-sotw-session.js";
import type { XdsCallbacks } from "./callbacks.js";
import { kRemoteAddress } from "./context-keys.js";
import { EventQueue } from "./event-queue.js";
import { nodeIdentity } from "./node-identity.js";
import type { ConfigWatcher, SnapshotWatch } from "./snapshot-cache.js";

type StreamEvent =
  | { readonly t: "request"; readonly request: DiscoveryRequest }
  | { readonly t: "snapshot"; readonly snapshot: ResourceSnapshot };

export interface SotwStreamOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks: XdsCallbacks;
  /** The only type URL a per-type service accepts; undefined for ADS. */
  readonly onlyTypeUrl?: string;
  readonly variant: "ads-sotw" | "sotw";
  readonly controlPlaneId: string;
}

/** The wire form of a response the session (or a REST fetch) decided to send. */
export function toDiscoveryResponse(
  response: SotwResponse,
  controlPlaneId: string,
): DiscoveryResponse {
  return create(DiscoveryResponseSchema, {
    versionInfo: response.versionInfo,
    typeUrl: response.typeUrl,
    nonce: response.nonce,
    controlPlane: { identifier: controlPlaneId },
    resources: response.resources.map((resource) =>
      create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body }),
    ),
  });
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
function readError(error: unknown): unknown {
  if (
    error instanceof ConnectError &&
    error.code === Code.Internal &&
    error.rawMessage.startsWith("parse binary")
  ) {
    return new ConnectError(
      `a request on this stream is not a valid DiscoveryRequest (${error.rawMessage})`,
      Code.InvalidArgument,
      undefined,
      undefined,
      error,
    );
  }
  return error;
}

let streamCounter = 0;

/**
 * Serves one SotW stream (ADS or a per-type service): reads requests and snapshot changes as one
 * ordered event sequence, feeds them to the pure SotwSession, and yields its responses.
 */
export async function* serveSotwStream(
  requests: AsyncIterable<DiscoveryRequest>,
  context: HandlerContext,
  options: SotwStreamOptions,
): AsyncGenerator<DiscoveryResponse> {
  const streamId = ++streamCounter;
  const events = new EventQueue<StreamEvent>();
  const session = new SotwSession();
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

  try {
    for await (const event of events) {
      let responses: SotwResponse[];
      if (event.t === "snapshot") {
        responses = session.onSnapshot(event.snapshot);
      } else {
        const { request } = event;
        checkTypeUrl(request, options.onlyTypeUrl);
        if (!node) {
          // The node is only guaranteed on the first request of a stream (shared/spec:
          // "Basic Protocol Overview"): it is read once and kept; later requests may omit it.
          node = firstNode(request);
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
        }
        const result = session.onRequest({
          typeUrl: request.typeUrl,
          resourceNames: request.resourceNames,
          versionInfo: request.versionInfo,
          responseNonce: request.responseNonce,
          errorDetail: request.errorDetail
            ? request.errorDetail.message || `gRPC status ${request.errorDetail.code}`
            : undefined,
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
          resourceNames: response.resources.map((r) => r.name),
        });
        yield toDiscoveryResponse(response, options.controlPlaneId);
      }
    }
  } finally {
    watch?.cancel();
    events.close();
    if (node) options.callbacks.onStreamClosed?.({ streamId });
  }
}
