import { DiscoveryType, LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { clusterFormOf, clusterFormSchema, clusterOfForm, emptyClusterForm } from "./cluster-form";
import { cluster } from "./config-fixtures";

describe("the cluster form", () => {
  it("gives back the stored cluster unchanged when nothing was edited", () => {
    const stored = cluster({
      http2: true,
      tlsSecretName: "upstream-tls",
      extra: { perConnectionBufferLimitBytes: 1024 },
      circuitBreakers: {
        thresholds: [{ maxConnections: 100 }, { priority: "HIGH", maxConnections: 5 }],
      },
      outlierDetection: { consecutive5xx: 5, interval: "10s", successRateMinimumHosts: 3 },
      healthChecks: [{ timeout: "1s", interval: "5s", tcpHealthCheck: {} }],
    });
    expect(clusterOfForm(clusterFormOf(stored), stored)).toEqual(stored);
  });

  it.each([
    ["an ORIGINAL_DST cluster", DiscoveryType.ORIGINAL_DST, {}],
    [
      "an extension (aggregate) cluster",
      DiscoveryType.CUSTOM,
      {
        clusterType: {
          name: "envoy.clusters.aggregate",
          typedConfig: {
            "@type": "type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
            clusters: ["a", "b"],
          },
        },
      },
    ],
  ])("gives back %s unchanged when nothing was edited", (_, discoveryType, extra) => {
    const stored = cluster({
      discoveryType,
      lbPolicy: LbPolicy.CLUSTER_PROVIDED,
      localities: [],
      extra,
    });
    expect(clusterOfForm(clusterFormOf(stored), stored)).toEqual(stored);
  });

  it("edits the default circuit breaker thresholds and keeps the other priorities", () => {
    const stored = cluster({
      circuitBreakers: {
        thresholds: [{ maxConnections: 100 }, { priority: "HIGH", maxRetries: 1 }],
      },
    });
    const form = { ...clusterFormOf(stored), maxConnections: "", maxRequests: "50" };
    expect(clusterOfForm(form, stored).circuitBreakers).toEqual({
      thresholds: [{ maxRequests: 50 }, { priority: "HIGH", maxRetries: 1 }],
    });
  });

  it("sends no outlier detection when its fields are emptied", () => {
    const stored = cluster({ outlierDetection: { consecutive5xx: 5 } });
    const form = { ...clusterFormOf(stored), consecutive5xx: "" };
    expect(clusterOfForm(form, stored).outlierDetection).toBeUndefined();
  });

  it("sends an empty optional weight as unset, not 0", () => {
    const form = emptyClusterForm();
    form.name = "new";
    const endpoint = form.localities[0]?.endpoints[0];
    if (endpoint) Object.assign(endpoint, { address: "10.0.0.9", port: "80", weight: "" });
    const message = clusterOfForm(form);
    expect(message.localities[0]?.endpoints[0]?.weight).toBeUndefined();
    expect(message.localities[0]?.endpoints[0]?.port).toBe(80);
  });

  it("refuses a port outside 1-65535 and a name with spaces before asking the server", () => {
    const form = clusterFormOf(cluster());
    form.name = "has space";
    const endpoint = form.localities[0]?.endpoints[0];
    if (endpoint) endpoint.port = "70000";
    const result = clusterFormSchema.safeParse(form);
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(paths).toContain("name");
    expect(paths).toContain("localities.0.endpoints.0.port");
  });

  it("takes a Unix socket or internal listener endpoint with no port, and refuses a port beside one", () => {
    for (const address of ["unix:///run/app.sock", "envoy://inner"]) {
      const form = emptyClusterForm();
      form.name = "portless";
      const endpoint = form.localities[0]?.endpoints[0];
      if (endpoint) Object.assign(endpoint, { address, port: "" });
      expect(clusterFormSchema.safeParse(form).success).toBe(true);
      const message = clusterOfForm(form);
      expect(message.localities[0]?.endpoints[0]?.port).toBe(0);
      expect(clusterFormOf(message).localities[0]?.endpoints[0]?.port).toBe("");
      if (endpoint) endpoint.port = "8080";
      const refused = clusterFormSchema.safeParse(form);
      expect(refused.error?.issues.map((i) => i.path.join("."))).toEqual([
        "localities.0.endpoints.0.port",
      ]);
    }
    const form = emptyClusterForm();
    form.name = "ip";
    const endpoint = form.localities[0]?.endpoints[0];
    if (endpoint) Object.assign(endpoint, { address: "10.0.0.1", port: "" });
    expect(clusterFormSchema.safeParse(form).success).toBe(false);
  });

  it("refuses health checks that are not a JSON list of objects", () => {
    const form = { ...clusterFormOf(cluster()), healthChecks: '{"timeout": "1s"}' };
    expect(clusterFormSchema.safeParse(form).success).toBe(false);
  });
});
