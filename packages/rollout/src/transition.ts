/**
 * One step of a rollout while it is computed (machine.ts): a draft of the next state, copied
 * once from the stored one and then changed in place, and the actions the step calls for. It
 * holds the course of a rollout: a wave starts (filled up to its share, waves.ts), its gates are
 * evaluated (gates.ts) until it bakes and passes, fails or is promoted, and a failure rolls back
 * or pauses as the plan says; machine.ts turns events into calls of these.
 */

import { AckLedger, type Sent } from "./ack-ledger.js";
import { trafficVerdictOf } from "./gate-status.js";
import type { AckVerdict, TrafficVerdict } from "./gates.js";
import type { WavePlan } from "./plan.js";
import { describeFailure, type FailureReason } from "./reasons.js";
import type {
  AuditKind,
  NodeEntry,
  RollbackOutcome,
  RolloutAction,
  RolloutPhase,
  RolloutState,
  WaveRecord,
} from "./rollout-state.js";
import { fillWave, hashOrder, waveTarget } from "./waves.js";

/** The next state while a step builds it: its own copies of the node table and the timeline. */
export type Draft = {
  -readonly [K in Exclude<keyof RolloutState, "nodes" | "waves">]: RolloutState[K];
} & {
  nodes: { [nodeId: string]: NodeEntry };
  waves: WaveRecord[];
};

/** Connected nodes, and of them those that have the version and those wave 1's selector matched. */
export interface NodeCounts {
  connected: number;
  reached: number;
  selected: number;
}

function countsOf(nodes: { readonly [nodeId: string]: NodeEntry }): NodeCounts {
  const counts = { connected: 0, reached: 0, selected: 0 };
  for (const entry of Object.values(nodes)) {
    if (!entry.connected) continue;
    counts.connected += 1;
    if (entry.sent) counts.reached += 1;
    if (entry.selected) counts.selected += 1;
  }
  return counts;
}

/** One step's work: a draft of the next state (copied once, then changed) and the actions. */
export class Transition {
  readonly actions: RolloutAction[] = [];
  #ledger: AckLedger | undefined;
  #counts: NodeCounts | undefined;

  constructor(readonly draft: Draft) {}

  get now(): number {
    return this.draft.now;
  }

  wavePlan(wave: number): WavePlan {
    const plan = this.draft.plan.waves[wave - 1];
    if (!plan) throw new Error(`rollout ${this.draft.id} has no wave ${wave}`);
    return plan;
  }

  audit(
    kind: AuditKind,
    message: string,
    extra: { wave?: number; by?: string; reason?: FailureReason } = {},
  ) {
    this.actions.push({ t: "audit", at: this.now, kind, ...extra, message });
  }

  /** Replaces the timeline's record of `wave` (the latest one of that wave). */
  record(wave: number, change: Partial<WaveRecord>): void {
    const i = this.draft.waves.findLastIndex((r) => r.wave === wave);
    const known = this.draft.waves[i];
    if (known) this.draft.waves[i] = { ...known, ...change };
  }

  connectedIds(): string[] {
    return Object.keys(this.draft.nodes).filter((id) => this.draft.nodes[id]?.connected);
  }

  /** Starts `wave` (or starts it again, on resume): fills it to its share, then evaluates. */
  startWave(wave: number): void {
    const { draft } = this;
    const plan = this.wavePlan(wave);
    const connected = this.connectedIds();
    const isSent = (id: string) => draft.nodes[id]?.sent !== undefined;
    const isSelected = (id: string) => draft.nodes[id]?.selected === true;
    const reached = connected.filter(isSent).length;
    const selected = connected.filter(isSelected);
    if (plan.share.t === "selector" && selected.length === 0 && reached === 0) {
      draft.phase = { t: "applying", wave, since: this.now };
      if (draft.waves.at(-1)?.wave !== wave)
        draft.waves.push({ wave, startedAt: this.now, sent: 0 });
      this.fail({ t: "empty-selector", group: draft.group });
      return;
    }
    const unsent = connected.filter((id) => !isSent(id));
    const candidates = [
      ...hashOrder(unsent.filter(isSelected)),
      ...hashOrder(unsent.filter((id) => !isSelected(id))),
    ];
    const target =
      plan.share.t === "selector"
        ? reached + candidates.filter(isSelected).length
        : waveTarget(draft.plan, wave, connected.length, selected.length);
    const added = fillWave(candidates, reached, target);
    for (const id of added) this.markSent(id, wave);
    draft.phase = { t: "applying", wave, since: this.now };
    draft.traffic = {};
    const restarted = draft.waves.at(-1)?.wave === wave;
    if (restarted) {
      const known = draft.waves.at(-1);
      this.record(wave, { startedAt: this.now, sent: (known?.sent ?? 0) + added.length });
    } else draft.waves.push({ wave, startedAt: this.now, sent: added.length });
    if (added.length > 0)
      this.actions.push({ t: "send", version: draft.toVersion, nodeIds: added });
    const of = draft.plan.waves.length;
    this.audit(
      "wave-started",
      `wave ${wave} of ${of}${restarted ? " again" : ""}: version ${draft.toVersion} sent to ${added.length} more node(s); ${reached + added.length} of ${connected.length} connected have it`,
      { wave },
    );
  }

