import { describe, expect, it } from "vitest";
import { rejectedNames } from "./nack-attribution.js";

describe("rejectedNames", () => {
  it("reads the resources gRPC names in its NACK (gRFC A46)", () => {
    const detail =
      "xDS response validation errors: [resource index 0: svc-a: INVALID_ARGUMENT: errors validating Cluster resource: [field:lb_policy error:LB policy is not supported]; resource index 2: xdstp://switchyard/envoy.config.cluster.v3.Cluster/svc-c: INVALID_ARGUMENT: bad]";

    expect(
      rejectedNames(detail, [
        "svc-a",
        "svc-b",
        "xdstp://switchyard/envoy.config.cluster.v3.Cluster/svc-c",
      ]),
    ).toEqual(new Set(["svc-a", "xdstp://switchyard/envoy.config.cluster.v3.Cluster/svc-c"]));
  });

  it("reads the resource grpc-js-xds points at by its index in the response", () => {
    const detail =
      "xDS response validation errors: [resource index 1: Cluster message validation failed: [unsupported lb_policy: LEAST_REQUEST]]";

    expect(rejectedNames(detail, ["blue", "green", "violet"])).toEqual(new Set(["green"]));
    // An index past the response names nothing.
    expect(rejectedNames("resource index 7: bad", ["blue"])).toBeUndefined();
  });

  it("reads the clusters Envoy names in its CDS NACK", () => {
    const detail =
      "Error adding/updating cluster(s) payments: envoy.config.cluster.v3.Cluster rejected";

    expect(rejectedNames(detail, ["orders", "payments"])).toEqual(new Set(["payments"]));
  });

  it("takes a name only as a whole word: not inside a longer name, a type or a field", () => {
    const detail = "Error adding/updating cluster(s) svc-a: field:lb_policy Cluster";

    expect(rejectedNames(detail, ["svc", "a", "lb_policy2", "Cluster-1", "svc-a"])).toEqual(
      new Set(["svc-a"]),
    );
  });

  it("is undefined when the text names none of the resources sent, so the whole response counts as rejected", () => {
    expect(rejectedNames("Proto constraint validation failed", ["svc-a", "svc-b"])).toBeUndefined();
    expect(rejectedNames("", [""])).toBeUndefined();
  });
});
