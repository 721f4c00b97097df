/**
 * The ACK gate's inputs kept up to date within one step, so that an event costs O(1) instead of
 * a pass over every node: a wave of 9,000 ACKs given to `stepAll` is 9,000 updates, not 9,000
 * passes over 10,000 nodes. It gives the same verdict as `ackGate` on the same nodes
 * (ack-ledger.spec.ts); gate-status.ts keeps using `ackGate` itself.
 *
 * Pending nodes are kept in a Map in the order they were sent: a node is (re)sent the version
 * only at the step's `now`, which never goes back, so the Map's insertion order is the order of
 * their deadlines, and the first entry is the earliest.
 */
import type { AckStatus, AckVerdict } from "./gates.js";
import type { NodeEntry } from "./rollout-state.js";

/** What a node was sent, and its answer. */
export type Sent = NonNullable<NodeEntry["sent"]>;

export class AckLedger {
  #acked = 0;
  /** nodeId → sent at, earliest first. */
  readonly #pending = new Map<string, number>();
  readonly #nacked = new Map<string, { readonly at: number; readonly detail: string }>();

  /** The ledger of `nodes` as they are. */
  static of(nodes: { readonly [nodeId: string]: NodeEntry }): AckLedger {
    const ledger = new AckLedger();
    const pending: [string, number][] = [];
    for (const [nodeId, entry] of Object.entries(nodes)) {
      const sent = entry.sent;
      if (!sent) continue;
      if (sent.ack.t === "pending") pending.push([nodeId, sent.at]);
      else ledger.#add(nodeId, sent);
    }
    pending.sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : a > b ? 1 : 0));
    for (const [nodeId, at] of pending) ledger.#pending.set(nodeId, at);
    return ledger;
  }

  #add(nodeId: string, sent: Sent): void {
    const { ack } = sent;
    if (ack.t === "acked") this.#acked += 1;
    else if (ack.t === "nacked") this.#nacked.set(nodeId, { at: ack.at, detail: ack.detail });
    else this.#pending.set(nodeId, sent.at);
  }

  #remove(nodeId: string, ack: AckStatus): void {
    if (ack.t === "acked") this.#acked -= 1;
    else if (ack.t === "nacked") this.#nacked.delete(nodeId);
    else this.#pending.delete(nodeId);
  }

  /** `nodeId` went from `before` (undefined: not sent) to `after`, sent at the step's now. */
  update(nodeId: string, before: Sent | undefined, after: Sent): void {
    if (before) this.#remove(nodeId, before.ack);
    this.#add(nodeId, after);
  }

  verdict(input: {
    readonly timeoutMs: number;
    readonly now: number;
    readonly wave: number;
    readonly version: number;
    readonly connected: (nodeId: string) => boolean;
  }): AckVerdict {
    const { timeoutMs, now, wave, version } = input;
    let first: { nodeId: string; at: number; detail: string } | undefined;
    for (const [nodeId, nack] of this.#nacked)
      if (!first || nack.at < first.at || (nack.at === first.at && nodeId < first.nodeId))
        first = { nodeId, ...nack };
    if (first)
      return {
        t: "fail",
        reason: { t: "nack", wave, version, nodeId: first.nodeId, detail: first.detail },
      };
    const late: string[] = [];
    for (const [nodeId, sentAt] of this.#pending) {
      if (sentAt + timeoutMs > now) break;
      late.push(nodeId);
    }
    if (late.length > 0) {
      late.sort();
      const disconnected = late.filter((id) => !input.connected(id));
      return {
        t: "fail",
        reason: { t: "ack-timeout", wave, version, timeoutMs, nodeIds: late, disconnected },
      };
    }
    const earliest = this.#pending.values().next();
    if (!earliest.done)
      return {
        t: "waiting",
        acked: this.#acked,
        pending: this.#pending.size,
        deadline: earliest.value + timeoutMs,
      };
    return { t: "pass", acked: this.#acked };
  }
}
