import { create } from "@bufbuild/protobuf";
import { RolloutTrafficSchema, TouchReason } from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { trafficRows } from "./rollout-traffic";

const side = (requests: number, errors: number) => ({
  successful: BigInt(requests - errors),
  errored: BigInt(errors),
});

describe("a rollout's traffic as the Changes page shows it", () => {
  it("gives each touched cluster its error ratio before and after, flags a rise over enough requests, and sums them", () => {
    const rows = trafficRows(
      create(RolloutTrafficSchema, {
        version: 7n,
        clusters: [
          {
            cluster: "blue",
            reasons: [TouchReason.ROUTE_CHANGED],
            touchedBy: ["route_configuration/shop"],
            reportsLoad: true,
            before: side(100, 0),
            after: side(0, 0),
          },
          {
            cluster: "red",
            reasons: [TouchReason.ROUTE_CHANGED],
            touchedBy: ["route_configuration/shop"],
            reportsLoad: true,
            before: side(0, 0),
            after: side(40, 20),
          },
          {
            cluster: "canary",
            reasons: [TouchReason.CLUSTER_CHANGED],
            reportsLoad: true,
            before: side(0, 0),
            after: side(9, 9),
          },
          { cluster: "legacy", reasons: [TouchReason.CLUSTER_CHANGED], reportsLoad: false },
        ],
        totalBefore: side(100, 0),
        totalAfter: side(49, 29),
      }),
    );
    expect(rows.map((r) => [r.cluster, r.why, r.before.text, r.after.text, r.worse])).toEqual([
      ["blue", "Routes changed (route_configuration/shop)", "0% of 100", "No requests", false],
      ["red", "Routes changed (route_configuration/shop)", "No requests", "50% of 40", true],
      // Nine requests are too few to flag.
      ["canary", "Cluster changed", "No requests", "100% of 9", false],
      ["legacy", "Cluster changed", "No requests", "No requests", false],
      ["All touched clusters", "", "0% of 100", "59% of 49", true],
    ]);
  });

  it("does not flag a cluster whose errors were as high before the publish", () => {
    const [row] = trafficRows(
      create(RolloutTrafficSchema, {
        clusters: [
          {
            cluster: "flaky",
            reasons: [TouchReason.CLUSTER_CHANGED],
            reportsLoad: true,
            before: side(100, 20),
            after: side(100, 21),
          },
        ],
      }),
    );
    expect(row?.worse).toBe(false);
  });
});
