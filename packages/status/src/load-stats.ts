/**
 * Load reports (LRS: envoy.service.load_stats.v3) as rows of counts per time bucket, pure. A
 * LoadStatsRequest's `cluster_stats` carry, per cluster, per locality (and per endpoint when the
 * server asked for endpoint granularity) the requests completed successfully, with an error,
 * issued and still in progress since the proxy's previous report, and the requests it dropped
 * (envoy/config/endpoint/v3/load_report.proto). Each report is filed under the bucket of the time
 * it arrived; counts add up, in-progress is a gauge (the latest report's value).
 */
import type { ClusterStats } from "@switchyard/proto/envoy/config/endpoint/v3/load_report_pb";

/** What a row is about: one node's report of one cluster at one locality (and endpoint). */
export interface LoadKey {
  readonly nodeId: string;
  readonly cluster: string;
  readonly region: string;
  readonly zone: string;
  readonly subZone: string;
  /** "address:port", or "" for the locality's totals (and the cluster's dropped requests). */
  readonly endpoint: string;
}

export interface LoadCounts {
  readonly successful: number;
  readonly errored: number;
  readonly issued: number;
  readonly inProgress: number;
  readonly dropped: number;
}

export interface LoadRow extends LoadKey, LoadCounts {
  /** The bucket's start, ms since the epoch. */
  readonly bucket: number;
  readonly widthS: number;
}

/** The most rows one report may make (clusters × localities × endpoints). */
export const MAX_ROWS_PER_REPORT = 10_000;

/** A report that cannot be stored; `path` is the field, as in the request's JSON. */
export class LoadReportError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/** The start of the `widthS`-second bucket holding `at` (ms). */
export function bucketOf(at: number, widthS: number): number {
  const width = widthS * 1000;
  return Math.floor(at / width) * width;
}

function count(value: bigint, path: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new LoadReportError(path, `${value} is not a plausible request count`);
  return Number(value);
}

/**
 * The rows of one report by `nodeId`, arrived at `at`, in `widthS`-second buckets. Throws
 * LoadReportError, naming the field, on a cluster without a name, an implausible count or more
 * than MAX_ROWS_PER_REPORT rows; nothing of such a report is kept.
 */
export function loadRowsOf(
  clusterStats: readonly ClusterStats[],
  nodeId: string,
  at: number,
  widthS: number,
): LoadRow[] {
  const bucket = bucketOf(at, widthS);
  const rows: LoadRow[] = [];
  const push = (row: Omit<LoadRow, "nodeId" | "bucket" | "widthS">) => {
    if (rows.length >= MAX_ROWS_PER_REPORT)
      throw new LoadReportError(
        "cluster_stats",
        `more than ${MAX_ROWS_PER_REPORT} localities and endpoints in one report`,
      );
    rows.push({ nodeId, bucket, widthS, ...row });
  };
  clusterStats.forEach((stats, i) => {
    const at = `cluster_stats[${i}]`;
    if (stats.clusterName === "")
      throw new LoadReportError(`${at}.cluster_name`, "a cluster name is required");
    const cluster = stats.clusterName;
    const dropped = count(stats.totalDroppedRequests, `${at}.total_dropped_requests`);
    if (dropped > 0)
      push({ cluster, region: "", zone: "", subZone: "", endpoint: "", ...NO_COUNTS, dropped });
    stats.upstreamLocalityStats.forEach((locality, j) => {
      const lat = `${at}.upstream_locality_stats[${j}]`;
      const place = {
        cluster,
        region: locality.locality?.region ?? "",
        zone: locality.locality?.zone ?? "",
        subZone: locality.locality?.subZone ?? "",
      };
      push({
        ...place,
        endpoint: "",
        successful: count(locality.totalSuccessfulRequests, `${lat}.total_successful_requests`),
        errored: count(locality.totalErrorRequests, `${lat}.total_error_requests`),
        issued: count(locality.totalIssuedRequests, `${lat}.total_issued_requests`),
        inProgress: count(locality.totalRequestsInProgress, `${lat}.total_requests_in_progress`),
        dropped: 0,
      });
      locality.upstreamEndpointStats.forEach((endpoint, k) => {
        const eat = `${lat}.upstream_endpoint_stats[${k}]`;
        push({
          ...place,
          endpoint: endpointName(endpoint.address?.address, eat),
          successful: count(endpoint.totalSuccessfulRequests, `${eat}.total_successful_requests`),
          errored: count(endpoint.totalErrorRequests, `${eat}.total_error_requests`),
          issued: count(endpoint.totalIssuedRequests, `${eat}.total_issued_requests`),
          inProgress: count(endpoint.totalRequestsInProgress, `${eat}.total_requests_in_progress`),
          dropped: 0,
        });
      });
    });
  });
  return rows;
}

const NO_COUNTS: LoadCounts = { successful: 0, errored: 0, issued: 0, inProgress: 0, dropped: 0 };

type AddressCase = NonNullable<
  ClusterStats["upstreamLocalityStats"][number]["upstreamEndpointStats"][number]["address"]
>["address"];

function endpointName(address: AddressCase | undefined, path: string): string {
  switch (address?.case) {
    case "socketAddress": {
      const port = address.value.portSpecifier;
      return port.case === "portValue"
        ? `${address.value.address}:${port.value}`
        : address.value.address;
    }
    case "pipe":
      return address.value.path;
    default:
      throw new LoadReportError(`${path}.address`, "an endpoint's socket address is required");
  }
}

/** The identity of a row in its bucket. */
function keyOf(row: LoadRow): string {
  return [
    row.bucket,
    row.widthS,
    row.nodeId,
    row.cluster,
    row.region,
    row.zone,
    row.subZone,
    row.endpoint,
  ].join("\u0000");
}

/**
 * Rows accumulated between two writes: counts of the same bucket and key add up, in-progress is
 * the latest. `drain` hands them over and starts afresh; `restore` puts back what a failed write
 * did not store, under what arrived meanwhile.
 */
export class LoadBuckets {
  #rows = new Map<string, LoadRow>();

  get size(): number {
    return this.#rows.size;
  }

  add(rows: readonly LoadRow[]): void {
    for (const row of rows) this.#merge(row, true);
  }

  drain(): LoadRow[] {
    const rows = [...this.#rows.values()];
    this.#rows = new Map();
    return rows;
  }

  restore(rows: readonly LoadRow[]): void {
    for (const row of rows) this.#merge(row, false);
  }

  #merge(row: LoadRow, newer: boolean): void {
    const key = keyOf(row);
    const known = this.#rows.get(key);
    this.#rows.set(
      key,
      known === undefined
        ? row
        : {
            ...known,
            successful: known.successful + row.successful,
            errored: known.errored + row.errored,
            issued: known.issued + row.issued,
            dropped: known.dropped + row.dropped,
            inProgress: newer ? row.inProgress : known.inProgress,
          },
    );
  }
}