  markSent(nodeId: string, wave: number): void {
    this.setSent(nodeId, { wave, at: this.now, ack: { t: "pending" } });
  }

  /** The ACK ledger of the draft, made on first use and kept in step by `setSent`. */
  get ledger(): AckLedger {
    this.#ledger ??= AckLedger.of(this.draft.nodes);
    return this.#ledger;
  }

  /** How many nodes are connected, and how many of them have the version or match wave 1's selector. */
  get counts(): NodeCounts {
    this.#counts ??= countsOf(this.draft.nodes);
    return this.#counts;
  }

  /**
   * Replaces `nodeId`'s entry: every change of the node table goes through here, so that the
   * ACK ledger and the counts stay in step with it.
   */
  setEntry(nodeId: string, next: NodeEntry): void {
    const before = this.draft.nodes[nodeId];
    this.draft.nodes[nodeId] = next;
    if (next.sent && next.sent !== before?.sent)
      this.#ledger?.update(nodeId, before?.sent, next.sent);
    const counts = this.#counts;
    if (!counts) return;
    const one = (entry: NodeEntry | undefined, what: (e: NodeEntry) => boolean) =>
      entry?.connected && what(entry) ? 1 : 0;
    counts.connected += one(next, () => true) - one(before, () => true);
    counts.reached +=
      one(next, (e) => e.sent !== undefined) - one(before, (e) => e.sent !== undefined);
    counts.selected +=
      one(next, (e) => e.selected === true) - one(before, (e) => e.selected === true);
  }

  /** Records what `nodeId` was sent and its answer. */
  setSent(nodeId: string, sent: Sent): void {
    this.setEntry(nodeId, { ...(this.draft.nodes[nodeId] ?? { connected: true }), sent });
  }

  /**
   * Whether the current `wave` takes `nodeId`, connected and without the version: a selector
   * wave takes the nodes it matches; a share takes nodes while it is short of its share of the
   * connected nodes (it started with too few connected, or some of its nodes left).
   */
  takes(wave: number, nodeId: string): boolean {
    const { share } = this.wavePlan(wave);
    if (share.t === "selector") return this.draft.nodes[nodeId]?.selected === true;
    const { connected, reached, selected } = this.counts;
    return reached < waveTarget(this.draft.plan, wave, connected, selected);
  }

  ackVerdict(wave: number): AckVerdict {
    return this.ledger.verdict({
      timeoutMs: this.wavePlan(wave).ackTimeoutMs,
      now: this.now,
      wave,
      version: this.draft.toVersion,
      connected: (nodeId) => this.draft.nodes[nodeId]?.connected === true,
    });
  }

  trafficVerdict(wave: number): TrafficVerdict | undefined {
    return trafficVerdictOf(this.draft, wave);
  }

  /** Decides what the time and the observations call for; repeats until nothing changes. */
  evaluate(): void {
    for (;;) {
      const before = this.draft.phase;
      this.#evaluateOnce();
      if (this.draft.phase === before) return;
    }
  }

