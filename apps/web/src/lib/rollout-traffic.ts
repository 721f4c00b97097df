import {
  type RolloutTraffic,
  TouchReason,
  type TrafficTotals,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { formatRatio } from "./load";

/**
 * The traffic of a rollout as the Changes page shows it (StatusService.GetRolloutTraffic): per
 * cluster the version touched, its error ratio before the publish and after it, and whether it
 * got worse: a bad route shows as errors here even when every proxy ACKed it.
 */

/** Completed requests after the publish before a rise of the error ratio is flagged. */
export const MIN_FLAGGED_REQUESTS = 10;
/** A rise of more than this (one point) is flagged. */
export const FLAGGED_RISE = 0.01;

export interface TrafficSide {
  readonly requests: number;
  readonly errors: number;
  /** "2.5% of 400", "No requests". */
  readonly text: string;
}

export interface TrafficRow {
  readonly cluster: string;
  /** "Routes changed (route_configuration/shop)". */
  readonly why: string;
  readonly reportsLoad: boolean;
  readonly before: TrafficSide;
  readonly after: TrafficSide;
  /** The error ratio after the publish is above the one before (see MIN_FLAGGED_REQUESTS). */
  readonly worse: boolean;
}

const reasonText: Record<TouchReason, string> = {
  [TouchReason.UNSPECIFIED]: "Changed",
  [TouchReason.CLUSTER_CHANGED]: "Cluster changed",
  [TouchReason.ROUTE_CHANGED]: "Routes changed",
  [TouchReason.LISTENER_CHANGED]: "Listener changed",
};

export function trafficSide(totals: TrafficTotals | undefined): TrafficSide {
  const requests = totals ? Number(totals.successful + totals.errored) : 0;
  const errors = totals ? Number(totals.errored) : 0;
  return {
    requests,
    errors,
    text: requests === 0 ? "No requests" : `${formatRatio(errors / requests)} of ${requests}`,
  };
}

function worse(before: TrafficSide, after: TrafficSide): boolean {
  if (after.requests < MIN_FLAGGED_REQUESTS) return false;
  const was = before.requests === 0 ? 0 : before.errors / before.requests;
  return after.errors / after.requests > was + FLAGGED_RISE;
}

/** One row per listed cluster, then "All touched clusters" when more than one reports load. */
export function trafficRows(traffic: RolloutTraffic): TrafficRow[] {
  const rows = traffic.clusters.map((cluster): TrafficRow => {
    const before = trafficSide(cluster.before);
    const after = trafficSide(cluster.after);
    return {
      cluster: cluster.cluster,
      why: [
        cluster.reasons.map((r) => reasonText[r]).join(", "),
        ...(cluster.touchedBy.length > 0 ? [`(${cluster.touchedBy.join(", ")})`] : []),
      ].join(" "),
      reportsLoad: cluster.reportsLoad,
      before,
      after,
      worse: cluster.reportsLoad && worse(before, after),
    };
  });
  if (traffic.clusters.filter((c) => c.reportsLoad).length > 1) {
    const before = trafficSide(traffic.totalBefore);
    const after = trafficSide(traffic.totalAfter);
    rows.push({
      cluster: "All touched clusters",
      why: "",
      reportsLoad: true,
      before,
      after,
      worse: worse(before, after),
    });
  }
  return rows;
}
