/**
 * The rollout state machine: `startRollout` and `step(state, event)`, pure and deterministic
 * (time is the events' `now`; nothing here reads a clock, sets a timer or does I/O). The caller
 * (one replica at a time, under the lease) stores the new state, then carries out its actions:
 * `send` a version to nodes, `settle` the group on one version at the end, record each `audit`.
 *
 * The course of a rollout:
 *
 * - A wave starts (applying): it is sent to the nodes waves.ts adds to reach its share of the
 *   nodes connected then. A node that connects later is served the previous version until a
 *   wave reaches it: a wave starts whose share takes it by its hash, or it connects while the
 *   current wave is short of its share (too few nodes were connected when it started, some of
 *   its nodes left, or it is the last wave, 100%). A node that has the version keeps it when
 *   it reconnects, and must ACK it again.
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
import { addSides, splitLoad } from "./gates.js";
import {
  hasEnded,
  isActive,
  type NodeEntry,
  type RolloutAction,
  type RolloutEvent,
  type RolloutPhase,
  type RolloutStart,
  type RolloutState,
  type RolloutStep,
} from "./rollout-state.js";
import { draftOf, Transition } from "./transition.js";
import { firstWaveSelector, type GroupNode, matchesSelector } from "./waves.js";

/** Applies `event` to the step; a refused command changes nothing at all, and says why. */
function apply(t: Transition, event: RolloutEvent): string | undefined {
  const { draft } = t;
  const refused = refusal(draft.phase, event);
  if (refused !== undefined) return refused;
  draft.now = Math.max(draft.now, event.now);
  if (hasEnded(draft.phase)) return undefined;
  switch (event.t) {
    case "tick":
      break;
    case "connect":
      connect(t, event.node);
      break;
    case "disconnect":
      disconnect(t, event.nodeId);
      break;
    case "ack":
    case "nack":
      answer(t, event);
      break;
    case "load":
      load(t, event);
      break;
    case "pause":
    case "resume":
    case "promote":
    case "abort":
      command(t, event);
      break;
  }
  t.evaluate();
  return undefined;
}

/**
 * A node connects (or again). One that has the version keeps it and must ACK it again; one
 * without it is sent it when the current wave takes it (Transition.takes), else it stays on the
 * previous version until a wave does. When it is the first connected node to have the version,
 * a wave that was baking with none goes back to applying: it baked on nothing.
 */
function connect(t: Transition, node: GroupNode): void {
  const { draft } = t;
  const selector = firstWaveSelector(draft.plan);
  const base: NodeEntry = draft.nodes[node.id] ?? { connected: true };
  const { selected: _, ...rest } = base;
  const entry: NodeEntry = {
    ...rest,
    connected: true,
    ...(selector && matchesSelector(selector, node) ? { selected: true } : {}),
  };
  const { phase } = draft;
  if (!isActive(phase)) {
    t.setEntry(node.id, entry);
    return;
  }
  if (entry.sent) {
    // Served its wave's version again, it must ACK it again: a proxy that crashes on the
    // version and restarts must not pass the ACK gate on its first ACK.
    t.setEntry(node.id, { ...entry, sent: { ...entry.sent, at: t.now, ack: { t: "pending" } } });
    return;
  }
  t.setEntry(node.id, entry);
  if (phase.t === "paused" || !t.takes(phase.wave, node.id)) return;
  const first = t.counts.reached === 0;
  t.markSent(node.id, phase.wave);
  t.record(phase.wave, { sent: (draft.waves.at(-1)?.sent ?? 0) + 1 });
  t.actions.push({ t: "send", version: draft.toVersion, nodeIds: [node.id] });
  if (first && phase.t === "baking")
    draft.phase = { t: "applying", wave: phase.wave, since: t.now };
}

function disconnect(t: Transition, nodeId: string): void {
  const { draft } = t;
  const entry = draft.nodes[nodeId];
  if (!entry) return;
  t.setEntry(nodeId, { ...entry, connected: false });
  const { phase } = draft;
  if (phase.t === "rolling-back" && phase.waiting.includes(nodeId))
    draft.phase = { ...phase, waiting: phase.waiting.filter((id) => id !== nodeId) };
}

function answer(t: Transition, event: Extract<RolloutEvent, { t: "ack" | "nack" }>): void {
  const { draft } = t;
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
      ? ({ t: "acked", at: t.now } as const)
      : ({ t: "nacked", at: t.now, detail: event.detail } as const);
  t.setSent(event.nodeId, { ...entry.sent, ack });
}

function load(t: Transition, event: Extract<RolloutEvent, { t: "load" }>): void {
  const { draft } = t;
  const { phase } = draft;
  if (phase.t !== "baking" || event.from < phase.since) return;
  const sides = splitLoad(event.samples, draft.clusters, (nodeId) => {
    const entry = draft.nodes[nodeId];
    if (!entry) return undefined;
    return entry.sent ? "canary" : "control";
  });
  draft.traffic = addSides(draft.traffic, sides);
}

function command(
  t: Transition,
  event: Extract<RolloutEvent, { t: "pause" | "resume" | "promote" | "abort" }>,
): void {
  const { draft } = t;
  const { phase } = draft;
  if (!isActive(phase)) return;
  const by = event.by;
  switch (event.t) {
    case "pause":
      if (phase.t === "paused") return;
      draft.phase = { t: "paused", wave: phase.wave, since: t.now, by };
      t.audit("paused", `wave ${phase.wave} paused by ${by}`, { wave: phase.wave, by });
      return;
    case "resume":
      if (phase.t !== "paused") return;
      restartClocks(t);
      t.audit("resumed", `wave ${phase.wave} resumed by ${by}`, { wave: phase.wave, by });
      t.startWave(phase.wave);
      return;
    case "promote":
      t.advance(phase.wave, "promoted", `wave ${phase.wave} promoted by ${by}`, by);
      return;
    case "abort":
      t.record(phase.wave, { endedAt: t.now, ended: "aborted" });
      t.rollBack({
        t: "aborted",
        by,
        ...(phase.t === "paused" && phase.failure ? { after: phase.failure } : {}),
      });
      return;
  }
}

/** A resumed wave gives the nodes that have not ACKed a fresh ACK timeout. */
function restartClocks(t: Transition): void {
  for (const [id, entry] of Object.entries(t.draft.nodes))
    if (entry.sent?.ack.t === "pending") t.setSent(id, { ...entry.sent, at: t.now });
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
  const refused = apply(transition, event);
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
    const refused = apply(transition, event);
    if (refused !== undefined) refusals.push(refused);
  }
  return { state: transition.draft, actions: transition.actions, refusals };
}
