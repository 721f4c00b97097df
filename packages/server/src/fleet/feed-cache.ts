import type { Inbox, StatusFeed } from "./status-feed.js";

/**
 * Reads of the fleet's status shared by every caller until the status feed reports a change: the
 * convergence towards a version (every connected node with its held sets, the heaviest read of
 * the status API), every node for the Overview's and Nodes' watches. Such a result only changes
 * when a node's record does (or, for a status computed at a time, when the feed's stale timer
 * re-reads a node: `load` must `feed.observe` what it reads), which the feed reports. So a
 * result is reused until the feed reports any change (a node written, a version published), and
 * callers asking at the same time share one read: N open dashboards cost one read per change,
 * and reopening a page costs none.
 *
 * The feed is followed only while results are asked for: `idleMs` after the last read, the inbox
 * is closed and the results dropped (the feed stops reading for nobody).
 */
export class FeedCache<K, V> {
  readonly #feed: StatusFeed;
  readonly #load: (key: K) => Promise<V>;
  readonly #idleMs: number;
  #inbox: Inbox | undefined;
  readonly #results = new Map<K, Promise<V>>();
  #idle: NodeJS.Timeout | undefined;

  constructor(options: {
    readonly feed: StatusFeed;
    readonly load: (key: K) => Promise<V>;
    readonly idleMs?: number;
  }) {
    this.#feed = options.feed;
    this.#load = options.load;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /** `key`'s result as of the feed's last report (an error as `load` throws it). */
  read(key: K): Promise<V> {
    // The inbox is open before anything is loaded: a change during the load invalidates it.
    if (this.#inbox === undefined) this.#inbox = this.#feed.open();
    else if (this.#inbox.drain()) this.#results.clear();
    this.#stayOpen();
    let result = this.#results.get(key);
    if (result === undefined) {
      const loading = this.#load(key);
      result = loading;
      this.#results.set(key, loading);
      loading.catch(() => {
        if (this.#results.get(key) === loading) this.#results.delete(key);
      });
    }
    return result;
  }

  /** Stops following the feed (the server is stopping). */
  close(): void {
    clearTimeout(this.#idle);
    this.#forget();
  }

  #stayOpen(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#forget(), this.#idleMs);
    this.#idle.unref();
  }

  #forget(): void {
    this.#inbox?.close();
    this.#inbox = undefined;
    this.#results.clear();
  }
}
