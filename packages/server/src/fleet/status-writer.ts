import type {
  NodeStatusTracker,
  StatusChange,
  StatusEvent,
  VersionTally,
} from "@switchyard/status";
import {
  type ConvergenceRow,
  convergenceRow,
  type EventRow,
  eventHistoryRow,
  eventRow,
  type HeldSetRow,
  HeldSets,
  type HistoryMark,
  type HistoryRow,
  historyMark,
  historyRows,
  nodeRow,
  type TypeRow,
  typeRow,
} from "./status-rows.js";
import type { StatusBatch } from "./status-store.js";

export const DEFAULT_FLUSH_INTERVAL_MS = 250;
/**
 * A write waits this long after the last one while more than DEFAULT_BUSY_NODES nodes are
 * waiting: a change fanned out to a fleet sends to every node and has every node ACK within a
 * second or so, and a node sent to and ACKed between two writes is one row written rather than
 * two. At 2,000 nodes (ten one-route changes, median) the server's CPU per change was 0.53–0.58 s
 * writing every 250 ms and 0.44–0.46 s every second. The console and `switchyard wait` read a
 * fan-out's progress a second at a time; a handful of nodes changing is written as it was.
 */
export const DEFAULT_BUSY_INTERVAL_MS = 1_000;
export const DEFAULT_BUSY_NODES = 500;
export const DEFAULT_KEEP_EVENTS = 10_000;
export const DEFAULT_RETAIN_DISCONNECTED_MS = 24 * 60 * 60 * 1_000;
/** SWITCHYARD_HISTORY_RETENTION: how long XdsNodeHistory rows are kept. */
export const DEFAULT_HISTORY_RETENTION_MS = 14 * 24 * 60 * 60 * 1_000;
/** SWITCHYARD_HISTORY_MAX_ROWS: the most XdsNodeHistory rows kept, across all replicas. */
export const DEFAULT_HISTORY_MAX_ROWS = 5_000_000;
/** How often the retention of disconnected nodes is applied (by the next flush). */
const PRUNE_EVERY_MS = 60_000;

export interface StatusWriterOptions {
  readonly tracker: NodeStatusTracker;
  /** How often pending changes are written, in one transaction. */
  readonly intervalMs?: number;
  /** With more than `busyNodes` nodes pending, how long a write waits after the last one. */
  readonly busyIntervalMs?: number;
  readonly busyNodes?: number;
  /**
   * How many of the newest XdsNodeEvent rows are kept, across all replicas; older ones are
   * deleted by the flush that writes new events.
   */
  readonly keepEvents?: number;
  /**
   * How long a disconnected node stays listed (with its types and events) before it is deleted,
   * across all replicas. Default 24 h.
   */
  readonly retainDisconnectedMs?: number;
  /**
   * How long history rows (XdsNodeHistory) and convergence tallies (XdsVersionConvergence) are
   * kept, across all replicas. Default 14 days; 0 keeps none: this writer appends neither.
   */
  readonly historyRetentionMs?: number;
  /** The most history rows kept, across all replicas. Default 5,000,000. */
  readonly historyMaxRows?: number;
  /**
   * The replica's convergence of published versions (ConvergenceTracker): the tallies that moved
   * are written with each flush (XdsVersionConvergence), for the fleet's convergence timeline.
   */
  readonly convergence?: { takeChanged(): VersionTally[] };
  /** Receives a failed flush's error; its changes are kept and retried. Default: console.error. */
  readonly onError?: (error: unknown) => void;
  /**
   * Writes one batch in one transaction (`writeStatusBatch` on a pool; the replica times it, tests
   * inject failures and count calls).
   */
  readonly write: (batch: StatusBatch) => Promise<unknown>;
  /** The clock, in ms since the epoch (for statuses and updatedAt); tests inject the tracker's. */
  readonly now?: () => number;
}

/** What of a node changed since the last flush. */
interface Dirty {
  /** Its own state (identity, connection): its row is written whole. */
  node: boolean;
  readonly types: Set<string>;
  /** Every change since the last write is a response sent to it (no answer, no connect). */
  onlySent: boolean;
  /** A write has passed it over once already (StatusWriter: "A node only sent ..."). */
  deferred: boolean;
}

