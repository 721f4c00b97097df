/**
 * A node's history (StatusService.GetNodeHistory) as the node page's timeline draws it: per type
 * a lane of the versions it held (from one ACK to the next), the NACKs on it, and the node's
 * connected spans. Pure: times are ms since the epoch.
 */

export interface HistoryPoint {
  readonly kind: string;
  readonly at: number;
  readonly typeUrl: string;
  readonly version: string;
  readonly errorDetail: string;
}

export interface HeldSpan {
  readonly typeUrl: string;
  readonly version: string;
  readonly from: number;
  /** When the next ACK replaced it; `until` (the end of the range) while still held. */
  readonly to: number;
}

export interface NackMark {
  readonly typeUrl: string;
  readonly at: number;
  readonly version: string;
  readonly errorDetail: string;
}

export interface ConnectedSpan {
  readonly from: number;
  readonly to: number;
}

export interface HistoryLanes {
  /** Type URLs with an entry, sorted. */
  readonly types: readonly string[];
  readonly held: readonly HeldSpan[];
  readonly nacks: readonly NackMark[];
  readonly connected: readonly ConnectedSpan[];
}

/** Lanes of `entries` (oldest first, as the API answers) up to `until`. */
export function historyLanes(entries: readonly HistoryPoint[], until: number): HistoryLanes {
  const types = new Set<string>();
  const held: HeldSpan[] = [];
  const nacks: NackMark[] = [];
  const connected: ConnectedSpan[] = [];
  const open = new Map<string, { version: string; from: number }>();
  let connectedFrom: number | undefined;
  const sorted = [...entries].sort((a, b) => a.at - b.at);
  for (const entry of sorted) {
    if (entry.kind === "connect") {
      connectedFrom ??= entry.at;
      continue;
    }
    if (entry.kind === "disconnect") {
      connected.push({ from: connectedFrom ?? sorted[0]?.at ?? entry.at, to: entry.at });
      connectedFrom = undefined;
      continue;
    }
    if (entry.typeUrl === "") continue;
    types.add(entry.typeUrl);
    if (entry.kind === "ack") {
      const previous = open.get(entry.typeUrl);
      if (previous?.version === entry.version) continue;
      if (previous !== undefined) held.push({ typeUrl: entry.typeUrl, ...previous, to: entry.at });
      open.set(entry.typeUrl, { version: entry.version, from: entry.at });
    } else if (entry.kind === "nack") {
      nacks.push({
        typeUrl: entry.typeUrl,
        at: entry.at,
        version: entry.version,
        errorDetail: entry.errorDetail,
      });
    }
  }
  for (const [typeUrl, span] of open) held.push({ typeUrl, ...span, to: until });
  if (connectedFrom !== undefined) connected.push({ from: connectedFrom, to: until });
  held.sort((a, b) => a.from - b.from);
  return { types: [...types].sort(), held, nacks, connected };
}

/** "2026-12-02T15:04" in local time, as an <input type="datetime-local"> holds it. */
export function localInputValue(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
