import { describe, expect, it } from "vitest";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  grpcServiceSpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "../fixtures.js";
import type { ClusterSpec, ConfigSpec } from "../model.js";
import { validate } from "./validate.js";
import { rejectedBy, VALIDATION_CODES, type ValidationCode } from "./validate-issues.js";
import {
  markPublishedRejections,
  newRejections,
  predictedRejections,
} from "./validate-rejections.js";

/** A gRPC service (api_listener "greeter") received by group "grpc", an Envoy edge by "edge". */
function fleet(lbPolicy: ClusterSpec["lbPolicy"]): ConfigSpec {
  const grpc = grpcServiceSpec("greeter", [endpointSpec("10.0.0.1", 50051)]);
  return configSpec({
    clusters: [
      ...grpc.clusters.map((cluster) => ({ ...cluster, lbPolicy })),
      clusterSpec("web", [endpointSpec("10.0.0.2", 80)], { lbPolicy: "LEAST_REQUEST" }),
    ],
    routeConfigurations: [
      ...grpc.routeConfigurations,
      routeConfigurationSpec("edge-routes", "web"),
    ],
    listeners: [...grpc.listeners, socketListenerSpec("edge", 8080, "edge-routes")],
    nodeGroups: [
      nodeGroupSpec("grpc", { listeners: ["greeter"], clusters: ["greeter-backend"] }),
      nodeGroupSpec("edge", { listeners: ["edge"], clusters: ["web"] }),
      nodeGroupSpec("all", { isDefault: true }),
    ],
  });
}

describe("predicted rejections", () => {
  it("marks every gRPC rule a client NACKs as rejected by gRPC, and no other rule", () => {
    const marked = (Object.keys(VALIDATION_CODES) as ValidationCode[]).filter(
      (code) => rejectedBy(code) !== undefined,
    );
    expect(marked.sort()).toEqual(
      [
        "grpc-duplicate-endpoint",
        "grpc-duplicate-locality",
        "grpc-priority-gap",
        "grpc-retry-policy",
        "grpc-unsupported-cluster-type",
        "grpc-unsupported-http-filter",
        "grpc-unsupported-lb-policy",
        "grpc-unsupported-route-action",
        "grpc-unsupported-tls",
      ].sort(),
    );
    for (const code of marked) {
      expect(rejectedBy(code)).toBe("grpc");
      // What every client rejects is an error; a predicted rejection is a warning.
      expect(VALIDATION_CODES[code].severity).toBe("warning");
    }
    // A locality without a weight is ignored, not NACKed.
    expect(rejectedBy("grpc-locality-weight")).toBeUndefined();
  });

  it("names the node groups that receive an api_listener reaching the object at fault", () => {
    const issue = validate(fleet("LEAST_REQUEST")).issues.find(
      (i) => i.code === "grpc-unsupported-lb-policy",
    );
    // "grpc" gets the api_listener, "all" (the default) gets everything; "edge" does not.
    expect(issue?.rejection).toEqual({ by: "grpc", nodeGroups: ["all", "grpc"] });
  });

  it("lists one entry per node group with the object, the rule and the warning", () => {
    const entries = predictedRejections(validate(fleet("LEAST_REQUEST")).issues);
    expect(entries.map((e) => [e.nodeGroup, e.object, e.code, e.by])).toEqual([
      ["all", 'clusters["greeter-backend"]', "grpc-unsupported-lb-policy", "grpc"],
      ["grpc", 'clusters["greeter-backend"]', "grpc-unsupported-lb-policy", "grpc"],
    ]);
    expect(entries[0]?.rule).toBe(VALIDATION_CODES["grpc-unsupported-lb-policy"].summary);
    expect(entries[0]?.message).toContain("lb policy LEAST_REQUEST is not supported");
  });

  it("leaves a gRPC warning whose client ignores rather than rejects a plain warning", () => {
    const spec = fleet("ROUND_ROBIN");
    const unweighted: ConfigSpec = {
      ...spec,
      clusters: spec.clusters.map((c) =>
        c.name === "greeter-backend"
          ? { ...c, localities: c.localities.map((l) => ({ ...l, weight: null })) }
          : c,
      ),
    };
    const issues = validate(unweighted).issues;
    const ignored = issues.find((i) => i.code === "grpc-locality-weight");
    expect(ignored).toBeDefined();
    expect(ignored?.rejection).toBeUndefined();
    expect(predictedRejections(issues)).toEqual([]);
  });

  it("counts as new only a rejection the published version lacks, by rule, object and group", () => {
    const published = predictedRejections(validate(fleet("LEAST_REQUEST")).issues);
    const draftSpec = fleet("LEAST_REQUEST");
    const draft: ConfigSpec = {
      ...draftSpec,
      clusters: draftSpec.clusters.map((c) =>
        c.name === "greeter-backend" ? { ...c, discoveryType: "STATIC" } : c,
      ),
    };
    const issues = validate(draft).issues;
    const fresh = newRejections(predictedRejections(issues), published);
    expect(fresh.map((e) => [e.code, e.nodeGroup])).toEqual([
      ["grpc-unsupported-cluster-type", "all"],
      ["grpc-unsupported-cluster-type", "grpc"],
    ]);
    const marked = markPublishedRejections(issues, published);
    expect(
      marked.filter((i) => i.rejection).map((i) => [i.code, i.rejection?.alreadyPublished]),
    ).toEqual([
      ["grpc-unsupported-cluster-type", false],
      ["grpc-unsupported-lb-policy", true],
    ]);
  });
});
