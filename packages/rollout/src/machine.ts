/**
 * The rollout state machine: `startRollout` and `step(state, event)`, pure and deterministic
 * (time is the events' `now`; nothing here reads a clock, sets a timer or does I/O). The caller
 * (one replica at a time, under the lease) stores the new state, then carries out its actions:
 * `send` a version to nodes, `settle` the group on one version at the end, record each `audit`.
 *
 * The course of a rollout:
 *
 * - A wave starts (applying): it is sent to the nodes waves.ts adds to reach its share of the
 *   nodes connected then. Nodes that connect later are served the previous version until a
 *   wave starts that reaches them, except in the last wave (100%), which any newcomer is in.
 *   A node that has the version keeps it when it reconnects, and must ACK it again.
 * - When every node that has the version has ACKed it, the wave bakes: after its bake time, if
 *   its gates pass (gates.ts), the next wave starts, or after the last the rollout completes.
 *   A NACK, a missed ACK deadline or the traffic gate's verdict fails the wave at once; a bake
 *   that ends short of traffic passes or fails as the plan's `withoutTraffic` says.
 * - A failure rolls back (every node that had the version is sent the previous one, waiting up
 *   to the ACK timeout for their ACKs, then failed) or, under `onFailure: pause`, pauses.
 * - People pause (nothing is decided while paused), resume (the wave starts again: it fills up
 *   to its share, and its gates and bake start afresh), promote now (the wave ends as passed)
 *   or abort (a rollback that ends as aborted). A command that does not apply is refused with
 *   the reason, and changes nothing.
 *
 * Tests: machine.spec.ts, one case per rule.
 */
import {
  type AckMember,
  type AckVerdict,
  ackGate,
  addSides,
  splitLoad,
  type TrafficVerdict,
  trafficGate,
} from "./gates.js";
import type { WavePlan } from "./plan.js";
import { describeFailure, type FailureReason } from "./reasons.js";
import {
  type AuditKind,
  hasEnded,
  isActive,
  type NodeEntry,
  type RollbackOutcome,
  type RolloutAction,
  type RolloutEvent,
  type RolloutPhase,
  type RolloutStart,
  type RolloutState,
  type RolloutStep,
  type WaveRecord,
} from "./rollout-state.js";
import { fillWave, firstWaveSelector, hashOrder, matchesSelector, waveTarget } from "./waves.js";

/** The next state while a step builds it: its own copies of the node table and the timeline. */
type Draft = {
  -readonly [K in Exclude<keyof RolloutState, "nodes" | "waves">]: RolloutState[K];
} & {
  nodes: { [nodeId: string]: NodeEntry };
  waves: WaveRecord[];
};

