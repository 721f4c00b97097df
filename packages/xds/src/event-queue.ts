/**
 * A single-consumer queue of events, iterated with `for await`. Producers `push`; `close` ends the
 * iteration after the queued events; `fail` ends it with an error.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #state: { t: "open" } | { t: "closed" } | { t: "failed"; error: unknown } = { t: "open" };
  #wake: (() => void) | undefined;

  push(item: T): void {
    if (this.#state.t !== "open") return;
    this.#items.push(item);
    this.#wakeUp();
  }

  close(): void {
    if (this.#state.t === "open") this.#state = { t: "closed" };
    this.#wakeUp();
  }

  fail(error: unknown): void {
    if (this.#state.t === "open") this.#state = { t: "failed", error };
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#state.t === "failed") throw this.#state.error;
      if (this.#state.t === "closed") return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}
