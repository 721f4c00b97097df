import { create } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import {
  type DiscoveryRequest,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
  ResourceSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { packed, packedResponseBody } from "./packed-resources.js";
import { type SotwResponse, SotwSession } from "./sotw-session.js";
import {
  bodyAny,
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

/**
 * VHDS has no State of the World variant (xDS protocol, "RPC Services and Methods for Each
 * Variant": "VirtualHost: Virtual Host Discovery Service (VHDS) - SotW: N/A"; Envoy's VHDS page:
 * VHDS "uses the delta xDS protocol"). A SotW request for it is refused with a status that says
 * where to ask, rather than left unanswered: the client would otherwise wait for a response that
 * never comes.
 */
function refuseVhds(request: DiscoveryRequest): void {
  if (request.typeUrl === TypeUrl.VirtualHost) {
    throw new ConnectError(
      `DiscoveryRequest.type_url "${TypeUrl.VirtualHost}": on-demand virtual hosts (VHDS) are served over Delta xDS only (the spec's SotW variant is "N/A"): request them on DeltaAggregatedResources or VirtualHostDiscoveryService.DeltaVirtualHosts`,
      Code.InvalidArgument,
    );
  }
}

export type SotwStreamOptions = StreamOptions & { readonly variant: "ads-sotw" | "sotw" };

/**
 * The wire form of a response the session (or a REST fetch) decided to send. With a TTL, each
 * resource (and heartbeat) goes as an Any of envoy.service.discovery.v3.Resource (client feature
 * `xds.config.supports-resource-in-sotw`); without, as the bare Any of its body.
 */
export function toDiscoveryResponse(
  response: SotwResponse,
  controlPlaneId: string,
  encoding: "message" | "packed" = "message",
): DiscoveryResponse {
  const { ttl, heartbeats = [] } = response;
  const wrap = ttl !== undefined || heartbeats.length > 0;
  if (!wrap && encoding === "packed") {
    // For the wire only (see packed-resources.ts): everything but the nonce travels as bytes
    // encoded once for every stream that sends them.
    const body = packedResponseBody(
      "sotw",
      response.resources,
      response.versionInfo,
      response.typeUrl,
      controlPlaneId,
    );
    return packed(create(DiscoveryResponseSchema, { nonce: response.nonce }), body);
  }
  const message = create(DiscoveryResponseSchema, {
    versionInfo: response.versionInfo,
    typeUrl: response.typeUrl,
    nonce: response.nonce,
    controlPlane: { identifier: controlPlaneId },
  });
  if (wrap) {
    message.resources = [
      ...response.resources.map((r) => anyPack(ResourceSchema, wrappedResource(r, ttl))),
      ...heartbeats.map((h) => anyPack(ResourceSchema, heartbeatResource(h, ttl))),
    ];
  } else {
    message.resources = response.resources.map(bodyAny);
  }
  return message;
}

/** Serves one SotW stream (ADS or a per-type service) through the pure SotwSession. */
export function serveSotwStream(
  requests: AsyncIterable<DiscoveryRequest>,
  context: HandlerContext,
  options: SotwStreamOptions,
): AsyncGenerator<DiscoveryResponse> {
  const session = new SotwSession(sessionOptions(options));
  return serveStream(requests, context, options, {
    requestName: "DiscoveryRequest",
    adsName: "ADS",
    onNode: (node) => session.onNode(node, nodeContextOf(node)),
    onSnapshot: (snapshot) => session.onSnapshot(snapshot),
    onHeartbeat: (now) => session.onHeartbeat(now),
    heldBack: () => session.heldBack,
    onRequest: (request) => {
      refuseVhds(request);
      refuseBadNames(request.typeUrl, [["DiscoveryRequest.resource_names", request.resourceNames]]);
      return {
        ...session.onRequest({
          typeUrl: request.typeUrl,
          resourceNames: request.resourceNames,
          versionInfo: request.versionInfo,
          responseNonce: request.responseNonce,
          errorDetail: errorDetailText(request.errorDetail),
        }),
        resourceNames: request.resourceNames,
        unresolved: unresolvedNames(request.resourceNames, (name) => session.whyUnresolved(name)),
      };
    },
    versionOf: (response) => response.versionInfo,
    toWire: (response) => toDiscoveryResponse(response, options.controlPlaneId, "packed"),
  });
}
