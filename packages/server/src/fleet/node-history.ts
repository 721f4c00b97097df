/**
 * "What did node N hold at time T", from its XdsNodeHistory rows (status-rows.ts, HistoryRow).
 * Pure: times are ms since the epoch.
 *
 * Envoy keeps the last config it accepted while disconnected and after a NACK (a NACK's
 * version_info is the previous accepted version, per the xDS protocol's ACK/NACK section:
 * https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol#ack-and-nack-semantics), so
 * what a type holds at T is its latest ACK at or before T, whatever came after it.
 */

export type HistoryKind = "connect" | "disconnect" | "sent" | "ack" | "nack";

export interface HistoryEntry {
  readonly kind: HistoryKind;
  readonly at: number;
  /** The type of a sent, ack or nack entry; null for connect and disconnect. */
  readonly typeUrl: string | null;
  readonly version: string | null;
  readonly nonce: string | null;
  readonly errorDetail: string | null;
}

/** How a type stood at T: its latest answer, or a response still unanswered. */
export type HeldState = "ACKED" | "NACKED" | "PENDING" | "NOT_SENT";

export interface HeldType {
  readonly typeUrl: string;
  readonly state: HeldState;
  /** The version it held (its latest ACK at or before T); null when it had ACKed none. */
  readonly ackedVersion: string | null;
  readonly ackedAt: number | null;
  /** The latest response sent at or before T. */
  readonly sentVersion: string | null;
  readonly sentAt: number | null;
  /** The latest NACK at or before T, kept after a later ACK (state says which came last). */
  readonly nack: {
    readonly version: string | null;
    readonly errorDetail: string;
    readonly at: number;
  } | null;
}

export interface HeldAt {
  readonly at: number;
  /** Whether it was connected at T; null when the history has no connect or disconnect before T. */
  readonly connected: boolean | null;
  /** When it last connected or disconnected at or before T. */
  readonly connectionSince: number | null;
  /** One per type with an entry at or before T, sorted by type URL. */
  readonly types: readonly HeldType[];
}

/** Same-instant entries in causal order: a stream opens, a response goes out, it is answered. */
const RANK: Readonly<Record<HistoryKind, number>> = {
  connect: 0,
  sent: 1,
  ack: 2,
  nack: 2,
  disconnect: 3,
};

interface Building {
  state: HeldState;
  ackedVersion: string | null;
  ackedAt: number | null;
  sentVersion: string | null;
  sentAt: number | null;
  nack: HeldType["nack"];
}

/** What a node held at `at`, from its history `entries` (any order; ties keep input order). */
export function heldAt(entries: readonly HistoryEntry[], at: number): HeldAt {
  const sorted = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => entry.at <= at)
    .sort(
      (a, b) =>
        a.entry.at - b.entry.at || RANK[a.entry.kind] - RANK[b.entry.kind] || a.index - b.index,
    );
  let connected: boolean | null = null;
  let connectionSince: number | null = null;
  const types = new Map<string, Building>();
  for (const { entry } of sorted) {
    if (entry.kind === "connect" || entry.kind === "disconnect") {
      connected = entry.kind === "connect";
      connectionSince = entry.at;
      continue;
    }
    if (entry.typeUrl === null) continue;
    let type = types.get(entry.typeUrl);
    if (type === undefined) {
      type = {
        state: "NOT_SENT",
        ackedVersion: null,
        ackedAt: null,
        sentVersion: null,
        sentAt: null,
        nack: null,
      };
      types.set(entry.typeUrl, type);
    }
    if (entry.kind === "sent") {
      type.sentVersion = entry.version;
      type.sentAt = entry.at;
      type.state = "PENDING";
    } else {
      // An answer implies the response it answers: the writer records a response answered
      // within one write by its answer alone (status-rows.ts, historyRows).
      if (type.state !== "PENDING") {
        type.sentVersion = entry.version;
        type.sentAt = entry.at;
      }
      if (entry.kind === "ack") {
        type.ackedVersion = entry.version;
        type.ackedAt = entry.at;
        type.state = "ACKED";
      } else {
        type.nack = { version: entry.version, errorDetail: entry.errorDetail ?? "", at: entry.at };
        type.state = "NACKED";
      }
    }
  }
  return {
    at,
    connected,
    connectionSince,
    types: [...types]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([typeUrl, type]) => ({ typeUrl, ...type })),
  };
}
