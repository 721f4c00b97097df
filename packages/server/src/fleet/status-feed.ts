import type { PrismaClient } from "@switchyard/db";
import { listNodes, type NodeRecord } from "./status-reader.js";

/**
 * The live side of node status, for the Watch* API: turns "these nodes were written" (Postgres
 * NOTIFY from any replica's StatusWriter, status-store.ts) into the nodes' new records, read once
 * and handed to every open watch. A replica therefore pushes a change written by any replica, and
 * the cost of a write is one read whatever the number of watchers.
 *
 * Three more sources of change than the notifications:
 * - time: a PENDING type turns STALE at its staleAt with no write at all; the feed keeps one timer
 *   at the earliest staleAt it has seen and re-reads those nodes then;
 * - `refreshAll()`: after the LISTEN connection was re-established (notifications were lost) and
 *   periodically as a safety net, every node is re-read and compared;
 * - `published(version)`: a new snapshot (the convergence watches follow it).
 *
 * Watches receive changes through an Inbox, which merges what arrives while the watch's client
 * is slow to read: memory stays bounded by the node count, never by the rate of change.
 */

export interface FeedChanges {
  /** Node id → its new record, or null when it is no longer stored. */
  readonly nodes: ReadonlyMap<string, NodeRecord | null>;
  /** The latest version published since the previous delivery, if any. */
  readonly published: number | undefined;
}

/** A watch's mailbox: changes merged until the watch takes them. */
export class Inbox {
  #nodes = new Map<string, NodeRecord | null>();
  #published: number | undefined;
  #wake: (() => void) | undefined;
  #closed = false;
  readonly #onClose: (() => void) | undefined;

  /** `onClose` runs once, when the inbox is closed. */
  constructor(onClose?: () => void) {
    this.#onClose = onClose;
  }

