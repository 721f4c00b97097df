/**
 * The gates a wave must pass before the next starts, as pure functions of what was observed and
 * the time (issue 45, "Gates"); machine.ts calls them on every event and acts on the verdict.
 *
 * - ACK: every node that was sent the version ACKs it within the ACK timeout of its sending. A
 *   NACK fails the gate at once, with the client's error_detail; a node still pending at its
 *   deadline fails it, whether connected or not (a proxy that crashes on the version never
 *   ACKs, and must not pass for having left).
 * - Traffic: per cluster the version touched, the error ratio (errored / (successful +
 *   errored), as StatusService.GetRolloutTraffic reports it) on the nodes that have the version
 *   (the canary) against the nodes still on the previous one over the same window (the live
 *   control group). Once both sides of a cluster have at least `minRequests`, a canary ratio
 *   more than `maxErrorIncrease` points above the control's fails the gate at once; a cluster
 *   short of traffic keeps it waiting (the bake's end decides, machine.ts). When no node is left
 *   on the previous version (the last wave), the control side is the `baseline`: the control
 *   group's totals of the last wave that had one.
 *
 * The verdicts carry the figures the console shows (ACK progress, both ratios per cluster) and,
 * on failure, a reason that names the node and its NACK text, or the cluster with both ratios
 * and both request counts (reasons.ts turns it into a sentence).
 */

/** What a node did with the version it was sent. */
export type AckStatus =
  | { readonly t: "pending" }
  | { readonly t: "acked"; readonly at: number }
  | { readonly t: "nacked"; readonly at: number; readonly detail: string };

/** A node that was sent the version, and when. */
export interface AckMember {
  readonly nodeId: string;
  readonly sentAt: number;
  readonly ack: AckStatus;
  readonly connected: boolean;
}

export interface NackFailure {
  readonly t: "nack";
  readonly wave: number;
  readonly version: number;
  readonly nodeId: string;
  readonly detail: string;
}

export interface AckTimeoutFailure {
  readonly t: "ack-timeout";
  readonly wave: number;
  readonly version: number;
  readonly timeoutMs: number;
  /** The nodes past their deadline, sorted; `disconnected` those of them not connected. */
  readonly nodeIds: readonly string[];
  readonly disconnected: readonly string[];
}

export type AckVerdict =
  | { readonly t: "pass"; readonly acked: number }
  | {
      readonly t: "waiting";
      readonly acked: number;
      readonly pending: number;
      /** The earliest deadline of a pending node: when a tick may fail the gate. */
      readonly deadline: number;
    }
  | { readonly t: "fail"; readonly reason: NackFailure | AckTimeoutFailure };

export interface AckGateInput {
  readonly members: Iterable<AckMember>;
  readonly timeoutMs: number;
  readonly now: number;
  readonly wave: number;
  readonly version: number;
}

/**
 * The ACK gate. The first NACK (by time, then node id) wins over timeouts: it is the client's
 * own account of what is wrong.
 */
export function ackGate({ members, timeoutMs, now, wave, version }: AckGateInput): AckVerdict {
  let acked = 0;
  let pending = 0;
  let deadline = Number.POSITIVE_INFINITY;
  let nack: { nodeId: string; at: number; detail: string } | undefined;
  const late: AckMember[] = [];
  for (const member of members) {
    const { ack } = member;
    if (ack.t === "acked") acked += 1;
    else if (ack.t === "nacked") {
      if (!nack || ack.at < nack.at || (ack.at === nack.at && member.nodeId < nack.nodeId))
        nack = { nodeId: member.nodeId, at: ack.at, detail: ack.detail };
    } else {
      const due = member.sentAt + timeoutMs;
      if (now >= due) late.push(member);
      pending += 1;
      deadline = Math.min(deadline, due);
    }
  }
  if (nack)
    return {
      t: "fail",
      reason: { t: "nack", wave, version, nodeId: nack.nodeId, detail: nack.detail },
    };
  if (late.length > 0) {
    const ids = late.map((m) => m.nodeId).sort();
    const disconnected = late
      .filter((m) => !m.connected)
      .map((m) => m.nodeId)
      .sort();
    return {
      t: "fail",
      reason: { t: "ack-timeout", wave, version, timeoutMs, nodeIds: ids, disconnected },
    };
  }
  if (pending > 0) return { t: "waiting", acked, pending, deadline };
  return { t: "pass", acked };
}

/** Completed requests and how many of them failed. */
export interface Counts {
  readonly requests: number;
  readonly errored: number;
}

export const NO_COUNTS: Counts = { requests: 0, errored: 0 };

/** One node's report of one cluster over a window (the sum of its LRS rows there). */
export interface LoadSample {
  readonly nodeId: string;
  readonly cluster: string;
  readonly successful: number;
  readonly errored: number;
}

export function addCounts(a: Counts, b: Counts): Counts {
  return { requests: a.requests + b.requests, errored: a.errored + b.errored };
}

/** errored / requests, undefined without requests. */
export function errorRatio(counts: Counts): number | undefined {
  return counts.requests > 0 ? counts.errored / counts.requests : undefined;
}

/** The two sides of a cluster over a window. */
export interface ClusterSides {
  readonly canary: Counts;
  readonly control: Counts;
}

/** Per cluster, its two sides. */
export interface TrafficSides {
  readonly [cluster: string]: ClusterSides;
}

