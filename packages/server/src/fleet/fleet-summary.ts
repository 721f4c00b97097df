import type { NodeRecord } from "./status-reader.js";

/**
 * The fleet at a glance, from node records: counts by health and the most recent NACKs. Pure.
 * A node's health is one word, worst first (status.proto FleetCounts): disconnected; else nacked
 * if any type's latest answer is a NACK; else stale; else pending if anything is unanswered or
 * not sent (or nothing was requested yet); else synced.
 */

export type NodeHealth = "synced" | "stale" | "nacked" | "pending" | "disconnected";

export function nodeHealth(node: NodeRecord): NodeHealth {
  if (node.connection.t !== "connected") return "disconnected";
  const has = (status: string) => node.types.some((type) => type.status === status);
  if (has("NACKED")) return "nacked";
  if (has("STALE")) return "stale";
  if (node.types.length === 0 || node.types.some((type) => type.status !== "SYNCED"))
    return "pending";
  return "synced";
}

export interface NackEntry {
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly message: string;
  readonly version: string;
  readonly at: number;
  readonly current: boolean;
}

export interface Fleet {
  readonly counts: Readonly<Record<NodeHealth | "total" | "connected", number>>;
  /** Current NACKs first, then newest first; at most `nackLimit`. */
  readonly recentNacks: readonly NackEntry[];
}

export type HealthCounts = Fleet["counts"];

/** `nodes` counted by health, with the total and how many are connected. */
export function healthCounts(nodes: Iterable<NodeRecord>): HealthCounts {
  const counts = { synced: 0, stale: 0, nacked: 0, pending: 0, disconnected: 0, total: 0 };
  for (const node of nodes) {
    counts[nodeHealth(node)] += 1;
    counts.total += 1;
  }
  return { ...counts, connected: counts.total - counts.disconnected };
}

export function fleetSummary(nodes: Iterable<NodeRecord>, nackLimit: number): Fleet {
  const all = [...nodes];
  const nacks: NackEntry[] = [];
  for (const node of all) {
    for (const type of node.types) {
      if (type.lastNack === undefined) continue;
      nacks.push({
        nodeId: node.id,
        typeUrl: type.typeUrl,
        message: type.lastNack.errorDetail,
        version: type.lastNack.version,
        at: type.lastNack.at,
        current: type.status === "NACKED",
      });
    }
  }
  nacks.sort(
    (a, b) =>
      Number(b.current) - Number(a.current) ||
      b.at - a.at ||
      (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0),
  );
  return { counts: healthCounts(all), recentNacks: nacks.slice(0, nackLimit) };
}