/** One step's work: a draft of the next state (copied once, then changed) and the actions. */
class Transition {
  readonly actions: RolloutAction[] = [];

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
    const entry = this.draft.nodes[nodeId] ?? { connected: true };
    this.draft.nodes[nodeId] = { ...entry, sent: { wave, at: this.now, ack: { t: "pending" } } };
  }

  members(): AckMember[] {
    return Object.entries(this.draft.nodes).flatMap(([nodeId, entry]) =>
      entry.sent
        ? [{ nodeId, sentAt: entry.sent.at, ack: entry.sent.ack, connected: entry.connected }]
        : [],
    );
  }

  ackVerdict(wave: number): AckVerdict {
    return ackGate({
      members: this.members(),
      timeoutMs: this.wavePlan(wave).ackTimeoutMs,
      now: this.now,
      wave,
      version: this.draft.toVersion,
    });
  }

  trafficVerdict(wave: number): TrafficVerdict | undefined {
    const gate = this.wavePlan(wave).traffic;
    if (!gate) return undefined;
    return trafficGate({
      clusters: this.draft.clusters,
      sides: this.draft.traffic,
      baseline: this.draft.baseline,
      maxErrorIncrease: gate.maxErrorIncrease,
      minRequests: gate.minRequests,
      wave,
      version: this.draft.toVersion,
    });
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

  /** Applies `event`; a refused command changes nothing at all, and says why. */
  apply(event: RolloutEvent): string | undefined {
    const { draft } = this;
    const refused = refusal(draft.phase, event);
    if (refused !== undefined) return refused;
    draft.now = Math.max(draft.now, event.now);
    if (hasEnded(draft.phase)) return undefined;
    switch (event.t) {
      case "tick":
        break;
      case "connect":
        this.#connect(event.node);
        break;
      case "disconnect":
        this.#disconnect(event.nodeId);
        break;
      case "ack":
      case "nack":
        this.#answer(event);
        break;
      case "load":
        this.#load(event);
        break;
      case "pause":
      case "resume":
      case "promote":
      case "abort":
        this.#command(event);
        break;
    }
    this.evaluate();
    return undefined;
  }

  #connect(node: RolloutStart["nodes"][number]): void {
    const { draft } = this;
    const selector = firstWaveSelector(draft.plan);
    const known = draft.nodes[node.id];
    const base: NodeEntry = known ?? { connected: true };
    const { selected: _, ...rest } = base;
    const entry: NodeEntry = {
      ...rest,
      connected: true,
      ...(selector && matchesSelector(selector, node) ? { selected: true } : {}),
    };
    draft.nodes[node.id] = entry;
    const { phase } = draft;
    if (!isActive(phase)) return;
    if (entry.sent) {
      // It is served its wave's version again, and must ACK it again: a proxy that crashes on
      // the version and restarts must not pass the ACK gate on its first ACK.
      draft.nodes[node.id] = {
        ...entry,
        sent: { ...entry.sent, at: this.now, ack: { t: "pending" } },
      };
    } else if (phase.t !== "paused" && phase.wave === draft.plan.waves.length) {
      this.markSent(node.id, phase.wave);
      this.record(phase.wave, { sent: (draft.waves.at(-1)?.sent ?? 0) + 1 });
      this.actions.push({ t: "send", version: draft.toVersion, nodeIds: [node.id] });
    }
  }

  #disconnect(nodeId: string): void {
    const { draft } = this;
    const entry = draft.nodes[nodeId];
    if (!entry) return;
    draft.nodes[nodeId] = { ...entry, connected: false };
    const { phase } = draft;
    if (phase.t === "rolling-back" && phase.waiting.includes(nodeId))
      draft.phase = { ...phase, waiting: phase.waiting.filter((id) => id !== nodeId) };
  }

  #answer(event: Extract<RolloutEvent, { t: "ack" | "nack" }>): void {
    const { draft } = this;
    const { phase } = draft;
    const entry = draft.nodes[event.nodeId];
    if (phase.t === "rolling-back") {
      if (
        event.t === "ack" &&
        event.version === draft.fromVersion &&
        phase.waiting.includes(event.nodeId)
      )
        draft.phase = { ...phase, waiting: phase.waiting.filter((id) => id !== event.nodeId) };
      return;
    }
    if (!entry?.sent || event.version !== draft.toVersion) return;
    const ack =
      event.t === "ack"
        ? ({ t: "acked", at: this.now } as const)
        : ({ t: "nacked", at: this.now, detail: event.detail } as const);
    draft.nodes[event.nodeId] = { ...entry, sent: { ...entry.sent, ack } };
  }

  #load(event: Extract<RolloutEvent, { t: "load" }>): void {
    const { draft } = this;
    const { phase } = draft;
    if (phase.t !== "baking" || event.from < phase.since) return;
    const sides = splitLoad(event.samples, draft.clusters, (nodeId) => {
      const entry = draft.nodes[nodeId];
      if (!entry) return undefined;
      return entry.sent ? "canary" : "control";
    });
    draft.traffic = addSides(draft.traffic, sides);
  }

  #command(event: Extract<RolloutEvent, { t: "pause" | "resume" | "promote" | "abort" }>): void {
    const { draft } = this;
    const { phase } = draft;
    if (!isActive(phase)) return;
    const by = event.by;
    switch (event.t) {
      case "pause":
        if (phase.t === "paused") return;
        draft.phase = { t: "paused", wave: phase.wave, since: this.now, by };
        this.audit("paused", `wave ${phase.wave} paused by ${by}`, { wave: phase.wave, by });
        return;
      case "resume":
        if (phase.t !== "paused") return;
        this.#restartClocks();
        this.audit("resumed", `wave ${phase.wave} resumed by ${by}`, { wave: phase.wave, by });
        this.startWave(phase.wave);
        return;
      case "promote":
        this.advance(phase.wave, "promoted", `wave ${phase.wave} promoted by ${by}`, by);
        return;
      case "abort":
        this.record(phase.wave, { endedAt: this.now, ended: "aborted" });
        this.rollBack({
          t: "aborted",
          by,
          ...(phase.t === "paused" && phase.failure ? { after: phase.failure } : {}),
        });
        return;
    }
  }

  /** A resumed wave gives the nodes that have not ACKed a fresh ACK timeout. */
  #restartClocks(): void {
    for (const [id, entry] of Object.entries(this.draft.nodes))
      if (entry.sent?.ack.t === "pending")
        this.draft.nodes[id] = { ...entry, sent: { ...entry.sent, at: this.now } };
  }
}

