/**
 * Load reports to PostgreSQL: reports accumulate in memory (LoadBuckets, counts added per bucket)
 * and are written every `flushEveryMs`, whatever the report rate, one transaction each; every
 * `rollUpEveryMs` old buckets are rolled up and expired ones deleted (load-store.ts). A failed
 * write keeps its rows for the next; a report is lost only if the process dies before its write.
 */
import type { PrismaClient } from "@switchyard/db";
import { LoadBuckets, type LoadRow } from "@switchyard/status";
import type { Logger } from "pino";
import { addLoad, rollUpLoad } from "./load-store.js";

export interface LoadWriterOptions {
  readonly prisma: PrismaClient;
  readonly logger: Logger;
  readonly flushEveryMs?: number;
  readonly rollUpEveryMs?: number;
  /** How long 10 s buckets are kept before they are rolled up into 60 s ones. Default 1 h. */
  readonly fineForMs?: number;
  /** How long load is kept at all. Default 24 h. */
  readonly retainMs?: number;
  readonly now?: () => number;
}

export class LoadWriter {
  readonly #options: LoadWriterOptions;
  readonly #buckets = new LoadBuckets();
  readonly #timers: NodeJS.Timeout[] = [];
  #flushing: Promise<void> | undefined;

  constructor(options: LoadWriterOptions) {
    this.#options = options;
  }

  /** Rows waiting for the next write. */
  get pending(): number {
    return this.#buckets.size;
  }

  add(rows: readonly LoadRow[]): void {
    this.#buckets.add(rows);
  }

  start(): void {
    const flush = setInterval(() => void this.flush(), this.#options.flushEveryMs ?? 2_000);
    const rollUp = setInterval(() => void this.rollUp(), this.#options.rollUpEveryMs ?? 60_000);
    flush.unref();
    rollUp.unref();
    this.#timers.push(flush, rollUp);
  }

  /** Writes what has accumulated; one write at a time (a second call waits for the first). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    const rows = this.#buckets.drain();
    if (rows.length === 0) return;
    this.#flushing = addLoad(this.#options.prisma, rows).then(
      () => undefined,
      (error: unknown) => {
        this.#buckets.restore(rows);
        this.#options.logger.warn(
          { err: error, rows: rows.length },
          "writing load reports failed; keeping them for the next write",
        );
      },
    );
    try {
      await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  async rollUp(): Promise<void> {
    try {
      await rollUpLoad(this.#options.prisma, (this.#options.now ?? Date.now)(), {
        fineForMs: this.#options.fineForMs ?? 3_600_000,
        retainMs: this.#options.retainMs ?? 86_400_000,
      });
    } catch (error) {
      this.#options.logger.warn({ err: error }, "rolling up load reports failed");
    }
  }

  /** Stops the timers and writes what is left. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    await this.flush();
  }
}
