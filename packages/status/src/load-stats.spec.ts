import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ClusterStatsSchema } from "@switchyard/proto/envoy/config/endpoint/v3/load_report_pb";
import { describe, expect, it } from "vitest";
import {
  bucketOf,
  LoadBuckets,
  LoadReportError,
  loadRowsOf,
  MAX_ROWS_PER_REPORT,
} from "./load-stats.js";

const AT = Date.UTC(2026, 10, 27, 12, 0, 7);
const stats = (init: MessageInitShape<typeof ClusterStatsSchema>) =>
  create(ClusterStatsSchema, init);
const endpoint = (address: string, port: number, successful: bigint) => ({
  address: {
    address: {
      case: "socketAddress" as const,
      value: { address, portSpecifier: { case: "portValue" as const, value: port } },
    },
  },
  totalSuccessfulRequests: successful,
});

describe("load reports as rows", () => {
  it("a report gives a row per locality with its totals, one per endpoint, and one for the cluster's drops, in the bucket of its arrival", () => {
    const rows = loadRowsOf(
      [
        stats({
          clusterName: "blue",
          totalDroppedRequests: 3n,
          upstreamLocalityStats: [
            {
              locality: { region: "eu", zone: "eu-1", subZone: "" },
              totalSuccessfulRequests: 7n,
              totalErrorRequests: 2n,
              totalIssuedRequests: 9n,
              totalRequestsInProgress: 1n,
              upstreamEndpointStats: [
                endpoint("10.0.0.1", 8080, 4n),
                endpoint("10.0.0.2", 8080, 3n),
              ],
            },
          ],
        }),
      ],
      "envoy-1",
      AT,
      10,
    );
    const bucket = Date.UTC(2026, 10, 27, 12, 0, 0);
    expect(
      rows.map((r) => [
        r.cluster,
        `${r.region}/${r.zone}`,
        r.endpoint,
        r.successful,
        r.errored,
        r.issued,
        r.inProgress,
        r.dropped,
      ]),
    ).toEqual([
      ["blue", "/", "", 0, 0, 0, 0, 3],
      ["blue", "eu/eu-1", "", 7, 2, 9, 1, 0],
      ["blue", "eu/eu-1", "10.0.0.1:8080", 4, 0, 0, 0, 0],
      ["blue", "eu/eu-1", "10.0.0.2:8080", 3, 0, 0, 0, 0],
    ]);
    expect(
      rows.every((r) => r.bucket === bucket && r.widthS === 10 && r.nodeId === "envoy-1"),
    ).toBe(true);
    expect(bucketOf(AT, 60)).toBe(Date.UTC(2026, 10, 27, 12, 0, 0));
  });

  it("refuses, naming the field, a cluster without a name, an implausible count, an endpoint without an address and an oversized report", () => {
    const refusal = (init: MessageInitShape<typeof ClusterStatsSchema>[]) => {
      try {
        loadRowsOf(init.map(stats), "n", AT, 10);
      } catch (error) {
        return error instanceof LoadReportError ? error.message : String(error);
      }
      return "accepted";
    };
    expect(refusal([{ clusterName: "" }])).toBe(
      "cluster_stats[0].cluster_name: a cluster name is required",
    );
    expect(
      refusal([{ clusterName: "a", upstreamLocalityStats: [{ totalErrorRequests: 2n ** 60n }] }]),
    ).toMatch(/^cluster_stats\[0\]\.upstream_locality_stats\[0\]\.total_error_requests: /);
    expect(
      refusal([{ clusterName: "a", upstreamLocalityStats: [{ upstreamEndpointStats: [{}] }] }]),
    ).toMatch(/upstream_endpoint_stats\[0\]\.address: /);
    const many = Array.from({ length: MAX_ROWS_PER_REPORT + 1 }, (_, i) =>
      endpoint("10.0.0.1", i + 1, 1n),
    );
    expect(
      refusal([{ clusterName: "a", upstreamLocalityStats: [{ upstreamEndpointStats: many }] }]),
    ).toMatch(/^cluster_stats: more than/);
  });

  it("buckets add the counts of reports of the same key, keep the latest in-progress, and a failed write's rows go back under newer ones", () => {
    const report = (successful: bigint, inProgress: bigint) =>
      loadRowsOf(
        [
          stats({
            clusterName: "blue",
            upstreamLocalityStats: [
              { totalSuccessfulRequests: successful, totalRequestsInProgress: inProgress },
            ],
          }),
        ],
        "n",
        AT,
        10,
      );
    const buckets = new LoadBuckets();
    buckets.add(report(5n, 2n));
    buckets.add(report(4n, 1n));
    const drained = buckets.drain();
    expect(drained.map((r) => [r.successful, r.inProgress])).toEqual([[9, 1]]);
    expect(buckets.size).toBe(0);
    buckets.add(report(1n, 7n));
    buckets.restore(drained);
    expect(buckets.drain().map((r) => [r.successful, r.inProgress])).toEqual([[10, 7]]);
  });
});
