import { describe, expect, it } from "vitest";
import { RingBuffer } from "./ring-buffer.js";

describe("RingBuffer", () => {
  it("keeps the newest items up to its capacity, oldest first", () => {
    const ring = new RingBuffer<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.toArray()).toEqual([5, 6, 7]);
    expect(ring.size).toBe(3);
  });

  it("newestWhile reads back from the newest to the first item failing the test, oldest first", () => {
    const ring = new RingBuffer<number>(4);
    for (let i = 1; i <= 6; i++) ring.push(i);
    expect(ring.newestWhile((n) => n > 4)).toEqual([5, 6]);
    expect(ring.newestWhile((n) => n > 6)).toEqual([]);
    // Stops at the first failure even if older items would pass (items are pushed in order).
    expect(ring.newestWhile((n) => n !== 5)).toEqual([6]);
    expect(ring.newestWhile(() => true)).toEqual([3, 4, 5, 6]);
  });

  it("a capacity that is not a positive integer is refused", () => {
    expect(() => new RingBuffer(0)).toThrow(/positive integer, got 0/);
  });
});