type WriterState =
  | { readonly t: "open"; readonly timer: NodeJS.Timeout; readonly unsubscribe: () => void }
  | { readonly t: "closed" };

/**
 * Persists a NodeStatusTracker to Postgres, so every replica's console sees every node.
 *
 * The tracker's change feed only marks node ids and node+type keys dirty (cheap, cannot throw:
 * it runs on the xDS stream's path). Every `intervalMs` the dirty entries' current state, and the
 * events recorded since the last flush, are written in ONE transaction with bulk upserts: a burst
 * of thousands of ACKs becomes a few transactions (status-writer.spec.ts); with more than
 * `busyNodes` pending, one every `busyIntervalMs` (DEFAULT_BUSY_INTERVAL_MS says why). At most one flush is
 * in flight. A failed flush puts its entries back and is retried on the next interval; the error
 * goes to `onError`, never to the caller of the tracker.
 *
 * A node only sent a response since the last write is passed over once by the interval's writes:
 * a node answers within a second or so, and its row is then written once, with the answer,
 * rather than once as PENDING and again as SYNCED. (A one-route change to 2,000 nodes wrote
 * 1.4-1.6 type rows per node before, 1.0 since.) One that has not answered by the write after is
 * written then, as PENDING; `flush()` writes everything.
 *
 * Nodes the tracker forgot (pruneDisconnected) are left in the database as they were last written,
 * until they have been disconnected for `retainDisconnectedMs`: a flush at most once a minute
 * deletes those (every replica does; whichever comes first).
 * Events are read from the tracker's ring at flush time: more events between two flushes than
 * the ring holds (eventCapacity) lose the oldest.
 */
export class StatusWriter {
  readonly #tracker: NodeStatusTracker;
  readonly #write: (batch: StatusBatch) => Promise<unknown>;
  readonly #retainDisconnectedMs: number;
  readonly #historyRetentionMs: number;
  readonly #historyMaxRows: number;
  /**
   * Node+type key → what its last successful write recorded in the history, so the next one
   * appends only what is new. One small entry per type the tracker knows; entries of nodes it
   * forgot are dropped by the prune pass.
   */
  readonly #historyMarks = new Map<string, HistoryMark>();
  #lastPrune = Number.NEGATIVE_INFINITY;
  readonly #heldSets = new HeldSets();
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #keepEvents: number;
  /** Node id → what of it changed: the node itself (identity, connection) and which types. */
  #dirty = new Map<string, Dirty>();
  /** Events taken from the tracker and not yet written, oldest first. */
  #pendingEvents: EventRow[] = [];
  #lastSeq = 0;
  readonly #convergence: StatusWriterOptions["convergence"];
  /** Version → this replica's tally not yet written, the newest taken. */
  #pendingConvergence = new Map<number, ConvergenceRow>();
  /** When the last write started (the writer's clock). */
  #lastWrite = Number.NEGATIVE_INFINITY;
  #running: Promise<boolean> | undefined;
  #state: WriterState;

