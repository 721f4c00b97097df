/**
 * A stored rollout as the API's Rollout message (rollout.proto): where it is, its waves, the
 * current wave's gates with their live figures (the core's gateStatus), which node runs which
 * version (versionFor), the traffic windows for a chart, why it failed and a one-line summary.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  type Rollout,
  RolloutAckState,
  type RolloutClusterFigures,
  RolloutClusterFiguresSchema,
  type RolloutFailure,
  RolloutFailureSchema,
  type RolloutNode,
  RolloutNodeSchema,
  RolloutPhase,
  RolloutSchema,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import {
  type Counts,
  describeFailure,
  durationText,
  type FailureReason,
  gateStatus,
  type NodeEntry,
  type RolloutState,
  versionFor,
  waveShareText,
} from "@switchyard/rollout";
import type { RolloutRow } from "../rollouts/rollout-rows.js";
import { rolloutPlanMessage } from "./rollout-messages.js";

export const DEFAULT_ROLLOUT_NODES = 100;
export const MAX_ROLLOUT_NODES = 1_000;

const PHASES: Record<RolloutState["phase"]["t"], RolloutPhase> = {
  applying: RolloutPhase.APPLYING,
  baking: RolloutPhase.BAKING,
  paused: RolloutPhase.PAUSED,
  "rolling-back": RolloutPhase.ROLLING_BACK,
  completed: RolloutPhase.COMPLETED,
  failed: RolloutPhase.FAILED,
  aborted: RolloutPhase.ABORTED,
};

function figures(cluster: string, canary: Counts, control: Counts): RolloutClusterFigures {
  return create(RolloutClusterFiguresSchema, {
    cluster,
    canaryRequests: BigInt(canary.requests),
    canaryErrors: BigInt(canary.errored),
    controlRequests: BigInt(control.requests),
    controlErrors: BigInt(control.errored),
  });
}

export function failureMessage(reason: FailureReason): RolloutFailure {
  const base = { kind: reason.t, message: describeFailure(reason) };
  switch (reason.t) {
    case "nack":
      return create(RolloutFailureSchema, {
        ...base,
        wave: reason.wave,
        nodeIds: [reason.nodeId],
        nackDetail: reason.detail,
      });
    case "ack-timeout":
      return create(RolloutFailureSchema, {
        ...base,
        wave: reason.wave,
        nodeIds: [...reason.nodeIds],
      });
    case "traffic":
      return create(RolloutFailureSchema, {
        ...base,
        wave: reason.wave,
        clusters: [figures(reason.cluster, reason.canary, reason.control)],
      });
    case "no-traffic":
      return create(RolloutFailureSchema, {
        ...base,
        wave: reason.wave,
        clusters: reason.clusters.map((c) => figures(c.cluster, c.canary, c.control)),
      });
    case "empty-selector":
      return create(RolloutFailureSchema, { ...base, wave: 1 });
  }
}

/** The failure the rollout ended on, rolls back for, or is paused on. */
export function failureOf(state: RolloutState): FailureReason | undefined {
  const { phase } = state;
  switch (phase.t) {
    case "paused":
      return phase.failure;
    case "rolling-back":
      return phase.outcome.t === "failed" ? phase.outcome.reason : phase.outcome.after;
    case "failed":
      return phase.reason;
    case "aborted":
      return phase.after;
    default:
      return undefined;
  }
}

function byOf(state: RolloutState): string {
  const { phase } = state;
  if (phase.t === "paused") return phase.by ?? "";
  if (phase.t === "aborted") return phase.by;
  if (phase.t === "rolling-back" && phase.outcome.t === "aborted") return phase.outcome.by;
  return "";
}

function ackOf(entry: NodeEntry): RolloutAckState {
  if (!entry.sent) return RolloutAckState.UNSPECIFIED;
  switch (entry.sent.ack.t) {
    case "pending":
      return RolloutAckState.PENDING;
    case "acked":
      return RolloutAckState.ACKED;
    case "nacked":
      return RolloutAckState.NACKED;
  }
}

/** The wave the rollout is at, or the last one it reached. */
export function waveOf(state: RolloutState): number {
  const { phase } = state;
  if ("wave" in phase) return phase.wave;
  return state.waves.at(-1)?.wave ?? 1;
}

function summaryOf(row: RolloutRow, onNew: number, connected: number, now: number): string {
  const { state } = row;
  const { phase } = state;
  const waves = state.plan.waves.length;
  const nodes = `${onNew} of ${connected} connected node${connected === 1 ? "" : "s"} on version ${row.toVersion}`;
  switch (phase.t) {
    case "applying":
      return `wave ${phase.wave} of ${waves} applying, ${nodes}`;
    case "baking": {
      const bakeEnds = phase.since + (state.plan.waves[phase.wave - 1]?.bakeMs ?? 0);
      const left = Math.max(0, bakeEnds - now);
      return `wave ${phase.wave} of ${waves} baking, ${nodes}, bake ends in ${durationText(Math.ceil(left / 1000) * 1000)}`;
    }
    case "paused":
      return `wave ${phase.wave} of ${waves} paused${phase.by ? ` by ${phase.by}` : ""}${phase.failure ? `: ${describeFailure(phase.failure)}` : ""}, ${nodes}`;
    case "rolling-back":
      return `rolling back to version ${row.fromVersion}, ${phase.waiting.length} node(s) yet to ACK it`;
    case "completed":
      return `completed: every node of group "${row.group}" runs version ${row.toVersion}`;
    case "failed":
      return `failed and rolled back to version ${row.fromVersion}: ${describeFailure(phase.reason)}`;
    case "aborted":
      return row.supersededBy !== null
        ? `aborted by ${phase.by}, superseded by version ${row.supersededBy}`
        : `aborted by ${phase.by} and rolled back to version ${row.fromVersion}`;
  }
}

