import type { ConvergenceResult } from "./convergence-reader.js";
import type { Inbox, StatusFeed } from "./status-feed.js";

/**
 * Convergence reads shared by every caller: the Overview's and Changes' watches (one per open
 * page), GetConvergence. Reading one loads every connected node with its held sets, the heaviest
 * read of the status API, and a result only changes when a node's record does (classifyConvergence
 * has no clock) — which the status feed reports. So a result is reused until the feed reports any
 * change (a node written, a version published), and callers asking at the same time share one
 * read: N open dashboards cost one read per change, and reopening the Overview costs none.
 *
 * The feed is followed only while results are asked for: `idleMs` after the last read, the inbox
 * is closed and the results dropped (the feed stops reading for nobody).
 */
export class ConvergenceReads {
  readonly #feed: StatusFeed;
  readonly #load: (version: number) => Promise<ConvergenceResult>;
  readonly #idleMs: number;
  #inbox: Inbox | undefined;
  readonly #results = new Map<number, Promise<ConvergenceResult>>();
  #idle: NodeJS.Timeout | undefined;

  constructor(options: {
    readonly feed: StatusFeed;
    readonly load: (version: number) => Promise<ConvergenceResult>;
    readonly idleMs?: number;
  }) {
    this.#feed = options.feed;
    this.#load = options.load;
    this.#idleMs = options.idleMs ?? 60_000;
  }

  /** `version`'s convergence as of now (UnknownVersionError as `load` throws it). */
  read(version: number): Promise<ConvergenceResult> {
    // The inbox is open before anything is loaded: a change during the load invalidates it.
    if (this.#inbox === undefined) this.#inbox = this.#feed.open();
    else if (this.#inbox.drain()) this.#results.clear();
    this.#stayOpen();
    let result = this.#results.get(version);
    if (result === undefined) {
      const loading = this.#load(version);
      result = loading;
      this.#results.set(version, loading);
      loading.catch(() => {
        if (this.#results.get(version) === loading) this.#results.delete(version);
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
