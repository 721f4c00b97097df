/**
 * A fixed-capacity buffer that keeps the newest items: pushing into a full buffer drops the
 * oldest. Memory is bounded by `capacity` whatever the traffic.
 */
export class RingBuffer<T> {
  readonly capacity: number;
  readonly #items: (T | undefined)[];
  /** Index of the oldest item. */
  #start = 0;
  #size = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  push(item: T): void {
    const end = (this.#start + this.#size) % this.capacity;
    this.#items[end] = item;
    if (this.#size < this.capacity) this.#size += 1;
    else this.#start = (this.#start + 1) % this.capacity;
  }

  /** The items, oldest first; a fresh array on each call. */
  toArray(): T[] {
    return this.newestWhile(() => true);
  }

  /**
   * The newest items for which `keep` holds, walking back from the newest to the first that fails
   * it; oldest first. Reads only those: taking what came since the last look (items numbered as
   * pushed) costs what came, not the whole ring.
   */
  newestWhile(keep: (item: T) => boolean): T[] {
    let count = 0;
    while (count < this.#size && keep(this.#at(this.#size - 1 - count))) count += 1;
    const out = new Array<T>(count);
    for (let i = 0; i < count; i++) out[i] = this.#at(this.#size - count + i);
    return out;
  }

  /** The item `index` places after the oldest. */
  #at(index: number): T {
    return this.#items[(this.#start + index) % this.capacity] as T;
  }
}
