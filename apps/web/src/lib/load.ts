import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { Load } from "@switchyard/proto/switchyard/v1/status_pb";

/**
 * The load proxies reported (StatusService.GetLoad) as the console shows it: a row per time
 * bucket with each series' requests per second, for the chart, and per series its totals over
 * the window, for the table under it. A request is one that completed (successfully or with an
 * error); a bucket's rate is its count over its width.
 */

export interface LoadTotals {
  readonly name: string;
  /** Requests completed in the window. */
  readonly requests: number;
  readonly errors: number;
  readonly dropped: number;
  /** Requests per second over the window. */
  readonly rps: number;
  /** errors / requests, 0 without requests. */
  readonly errorRatio: number;
}

/** One point of the chart: the bucket's start (ms) and each series' requests per second. */
export type LoadChartRow = { readonly at: number } & Readonly<Record<string, number>>;

export function loadChart(load: Load): LoadChartRow[] {
  const rows = new Map<number, Record<string, number>>();
  for (const series of load.series) {
    for (const point of series.points) {
      const at = point.start ? timestampMs(point.start) : 0;
      const row = rows.get(at) ?? { at };
      const completed = Number(point.successful) + Number(point.errored);
      row[series.name] = (row[series.name] ?? 0) + completed / (point.widthSeconds || 1);
      rows.set(at, row);
    }
  }
  return [...rows.values()].sort((a, b) => (a.at ?? 0) - (b.at ?? 0)) as LoadChartRow[];
}

export function loadTotals(load: Load, windowSeconds: number): LoadTotals[] {
  return load.series.map((series) => {
    let requests = 0;
    let errors = 0;
    let dropped = 0;
    for (const point of series.points) {
      requests += Number(point.successful) + Number(point.errored);
      errors += Number(point.errored);
      dropped += Number(point.dropped);
    }
    return {
      name: series.name,
      requests,
      errors,
      dropped,
      rps: requests / windowSeconds,
      errorRatio: requests === 0 ? 0 : errors / requests,
    };
  });
}

/** The totals of several series as one (a fleet's, a cluster's). */
export function sumTotals(
  name: string,
  totals: readonly LoadTotals[],
  windowSeconds: number,
): LoadTotals {
  const requests = totals.reduce((n, t) => n + t.requests, 0);
  const errors = totals.reduce((n, t) => n + t.errors, 0);
  return {
    name,
    requests,
    errors,
    dropped: totals.reduce((n, t) => n + t.dropped, 0),
    rps: requests / windowSeconds,
    errorRatio: requests === 0 ? 0 : errors / requests,
  };
}

/** "12.3/s", "0.05/s". */
export function formatRate(rps: number): string {
  return `${rps >= 10 ? rps.toFixed(0) : rps >= 0.1 ? rps.toFixed(1) : rps.toFixed(2)}/s`;
}

/** "0%", "2.5%". */
export function formatRatio(ratio: number): string {
  const percent = ratio * 100;
  return `${percent === 0 ? "0" : percent < 10 ? percent.toFixed(1) : percent.toFixed(0)}%`;
}
