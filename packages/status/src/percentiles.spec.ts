import { describe, expect, it } from "vitest";
import { nearestRank, summarizeDurations } from "./percentiles.js";

describe("nearest-rank percentiles", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
  it.each([
    { values: [10, 20, 30, 40], p: 50, expected: 20 },
    { values: [10, 20, 30, 40, 50], p: 50, expected: 30 },
    { values: [10, 20, 30, 40], p: 99, expected: 40 },
    { values: hundred, p: 50, expected: 50 },
    { values: hundred, p: 99, expected: 99 },
    { values: [7], p: 0, expected: 7 },
    { values: [], p: 50, expected: undefined },
  ])("p$p of $values.length values is a value of the set: $expected", ({ values, p, expected }) => {
    expect(nearestRank(values, p)).toBe(expected);
  });

  it("a summary sorts its input and reports count, p50, p99 and max", () => {
    expect(summarizeDurations([400, 100, 300, 200])).toEqual({
      count: 4,
      p50: 200,
      p99: 400,
      max: 400,
    });
  });
});