/** Why a person's command does not apply in `phase`; undefined for every other event. */
function refusal(phase: RolloutPhase, event: RolloutEvent): string | undefined {
  if (event.t !== "pause" && event.t !== "resume" && event.t !== "promote" && event.t !== "abort")
    return undefined;
  if (hasEnded(phase)) return `the rollout has ended (${phase.t})`;
  if (phase.t === "rolling-back") return "the rollout is rolling back";
  if (event.t === "pause" && phase.t === "paused") return "the rollout is paused already";
  if (event.t === "resume" && phase.t !== "paused") return "the rollout is not paused";
  return undefined;
}

function draftOf(state: RolloutState): Draft {
  return { ...state, nodes: { ...state.nodes }, waves: [...state.waves] };
}

/** A new rollout at its wave 1, with what to do first. */
export function startRollout(start: RolloutStart): RolloutStep {
  const selector = firstWaveSelector(start.plan);
  const nodes: { [nodeId: string]: NodeEntry } = {};
  for (const node of start.nodes)
    nodes[node.id] = {
      connected: true,
      ...(selector && matchesSelector(selector, node) ? { selected: true } : {}),
    };
  const transition = new Transition({
    id: start.id,
    group: start.group,
    plan: start.plan,
    fromVersion: start.fromVersion,
    toVersion: start.toVersion,
    clusters: [...new Set(start.clusters)].sort(),
    startedAt: start.now,
    now: start.now,
    nodes,
    phase: { t: "applying", wave: 1, since: start.now },
    traffic: {},
    baseline: {},
    waves: [],
  });
  transition.startWave(1);
  transition.evaluate();
  return { state: transition.draft, actions: transition.actions };
}

/** The state after `event`, and what to do. The same (state, event) always gives the same step. */
export function step(state: RolloutState, event: RolloutEvent): RolloutStep {
  const transition = new Transition(draftOf(state));
  const refused = transition.apply(event);
  return refused === undefined
    ? { state: transition.draft, actions: transition.actions }
    : { state, actions: [], refused };
}

/**
 * `events` in order, copying the state once (a wave of 10,000 ACKs is one call, not 10,000
 * copies of the node table): the same as folding `step`, with the refusals in order.
 */
export function stepAll(
  state: RolloutState,
  events: readonly RolloutEvent[],
): {
  readonly state: RolloutState;
  readonly actions: readonly RolloutAction[];
  readonly refusals: readonly string[];
} {
  const transition = new Transition(draftOf(state));
  const refusals: string[] = [];
  for (const event of events) {
    const refused = transition.apply(event);
    if (refused !== undefined) refusals.push(refused);
  }
  return { state: transition.draft, actions: transition.actions, refusals };
}
