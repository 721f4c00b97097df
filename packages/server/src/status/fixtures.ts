/**
 * Test builders: NodeStatusTrackers driven as the xDS transports drive them (the callback events
 * of packages/xds/src/callbacks.ts). @switchyard/status keeps its own fixtures private.
 */
import { TypeUrl } from "@switchyard/snapshot";
import { NodeStatusTracker, type StreamOpenEvent } from "@switchyard/status";

export const CDS = TypeUrl.Cluster;
export const LDS = TypeUrl.Listener;

export function nodeLike(id: string, cluster = "edge"): StreamOpenEvent["node"] {
  return {
    id,
    cluster,
    locality: { region: "eu-west", zone: "eu-west-1a", subZone: "" },
    metadata: { team: "payments" },
    userAgentName: "envoy",
    userAgentVersionType: {
      case: "userAgentBuildVersion",
      value: { version: { majorNumber: 1, minorNumber: 36, patch: 2 } },
    },
    clientFeatures: ["envoy.lb.does_not_support_overprovisioning"],
  };
}

/** A tracker whose clock moves only through `advance`. */
export function trackerWithClock(replicaId = "replica-a", start = Date.UTC(2026, 0, 1)) {
  let now = start;
  const tracker = new NodeStatusTracker({ replicaId, staleAfterMs: 10_000, now: () => now });
  return {
    tracker,
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/** One stream of `node` on `tracker`: open it, then request, respond, ACK, NACK and close. */
export function streamOf(tracker: NodeStatusTracker, streamId: number, nodeId: string) {
  tracker.onStreamOpen({
    streamId,
    node: nodeLike(nodeId),
    variant: "ads-sotw",
    remoteAddress: `10.0.${streamId >> 8}.${streamId & 255}:5000`,
  });
  return {
    request(typeUrl: string) {
      tracker.onRequest({ streamId, typeUrl, verdict: { t: "initial" }, resourceNames: [] });
    },
    respond(
      typeUrl: string,
      versionInfo: string,
      nonce: string,
      resources: Record<string, string>,
    ) {
      tracker.onResponse({
        streamId,
        typeUrl,
        versionInfo,
        nonce,
        resourceNames: Object.keys(resources),
        resources: Object.entries(resources).map(([name, version]) => ({ name, version })),
      });
    },
    ack(typeUrl: string, version: string) {
      tracker.onRequest({ streamId, typeUrl, verdict: { t: "ack", version }, resourceNames: [] });
    },
    nack(typeUrl: string, rejectedVersion: string, errorDetail: string) {
      const verdict = { t: "nack" as const, rejectedVersion, errorDetail };
      tracker.onRequest({ streamId, typeUrl, verdict, resourceNames: [] });
    },
    close() {
      tracker.onStreamClosed({ streamId });
    },
  };
}
