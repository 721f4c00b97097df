/**
 * What a rollout's gates say now, read from its state alone: the ACK gate over every node that
 * has the version, and the traffic gate over the load counted since the wave began baking. The
 * state machine (transition.ts) decides on these verdicts; the console and `rollout status` show
 * them (ACK progress, both sides' error ratios per cluster), and `wakeAt` tells the replica that
 * drives the rollout when to send the next tick, so that it need not poll.
 */
import {
  type AckMember,
  type AckVerdict,
  ackGate,
  type TrafficVerdict,
  trafficGate,
} from "./gates.js";
import type { RolloutState } from "./rollout-state.js";

/** Every node that was sent the new version, with its answer. */
export function ackMembers(state: RolloutState): AckMember[] {
  return Object.entries(state.nodes).flatMap(([nodeId, entry]) =>
    entry.sent
      ? [{ nodeId, sentAt: entry.sent.at, ack: entry.sent.ack, connected: entry.connected }]
      : [],
  );
}

function wavePlanOf(state: RolloutState, wave: number) {
  const plan = state.plan.waves[wave - 1];
  if (!plan) throw new Error(`rollout ${state.id} has no wave ${wave}`);
  return plan;
}

export function ackVerdictOf(state: RolloutState, wave: number): AckVerdict {
  return ackGate({
    members: ackMembers(state),
    timeoutMs: wavePlanOf(state, wave).ackTimeoutMs,
    now: state.now,
    wave,
    version: state.toVersion,
  });
}

/** Undefined when the wave has no traffic gate. */
export function trafficVerdictOf(state: RolloutState, wave: number): TrafficVerdict | undefined {
  const gate = wavePlanOf(state, wave).traffic;
  if (!gate) return undefined;
  return trafficGate({
    clusters: state.clusters,
    sides: state.traffic,
    baseline: state.baseline,
    maxErrorIncrease: gate.maxErrorIncrease,
    minRequests: gate.minRequests,
    wave,
    version: state.toVersion,
  });
}

export interface GateStatus {
  readonly wave: number;
  readonly ack: AckVerdict;
  /** Only while the wave bakes (traffic is counted from then), and only with a traffic gate. */
  readonly traffic?: TrafficVerdict;
  /** When the bake ends, once it has begun. */
  readonly bakeEndsAt?: number;
}

/** The current wave's gates; undefined once the rollout is rolling back or has ended. */
export function gateStatus(state: RolloutState): GateStatus | undefined {
  const { phase } = state;
  if (phase.t !== "applying" && phase.t !== "baking" && phase.t !== "paused") return undefined;
  const ack = ackVerdictOf(state, phase.wave);
  if (phase.t !== "baking") return { wave: phase.wave, ack };
  const traffic = trafficVerdictOf(state, phase.wave);
  const bakeEndsAt = phase.since + wavePlanOf(state, phase.wave).bakeMs;
  return { wave: phase.wave, ack, ...(traffic ? { traffic } : {}), bakeEndsAt };
}

/**
 * The earliest time a tick may change the state: a pending node's ACK deadline, the bake's
 * end, the rollback's deadline. Undefined when only an event can (paused, ended, or waiting on
 * nothing the clock decides). Events before then may change it: ask again after each step.
 */
export function wakeAt(state: RolloutState): number | undefined {
  const { phase } = state;
  if (phase.t === "rolling-back") return phase.until;
  const status = gateStatus(state);
  if (!status || phase.t === "paused") return undefined;
  // A bake ends only once every node ACKed: while some are pending, their deadline comes first.
  if (status.ack.t === "waiting") return status.ack.deadline;
  return status.bakeEndsAt;
}
