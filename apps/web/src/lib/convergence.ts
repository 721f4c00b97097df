import { Code, ConnectError } from "@connectrpc/connect";
import {
  type Convergence,
  type NodeConvergence,
  NodeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";

/**
 * A live convergence view's connection, as a tagged union:
 * - `connecting`: the watch was opened; nothing arrived yet.
 * - `live`: the stream delivers; `convergence` is the latest state.
 * - `snapshot`: the server cannot stream (an older server: WatchConvergence is unimplemented), so
 *   the view shows one read (GetConvergence) and offers to read again.
 * - `failed`: the watch (or the read) failed; `convergence` is the last state seen, if any.
 */
export type ConvergenceFeed =
  | { readonly t: "connecting" }
  | { readonly t: "live"; readonly convergence: Convergence }
  | { readonly t: "snapshot"; readonly convergence: Convergence | undefined; readonly at: Date }
  | {
      readonly t: "failed";
      readonly error: ConnectError;
      readonly convergence: Convergence | undefined;
    };

/** True when the server does not implement the streaming call (as opposed to it failing). */
export function isUnimplemented(error: unknown): boolean {
  return ConnectError.from(error).code === Code.Unimplemented;
}

/** The headline state of a rollout. */
export type RolloutState =
  /** No node is connected: nothing to converge. */
  | "no-nodes"
  /** Every targeted node ACKed the version. */
  | "converged"
  /** At least one node rejected it. */
  | "nacked"
  | "converging";

export interface RolloutSummary {
  readonly state: RolloutState;
  readonly targeted: number;
  readonly acked: number;
  readonly nacked: number;
  readonly pending: number;
  /** Shares of the targeted nodes, 0..100, for a stacked progress bar; they add up to 100. */
  readonly percent: { readonly acked: number; readonly nacked: number; readonly pending: number };
  /** Over the nodes connected when the version was published only. */
  readonly p50: string | undefined;
  readonly p99: string | undefined;
  /**
   * The ACKed nodes left out of p50/p99 because they connected after the publish, in words
   * ("and 2 nodes that connected later"); undefined when there are none.
   */
  readonly connectedLater: string | undefined;
  readonly headline: string;
}

/** "850 ms", "1.2 s", "2 min 5 s": a publish-to-ACK latency for people. */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1_000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

export function summarizeRollout(convergence: Convergence): RolloutSummary {
  const s = convergence.summary;
  const targeted = s?.targeted ?? 0;
  const acked = s?.acked ?? 0;
  const nacked = s?.nacked ?? 0;
  const pending = s?.pending ?? Math.max(0, targeted - acked - nacked);
  const share = (n: number) => (targeted === 0 ? 0 : (n / targeted) * 100);
  const state: RolloutState =
    targeted === 0
      ? "no-nodes"
      : nacked > 0
        ? "nacked"
        : acked >= targeted
          ? "converged"
          : "converging";
  const v = `version ${convergence.version}`;
  const nodes = (n: number) => `${n} ${n === 1 ? "node" : "nodes"}`;
  const headline = {
    "no-nodes": `No node is connected: ${v} will be sent to each proxy as it connects`,
    converged: `All ${nodes(targeted)} run ${v}`,
    nacked: `${nodes(nacked)} rejected ${v}`,
    converging: `${acked} of ${nodes(targeted)} run ${v}`,
  }[state];
  return {
    state,
    targeted,
    acked,
    nacked,
    pending,
    percent: { acked: share(acked), nacked: share(nacked), pending: share(pending) },
    p50: s?.p50Ms === undefined ? undefined : formatMs(s.p50Ms),
    p99: s?.p99Ms === undefined ? undefined : formatMs(s.p99Ms),
    connectedLater:
      (s?.connectedLater ?? 0) === 0
        ? undefined
        : `and ${nodes(s?.connectedLater ?? 0)} that connected later`,
    headline,
  };
}

/** Nodes in the order an operator needs them: rejections first, then the waiting, then the done. */
export function nodesByUrgency(nodes: readonly NodeConvergence[]): NodeConvergence[] {
  const rank = (n: NodeConvergence) =>
    n.state === NodeConvergenceState.NACKED ? 0 : n.state === NodeConvergenceState.ACKED ? 2 : 1;
  return [...nodes].sort((a, b) => rank(a) - rank(b) || a.nodeId.localeCompare(b.nodeId));
}

export type NodeRolloutState = "acked" | "nacked" | "pending";

export function nodeState(node: NodeConvergence): NodeRolloutState {
  if (node.state === NodeConvergenceState.ACKED) return "acked";
  if (node.state === NodeConvergenceState.NACKED) return "nacked";
  return "pending";
}

/** "Cluster" from "type.googleapis.com/envoy.config.cluster.v3.Cluster". */
export function shortTypeName(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf(".") + 1) || typeUrl;
}