/**
 * Samples split by side, per cluster of `clusters`: a node for which `side` says "canary" (it
 * has the version) or "control" (it is on the previous one) counts there; other nodes (unknown
 * to the rollout) and other clusters are left out.
 */
export function splitLoad(
  samples: Iterable<LoadSample>,
  clusters: readonly string[],
  side: (nodeId: string) => "canary" | "control" | undefined,
): TrafficSides {
  const touched = new Set(clusters);
  const sides = new Map<string, ClusterSides>();
  for (const sample of samples) {
    if (!touched.has(sample.cluster)) continue;
    const which = side(sample.nodeId);
    if (which === undefined) continue;
    const known = sides.get(sample.cluster) ?? { canary: NO_COUNTS, control: NO_COUNTS };
    const counts = { requests: sample.successful + sample.errored, errored: sample.errored };
    sides.set(sample.cluster, { ...known, [which]: addCounts(known[which], counts) });
  }
  return Object.fromEntries([...sides].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `a` and `b` added up, cluster by cluster. */
export function addSides(a: TrafficSides, b: TrafficSides): TrafficSides {
  const sum: { [cluster: string]: ClusterSides } = { ...a };
  for (const [cluster, sides] of Object.entries(b)) {
    const known = sum[cluster] ?? { canary: NO_COUNTS, control: NO_COUNTS };
    sum[cluster] = {
      canary: addCounts(known.canary, sides.canary),
      control: addCounts(known.control, sides.control),
    };
  }
  return sum;
}

/** A cluster's figures as the gate read them. */
export interface ClusterFigures {
  readonly cluster: string;
  readonly canary: Counts;
  /** The control side compared against: the live control group's, or the baseline's. */
  readonly control: Counts;
  readonly controlFrom: "live" | "baseline";
  /** (canary ratio − control ratio) × 100, when both sides have `minRequests`. */
  readonly increase?: number;
}

export interface TrafficFailure {
  readonly t: "traffic";
  readonly wave: number;
  readonly version: number;
  readonly cluster: string;
  readonly canary: Counts;
  readonly control: Counts;
  readonly controlFrom: "live" | "baseline";
  readonly maxErrorIncrease: number;
}

export type TrafficVerdict =
  | { readonly t: "pass"; readonly clusters: readonly ClusterFigures[] }
  /** Some clusters (`short`, by name) lack `minRequests` on a side; the rest passed. */
  | {
      readonly t: "waiting";
      readonly clusters: readonly ClusterFigures[];
      readonly short: readonly string[];
    }
  | {
      readonly t: "fail";
      readonly clusters: readonly ClusterFigures[];
      readonly reason: TrafficFailure;
    };

export interface TrafficGateInput {
  /** The clusters the version touched. */
  readonly clusters: readonly string[];
  readonly sides: TrafficSides;
  /** Per cluster, the control group's totals of the last wave that had enough of them. */
  readonly baseline: { readonly [cluster: string]: Counts };
  readonly maxErrorIncrease: number;
  readonly minRequests: number;
  readonly wave: number;
  readonly version: number;
}

/**
 * Points are compared with a margin of 1e-9 so that a ratio exactly `maxErrorIncrease` above
 * (3% against 1% with 2 allowed) passes, as "within N points" says, despite floating point.
 */
const EPSILON = 1e-9;

/**
 * The traffic gate: fails on the cluster with the largest increase over the allowance (ties by
 * name), else waits while a cluster is short of traffic, else passes. A version that touched no
 * cluster passes.
 */
export function trafficGate(input: TrafficGateInput): TrafficVerdict {
  const figures: ClusterFigures[] = [];
  const short: string[] = [];
  let worst: ClusterFigures | undefined;
  for (const cluster of [...new Set(input.clusters)].sort()) {
    const sides = input.sides[cluster] ?? { canary: NO_COUNTS, control: NO_COUNTS };
    const baseline = input.baseline[cluster];
    const live = sides.control.requests >= input.minRequests;
    const control = live || baseline === undefined ? sides.control : baseline;
    const controlFrom = live || baseline === undefined ? "live" : "baseline";
    const canaryRatio = errorRatio(sides.canary);
    const controlRatio = errorRatio(control);
    const enough =
      sides.canary.requests >= input.minRequests && control.requests >= input.minRequests;
    if (!enough || canaryRatio === undefined || controlRatio === undefined) {
      short.push(cluster);
      figures.push({ cluster, canary: sides.canary, control, controlFrom });
      continue;
    }
    const increase = (canaryRatio - controlRatio) * 100;
    const figure = { cluster, canary: sides.canary, control, controlFrom, increase } as const;
    figures.push(figure);
    if (increase > input.maxErrorIncrease + EPSILON && (!worst || increase > (worst.increase ?? 0)))
      worst = figure;
  }
  if (worst)
    return {
      t: "fail",
      clusters: figures,
      reason: {
        t: "traffic",
        wave: input.wave,
        version: input.version,
        cluster: worst.cluster,
        canary: worst.canary,
        control: worst.control,
        controlFrom: worst.controlFrom,
        maxErrorIncrease: input.maxErrorIncrease,
      },
    };
  if (short.length > 0) return { t: "waiting", clusters: figures, short };
  return { t: "pass", clusters: figures };
}
