import { createHash } from "node:crypto";
import type {
  AckedState,
  HeldBackResource,
  NodeStatus,
  StatusEvent,
  TypeView,
  VersionTally,
} from "@switchyard/status";

/**
 * The rows of XdsNode, XdsNodeType and XdsNodeEvent (prisma/schema.prisma) built from what a
 * NodeStatusTracker hands out. Pure: times are ms since the epoch, as the tracker keeps them.
 */

export interface NodeRow {
  readonly id: string;
  readonly cluster: string;
  readonly locality: unknown;
  readonly metadata: unknown;
  readonly userAgentName: string;
  readonly userAgentVersion: string | null;
  readonly clientFeatures: readonly string[];
  readonly replicaId: string;
  readonly variant: string;
  readonly remoteAddress: string;
  readonly authenticatedAs: string;
  readonly openStreams: number;
  readonly connectedSince: number;
  readonly disconnectedAt: number | null;
  readonly updatedAt: number;
}

export interface TypeRow {
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly status: TypeView["status"]["t"];
  readonly staleAt: number | null;
  readonly sentVersion: string | null;
  readonly sentNonce: string | null;
  readonly sentAt: number | null;
  readonly ackedVersion: string | null;
  readonly ackedNonce: string | null;
  readonly ackedAt: number | null;
  readonly nackErrorDetail: string | null;
  readonly nackVersion: string | null;
  readonly nackNonce: string | null;
  readonly nackAt: number | null;
  readonly nackRejected: readonly string[];
  readonly heldBack: readonly HeldBackResource[];
  /** The XdsHeldSet of what the node holds after its latest ACK; "" when it holds nothing. */
  readonly heldKey: string;
  readonly resourceVersionsKnown: boolean;
  readonly wildcard: boolean;
  /** The XdsHeldSet of the names it subscribes to ({ name: null }); "" when none. */
  readonly requestedKey: string;
  readonly updatedAt: number;
}

/** What a node holds of a type, content-addressed (XdsHeldSet). */
export interface HeldSetRow {
  /** sha256 (hex) of `json`. */
  readonly key: string;
  /** The canonical JSON of { name: version | null }, names sorted. */
  readonly json: string;
}

/**
 * Turns held maps into held sets. Every node in sync holds the same set (most often the same map
 * too, but not always: nodes that got there by different responses have maps of their own), so
 * the set of an ACK is remembered by what identifies it cheaply (type, ACKed version_info,
 * size; version_info is a digest of what the client holds after the response, see
 * packages/xds/src/sotw-subscription.ts), so a fleet-wide change hashes each distinct set once.
 */
export class HeldSets {
  readonly #memo = new Map<string, HeldSetRow>();
  readonly #requested = new WeakMap<ReadonlySet<string>, HeldSetRow>();
  readonly #capacity: number;

  constructor(capacity = 1_024) {
    this.#capacity = capacity;
  }

  of(typeUrl: string, acked: AckedState | undefined): HeldSetRow | undefined {
    if (acked === undefined || acked.held.size === 0) return undefined;
    // What a node accepted of a NACKed response does not follow from the ACKed version: not
    // remembered by it.
    const id = acked.partial
      ? undefined
      : `${typeUrl}\u0000${acked.versionInfo}\u0000${acked.held.size}\u0000${acked.resourceVersionsKnown}`;
    const known = id === undefined ? undefined : this.#memo.get(id);
    if (known !== undefined) return known;
    const set = heldSetRow(acked.held);
    if (id === undefined) return set;
    this.#memo.set(id, set);
    if (this.#memo.size > this.#capacity) {
      const oldest = this.#memo.keys().next().value;
      if (oldest !== undefined) this.#memo.delete(oldest);
    }
    return set;
  }

  /**
   * The names a node subscribes to (TypeLedger.requested) as a set of names without versions.
   * A subscription changes seldom, and keeps its identity until it does: remembered by it.
   */
  requestedOf(requested: ReadonlySet<string>): HeldSetRow | undefined {
    if (requested.size === 0) return undefined;
    let set = this.#requested.get(requested);
    if (set === undefined) {
      // Names come from the client: U+0000 cannot be stored (storableText).
      set = heldSetRow(new Map([...requested].map((name) => [storableText(name), undefined])));
      this.#requested.set(requested, set);
    }
    return set;
  }
}

/** A map of names to versions as a content-addressed set: canonical JSON, names sorted. */
function heldSetRow(held: ReadonlyMap<string, string | undefined>): HeldSetRow {
  const entries = [...held]
    .map(([name, version]): [string, string | null] => [name, version ?? null])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const json = JSON.stringify(Object.fromEntries(entries));
  return { key: createHash("sha256").update(json).digest("hex"), json };
}

