/**
 * Rollout notifications (ROLLOUT_CHANNEL, from any replica) to the watches of this process: a
 * watch waits for its rollout to be written, or for a while (so that it can send the time-based
 * parts, a bake's countdown, again).
 */
export interface RolloutWatch {
  /** True when the rollout was written; false after `timeoutMs` or when `signal` aborts. */
  next(signal: AbortSignal, timeoutMs: number): Promise<boolean>;
  close(): void;
}

export class RolloutHub {
  readonly #waiting = new Map<number, Set<{ written: boolean; wake: () => void }>>();

  /** Rollout `id` was written; undefined: any may have been (notifications were lost). */
  changed(id: number | undefined): void {
    const sets = id === undefined ? [...this.#waiting.values()] : [this.#waiting.get(id)];
    for (const set of sets)
      for (const waiter of set ?? []) {
        waiter.written = true;
        waiter.wake();
      }
  }

  watch(id: number): RolloutWatch {
    const waiter: { written: boolean; wake: () => void } = { written: false, wake: () => {} };
    let set = this.#waiting.get(id);
    if (set === undefined) {
      set = new Set();
      this.#waiting.set(id, set);
    }
    set.add(waiter);
    return {
      next: (signal, timeoutMs) =>
        new Promise<boolean>((resolve) => {
          if (waiter.written || signal.aborted) {
            const written = waiter.written;
            waiter.written = false;
            resolve(written);
            return;
          }
          const done = () => {
            clearTimeout(timer);
            signal.removeEventListener("abort", done);
            waiter.wake = () => {};
            const written = waiter.written;
            waiter.written = false;
            resolve(written);
          };
          const timer = setTimeout(done, timeoutMs);
          signal.addEventListener("abort", done, { once: true });
          waiter.wake = done;
        }),
      close: () => {
        set.delete(waiter);
        if (set.size === 0) this.#waiting.delete(id);
      },
    };
  }
}
