import { describe, expect, it } from "vitest";
import { RingBuffer } from "./ring-buffer.js";

describe("RingBuffer", () => {
  it("keeps the newest items up to its capacity, oldest first", () => {
    const ring = new RingBuffer<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.toArray()).toEqual([5, 6, 7]);
    expect(ring.size).toBe(3);
  });

  it("a capacity that is not a positive integer is refused", () => {
    expect(() => new RingBuffer(0)).toThrow(/positive integer, got 0/);
  });
});
