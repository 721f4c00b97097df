/**
 * Why a rollout stopped, as data (kept in the state, shown by the console and `rollout status
 * -o json`) and as the sentence `switchyard wait` and the audit log print. Each names what a
 * person needs to act on: the node and its client's NACK text, the nodes that never ACKed, or
 * the cluster with both error ratios and both request counts.
 */
import type {
  AckTimeoutFailure,
  ClusterFigures,
  Counts,
  NackFailure,
  TrafficFailure,
} from "./gates.js";
import { errorRatio } from "./gates.js";

/** A bake ended with touched clusters short of `minRequests`, and the plan says to fail then. */
export interface NoTrafficFailure {
  readonly t: "no-traffic";
  readonly wave: number;
  readonly version: number;
  readonly minRequests: number;
  readonly clusters: readonly ClusterFigures[];
}

/** Wave 1's node selector matched no connected node of the group. */
export interface EmptySelectorFailure {
  readonly t: "empty-selector";
  readonly group: string;
}

export type FailureReason =
  | NackFailure
  | AckTimeoutFailure
  | TrafficFailure
  | NoTrafficFailure
  | EmptySelectorFailure;

/** How many names a sentence lists before "and N more". */
const LISTED = 5;

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).join(", ");
  return names.length > LISTED ? `${shown} and ${names.length - LISTED} more` : shown;
}

function percent(counts: Counts): string {
  const ratio = errorRatio(counts);
  return ratio === undefined ? "no" : `${(ratio * 100).toFixed(2)}%`;
}

function requests(counts: Counts): string {
  return `${counts.requests} request${counts.requests === 1 ? "" : "s"}`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** One line, for `wait`, the audit log and the console's banner. */
export function describeFailure(reason: FailureReason): string {
  switch (reason.t) {
    case "nack":
      return `wave ${reason.wave}: node "${reason.nodeId}" NACKed version ${reason.version}: ${reason.detail}`;
    case "ack-timeout": {
      const gone =
        reason.disconnected.length > 0
          ? ` (${reason.disconnected.length} of them disconnected: ${listed(reason.disconnected)})`
          : "";
      return `wave ${reason.wave}: ${reason.nodeIds.length} node(s) did not ACK version ${reason.version} within ${seconds(reason.timeoutMs)}: ${listed(reason.nodeIds)}${gone}`;
    }
    case "traffic": {
      const control =
        reason.controlFrom === "live"
          ? "on the nodes still on the previous version"
          : "on the previous version's nodes in the last wave that had them";
      return `wave ${reason.wave}: cluster "${reason.cluster}" errors rose more than ${reason.maxErrorIncrease} points with version ${reason.version}: ${percent(reason.canary)} over ${requests(reason.canary)} on the wave's nodes against ${percent(reason.control)} over ${requests(reason.control)} ${control}`;
    }
    case "no-traffic": {
      const clusters = reason.clusters.map(
        (c) =>
          `"${c.cluster}" (${c.canary.requests} on the wave's nodes, ${c.control.requests} on the others)`,
      );
      return `wave ${reason.wave}: the bake ended before ${listed(clusters)} had ${reason.minRequests} requests on each side to compare, and the plan fails without traffic`;
    }
    case "empty-selector":
      return `wave 1: its node selector matches no connected node of group "${reason.group}"`;
  }
}
