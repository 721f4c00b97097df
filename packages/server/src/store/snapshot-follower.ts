import type { PrismaClient } from "@switchyard/db";
import { latestVersion, type PublishedSnapshot, type SnapshotReader } from "./snapshot-records.js";

export interface SnapshotFollowerOptions {
  readonly prisma: PrismaClient;
  /** The version this replica serves now (0: nothing published). */
  readonly current: () => number;
  /** A newer published snapshot was loaded: serve it. */
  readonly onNewer: (snapshot: PublishedSnapshot) => void;
  /** A periodic check, the safety net under notifications. Default 5 s. */
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
  /** Reads the newer snapshots (the replica's, which made its first read and knows what it serves). */
  readonly reader: SnapshotReader;
}

/**
 * Keeps a replica on the latest published version when another replica publishes: `check()` on
 * every publish notification (Postgres NOTIFY, delivered within milliseconds), after the
 * notification connection comes back, and every `intervalMs` in case a notification was lost.
 * A check reads only the latest version number unless it is newer than the one served. Checks
 * never overlap; one asked for during another runs after it.
 */
export class SnapshotFollower {
  readonly #options: SnapshotFollowerOptions;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(options: SnapshotFollowerOptions) {
    this.#options = options;
    this.#timer = setInterval(() => this.check(), options.intervalMs ?? 5_000);
    this.#timer.unref();
  }

  /** Loads and serves the latest version if it is newer. Never rejects (errors go to onError). */
  check(): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#checkOnce().finally(() => {
      this.#running = undefined;
      if (this.#again) {
        this.#again = false;
        void this.check();
      }
    });
    return this.#running;
  }

  close(): void {
    clearInterval(this.#timer);
  }

  async #checkOnce(): Promise<void> {
    const { prisma, current, onNewer, onError } = this.#options;
    try {
      const latest = await latestVersion(prisma);
      if (latest === undefined || latest <= current()) return;
      const snapshot = await this.#options.reader.latest();
      if (snapshot !== undefined && snapshot.record.version > current()) onNewer(snapshot);
    } catch (error) {
      (onError ?? ((e) => console.error("loading the latest snapshot failed", e)))(error);
    }
  }
}