  #evaluateOnce(): void {
    const { phase } = this.draft;
    if (phase.t === "rolling-back") {
      if (phase.waiting.length === 0 || this.now >= phase.until) this.#endRollback(phase);
      return;
    }
    if (phase.t !== "applying" && phase.t !== "baking") return;
    const ack = this.ackVerdict(phase.wave);
    if (ack.t === "fail") {
      this.fail(ack.reason);
      return;
    }
    if (phase.t === "applying") {
      if (ack.t !== "pass") return;
      this.draft.phase = { t: "baking", wave: phase.wave, since: this.now };
      this.draft.traffic = {};
      this.record(phase.wave, { bakingSince: this.now });
      this.audit(
        "baking",
        `wave ${phase.wave}: every node that has version ${this.draft.toVersion} ACKed it; baking`,
        {
          wave: phase.wave,
        },
      );
      return;
    }
    const traffic = this.trafficVerdict(phase.wave);
    if (traffic?.t === "fail") {
      this.fail(traffic.reason);
      return;
    }
    const plan = this.wavePlan(phase.wave);
    if (this.now < phase.since + plan.bakeMs || ack.t !== "pass") return;
    if (traffic?.t === "waiting" && plan.traffic?.withoutTraffic === "fail") {
      this.fail({
        t: "no-traffic",
        wave: phase.wave,
        version: this.draft.toVersion,
        minRequests: plan.traffic.minRequests,
        clusters: traffic.clusters.filter((c) => traffic.short.includes(c.cluster)),
      });
      return;
    }
    const short =
      traffic?.t === "waiting"
        ? ` (without enough traffic to judge: ${traffic.short.join(", ")})`
        : "";
    this.advance(phase.wave, "passed", `wave ${phase.wave} passed its gates${short}`);
  }

  /** Ends `wave` and starts the next, or completes the rollout after the last. */
  advance(wave: number, ended: "passed" | "promoted", message: string, by?: string): void {
    const { draft } = this;
    this.record(wave, { endedAt: this.now, ended });
    const gate = this.wavePlan(wave).traffic;
    if (gate)
      for (const [cluster, sides] of Object.entries(draft.traffic))
        if (sides.control.requests >= gate.minRequests)
          draft.baseline = { ...draft.baseline, [cluster]: sides.control };
    this.audit("promoted", message, { wave, ...(by !== undefined ? { by } : {}) });
    if (wave >= draft.plan.waves.length) {
      draft.phase = { t: "completed", at: this.now };
      this.actions.push({ t: "settle", version: draft.toVersion });
      this.audit(
        "completed",
        `version ${draft.toVersion} reached every node of group "${draft.group}"`,
      );
      return;
    }
    this.startWave(wave + 1);
  }

  /** A gate failed: roll back, or pause, as the plan says. */
  fail(reason: FailureReason): void {
    const { phase } = this.draft;
    const wave = "wave" in phase ? phase.wave : this.draft.plan.waves.length;
    if (this.draft.plan.onFailure === "pause") {
      this.record(wave, { endedAt: this.now, ended: "paused" });
      this.draft.phase = { t: "paused", wave, since: this.now, failure: reason };
      this.audit("paused", `paused: ${describeFailure(reason)}`, { wave, reason });
      return;
    }
    this.record(wave, { endedAt: this.now, ended: "failed" });
    this.rollBack({ t: "failed", reason });
  }

  rollBack(outcome: RollbackOutcome): void {
    const { draft } = this;
    const had = Object.keys(draft.nodes)
      .filter((id) => draft.nodes[id]?.sent)
      .sort();
    const waiting = had.filter((id) => draft.nodes[id]?.connected);
    const longest = Math.max(...draft.plan.waves.map((w) => w.ackTimeoutMs));
    draft.phase = {
      t: "rolling-back",
      since: this.now,
      until: this.now + longest,
      waiting,
      outcome,
    };
    if (waiting.length > 0)
      this.actions.push({ t: "send", version: draft.fromVersion, nodeIds: waiting });
    const why =
      outcome.t === "failed" ? describeFailure(outcome.reason) : `aborted by ${outcome.by}`;
    this.audit(
      "rolling-back",
      `rolling ${had.length} node(s) back to version ${draft.fromVersion}: ${why}`,
      {
        ...(outcome.t === "failed" ? { reason: outcome.reason } : { by: outcome.by }),
      },
    );
  }

  #endRollback(phase: Extract<RolloutPhase, { t: "rolling-back" }>): void {
    const { draft } = this;
    const { outcome, waiting } = phase;
    const unconfirmed = [...waiting];
    const note =
      unconfirmed.length > 0 ? `; ${unconfirmed.length} node(s) did not confirm the rollback` : "";
    this.actions.push({ t: "settle", version: draft.fromVersion });
    if (outcome.t === "failed") {
      draft.phase = { t: "failed", at: this.now, reason: outcome.reason, unconfirmed };
      this.audit("failed", `${describeFailure(outcome.reason)}${note}`, { reason: outcome.reason });
    } else {
      draft.phase = {
        t: "aborted",
        at: this.now,
        by: outcome.by,
        ...(outcome.after ? { after: outcome.after } : {}),
        unconfirmed,
      };
      this.audit(
        "aborted",
        `aborted by ${outcome.by}; group "${draft.group}" is back on version ${draft.fromVersion}${note}`,
        {
          by: outcome.by,
        },
      );
    }
  }
}

/** A draft of the step after `state`, sharing nothing with it that the step changes. */
export function draftOf(state: RolloutState): Draft {
  return { ...state, nodes: { ...state.nodes }, waves: [...state.waves] };
}
