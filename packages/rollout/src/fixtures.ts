/**
 * Builders for tests: nodes, plans, and a rollout driven by hand on a clock that moves only
 * when told. Every step the driver takes goes through JSON first, as the state would through
 * the database, so every test also checks that the state is plain data.
 */
import { startRollout, step } from "./machine.js";
import { type InlinePlanFlags, inlinePlan, type RolloutPlan } from "./plan.js";
import {
  type RolloutAction,
  type RolloutEvent,
  type RolloutState,
  type RolloutStep,
  versionFor,
} from "./rollout-state.js";
import type { GroupNode } from "./waves.js";

export const T0 = 1_700_000_000_000;
export const FROM = 7;
export const TO = 8;

export function groupNode(id: string, overrides: Partial<GroupNode> = {}): GroupNode {
  return { id, zone: "eu-west-1a", metadata: {}, ...overrides };
}

/** `count` nodes edge-0, edge-1, ... */
export function groupNodes(count: number, prefix = "edge-"): GroupNode[] {
  return Array.from({ length: count }, (_, i) => groupNode(`${prefix}${i}`));
}

/** A plan from `publish`'s flags; by default 1, 50%, 100% with a 1 min bake and 30 s ACKs. */
export function plan(flags: Partial<InlinePlanFlags> = {}): RolloutPlan {
  return inlinePlan({ waves: "1,50%,100%", bake: "1m", ackTimeout: "30s", ...flags });
}

/** `state` as it comes back from storage. */
export function roundTrip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A rollout in group "edge" from version 7 to 8, driven one event at a time. */
export class Driver {
  state: RolloutState;
  now: number;
  /** Every action of every step, in order. */
  readonly actions: RolloutAction[] = [];
  /** The last step's. */
  last: RolloutStep;

  constructor(
    rolloutPlan: RolloutPlan,
    nodes: readonly GroupNode[],
    options: { clusters?: readonly string[]; now?: number } = {},
  ) {
    this.now = options.now ?? T0;
    this.last = startRollout({
      id: "rollout-1",
      group: "edge",
      plan: rolloutPlan,
      fromVersion: FROM,
      toVersion: TO,
      clusters: options.clusters ?? ["shop"],
      nodes,
      now: this.now,
    });
    this.state = this.last.state;
    this.actions.push(...this.last.actions);
  }

  /** Applies `event` (at the driver's time unless it says otherwise) to the stored state. */
  send(event: RolloutEvent): RolloutStep {
    const stored = roundTrip(this.state);
    this.last = step(stored, event);
    this.state = this.last.state;
    this.actions.push(...this.last.actions);
    return this.last;
  }

  /** Moves the clock on by `ms` and ticks. */
  advance(ms: number): RolloutStep {
    this.now += ms;
    return this.send({ t: "tick", now: this.now });
  }

  ack(nodeIds: readonly string[], version = TO): void {
    for (const nodeId of nodeIds) this.send({ t: "ack", now: this.now, nodeId, version });
  }

  nack(nodeId: string, detail: string, version = TO): RolloutStep {
    return this.send({ t: "nack", now: this.now, nodeId, version, detail });
  }

  /** ACKs every node that has the new version and has not ACKed it. */
  ackAll(): void {
    this.ack(this.pending());
  }

  pending(): string[] {
    return Object.entries(this.state.nodes)
      .filter(([, entry]) => entry.sent?.ack.t === "pending")
      .map(([id]) => id)
      .sort();
  }

  /** Nodes served the new version now. */
  onNew(): string[] {
    return Object.keys(this.state.nodes)
      .filter((id) => versionFor(this.state, id) === TO)
      .sort();
  }

  /** Load of `cluster` over [from, now): `canary` and `control` as [requests, errored]. */
  load(
    perNode: { readonly [nodeId: string]: readonly [requests: number, errored: number] },
    options: { cluster?: string; from?: number } = {},
  ): RolloutStep {
    return this.send({
      t: "load",
      now: this.now,
      from: options.from ?? this.now - 10_000,
      to: this.now,
      samples: Object.entries(perNode).map(([nodeId, [requests, errored]]) => ({
        nodeId,
        cluster: options.cluster ?? "shop",
        successful: requests - errored,
        errored,
      })),
    });
  }

  kinds(): string[] {
    return this.actions.flatMap((a) => (a.t === "audit" ? [a.kind] : []));
  }
}

/**
 * A plan document whose YAML aliases would repeat a node 9^9 times ("billion laughs"): the yaml
 * package refuses it past its alias count, and so must everything that reads plans.
 */
export const ALIAS_BOMB_PLAN = [
  "a: &a [lol]",
  ...Array.from(
    { length: 9 },
    (_, i) =>
      `b${i}: &b${i} [${Array(9)
        .fill(i === 0 ? "*a" : `*b${i - 1}`)
        .join(", ")}]`,
  ),
  'waves: ["100%"]',
].join("\n");