  constructor(options: StatusWriterOptions) {
    this.#tracker = options.tracker;
    this.#write = options.write;
    this.#onError =
      options.onError ?? ((error) => console.error("writing node status failed", error));
    this.#now = options.now ?? Date.now;
    this.#keepEvents = options.keepEvents ?? DEFAULT_KEEP_EVENTS;
    this.#retainDisconnectedMs = options.retainDisconnectedMs ?? DEFAULT_RETAIN_DISCONNECTED_MS;
    this.#historyRetentionMs = options.historyRetentionMs ?? DEFAULT_HISTORY_RETENTION_MS;
    this.#historyMaxRows = options.historyMaxRows ?? DEFAULT_HISTORY_MAX_ROWS;
    // History off (a retention of 0): nothing appended, and the tallies are not taken.
    this.#convergence = this.#historyRetentionMs === 0 ? undefined : options.convergence;
    const unsubscribe = this.#tracker.subscribe((change) => this.#markDirty(change));
    const busyIntervalMs = options.busyIntervalMs ?? DEFAULT_BUSY_INTERVAL_MS;
    const busyNodes = options.busyNodes ?? DEFAULT_BUSY_NODES;
    const timer = setInterval(() => {
      if (this.#running !== undefined) return;
      const busy = this.#dirty.size > busyNodes;
      if (busy && this.#now() - this.#lastWrite < busyIntervalMs) return;
      void this.#flush(true);
    }, options.intervalMs ?? DEFAULT_FLUSH_INTERVAL_MS);
    timer.unref();
    this.#state = { t: "open", timer, unsubscribe };
  }

  /**
   * Writes everything pending, after any flush in flight. Resolves true when it was written (or
   * nothing was pending), false when the write failed (the error went to `onError`, the changes
   * stay pending); never rejects.
   */
  flush(): Promise<boolean> {
    return this.#flush(false);
  }

  /** `flush`; with `passOver`, not the nodes only sent a response, once (see the class). */
  async #flush(passOver: boolean): Promise<boolean> {
    while (this.#running !== undefined) await this.#running;
    this.#takeEvents();
    this.#takeConvergence();
    const idle =
      this.#dirty.size === 0 &&
      this.#pendingEvents.length === 0 &&
      this.#pendingConvergence.size === 0;
    if (idle && !this.#pruneDue(this.#now())) return true;
    const running = this.#flushOnce(passOver).finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /** Stops the interval and the change feed, then writes what is pending. */
  async close(): Promise<boolean> {
    if (this.#state.t === "open") {
      clearInterval(this.#state.timer);
      this.#state.unsubscribe();
      this.#state = { t: "closed" };
    }
    return this.flush();
  }

  /** Whether this flush applies the retention of disconnected nodes (once a minute). */
  #pruneDue(at: number): boolean {
    return at - this.#lastPrune >= PRUNE_EVERY_MS;
  }

  /**
   * Writes every node the tracker knows again at the next flush: after another replica reaped
   * this one's nodes (its lease ran out while the database was away), they are connected again.
   */
  rewriteAll(): void {
    for (const node of this.#tracker.nodes()) {
      const nodeId = node.identity.id;
      this.#markDirty({ nodeId, typeUrl: undefined });
      for (const type of node.types) this.#markDirty({ nodeId, typeUrl: type.typeUrl });
    }
  }

  #markDirty(change: StatusChange): void {
    let dirty = this.#dirty.get(change.nodeId);
    if (dirty === undefined) {
      dirty = { node: false, types: new Set(), onlySent: true, deferred: false };
      this.#dirty.set(change.nodeId, dirty);
    }
    if (change.sent !== true) dirty.onlySent = false;
    if (change.typeUrl !== undefined) dirty.types.add(change.typeUrl);
    else dirty.node = true;
  }

  /** Moves the tracker's new events into the pending list, keeping at most `keepEvents`. */
  #takeEvents(): void {
    const fresh: StatusEvent[] = this.#tracker.events(this.#lastSeq);
    const last = fresh.at(-1);
    if (last === undefined) return;
    this.#lastSeq = last.seq;
    const replicaId = this.#tracker.replicaId;
    this.#pendingEvents.push(...fresh.map((event) => eventRow(event, replicaId)));
    // Older ones would be trimmed by the write anyway; this bounds memory while Postgres is away.
    const excess = this.#pendingEvents.length - this.#keepEvents;
    if (excess > 0) this.#pendingEvents.splice(0, excess);
  }

  /** Moves the tallies that moved since the last flush into the pending ones. */
  #takeConvergence(): void {
    const tallies = this.#convergence?.takeChanged() ?? [];
    if (tallies.length === 0) return;
    const at = this.#now();
    for (const tally of tallies) {
      const row = convergenceRow(tally, this.#tracker.replicaId, at);
      if (row !== undefined) this.#pendingConvergence.set(row.version, row);
    }
  }

  /** Drops the history marks of nodes the tracker forgot (bounds #historyMarks). */
  #forgetMarks(): void {
    for (const key of this.#historyMarks.keys()) {
      const nodeId = key.slice(0, key.indexOf("\u0000"));
      if (this.#tracker.ledgers(nodeId) === undefined) this.#historyMarks.delete(key);
    }
  }

  async #flushOnce(passOver: boolean): Promise<boolean> {
    const dirty = this.#dirty;
    const events = this.#pendingEvents;
    const convergence = this.#pendingConvergence;
    this.#dirty = new Map();
    this.#pendingEvents = [];
    this.#pendingConvergence = new Map();
    if (passOver) {
      for (const [nodeId, changed] of dirty) {
        if (!changed.onlySent || changed.deferred) continue;
        changed.deferred = true;
        dirty.delete(nodeId);
        this.#dirty.set(nodeId, changed);
      }
    }
    const at = this.#now();
    this.#lastWrite = at;
    const pruneDue = this.#pruneDue(at);
    // Everything passed over: nothing to write (and a busy writer's next write is an interval away).
    if (dirty.size === 0 && events.length === 0 && convergence.size === 0 && !pruneDue) return true;
    const nodes = [];
    const touched: string[] = [];
    const types: TypeRow[] = [];
    const heldSets = new Map<string, HeldSetRow>();
    // History: appended in this same write (no round trip of its own), from the rows it writes.
    const history: HistoryRow[] = [];
    const marks = new Map<string, HistoryMark>();
    const historyOn = this.#historyRetentionMs > 0;
    for (const event of historyOn ? events : []) {
      const row = eventHistoryRow(event);
      if (row !== undefined) history.push(row);
    }
    for (const [nodeId, changed] of dirty) {
      const status = this.#tracker.node(nodeId, at, changed.types);
      if (status === undefined) continue;
      // A type's change also moves its node's updatedAt, which the console filters on.
      if (changed.node) nodes.push(nodeRow(status, at));
      else touched.push(nodeId);
      for (const view of status.types) {
        const held = this.#heldSets.of(view.typeUrl, view.acked);
        if (held !== undefined) heldSets.set(held.key, held);
        const requested = this.#heldSets.requestedOf(view.requested);
        if (requested !== undefined) heldSets.set(requested.key, requested);
        const row = typeRow(nodeId, view, at, held, requested);
        types.push(row);
        const key = `${nodeId}\u0000${view.typeUrl}`;
        if (!historyOn) continue;
        history.push(...historyRows(row, this.#historyMarks.get(key)));
        marks.set(key, historyMark(row));
      }
    }
    try {
      await this.#write({
        nodes,
        ...(touched.length > 0 ? { touched: { nodeIds: touched, updatedAt: at } } : {}),
        types,
        heldSets: [...heldSets.values()],
        events,
        keepEvents: this.#keepEvents,
        history,
        ...(convergence.size > 0 ? { convergence: [...convergence.values()] } : {}),
        ...(pruneDue
          ? {
              pruneDisconnectedBefore: at - this.#retainDisconnectedMs,
              pruneHistory: {
                before: at - this.#historyRetentionMs,
                maxRows: this.#historyMaxRows,
              },
            }
          : {}),
      });
      for (const [key, mark] of marks) this.#historyMarks.set(key, mark);
      if (pruneDue) {
        this.#lastPrune = at;
        this.#forgetMarks();
      }
      return true;
    } catch (error) {
      // Put the batch back under what changed meanwhile; rows are re-read at the next flush.
      for (const [nodeId, changed] of dirty) {
        const now = this.#dirty.get(nodeId);
        if (now === undefined) this.#dirty.set(nodeId, changed);
        else {
          now.node ||= changed.node;
          now.onlySent &&= changed.onlySent;
          now.deferred ||= changed.deferred;
          for (const typeUrl of changed.types) now.types.add(typeUrl);
        }
      }
      this.#pendingEvents = [...events, ...this.#pendingEvents].slice(-this.#keepEvents);
      for (const [version, row] of convergence) {
        if (!this.#pendingConvergence.has(version)) this.#pendingConvergence.set(version, row);
      }
      this.#onError(error);
      return false;
    }
  }
}