  add(changes: FeedChanges): void {
    if (this.#closed) return;
    for (const [id, record] of changes.nodes) this.#nodes.set(id, record);
    if (changes.published !== undefined)
      this.#published = Math.max(this.#published ?? 0, changes.published);
    this.#wakeUp();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose?.();
    this.#wakeUp();
  }

  /**
   * Waits for changes and takes them all; undefined once the inbox is closed or `signal` aborts.
   */
  async take(signal: AbortSignal): Promise<FeedChanges | undefined> {
    while (this.#nodes.size === 0 && this.#published === undefined) {
      if (this.#closed || signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", done);
          this.#wake = undefined;
          resolve();
        };
        this.#wake = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
    if (this.#closed || signal.aborted) return undefined;
    const changes = { nodes: this.#nodes, published: this.#published };
    this.#nodes = new Map();
    this.#published = undefined;
    return changes;
  }

  /** Takes what has arrived without waiting: whether anything had. */
  drain(): boolean {
    const any = this.#nodes.size > 0 || this.#published !== undefined;
    this.#nodes = new Map();
    this.#published = undefined;
    return any;
  }

  #wakeUp(): void {
    this.#wake?.();
  }
}

export interface StatusFeedOptions {
  readonly prisma: PrismaClient;
  /** Coalesces notifications arriving close together into one read. Default 50 ms. */
  readonly debounceMs?: number;
  /** Re-reads every node this often while anyone watches (a safety net). Default 15 s. */
  readonly refreshAllEveryMs?: number;
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
}

/** More than any fleet this process can list; the feed compares whole sets. */
const ALL_NODES = 1_000_000;

export class StatusFeed {
  readonly #prisma: PrismaClient;
  readonly #debounceMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #inboxes = new Set<Inbox>();
  /** Node id → updatedAt of the record last delivered (for refreshAll's comparison). */
  #known = new Map<string, number>();
  /** Node id → the earliest future staleAt of its PENDING types. */
  readonly #staleAt = new Map<string, number>();
  #staleTimer: { readonly at: number; readonly timer: NodeJS.Timeout } | undefined;
  #pending: Set<string> | "all" | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  readonly #refreshTimer: NodeJS.Timeout;
  #closed = false;

  constructor(options: StatusFeedOptions) {
    this.#prisma = options.prisma;
    this.#debounceMs = options.debounceMs ?? 50;
    this.#onError = options.onError ?? ((error) => console.error("reading node status", error));
    this.#now = options.now ?? Date.now;
    this.#refreshTimer = setInterval(() => this.refreshAll(), options.refreshAllEveryMs ?? 15_000);
    this.#refreshTimer.unref();
  }

  /** A new inbox receiving every change until `close()` (of the inbox or the feed). */
  open(): Inbox {
    const inbox: Inbox = new Inbox(() => {
      this.#inboxes.delete(inbox);
      if (this.#inboxes.size === 0) this.#forget();
    });
    if (this.#closed) inbox.close();
    else this.#inboxes.add(inbox);
    return inbox;
  }

  /** These nodes were written (a status notification). */
  nodesChanged(ids: ReadonlySet<string> | "all"): void {
    if (this.#inboxes.size === 0 || this.#closed) return;
    if (ids === "all" || this.#pending === "all") this.#pending = "all";
    else {
      this.#pending ??= new Set();
      for (const id of ids) this.#pending.add(id);
    }
    this.#debounce ??= setTimeout(() => {
      this.#debounce = undefined;
      void this.#read();
    }, this.#debounceMs);
  }

  /** Re-reads every node (after lost notifications, and periodically). */
  refreshAll(): void {
    this.nodesChanged("all");
  }

  /** A snapshot was published (by any replica). */
  published(version: number): void {
    for (const inbox of this.#inboxes) inbox.add({ nodes: new Map(), published: version });
  }

  /** Records read elsewhere (a watch's first read): schedules their STALE transitions. */
  observe(records: Iterable<NodeRecord>): void {
    for (const record of records) this.#observe(record);
    this.#scheduleStale();
  }

  /** Ends every watch. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#refreshTimer);
    for (const inbox of [...this.#inboxes]) inbox.close();
  }

  async #read(): Promise<void> {
    while (this.#reading !== undefined) await this.#reading;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending === undefined || this.#inboxes.size === 0) return;
    const reading = this.#readOnce(pending).finally(() => {
      this.#reading = undefined;
    });
    this.#reading = reading;
    await reading;
  }

  async #readOnce(pending: Set<string> | "all"): Promise<void> {
    const nodes = new Map<string, NodeRecord | null>();
    try {
      if (pending === "all") {
        const records = await listNodes(this.#prisma, { limit: ALL_NODES, at: this.#now() });
        const present = new Set<string>();
        for (const record of records) {
          present.add(record.id);
          // Unchanged rows are skipped; a STALE transition is caught by the stale timer.
          if (this.#known.get(record.id) !== record.updatedAt) nodes.set(record.id, record);
        }
        for (const id of this.#known.keys()) if (!present.has(id)) nodes.set(id, null);
      } else {
        const ids = [...pending];
        const records = await listNodes(this.#prisma, { ids, limit: ALL_NODES, at: this.#now() });
        for (const id of ids) nodes.set(id, null);
        for (const record of records) nodes.set(record.id, record);
      }
    } catch (error) {
      // Try again at the next notification or refresh; nothing is lost but time.
      this.#onError(error);
      return;
    }
    for (const [id, record] of nodes) {
      if (record === null) {
        this.#known.delete(id);
        this.#staleAt.delete(id);
      } else this.#observe(record);
    }
    this.#scheduleStale();
    if (nodes.size === 0) return;
    for (const inbox of this.#inboxes) inbox.add({ nodes, published: undefined });
  }

  #observe(record: NodeRecord): void {
    this.#known.set(record.id, record.updatedAt);
    const now = this.#now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const type of record.types) {
      if (type.status === "PENDING" && type.staleAt !== undefined && type.staleAt > now)
        earliest = Math.min(earliest, type.staleAt);
    }
    if (earliest === Number.POSITIVE_INFINITY) this.#staleAt.delete(record.id);
    else this.#staleAt.set(record.id, earliest);
  }

  /** One timer, at the earliest staleAt known; when it fires, those nodes are re-read. */
  #scheduleStale(): void {
    if (this.#closed) return;
    let earliest = Number.POSITIVE_INFINITY;
    for (const at of this.#staleAt.values()) earliest = Math.min(earliest, at);
    if (this.#staleTimer?.at === earliest) return;
    if (this.#staleTimer !== undefined) clearTimeout(this.#staleTimer.timer);
    this.#staleTimer = undefined;
    if (earliest === Number.POSITIVE_INFINITY) return;
    const timer = setTimeout(
      () => {
        this.#staleTimer = undefined;
        const now = this.#now();
        const due = new Set<string>();
        for (const [id, at] of this.#staleAt) {
          if (at <= now) {
            due.add(id);
            this.#staleAt.delete(id);
          }
        }
        this.nodesChanged(due);
        this.#scheduleStale();
      },
      Math.max(0, earliest - this.#now()),
    );
    timer.unref();
    this.#staleTimer = { at: earliest, timer };
  }

  /** Nobody watches: drop what was tracked for them. */
  #forget(): void {
    this.#known = new Map();
    this.#staleAt.clear();
    if (this.#staleTimer !== undefined) clearTimeout(this.#staleTimer.timer);
    this.#staleTimer = undefined;
  }
}