/** The API message of `row`; `nodeLimit` 0 lists no node and no traffic window (lists). */
export function rolloutMessage(row: RolloutRow, nodeLimit: number): Rollout {
  const { state } = row;
  const { phase } = state;
  const entries = Object.entries(state.nodes);
  const connected = entries.filter(([, e]) => e.connected);
  const onNew = connected.filter(([id]) => versionFor(state, id) === state.toVersion).length;
  // Those that have the version first (by when they got it), then the others by id; a list
  // (nodeLimit 0) sorts nothing.
  const ordered =
    nodeLimit === 0
      ? []
      : [...entries].sort(([a, x], [b, y]) => {
          const sa = x.sent?.at ?? Number.POSITIVE_INFINITY;
          const sb = y.sent?.at ?? Number.POSITIVE_INFINITY;
          return sa - sb || (a < b ? -1 : a > b ? 1 : 0);
        });
  const nodes: RolloutNode[] = ordered.slice(0, nodeLimit).map(([nodeId, entry]) =>
    create(RolloutNodeSchema, {
      nodeId,
      connected: entry.connected,
      version: BigInt(versionFor(state, nodeId)),
      wave: entry.sent?.wave ?? 0,
      ack: ackOf(entry),
      nackDetail: entry.sent?.ack.t === "nacked" ? entry.sent.ack.detail : "",
      ...(entry.sent ? { sentTime: timestampFromMs(entry.sent.at) } : {}),
    }),
  );
  const gates = gateStatus(state);
  const wavePlan = gates ? state.plan.waves[gates.wave - 1] : undefined;
  const failure = failureOf(state);
  const at = "since" in phase ? phase.since : phase.at;
  return create(RolloutSchema, {
    id: BigInt(row.id),
    group: row.group,
    fromVersion: BigInt(row.fromVersion),
    toVersion: BigInt(row.toVersion),
    planName: row.planName,
    plan: rolloutPlanMessage(state.plan, row.planName),
    phase: PHASES[phase.t],
    wave: waveOf(state),
    phaseTime: timestampFromMs(at),
    startTime: timestampFromMs(state.startedAt),
    ...(row.endedAt === null ? {} : { endTime: timestampFromMs(row.endedAt.getTime()) }),
    createdBy: row.createdBy,
    message: row.message,
    by: byOf(state),
    ...(failure ? { failure: failureMessage(failure) } : {}),
    waves: state.waves.map((w) => ({
      wave: w.wave,
      share: waveShareText(state.plan.waves[w.wave - 1]?.share ?? { t: "count", count: 0 }),
      startTime: timestampFromMs(w.startedAt),
      ...(w.bakingSince === undefined ? {} : { bakeStartTime: timestampFromMs(w.bakingSince) }),
      ...(w.endedAt === undefined ? {} : { endTime: timestampFromMs(w.endedAt) }),
      ended: w.ended ?? "",
      sent: w.sent,
    })),
    ...(gates
      ? {
          gates: {
            wave: gates.wave,
            ack: gates.ack.t === "pass" ? "passed" : gates.ack.t === "fail" ? "failed" : "waiting",
            acked: gates.ack.t === "fail" ? 0 : gates.ack.acked,
            pending: gates.ack.t === "waiting" ? gates.ack.pending : 0,
            nacked: Object.values(state.nodes).filter((e) => e.sent?.ack.t === "nacked").length,
            ...(gates.ack.t === "waiting"
              ? { ackDeadline: timestampFromMs(gates.ack.deadline) }
              : {}),
            traffic:
              gates.traffic === undefined
                ? ""
                : gates.traffic.t === "pass"
                  ? "passed"
                  : gates.traffic.t === "fail"
                    ? "failed"
                    : "waiting",
            clusters: (gates.traffic?.clusters ?? []).map((c) =>
              figures(c.cluster, c.canary, c.control),
            ),
            maxErrorIncrease: wavePlan?.traffic?.maxErrorIncrease ?? 0,
            minRequests: wavePlan?.traffic?.minRequests ?? 0,
            ...(gates.bakeEndsAt === undefined
              ? {}
              : { bakeEndTime: timestampFromMs(gates.bakeEndsAt) }),
          },
        }
      : {}),
    clusters: [...state.clusters],
    nodesConnected: connected.length,
    nodesOnNew: onNew,
    nodesOnPrevious: connected.length - onNew,
    nodes,
    nodesTruncated: entries.length > nodeLimit,
    traffic:
      nodeLimit === 0
        ? []
        : row.series.map((w) => ({
            startTime: timestampFromMs(w.from),
            endTime: timestampFromMs(w.to),
            wave: w.wave,
            clusters: w.clusters.map((c) => figures(c.cluster, c.canary, c.control)),
          })),
    unconfirmed: phase.t === "failed" || phase.t === "aborted" ? [...phase.unconfirmed] : [],
    summary: summaryOf(row, onNew, connected.length, Date.now()),
    supersededBy: BigInt(row.supersededBy ?? 0),
  });
}
