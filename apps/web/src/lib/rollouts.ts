import { timestampMs } from "@bufbuild/protobuf/wkt";
import {
  type Rollout,
  RolloutAckState,
  type RolloutClusterFigures,
  type RolloutGates,
  RolloutPhase,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { formatRatio } from "./load";

/**
 * Rollouts (RolloutService) as the console shows them: a phase's word and tone, each wave of
 * the plan with what happened to it, the ACK gate's progress, the traffic gate's figures per
 * touched cluster and its windows as chart rows. Pure: the components only lay these out.
 */

export type Tone = "success" | "muted" | "warning" | "danger";

export const phaseLabel: Record<RolloutPhase, { readonly text: string; readonly tone: Tone }> = {
  [RolloutPhase.UNSPECIFIED]: { text: "Unknown", tone: "muted" },
  [RolloutPhase.APPLYING]: { text: "Applying", tone: "warning" },
  [RolloutPhase.BAKING]: { text: "Baking", tone: "warning" },
  [RolloutPhase.PAUSED]: { text: "Paused", tone: "muted" },
  [RolloutPhase.ROLLING_BACK]: { text: "Rolling back", tone: "danger" },
  [RolloutPhase.COMPLETED]: { text: "Completed", tone: "success" },
  [RolloutPhase.FAILED]: { text: "Failed", tone: "danger" },
  [RolloutPhase.ABORTED]: { text: "Aborted", tone: "danger" },
};

/** Whether the rollout is still under way (the server's `active`: not completed, failed or aborted). */
export function isRunning(rollout: Pick<Rollout, "phase">): boolean {
  return (
    rollout.phase === RolloutPhase.APPLYING ||
    rollout.phase === RolloutPhase.BAKING ||
    rollout.phase === RolloutPhase.PAUSED ||
    rollout.phase === RolloutPhase.ROLLING_BACK
  );
}

/** The commands a person can give now (the server refuses any other, rollout.proto). */
export function commandsOf(rollout: Pick<Rollout, "phase">): {
  readonly pause: boolean;
  readonly resume: boolean;
  readonly promote: boolean;
  readonly abort: boolean;
} {
  const moving = rollout.phase === RolloutPhase.APPLYING || rollout.phase === RolloutPhase.BAKING;
  const paused = rollout.phase === RolloutPhase.PAUSED;
  return { pause: moving, resume: paused, promote: moving || paused, abort: moving || paused };
}

const endedText: Record<string, string> = {
  passed: "passed",
  promoted: "promoted",
  failed: "failed",
  paused: "paused",
  aborted: "aborted",
};

/** One wave of the timeline: the plan's, and what happened to it so far. */
export interface TimelineWave {
  readonly wave: number;
  readonly share: string;
  /** "done", "current" (the wave the rollout is at, still running), or "planned". */
  readonly state: "done" | "current" | "planned";
  /** Nodes it sent the version to; undefined before it started. */
  readonly sent: number | undefined;
  readonly startedAt: number | undefined;
  readonly bakedAt: number | undefined;
  readonly endedAt: number | undefined;
  /** How it ended ("passed", "promoted", "failed", "paused", "aborted"); "" while it runs. */
  readonly ended: string;
}

/** Every wave of the plan, those that started with their times, the rest as planned. */
export function timeline(rollout: Rollout): TimelineWave[] {
  const planned = rollout.plan?.waves ?? [];
  const count = Math.max(planned.length, ...rollout.waves.map((w) => w.wave));
  const running = isRunning(rollout);
  return Array.from({ length: count }, (_, i): TimelineWave => {
    const wave = i + 1;
    const status = rollout.waves.find((w) => w.wave === wave);
    const plan = planned[i];
    const ms = (t: Parameters<typeof timestampMs>[0] | undefined) =>
      t === undefined ? undefined : timestampMs(t);
    if (status === undefined)
      return {
        wave,
        share: plan?.shareText ?? "",
        state: "planned",
        sent: undefined,
        startedAt: undefined,
        bakedAt: undefined,
        endedAt: undefined,
        ended: "",
      };
    return {
      wave,
      share: status.share || (plan?.shareText ?? ""),
      state: status.ended === "" && running ? "current" : "done",
      sent: status.sent,
      startedAt: ms(status.startTime),
      bakedAt: ms(status.bakeStartTime),
      endedAt: ms(status.endTime),
      ended: endedText[status.ended] ?? status.ended,
    };
  });
}

/** The ACK gate's progress as a bar: each part's share of the wave's nodes, in percent. */
export interface AckProgress {
  readonly total: number;
  readonly acked: number;
  readonly pending: number;
  readonly nacked: number;
  /** "3 of 4 ACKed, 1 pending, 0 NACKed". */
  readonly text: string;
}

export function ackProgress(gates: RolloutGates): AckProgress {
  const { acked, pending, nacked } = gates;
  const total = acked + pending + nacked;
  return {
    total,
    acked,
    pending,
    nacked,
    text: `${acked} of ${total} ACKed, ${pending} pending, ${nacked} NACKed`,
  };
}

/** One side of a touched cluster's comparison. */
export interface SideFigures {
  readonly requests: number;
  readonly errors: number;
  /** Undefined without requests. */
  readonly ratio: number | undefined;
  /** "2.5% of 400", "no requests". */
  readonly text: string;
}

function side(requests: bigint, errors: bigint): SideFigures {
  const r = Number(requests);
  const e = Number(errors);
  return {
    requests: r,
    errors: e,
    ratio: r === 0 ? undefined : e / r,
    text: r === 0 ? "no requests" : `${formatRatio(e / r)} of ${r}`,
  };
}

/** A touched cluster as the traffic gate judges it: the wave's nodes against the others. */
export interface ClusterComparison {
  readonly cluster: string;
  readonly canary: SideFigures;
  readonly control: SideFigures;
  /** Percentage points the canary's ratio is above the control's; undefined without both. */
  readonly increase: number | undefined;
  /** Both sides have the requests the gate needs before it compares. */
  readonly enough: boolean;
  /** Over enough requests, the increase is above the allowed one. */
  readonly over: boolean;
}

export function compareCluster(
  figures: RolloutClusterFigures,
  maxErrorIncrease: number,
  minRequests: number,
): ClusterComparison {
  const canary = side(figures.canaryRequests, figures.canaryErrors);
  const control = side(figures.controlRequests, figures.controlErrors);
  const increase =
    canary.ratio === undefined || control.ratio === undefined
      ? undefined
      : (canary.ratio - control.ratio) * 100;
  const enough =
    canary.requests >= Math.max(1, minRequests) && control.requests >= Math.max(1, minRequests);
  return {
    cluster: figures.cluster,
    canary,
    control,
    increase,
    enough,
    over: enough && increase !== undefined && increase > maxErrorIncrease,
  };
}

/** "+1.5 points", "−0.2 points". */
export function formatPoints(points: number): string {
  const rounded = Math.round(points * 10) / 10;
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : ""}${Math.abs(rounded)} point${Math.abs(rounded) === 1 ? "" : "s"}`;
}

/** One traffic window of one cluster, for the chart: error ratios in percent (null: no requests). */
export interface TrafficChartRow {
  /** The window's end, ms since the epoch. */
  readonly at: number;
  readonly wave: number;
  readonly canary: number | null;
  readonly control: number | null;
  readonly canaryRequests: number;
  readonly controlRequests: number;
}

/** Each touched cluster's windows in time order, and the clusters in the rollout's order. */
export function trafficChart(rollout: Rollout): { cluster: string; rows: TrafficChartRow[] }[] {
  const byCluster = new Map<string, TrafficChartRow[]>();
  for (const name of rollout.clusters) byCluster.set(name, []);
  const windows = [...rollout.traffic].sort(
    (a, b) => (a.endTime ? timestampMs(a.endTime) : 0) - (b.endTime ? timestampMs(b.endTime) : 0),
  );
  for (const window of windows) {
    const at = window.endTime ? timestampMs(window.endTime) : 0;
    for (const c of window.clusters) {
      const canary = side(c.canaryRequests, c.canaryErrors);
      const control = side(c.controlRequests, c.controlErrors);
      const rows = byCluster.get(c.cluster) ?? [];
      rows.push({
        at,
        wave: window.wave,
        canary: canary.ratio === undefined ? null : canary.ratio * 100,
        control: control.ratio === undefined ? null : control.ratio * 100,
        canaryRequests: canary.requests,
        controlRequests: control.requests,
      });
      byCluster.set(c.cluster, rows);
    }
  }
  return [...byCluster]
    .filter(([, rows]) => rows.length > 0)
    .map(([cluster, rows]) => ({ cluster, rows }));
}

export const ackLabel: Record<RolloutAckState, string> = {
  [RolloutAckState.UNSPECIFIED]: "—",
  [RolloutAckState.PENDING]: "Pending",
  [RolloutAckState.ACKED]: "ACKed",
  [RolloutAckState.NACKED]: "NACKed",
};

/** The page of one rollout; the running one's is /rollouts. */
export function rolloutHref(id: bigint): `/rollouts?id=${string}` {
  return `/rollouts?id=${id}`;
}
