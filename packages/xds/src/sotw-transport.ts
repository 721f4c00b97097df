import { create } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Node } from "@switchyard/proto/envoy/config/core/v3/base_pb";
import {
  type DiscoveryRequest,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import type { ResourceSnapshot } from "@switchyard/snapshot";
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

function toDiscoveryResponse(response: SotwResponse, controlPlaneId: string): DiscoveryResponse {
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

  const reader = (async () => {
    try {
      for await (const request of requests) events.push({ t: "request", request });
      events.close();
    } catch (error) {
      events.fail(error);
    }
  })();

  try {
    for await (const event of events) {
      let responses: SotwResponse[];
      if (event.t === "snapshot") {
        responses = session.onSnapshot(event.snapshot);
      } else {
        const { request } = event;
        if (request.typeUrl === "") {
          throw new ConnectError(
            "DiscoveryRequest.type_url is empty: every request must name its resource type",
            Code.InvalidArgument,
          );
        }
        if (options.onlyTypeUrl !== undefined && request.typeUrl !== options.onlyTypeUrl) {
          throw new ConnectError(
            `DiscoveryRequest.type_url "${request.typeUrl}" is not served by this service (expected "${options.onlyTypeUrl}")`,
            Code.InvalidArgument,
          );
        }
        if (!node) {
          // The node is only guaranteed on the first request of a stream (shared/spec:
          // "Basic Protocol Overview"): it is read once and kept.
          if (!request.node) {
            throw new ConnectError(
              "the first DiscoveryRequest of a stream must carry a node",
              Code.InvalidArgument,
            );
          }
          node = request.node;
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
    await reader.catch(() => undefined);
    if (node) options.callbacks.onStreamClosed?.({ streamId });
  }
}
