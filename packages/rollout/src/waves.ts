/**
 * Which nodes a wave reaches. The group's nodes are put in one order that does not depend on
 * when they connected or how they were listed: by the SHA-256 of the node id (ties, which would
 * need a collision, by id). Wave k reaches the first T(k) nodes of that order, where T(k) is the
 * largest share of waves 1..k: a count (at most the nodes there are) or ceil(p% × the connected
 * nodes). When wave 1 is a node selector, the nodes it matches come first (in hash order among
 * themselves) and T(1) is how many it matches. Since T never shrinks as k grows, a node in wave k
 * is in every later wave; since the order is by hash, the same nodes go first in every rollout,
 * and a node that connects later takes its hash's place without moving the others.
 *
 * `nodesInWaves` is the rule on a fixed set of nodes. A running rollout (machine.ts) meets nodes
 * that come and go: it never takes the version back from a node that has it, and fills each new
 * wave up to T(k) with the next nodes of the order that do not have it yet (`fillWave`), and
 * with a node that connects while the wave is short of T(k); on a set of nodes that does not
 * change, the two agree (machine.spec.ts, "reaches the nodes nodesInWaves names").
 */
import { createHash } from "node:crypto";
import { minimatch } from "minimatch";
import type { NodeSelector, RolloutPlan, WaveShare } from "./plan.js";

/** A connected node of the group, as far as choosing waves reads it. */
export interface GroupNode {
  readonly id: string;
  /** Its locality zone ("" when it sent none). */
  readonly zone: string;
  /** Top-level string values of its metadata. */
  readonly metadata: { readonly [key: string]: string };
}

/** The node's place in the order: the hex SHA-256 of its id. */
export function orderKey(id: string): string {
  return createHash("sha256").update(id, "utf8").digest("hex");
}

function compareKeyed(a: { key: string; id: string }, b: { key: string; id: string }): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `ids` in the rollout order (each once). */
export function hashOrder(ids: Iterable<string>): string[] {
  return [...new Set(ids)]
    .map((id) => ({ id, key: orderKey(id) }))
    .sort(compareKeyed)
    .map((entry) => entry.id);
}

/**
 * Ids are globs (minimatch, with `*` and `?` matching any character but "/", as in a path;
 * `dot` so that a leading "." is not special); the zone and every metadata pair are exact.
 */
export function matchesSelector(selector: NodeSelector, node: GroupNode): boolean {
  if (
    selector.ids.length > 0 &&
    !selector.ids.some((glob) =>
      minimatch(node.id, glob, { dot: true, nocomment: true, nonegate: true }),
    )
  )
    return false;
  if (selector.zone !== undefined && node.zone !== selector.zone) return false;
  return Object.entries(selector.metadata).every(([key, value]) => node.metadata[key] === value);
}

/**
 * How many of `connected` nodes a share reaches on its own: a count (at most the nodes there
 * are), or ceil(p% × connected). `selected` is what a selector matched. The product is taken
 * less a hair because 10% × 30 is 3.0000000000000004 in floating point; a true fraction of a
 * percentage with at most a few decimals of a whole number of nodes is never that close above
 * a whole number.
 */
export function shareSize(share: WaveShare, connected: number, selected: number): number {
  switch (share.t) {
    case "count":
      return Math.min(share.count, connected);
    case "percent":
      return Math.max(0, Math.min(connected, Math.ceil((share.percent * connected) / 100 - 1e-9)));
    case "selector":
      return selected;
  }
}

/** T(k): how many nodes waves 1..k reach together (`wave` counts from 1). */
export function waveTarget(
  plan: RolloutPlan,
  wave: number,
  connected: number,
  selected: number,
): number {
  let target = 0;
  for (const w of plan.waves.slice(0, wave))
    target = Math.max(target, shareSize(w.share, connected, selected));
  return target;
}

/** The selector of wave 1, when wave 1 is one. */
export function firstWaveSelector(plan: RolloutPlan): NodeSelector | undefined {
  const first = plan.waves[0]?.share;
  return first?.t === "selector" ? first.selector : undefined;
}

/** Every node of `nodes` in the rollout order: the selector's matches first, then by hash. */
export function rolloutOrder(plan: RolloutPlan, nodes: readonly GroupNode[]): string[] {
  const selector = firstWaveSelector(plan);
  if (!selector) return hashOrder(nodes.map((n) => n.id));
  const selected = nodes.filter((n) => matchesSelector(selector, n)).map((n) => n.id);
  const chosen = new Set(selected);
  return [
    ...hashOrder(selected),
    ...hashOrder(nodes.map((n) => n.id).filter((id) => !chosen.has(id))),
  ];
}

/** The nodes of waves 1..`wave` among `nodes` (all connected), in the rollout order. */
export function nodesInWaves(
  plan: RolloutPlan,
  nodes: readonly GroupNode[],
  wave: number,
): string[] {
  const selector = firstWaveSelector(plan);
  const ids = new Set(nodes.map((n) => n.id));
  const selected = selector ? nodes.filter((n) => matchesSelector(selector, n)).length : 0;
  return rolloutOrder(plan, nodes).slice(0, waveTarget(plan, wave, ids.size, selected));
}

/**
 * The nodes a wave adds to a running rollout: of `candidates` (connected nodes without the
 * version, in the rollout order), as many as it takes for `reached` (connected nodes that have
 * it) to come to `target`; none when they already do.
 */
export function fillWave(candidates: readonly string[], reached: number, target: number): string[] {
  return candidates.slice(0, Math.max(0, target - reached));
}
