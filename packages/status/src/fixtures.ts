/**
 * Builders for tests: a tracker on a hand-driven clock, and the callback events the xDS
 * transports emit (packages/xds/src/sotw-transport.ts, delta-transport.ts).
 */
import { type HeldBack, TypeUrl } from "@switchyard/snapshot";
import type { XdsVariant } from "@switchyard/xds";
import type { NodeLike } from "./node-status.js";
import { NodeStatusTracker, type NodeStatusTrackerOptions } from "./node-status-tracker.js";

export const CDS = TypeUrl.Cluster;
export const EDS = TypeUrl.ClusterLoadAssignment;
export const LDS = TypeUrl.Listener;
export const RDS = TypeUrl.RouteConfiguration;

export function nodeLike(id: string, overrides: Partial<NodeLike> = {}): NodeLike {
  return {
    id,
    cluster: "edge",
    locality: { region: "eu-west", zone: "eu-west-1a", subZone: "" },
    metadata: { team: "payments" },
    userAgentName: "envoy",
    userAgentVersionType: {
      case: "userAgentBuildVersion",
      value: { version: { majorNumber: 1, minorNumber: 36, patch: 2 } },
    },
    clientFeatures: ["envoy.lb.does_not_support_overprovisioning"],
    ...overrides,
  };
}

/** A tracker whose clock moves only through `advance`; it starts at `start`. */
export function trackerWithClock(
  options: Partial<NodeStatusTrackerOptions> = {},
  start = 1_000_000,
) {
  let now = start;
  const tracker = new NodeStatusTracker({
    replicaId: "replica-a",
    staleAfterMs: 10_000,
    now: () => now,
    ...options,
  });
  return {
    tracker,
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * Drives one stream as the transports would: open, request, respond, answer. `name` versions are
 * reported with each response (the field the transports do not send yet).
 */
export function streamOf(
  tracker: NodeStatusTracker,
  streamId: number,
  node: NodeLike,
  variant: XdsVariant = "ads-sotw",
) {
  tracker.onStreamOpen({ streamId, node, variant, remoteAddress: `10.0.0.${streamId}:5000` });
  // As a SotW client does, every request names the whole subscription: the latest one asked.
  const subscribed = new Map<string, readonly string[]>();
  const namesOf = (typeUrl: string) => subscribed.get(typeUrl) ?? [];
  return {
    request(typeUrl: string, resourceNames: readonly string[] = []) {
      subscribed.set(typeUrl, resourceNames);
      tracker.onRequest({ streamId, typeUrl, verdict: { t: "initial" }, resourceNames });
    },
    /** A later request changing the subscription (SotW: the whole list; it answers nothing). */
    resubscribe(typeUrl: string, resourceNames: readonly string[], unsubscribed?: string[]) {
      subscribed.set(typeUrl, resourceNames);
      tracker.onRequest({
        streamId,
        typeUrl,
        verdict: { t: "update" },
        resourceNames,
        ...(unsubscribed ? { unsubscribed } : {}),
      });
    },
    respond(
      typeUrl: string,
      versionInfo: string,
      nonce: string,
      resources: Readonly<Record<string, string>>,
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
      tracker.onRequest({
        streamId,
        typeUrl,
        verdict: { t: "ack", version },
        resourceNames: namesOf(typeUrl),
      });
    },
    /** A NACK; `rejected`: the resources the client named as rejected. */
    nack(typeUrl: string, rejectedVersion: string, errorDetail: string, rejected?: string[]) {
      const verdict = {
        t: "nack" as const,
        rejectedVersion,
        errorDetail,
        ...(rejected === undefined ? {} : { rejected: new Set(rejected) }),
      };
      tracker.onRequest({ streamId, typeUrl, verdict, resourceNames: namesOf(typeUrl) });
    },
    holdBack(heldBack: readonly HeldBack[]) {
      tracker.onHeldBack({ streamId, heldBack });
    },
    close() {
      tracker.onStreamClosed({ streamId });
    },
  };
}
