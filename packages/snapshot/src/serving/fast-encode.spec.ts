import { fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clusterJson, clusterLoadAssignmentJson } from "../envoy/envoy-json.js";
import { clusterSpec, endpointSpec, largeConfigSpec } from "../fixtures.js";
import type { ClusterSpec, EndpointSpec, LocalitySpec } from "../model.js";
import { encodeAssignmentFast, encodeClusterFast } from "./fast-encode.js";

const text = fc.stringMatching(/^[a-z0-9.-]{0,12}$/);
const endpoint: fc.Arbitrary<EndpointSpec> = fc.record({
  address: fc.ipV4(),
  port: fc.integer({ min: 1, max: 65535 }),
  weight: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  healthStatus: fc.constantFrom(
    "UNKNOWN",
    "HEALTHY",
    "UNHEALTHY",
    "DRAINING",
    "TIMEOUT",
    "DEGRADED",
  ),
  extra: fc.constant({}),
});
const locality: fc.Arbitrary<LocalitySpec> = fc.record({
  region: text,
  zone: text,
  subZone: text,
  weight: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
  priority: fc.integer({ min: 0, max: 4 }),
  extra: fc.constant({}),
  endpoints: fc.array(endpoint, { maxLength: 4 }),
});
const cluster: fc.Arbitrary<ClusterSpec> = fc
  .record({
    name: fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
    discoveryType: fc.constantFrom("EDS", "STATIC", "STRICT_DNS", "LOGICAL_DNS"),
    lbPolicy: fc.constantFrom(
      "ROUND_ROBIN",
      "LEAST_REQUEST",
      "RING_HASH",
      "RANDOM",
      "MAGLEV",
      "CLUSTER_PROVIDED",
    ),
    connectTimeoutMs: fc.integer({ min: 0, max: 600_000 }),
    http2: fc.boolean(),
    reportLoad: fc.boolean(),
    edsServiceName: fc.option(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), { nil: null }),
    localities: fc.array(locality, { maxLength: 3 }),
  })
  .map((fields) => clusterSpec(fields.name, [], fields));

const generic = {
  cluster: (c: ClusterSpec) =>
    toBinary(ClusterSchema, fromJson(ClusterSchema, clusterJson(c) as JsonValue, { registry })),
  assignment: (c: ClusterSpec) =>
    toBinary(
      ClusterLoadAssignmentSchema,
      fromJson(ClusterLoadAssignmentSchema, clusterLoadAssignmentJson(c) as JsonValue, {
        registry,
      }),
    ),
};

describe("fast encoders", () => {
  it("write exactly the bytes of the generic path for any cluster using only modelled fields", () => {
    fc.assert(
      fc.property(cluster, (c) => {
        expect(encodeClusterFast(c)).toEqual(generic.cluster(c));
        expect(encodeAssignmentFast(c)).toEqual(generic.assignment(c));
      }),
      { numRuns: 500 },
    );
  });

  it("write exactly the bytes of the generic path for the benchmark fleet", () => {
    for (const c of largeConfigSpec(200, 0).clusters) {
      expect(encodeClusterFast(c)).toEqual(generic.cluster(c));
      expect(encodeAssignmentFast(c)).toEqual(generic.assignment(c));
    }
  });

  it("leave anything with unmodelled fields to the generic path", () => {
    expect(
      encodeClusterFast(clusterSpec("c", [], { extra: { dnsLookupFamily: "V4_ONLY" } })),
    ).toBeUndefined();
    expect(
      encodeClusterFast(clusterSpec("c", [], { outlierDetection: { consecutive5xx: 5 } })),
    ).toBeUndefined();
    expect(
      encodeAssignmentFast(
        clusterSpec("c", [endpointSpec("10.0.0.1", 80, { extra: { endpointName: "x" } })]),
      ),
    ).toBeUndefined();
    expect(
      encodeAssignmentFast(
        clusterSpec("c", [], { assignmentExtra: { policy: { overprovisioningFactor: 140 } } }),
      ),
    ).toBeUndefined();
  });
});