export interface EventRow {
  readonly nodeId: string;
  readonly kind: StatusEvent["t"];
  readonly at: number;
  readonly replicaId: string;
  readonly typeUrl: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
}

/**
 * `text` as Postgres can store it. An xDS client puts what it likes in its node, its type URLs
 * and its NACK texts, U+0000 included, which Postgres text and jsonb refuse: it becomes U+FFFD.
 * One odd client must not make every flush fail, and with it every node's status
 * (status-writer.spec.ts). (Text that is no UTF-8 never gets here: the decoders refuse it.)
 */
export function storableText(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\ufffd") : text;
}

/** Whether some string in `value`, object keys included, is not storable as it is. */
function hasNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(hasNul);
  if (typeof value === "object" && value !== null) {
    for (const key in value) {
      if (key.includes("\u0000") || hasNul((value as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/**
 * `value` with every string in it, object keys included, made storable (storableText). Rows are
 * built for every ACK of every node: one with nothing to change (every row but an odd client's)
 * is returned as it is, not copied.
 */
function storable<T>(value: T): T {
  return hasNul(value) ? copyStorable(value) : value;
}

function copyStorable<T>(value: T): T {
  if (typeof value === "string") return storableText(value) as T;
  if (Array.isArray(value)) return value.map(copyStorable) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [storableText(key), copyStorable(inner)]),
    ) as T;
  }
  return value;
}

/**
 * A node's row. Connection fields come from its latest open stream, or from the stream that
 * closed last once it is disconnected. Every string is storable (storableText).
 */
export function nodeRow(status: NodeStatus, updatedAt: number): NodeRow {
  const { identity, connection } = status;
  const stream = connection.t === "connected" ? connection.streams.at(-1) : connection.lastStream;
  return storable({
    id: identity.id,
    cluster: identity.cluster,
    locality: identity.locality ?? null,
    metadata: identity.metadata ?? null,
    userAgentName: identity.userAgent.name,
    userAgentVersion: identity.userAgent.version ?? null,
    clientFeatures: identity.clientFeatures,
    replicaId: stream?.replicaId ?? "",
    variant: stream?.variant ?? "",
    remoteAddress: stream?.remoteAddress ?? "",
    authenticatedAs: stream?.authenticatedAs ?? "",
    openStreams: connection.t === "connected" ? connection.streams.length : 0,
    connectedSince: connection.t === "connected" ? connection.since : (stream?.connectedAt ?? 0),
    disconnectedAt: connection.t === "disconnected" ? connection.since : null,
    updatedAt,
  });
}

/** A type's row; every string is storable (storableText). */
export function typeRow(
  nodeId: string,
  view: TypeView,
  updatedAt: number,
  held: HeldSetRow | undefined,
  requested: HeldSetRow | undefined,
): TypeRow {
  const { status, sent, acked, nack } = view;
  return storable({
    nodeId,
    typeUrl: view.typeUrl,
    status: status.t,
    staleAt: status.t === "PENDING" || status.t === "STALE" ? status.staleAt : null,
    sentVersion: sent?.versionInfo ?? null,
    sentNonce: sent?.nonce ?? null,
    sentAt: sent?.at ?? null,
    ackedVersion: acked?.versionInfo ?? null,
    ackedNonce: acked?.nonce ?? null,
    ackedAt: acked?.at ?? null,
    nackErrorDetail: nack?.errorDetail ?? null,
    nackVersion: nack?.rejectedVersion ?? null,
    nackNonce: nack?.nonce ?? null,
    nackAt: nack?.at ?? null,
    nackRejected: nack?.rejected ?? [],
    heldBack: view.heldBack,
    heldKey: held?.key ?? "",
    resourceVersionsKnown: acked?.resourceVersionsKnown ?? false,
    wildcard: view.wildcard,
    requestedKey: requested?.key ?? "",
    updatedAt,
  });
}

/**
 * An event's row; `replicaId` is the replica whose tracker recorded it. Every string is storable
 * (storableText).
 */
export function eventRow(event: StatusEvent, replicaId: string): EventRow {
  const { t, seq: _seq, at, nodeId, ...rest } = event;
  const { typeUrl, ...detail } = rest as { typeUrl?: string } & Record<string, unknown>;
  return storable({ nodeId, kind: t, at, replicaId, typeUrl: typeUrl ?? null, detail });
}

/** A row of XdsNodeHistory: what a node was sent, ACKed, NACKed, and when it (dis)connected. */
export interface HistoryRow {
  readonly nodeId: string;
  readonly kind: "connect" | "disconnect" | "sent" | "ack" | "nack";
  readonly at: number;
  readonly typeUrl: string | null;
  readonly version: string | null;
  readonly nonce: string | null;
  readonly errorDetail: string | null;
}

/** When a type's response was sent, ACKed and NACKed, as last written to the history. */
export interface HistoryMark {
  readonly sent: string;
  readonly acked: string;
  readonly nack: string;
}

/** What identifies a response or answer: its time and nonce (two in one ms differ in nonce). */
const mark = (at: number | null, nonce: string | null) =>
  at === null ? "" : `${at}/${nonce ?? ""}`;

export function historyMark(type: TypeRow): HistoryMark {
  return {
    sent: mark(type.sentAt, type.sentNonce),
    acked: mark(type.ackedAt, type.ackedNonce),
    nack: mark(type.nackAt, type.nackNonce),
  };
}

/**
 * The history rows of a type row written after `previous` (what the last successful write of
 * that node and type recorded; undefined: none): one per response sent, ACK and NACK since.
 * The writer writes a type's current state once per flush, so a type sent to twice between two
 * flushes (250 ms to 1 s apart) records its latest response; one sent and answered between two
 * flushes is recorded by its answer (an ack or nack row implies the response it answers).
 * Strings are already storable (typeRow).
 */
export function historyRows(type: TypeRow, previous: HistoryMark | undefined): HistoryRow[] {
  const rows: HistoryRow[] = [];
  const base = { nodeId: type.nodeId, typeUrl: type.typeUrl };
  const now = historyMark(type);
  // A response answered within the same write (most of a fleet's, DEFAULT_BUSY_INTERVAL_MS) is
  // recorded by its answer alone, which names the version and nonce: half the rows of a fan-out.
  const answered =
    (type.ackedAt !== null &&
      now.acked !== previous?.acked &&
      type.ackedNonce === type.sentNonce) ||
    (type.nackAt !== null && now.nack !== previous?.nack && type.nackNonce === type.sentNonce);
  if (type.sentAt !== null && now.sent !== previous?.sent && !answered) {
    rows.push({
      ...base,
      kind: "sent",
      at: type.sentAt,
      version: type.sentVersion,
      nonce: type.sentNonce,
      errorDetail: null,
    });
  }
  if (type.ackedAt !== null && now.acked !== previous?.acked) {
    rows.push({
      ...base,
      kind: "ack",
      at: type.ackedAt,
      version: type.ackedVersion,
      nonce: type.ackedNonce,
      errorDetail: null,
    });
  }
  if (type.nackAt !== null && now.nack !== previous?.nack) {
    rows.push({
      ...base,
      kind: "nack",
      at: type.nackAt,
      version: type.nackVersion,
      nonce: type.nackNonce,
      errorDetail: type.nackErrorDetail,
    });
  }
  return rows.sort((a, b) => a.at - b.at);
}

/**
 * The history row of an event: a stream connecting, or the node's last stream closing (one of
 * several streams closing leaves it connected); none for the others (NACKs come from the type
 * rows, with their text).
 */
export function eventHistoryRow(event: EventRow): HistoryRow | undefined {
  const connected = event.kind === "connect";
  if (!connected && !(event.kind === "disconnect" && event.detail.nodeDisconnected === true))
    return undefined;
  return {
    nodeId: event.nodeId,
    kind: connected ? "connect" : "disconnect",
    at: event.at,
    typeUrl: null,
    version: null,
    nonce: null,
    errorDetail: null,
  };
}

const MAX_INT4 = 2 ** 31 - 1;

/** A row of XdsVersionConvergence: one replica's tally of one published version. */
export interface ConvergenceRow {
  readonly version: number;
  readonly replicaId: string;
  /** ISO 8601, as the statement binds it. */
  readonly publishedAt: string;
  readonly targeted: number;
  readonly convergedMs: readonly number[];
  readonly nacked: number;
  readonly nackedEver: number;
  readonly firstNackAt: string | null;
  readonly updatedAt: string;
}

/**
 * The row of a tally written at `at`; undefined for a version that is not a published version
 * number, or that targeted none of this replica's nodes (nothing to add up).
 */
export function convergenceRow(
  tally: VersionTally,
  replicaId: string,
  at: number,
): ConvergenceRow | undefined {
  const version = Number(tally.version);
  if (!Number.isSafeInteger(version) || version < 1 || tally.targeted === 0) return undefined;
  return {
    version,
    replicaId,
    publishedAt: new Date(tally.publishedAt).toISOString(),
    targeted: tally.targeted,
    // Whole milliseconds, as int4 holds them (a clock step back reads as 0, not as negative).
    convergedMs: tally.convergedMs.map((ms) => Math.min(MAX_INT4, Math.max(0, Math.round(ms)))),
    nacked: tally.nacked,
    nackedEver: tally.nackedEver,
    firstNackAt: tally.firstNackAt === undefined ? null : new Date(tally.firstNackAt).toISOString(),
    updatedAt: new Date(at).toISOString(),
  };
}
