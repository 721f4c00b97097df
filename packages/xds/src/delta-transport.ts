import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type DeltaDiscoveryRequest,
  type DeltaDiscoveryResponse,
  DeltaDiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import type { XdsCallbacks } from "./callbacks.js";
import { kRemoteAddress } from "./context-keys.js";
import { type DeltaResponse, DeltaSession } from "./delta-session.js";
import { EventQueue } from "./event-queue.js";
import { nodeIdentity } from "./node-identity.js";
import type { ConfigWatcher, SnapshotWatch } from "./snapshot-cache.js";
import {
  errorDetailText,
  heartbeatResource,
  nextStreamId,
  readError,
  startHeartbeatTimer,
  wrappedResource,
} from "./sotw-transport.js";
import type { TtlOptions } from "./subscription-ttl.js";

type StreamEvent =
  | { readonly t: "request"; readonly request: DeltaDiscoveryRequest }
  | { readonly t: "snapshot"; readonly snapshot: ResourceSnapshot }
  | { readonly t: "tick" };

export interface DeltaStreamOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks: XdsCallbacks;
  /** The only type URL a per-type service accepts; undefined for ADS. */
  readonly onlyTypeUrl?: string;
  readonly variant: "ads-delta" | "delta";
  readonly controlPlaneId: string;
  /** Resource TTLs and heartbeats for clients that support them; none when absent. */
  readonly ttl?: TtlOptions | undefined;
}

/**
 * The wire form of a Delta response: each resource a Resource {name, version, resource, ttl?}
 * whose Any holds the resource's shared body bytes as they are, each heartbeat a Resource with no
 * body, and the names the client must drop in `removed_resources`.
 */
export function toDeltaDiscoveryResponse(
  response: DeltaResponse,
  controlPlaneId: string,
): DeltaDiscoveryResponse {
  const { ttl, heartbeats = [] } = response;
  return create(DeltaDiscoveryResponseSchema, {
    systemVersionInfo: response.systemVersionInfo,
    typeUrl: response.typeUrl,
    nonce: response.nonce,
    controlPlane: { identifier: controlPlaneId },
    resources: [
      ...response.resources.map((r) => wrappedResource(r, ttl)),
      ...heartbeats.map((h) => heartbeatResource(h, ttl)),
    ],
    removedResources: [...response.removed],
  });
}

/**
 * Rejects a request the stream cannot serve, ending the stream with InvalidArgument and a message
 * saying what to fix (as SotW does; xds-malformed.e2e.spec.ts).
 */
function checkRequest(request: DeltaDiscoveryRequest, onlyTypeUrl: string | undefined): void {
  if (request.typeUrl === "") {
    throw new ConnectError(
      `DeltaDiscoveryRequest.type_url is empty: every request must name its resource type (for example "${onlyTypeUrl ?? TypeUrl.Cluster}")`,
      Code.InvalidArgument,
    );
  }
  if (onlyTypeUrl !== undefined && request.typeUrl !== onlyTypeUrl) {
    throw new ConnectError(
      `DeltaDiscoveryRequest.type_url "${request.typeUrl}" is not served by this service, which serves only "${onlyTypeUrl}": request it on its own service or on Delta ADS`,
      Code.InvalidArgument,
    );
  }
  if (
    request.resourceLocatorsSubscribe.length > 0 ||
    request.resourceLocatorsUnsubscribe.length > 0
  ) {
    throw new ConnectError(
      "DeltaDiscoveryRequest.resource_locators_subscribe/resource_locators_unsubscribe are not supported: name resources in resource_names_subscribe/resource_names_unsubscribe",
      Code.InvalidArgument,
    );
  }
}

/** The node of a stream's first request, which must carry one. */
function firstNode(request: DeltaDiscoveryRequest): Node {
  if (!request.node) {
    throw new ConnectError(
      "the first DeltaDiscoveryRequest of a stream must carry a node (DeltaDiscoveryRequest.node with at least an id): it selects the configuration the stream is served",
      Code.InvalidArgument,
    );
  }
  return request.node;
}

/**
 * Serves one Delta (incremental) stream (Delta ADS or a per-type Delta service): reads requests,
 * snapshot changes and heartbeat ticks as one ordered event sequence, feeds them to the pure
 * DeltaSession, and yields its responses. The twin of serveSotwStream.
 */
export async function* serveDeltaStream(
  requests: AsyncIterable<DeltaDiscoveryRequest>,
  context: HandlerContext,
  options: DeltaStreamOptions,
): AsyncGenerator<DeltaDiscoveryResponse> {
  const streamId = nextStreamId();
  const events = new EventQueue<StreamEvent>();
  const session = new DeltaSession(options.ttl ? { ttl: options.ttl } : {});
  let node: Node | undefined;
  let watch: SnapshotWatch | undefined;
  let stopHeartbeats: () => void = () => undefined;

  // Requests are read concurrently with snapshot changes and never awaited: when the stream fails
  // (a malformed request) the client may keep its side open, and the error must reach it now; the
  // reader ends when Connect finishes the call.
  void (async () => {
    try {
      for await (const request of requests) events.push({ t: "request", request });
      events.close();
    } catch (error) {
      events.fail(readError(error, "DeltaDiscoveryRequest"));
    }
  })();

  try {
    for await (const event of events) {
      let responses: DeltaResponse[];
      if (event.t === "snapshot") {
        responses = session.onSnapshot(event.snapshot);
      } else if (event.t === "tick") {
        responses = session.onHeartbeat(Date.now());
      } else {
        const { request } = event;
        checkRequest(request, options.onlyTypeUrl);
        if (!node) {
          // Read once from the first request and kept; later requests may omit it.
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
          subscribe: request.resourceNamesSubscribe,
          unsubscribe: request.resourceNamesUnsubscribe,
          initialResourceVersions: request.initialResourceVersions,
          responseNonce: request.responseNonce,
          errorDetail: errorDetailText(request.errorDetail),
        });
        options.callbacks.onRequest?.({
          streamId,
          typeUrl: request.typeUrl,
          verdict: result.verdict,
          resourceNames: request.resourceNamesSubscribe,
        });
        responses = result.responses;
      }
      for (const response of responses) {
        options.callbacks.onResponse?.({
          streamId,
          typeUrl: response.typeUrl,
          versionInfo: response.systemVersionInfo,
          nonce: response.nonce,
          resourceNames: [
            ...response.resources.map((r) => r.name),
            ...(response.heartbeats ?? []).map((h) => h.name),
          ],
        });
        yield toDeltaDiscoveryResponse(response, options.controlPlaneId);
      }
    }
  } finally {
    stopHeartbeats();
    watch?.cancel();
    events.close();
    if (node) options.callbacks.onStreamClosed?.({ streamId });
  }
}
