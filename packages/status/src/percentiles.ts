/** p50, p99 and max of a set of durations; all undefined when the set is empty. */
export interface DurationSummary {
  readonly count: number;
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly max: number | undefined;
}

/**
 * The nearest-rank percentile: the smallest value such that at least `p`% of the values are at
 * or below it, i.e. `sorted[ceil(p/100 * n) - 1]` (rank at least 1). It is always one of the
 * values, never an interpolation: p50 of [10, 20, 30, 40] is 20, p99 of 100 values is the 99th.
 * `sorted` must be ascending; undefined when empty.
 */
export function nearestRank(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export function summarizeDurations(values: readonly number[]): DurationSummary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: nearestRank(sorted, 50),
    p99: nearestRank(sorted, 99),
    max: sorted.at(-1),
  };
}
