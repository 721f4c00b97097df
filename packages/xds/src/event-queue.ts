const ROOM: Promise<void> = Promise.resolve();
/** The settled answer of an iterator that has ended (one object: nothing allocated per call). */
export const DONE: Promise<IteratorResult<never>> = Promise.resolve({
  done: true,
  value: undefined,
});

/**
 * A single-consumer queue of events, iterated with `for await`. Producers `push` (or
 * `pushLatest`, for an event that supersedes an earlier one of its kind); `close` ends the
 * iteration after the queued events; `fail` ends it with an error. A producer can wait for
 * `room` before it pushes again, which keeps what it queues bounded while the consumer is busy.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #state: { t: "open" } | { t: "closed" } | { t: "failed"; error: unknown } = { t: "open" };
  #wake: (() => void) | undefined;
  /** A producer waiting in `room`: woken when an item is taken, or the queue ends. */
  #roomWake: (() => void) | undefined;

  push(item: T): void {
    if (this.#state.t !== "open") return;
    this.#items.push(item);
    this.#wakeUp();
  }

  /**
   * Queues `item` in the place of the queued item `supersedes` selects, if there is one (the
   * first; the others are left), or else at the end: for a newer state that makes an older one
   * not yet consumed worthless, so that a consumer that cannot keep up holds one of each kind,
   * not one per change. The replaced item keeps its place: the newer state is consumed no later
   * than the older one would have been.
   */
  pushLatest(item: T, supersedes: (queued: T) => boolean): void {
    if (this.#state.t !== "open") return;
    const index = this.#items.findIndex(supersedes);
    if (index === -1) this.#items.push(item);
    else this.#items[index] = item;
    this.#wakeUp();
  }

  /**
   * Resolves once fewer than `limit` queued items are `counted`, or the queue has ended. One
   * producer at a time may wait. With room already, a promise resolved before (a stream's reader
   * asks after every request it queues, and mostly finds room).
   */
  room(limit: number, counted: (queued: T) => boolean): Promise<void> {
    if (!this.#full(limit, counted)) return ROOM;
    return new Promise<void>((resolve) => {
      this.#roomWake = resolve;
    }).then(() => this.room(limit, counted));
  }

  /** Whether the queue is open with at least `limit` items `counted`. */
  #full(limit: number, counted: (queued: T) => boolean): boolean {
    if (this.#state.t !== "open") return false;
    let count = 0;
    for (const item of this.#items) if (counted(item) && ++count >= limit) return true;
    return false;
  }

  /** Number of queued items (not yet consumed). */
  get size(): number {
    return this.#items.length;
  }

  close(): void {
    if (this.#state.t === "open") this.#state = { t: "closed" };
    this.#wakeUp();
    this.#wakeProducer();
  }

  fail(error: unknown): void {
    if (this.#state.t === "open") this.#state = { t: "failed", error };
    this.#wakeUp();
    this.#wakeProducer();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #wakeProducer(): void {
    const wake = this.#roomWake;
    this.#roomWake = undefined;
    wake?.();
  }

  /**
   * The consumer's side. An iterator written out rather than an async generator: every event of
   * every stream passes here, and a generator's resumption costs promises and turns of its own.
   */
  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.#next(),
      // The consumer stops (a `for await` left early; Connect's client ending a call): what is
      // queued and pushed later is dropped, as an async generator's would be.
      return: (value?: unknown) => {
        this.#stop();
        return Promise.resolve({ done: true, value: value as never });
      },
      throw: (error?: unknown) => {
        this.#stop();
        return Promise.reject(error);
      },
    };
  }

  #stop(): void {
    this.#items.length = 0;
    this.close();
  }

  #next(): Promise<IteratorResult<T>> {
    const item = this.#items.shift();
    if (item !== undefined) {
      this.#wakeProducer();
      return Promise.resolve({ done: false, value: item });
    }
    if (this.#state.t === "failed") return Promise.reject(this.#state.error);
    if (this.#state.t === "closed") return DONE;
    // Taken once woken, not by the producer's call: what it pushes next in the same turn may
    // still supersede it (pushLatest).
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    }).then(() => this.#next());
  }
}
