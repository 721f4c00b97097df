/**
 * A rollout's state, events and actions as plain data: the state is JSON (no Map, Set, Date or
 * class), so it is stored as it is (a PostgreSQL jsonb row, one per rollout) and a replica that
 * takes over reads it back and goes on; machine.ts computes the next state from (state, event)
 * and nothing else. Which version a node is served is a function of the state alone
 * (`versionFor`), so serving never depends on whether an action was carried out before a crash.
 */
import type { AckStatus, Counts, LoadSample, TrafficSides } from "./gates.js";
import type { RolloutPlan } from "./plan.js";
import type { FailureReason } from "./reasons.js";
import type { GroupNode } from "./waves.js";

/** A node of the group the rollout has seen connected. */
export interface NodeEntry {
  readonly connected: boolean;
  /** It matched wave 1's node selector when it last connected (plans whose wave 1 is one). */
  readonly selected?: true;
  /**
   * Present once the node was sent the new version, by wave (from 1) and when; kept after a
   * rollback, as the record of who had it.
   */
  readonly sent?: { readonly wave: number; readonly at: number; readonly ack: AckStatus };
}

/**
 * Where the rollout is. `wave` counts from 1. Promotion is a transition, not a phase: when a
 * wave passes, the next one is applying in the same step (or the rollout has completed).
 */
export type RolloutPhase =
  /** The wave's nodes were sent the version; the ACK gate runs. */
  | { readonly t: "applying"; readonly wave: number; readonly since: number }
  /** Every node that has the version ACKed it; the bake time and the traffic gate run. */
  | { readonly t: "baking"; readonly wave: number; readonly since: number }
  /**
   * Nothing is decided until a person resumes, promotes or aborts: by a person (`by`), or by a
   * gate that failed under `onFailure: pause` (`failure`).
   */
  | {
      readonly t: "paused";
      readonly wave: number;
      readonly since: number;
      readonly by?: string;
      readonly failure?: FailureReason;
    }
  /**
   * Every node that had the version is served the previous one again; `waiting` are those
   * connected that have not ACKed it yet, for at most until `until`.
   */
  | {
      readonly t: "rolling-back";
      readonly since: number;
      readonly until: number;
      readonly waiting: readonly string[];
      readonly outcome: RollbackOutcome;
    }
  | { readonly t: "completed"; readonly at: number }
  | {
      readonly t: "failed";
      readonly at: number;
      readonly reason: FailureReason;
      /** Nodes sent the previous version back that had not ACKed it by the rollback's end. */
      readonly unconfirmed: readonly string[];
    }
  | {
      readonly t: "aborted";
      readonly at: number;
      readonly by: string;
      /** The failure the rollout was paused on, when it was. */
      readonly after?: FailureReason;
      readonly unconfirmed: readonly string[];
    };

export type RollbackOutcome =
  | { readonly t: "failed"; readonly reason: FailureReason }
  | { readonly t: "aborted"; readonly by: string; readonly after?: FailureReason };

/** One wave on the timeline. */
export interface WaveRecord {
  readonly wave: number;
  /** When it (last) started: a resume starts the wave again. */
  readonly startedAt: number;
  readonly bakingSince?: number;
  readonly endedAt?: number;
  readonly ended?: "passed" | "promoted" | "failed" | "paused" | "aborted";
  /** Nodes it sent the version to (the new ones: earlier waves' nodes are not counted again). */
  readonly sent: number;
}

export interface RolloutState {
  readonly id: string;
  /** The node group the rollout is in. */
  readonly group: string;
  readonly plan: RolloutPlan;
  /** What the group ran before: served to every node not yet reached, and after a rollback. */
  readonly fromVersion: number;
  readonly toVersion: number;
  /** The clusters the version touched (the traffic gate's). */
  readonly clusters: readonly string[];
  readonly startedAt: number;
  /** The latest time an event brought: time never goes back, whatever the events say. */
  readonly now: number;
  readonly nodes: { readonly [nodeId: string]: NodeEntry };
  readonly phase: RolloutPhase;
  /** Load of the touched clusters since the current wave began baking, canary and control. */
  readonly traffic: TrafficSides;
  /** Per cluster, the control group's totals of the last wave that had `minRequests` of them. */
  readonly baseline: { readonly [cluster: string]: Counts };
  readonly waves: readonly WaveRecord[];
}

