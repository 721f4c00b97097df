import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import {
  type DeltaDiscoveryRequest,
  type DeltaDiscoveryResponse,
  DeltaDiscoveryResponseSchema,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { type DeltaResponse, DeltaSession } from "./delta-session.js";
import { packed, packedResponseBody } from "./packed-resources.js";
import {
  errorDetailText,
  heartbeatResource,
  refuseBadNames,
  type StreamOptions,
  serveStream,
  sessionOptions,
  unresolvedNames,
  wrappedResource,
} from "./stream-loop.js";
import { nodeContextOf } from "./xdstp-naming.js";

export type DeltaStreamOptions = StreamOptions & { readonly variant: "ads-delta" | "delta" };

/**
 * The wire form of a Delta response: each resource a Resource {name, version, resource, ttl?}
 * whose Any holds the resource's shared body bytes as they are, each heartbeat a Resource with no
 * body, and the names the client must drop in `removed_resources`.
 */
export function toDeltaDiscoveryResponse(
  response: DeltaResponse,
  controlPlaneId: string,
): DeltaDiscoveryResponse {
  const { ttl, heartbeats = [], aliases, unresolved = [] } = response;
  if (
    aliases === undefined &&
    unresolved.length === 0 &&
    ttl === undefined &&
    heartbeats.length === 0
  ) {
    // Pre-encoded once for every stream (packed-resources.ts): all but the nonce and removals.
    return packed(
      create(DeltaDiscoveryResponseSchema, {
        nonce: response.nonce,
        removedResources: [...response.removed],
      }),
      packedResponseBody(
        "delta",
        response.resources,
        response.systemVersionInfo,
        response.typeUrl,
        controlPlaneId,
      ),
    );
  }
  const message = create(DeltaDiscoveryResponseSchema, {
    systemVersionInfo: response.systemVersionInfo,
    typeUrl: response.typeUrl,
    nonce: response.nonce,
    controlPlane: { identifier: controlPlaneId },
    removedResources: [...response.removed],
  });
  if (aliases !== undefined || unresolved.length > 0) {
    // VHDS: a virtual host with the names it was asked by; an unknown name with no body.
    message.resources = [
      ...response.resources.map((r) => {
        const resource = wrappedResource(r, ttl);
        resource.aliases = [...(aliases?.get(r.name) ?? [])];
        return resource;
      }),
      ...unresolved.map((name) => create(ResourceSchema, { name, aliases: [name] })),
    ];
  } else {
    message.resources = [
      ...response.resources.map((r) => wrappedResource(r, ttl)),
      ...heartbeats.map((h) => heartbeatResource(h, ttl)),
    ];
  }
  return message;
}

/** Resource locators (xdstp collections) are not served: say so rather than ignore them. */
function checkLocators(request: DeltaDiscoveryRequest): void {
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

/**
 * Serves one Delta (incremental) stream (Delta ADS or a per-type Delta service) through the pure
 * DeltaSession. The twin of serveSotwStream.
 */
export function serveDeltaStream(
  requests: AsyncIterable<DeltaDiscoveryRequest>,
  context: HandlerContext,
  options: DeltaStreamOptions,
): AsyncGenerator<DeltaDiscoveryResponse> {
  const session = new DeltaSession(sessionOptions(options));
  return serveStream(requests, context, options, {
    requestName: "DeltaDiscoveryRequest",
    adsName: "Delta ADS",
    onNode: (node) => session.onNode(node, nodeContextOf(node)),
    onSnapshot: (snapshot) => session.onSnapshot(snapshot),
    onHeartbeat: (now) => session.onHeartbeat(now),
    heldBack: () => session.heldBack,
    onRequest: (request) => {
      checkLocators(request);
      refuseBadNames(request.typeUrl, [
        ["DeltaDiscoveryRequest.resource_names_subscribe", request.resourceNamesSubscribe],
        ["DeltaDiscoveryRequest.resource_names_unsubscribe", request.resourceNamesUnsubscribe],
        [
          "DeltaDiscoveryRequest.initial_resource_versions",
          Object.keys(request.initialResourceVersions),
        ],
      ]);
      return {
        ...session.onRequest({
          typeUrl: request.typeUrl,
          subscribe: request.resourceNamesSubscribe,
          unsubscribe: request.resourceNamesUnsubscribe,
          initialResourceVersions: request.initialResourceVersions,
          responseNonce: request.responseNonce,
          errorDetail: errorDetailText(request.errorDetail),
        }),
        resourceNames: request.resourceNamesSubscribe,
        unsubscribed: request.resourceNamesUnsubscribe,
        initialResourceVersions: request.initialResourceVersions,
        unresolved: unresolvedNames(request.resourceNamesSubscribe, (name) =>
          session.whyUnresolved(name),
        ),
      };
    },
    versionOf: (response) => response.systemVersionInfo,
    toWire: (response) => toDeltaDiscoveryResponse(response, options.controlPlaneId),
  });
}
