/**
 * The rollout core's events from what the fleet's status says (pure): which of a group's nodes
 * connected, left or reconnected since the state last saw them, and which ACKed or NACKed the
 * version. A node has ACKed a version when what it holds is what the version gives it, by the
 * same rule as convergence (convergence-reader.ts): an ACK's version_info is a hash of what the
 * node holds, not a version number. A NACK counts only when it came after the node was sent the
 * version: a node still NACKED from an earlier version has said nothing about this one.
 */
import {
  type GroupNode,
  hashOrder,
  type RolloutEvent,
  type RolloutState,
} from "@switchyard/rollout";
import {
  classifyConvergence,
  groupFor,
  stringMetadata,
  type VersionManifests,
} from "../fleet/convergence-reader.js";
import type { NodeRecord } from "../fleet/status-reader.js";

export function groupNodeOf(record: Pick<NodeRecord, "id" | "locality" | "metadata">): GroupNode {
  const locality = record.locality as { zone?: unknown } | null | undefined;
  return {
    id: record.id,
    zone: typeof locality?.zone === "string" ? locality.zone : "",
    metadata: stringMetadata(record.metadata),
  };
}

/** The latest NACK of any type of `record`, if it came at or after `since`. */
function nackSince(record: NodeRecord, since: number): string | undefined {
  let latest: { at: number; detail: string } | undefined;
  for (const type of record.types) {
    const nack = type.lastNack;
    if (type.status !== "NACKED" || nack === undefined || nack.at < since) continue;
    if (latest === undefined || nack.at > latest.at)
      latest = { at: nack.at, detail: nack.errorDetail };
  }
  return latest?.detail;
}

export interface NodeEventsInput {
  readonly state: RolloutState;
  /** Records of the nodes read (read with `held`); `complete`: every node there is. */
  readonly records: readonly NodeRecord[];
  readonly complete: boolean;
  /** The manifests of the new version and of the previous one. */
  readonly to: VersionManifests;
  readonly from: VersionManifests;
  /** Node id → the start of the connection last seen (changed here). */
  readonly seen: Map<string, number>;
  readonly now: number;
}

/** The events the records bring, in an order the core reads as it happened. */
export function nodeEvents(input: NodeEventsInput): RolloutEvent[] {
  const { state, now, seen } = input;
  const events: RolloutEvent[] = [];
  const inGroup = input.records.filter((record) => groupFor(input.to, record).name === state.group);
  const inGroupIds = new Set(inGroup.map((r) => r.id));
  for (const record of input.records) {
    if (inGroupIds.has(record.id) || !state.nodes[record.id]?.connected) continue;
    // A node that left the group (its metadata changed) is gone from the rollout's view.
    events.push({ t: "disconnect", now, nodeId: record.id });
    seen.delete(record.id);
  }
  if (input.complete) {
    const read = new Set(input.records.map((r) => r.id));
    for (const [id, entry] of Object.entries(state.nodes))
      if (entry.connected && !read.has(id)) {
        events.push({ t: "disconnect", now, nodeId: id });
        seen.delete(id);
      }
  }
  const connected = inGroup.filter((r) => r.connection.t === "connected");
  // Nodes connecting while a wave is short of its share are taken in the order of their hash,
  // as a wave's start takes them (waves.ts): the same nodes go first whenever they connect.
  const recordOf = new Map(inGroup.map((r) => [r.id, r]));
  const byHash = hashOrder(recordOf.keys()).map((id) => recordOf.get(id) as NodeRecord);
  /** Nodes this batch (re)connects: the core asks them to ACK again, whatever they did before. */
  const connecting = new Set<string>();
  for (const record of byHash) {
    const entry = state.nodes[record.id];
    if (record.connection.t !== "connected") {
      if (entry?.connected) events.push({ t: "disconnect", now, nodeId: record.id });
      seen.delete(record.id);
      continue;
    }
    const since = record.connection.since;
    const last = seen.get(record.id);
    seen.set(record.id, since);
    if (!entry?.connected) {
      events.push({ t: "connect", now, node: groupNodeOf(record) });
      connecting.add(record.id);
    } else if (last !== undefined && last !== since) {
      // Reconnected between two reads: it must ACK again (the core's rule for a reconnect).
      events.push({ t: "disconnect", now, nodeId: record.id });
      events.push({ t: "connect", now, node: groupNodeOf(record) });
      connecting.add(record.id);
    }
  }
  if (connected.length === 0) return events;
  const phase = state.phase.t;
  if (phase === "rolling-back") {
    const waiting = new Set(state.phase.t === "rolling-back" ? state.phase.waiting : []);
    const back = classifyConvergence(
      { ...input.from, publishedAt: state.phase.since },
      connected.filter((r) => waiting.has(r.id)),
    );
    for (const node of back.nodes)
      if (node.state === "ACKED")
        events.push({ t: "ack", now, nodeId: node.nodeId, version: state.fromVersion });
    return events;
  }
  if (phase !== "applying" && phase !== "baking" && phase !== "paused") return events;
  // Only a node the version was sent to answers for it (the core ignores the others' ACKs):
  // the rest of a large group costs no comparison of what it holds.
  const answering = connected.filter((r) => state.nodes[r.id]?.sent !== undefined);
  const records = new Map(answering.map((r) => [r.id, r]));
  const result = classifyConvergence({ ...input.to, publishedAt: state.startedAt }, answering);
  for (const node of result.nodes) {
    const sent = state.nodes[node.nodeId]?.sent;
    const answered = !connecting.has(node.nodeId) && sent !== undefined;
    if (node.state === "ACKED" && !(answered && sent.ack.t === "acked")) {
      events.push({ t: "ack", now, nodeId: node.nodeId, version: state.toVersion });
    } else if (
      node.state === "NACKED" &&
      sent !== undefined &&
      !(answered && sent.ack.t === "nacked")
    ) {
      const record = records.get(node.nodeId);
      // A node connecting again answers anew: a NACK from before says nothing of this stream.
      const detail = record && nackSince(record, connecting.has(node.nodeId) ? now : sent.at);
      if (detail !== undefined)
        events.push({ t: "nack", now, nodeId: node.nodeId, version: state.toVersion, detail });
    }
  }
  return events;
}
