/**
 * Validation does not decode again the clusters and assignments the compiler writes from modelled
 * fields only (validate-envoy.ts, modelledOnlyResources): it relies on its own checks of those
 * fields. This property test holds it to that: for any such cluster, every violation of Envoy's
 * rules the generic check finds in the compiled resources is reported by `validate` at that field.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import { assignmentModelPath, clusterModelPath } from "../envoy/envoy-model-path.js";
import { clusterSpec, configSpec, endpointSpec, localitySpec } from "../fixtures.js";
import type { ClusterSpec, HealthStatus, LbPolicy } from "../model.js";
import { assignmentEncodesFast, clusterEncodesFast } from "../serving/fast-encode.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { checkRules } from "./envoy-rules.js";
import { validate } from "./validate.js";

const uint = (max: number) => fc.integer({ min: 0, max });
const weight = fc.option(fc.oneof(uint(3), fc.constant(2 ** 32), fc.constant(2 ** 32 - 1)), {
  nil: null,
});
const address = fc.oneof(
  fc.constant("10.0.0.1"),
  fc.constant("::1"),
  fc.constant("backend.internal"),
  fc.constant(""),
  fc.string({ maxLength: 6 }),
);
const endpoint = fc
  .record({
    address,
    port: fc.oneof(uint(3), fc.constant(65535), fc.constant(65536), fc.constant(70000)),
    weight,
    healthStatus: fc.constantFrom<HealthStatus>("UNKNOWN", "HEALTHY", "DRAINING"),
  })
  .map(({ address: a, port, ...rest }) => endpointSpec(a, port, rest));
const locality = fc
  .record({
    endpoints: fc.array(endpoint, { maxLength: 3 }),
    weight,
    priority: fc.oneof(uint(2), fc.constant(128), fc.constant(129), fc.constant(1000)),
    region: fc.string({ maxLength: 3 }),
  })
  .map(({ endpoints, ...rest }) => localitySpec(endpoints, rest));
const cluster = fc
  .record({
    name: fc.oneof(fc.constant("c"), fc.string({ minLength: 1, maxLength: 8 })),
    discoveryType: fc.constantFrom("EDS", "STATIC", "STRICT_DNS", "LOGICAL_DNS" as const),
    lbPolicy: fc.constantFrom<LbPolicy>("ROUND_ROBIN", "RING_HASH", "MAGLEV", "RANDOM"),
    connectTimeoutMs: fc.oneof(uint(2), fc.constant(250), fc.constant(2 ** 31)),
    edsServiceName: fc.option(fc.string({ maxLength: 4 }), { nil: null }),
    localities: fc.array(locality, { maxLength: 3 }),
  })
  .map(({ name, localities, ...rest }) => clusterSpec(name, [], { ...rest, localities }));

/** Where the generic check finds violations in the compiled resources of `spec`'s one cluster. */
function ruleViolationPaths(c: ClusterSpec): string[] {
  const compiled = compile(configSpec({ clusters: [c] }));
  const all = compiled.groups.find((g) => g.isDefault)?.snapshot;
  const paths: string[] = [];
  const body = all?.get(TypeUrl.Cluster, c.name)?.body;
  if (body) {
    for (const v of checkRules(ClusterSchema, fromBinary(ClusterSchema, body)))
      paths.push(clusterModelPath(c, v.at));
  }
  for (const resource of all?.resources(TypeUrl.ClusterLoadAssignment).values() ?? []) {
    const message = fromBinary(ClusterLoadAssignmentSchema, resource.body);
    for (const v of checkRules(ClusterLoadAssignmentSchema, message))
      paths.push(assignmentModelPath(c, v.at));
  }
  return paths;
}

describe("clusters written from modelled fields only", () => {
  it("have every violation of Envoy's rules reported by validation at its field", () => {
    fc.assert(
      fc.property(cluster, (c) => {
        fc.pre(clusterEncodesFast(c) && assignmentEncodesFast(c));
        const errors = validate(configSpec({ clusters: [c] }))
          .issues.filter((issue) => issue.severity === "error")
          .map((issue) => issue.path);
        for (const path of ruleViolationPaths(c)) {
          expect(
            errors.some((error) => path === error || path.startsWith(error)),
            `${path} is not reported (reported: ${errors.join(", ")})`,
          ).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});