export interface RolloutStart {
  readonly id: string;
  readonly group: string;
  readonly plan: RolloutPlan;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly clusters: readonly string[];
  /** The group's connected nodes at the publish. */
  readonly nodes: readonly GroupNode[];
  readonly now: number;
}

/** Something that happened, at `now` (ms since the epoch, the caller's clock). */
export type RolloutEvent =
  | { readonly t: "tick"; readonly now: number }
  | { readonly t: "connect"; readonly now: number; readonly node: GroupNode }
  | { readonly t: "disconnect"; readonly now: number; readonly nodeId: string }
  | { readonly t: "ack"; readonly now: number; readonly nodeId: string; readonly version: number }
  | {
      readonly t: "nack";
      readonly now: number;
      readonly nodeId: string;
      readonly version: number;
      /** The client's error_detail message. */
      readonly detail: string;
    }
  /**
   * The touched clusters' load reported in [from, to); counted only when the window starts at
   * or after the current wave began baking, so that both sides cover the same time.
   */
  | {
      readonly t: "load";
      readonly now: number;
      readonly from: number;
      readonly to: number;
      readonly samples: readonly LoadSample[];
    }
  | { readonly t: "pause"; readonly now: number; readonly by: string }
  | { readonly t: "resume"; readonly now: number; readonly by: string }
  | { readonly t: "promote"; readonly now: number; readonly by: string }
  | { readonly t: "abort"; readonly now: number; readonly by: string };

export type AuditKind =
  | "wave-started"
  | "baking"
  | "paused"
  | "resumed"
  | "promoted"
  | "rolling-back"
  | "completed"
  | "failed"
  | "aborted";

/** What the caller must do, in order, once the new state is stored. */
export type RolloutAction =
  /** Push `version` to these (connected) nodes now; `versionFor` says the same from then on. */
  | { readonly t: "send"; readonly version: number; readonly nodeIds: readonly string[] }
  /**
   * The rollout is over: the group serves `version` to every node, and the per-node versions
   * of the rollout are dropped.
   */
  | { readonly t: "settle"; readonly version: number }
  /** One per transition: an audit event and a metric. */
  | {
      readonly t: "audit";
      readonly at: number;
      readonly kind: AuditKind;
      readonly wave?: number;
      readonly by?: string;
      readonly reason?: FailureReason;
      readonly message: string;
    };

export interface RolloutStep {
  readonly state: RolloutState;
  readonly actions: readonly RolloutAction[];
  /** Why a person's command did nothing (pause when paused, anything once ended). */
  readonly refused?: string;
}

export function isActive(
  phase: RolloutPhase,
): phase is Extract<RolloutPhase, { t: "applying" | "baking" | "paused" }> {
  return phase.t === "applying" || phase.t === "baking" || phase.t === "paused";
}

export function hasEnded(phase: RolloutPhase): boolean {
  return phase.t === "completed" || phase.t === "failed" || phase.t === "aborted";
}

/**
 * The version `nodeId` is to be served now: the new one once its wave reached it, the previous
 * one before that, and to every node once a rollback began; the new one to all once completed.
 */
export function versionFor(state: RolloutState, nodeId: string): number {
  switch (state.phase.t) {
    case "completed":
      return state.toVersion;
    case "rolling-back":
    case "failed":
    case "aborted":
      return state.fromVersion;
    default:
      return state.nodes[nodeId]?.sent ? state.toVersion : state.fromVersion;
  }
}
