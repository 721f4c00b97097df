import { create, toBinary } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { compile, configSpecOf, TypeUrl } from "@switchyard/snapshot";
import { clusterSpec } from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { reportsLoadToSelf } from "./lrs-service.js";

describe("which clusters report load", () => {
  it("a cluster reports load when its lrs_server is `self`, not another config source or none", () => {
    const encoded = (lrsServer?: Parameters<typeof create<typeof ClusterSchema>>[1]) =>
      toBinary(ClusterSchema, create(ClusterSchema, { name: "blue", ...lrsServer }));
    expect(
      reportsLoadToSelf(
        encoded({ lrsServer: { configSourceSpecifier: { case: "self", value: {} } } }),
      ),
    ).toBe(true);
    expect(
      reportsLoadToSelf(
        encoded({ lrsServer: { configSourceSpecifier: { case: "ads", value: {} } } }),
      ),
    ).toBe(false);
    expect(reportsLoadToSelf(encoded())).toBe(false);
  });

  it("a compiled cluster with reportLoad carries lrs_server self, whichever encoder wrote it", () => {
    const endpoint = (port: number) => ({
      address: "127.0.0.1",
      port,
      weight: null,
      healthStatus: "UNKNOWN" as const,
      extra: {},
    });
    const config = compile(
      configSpecOf({
        clusters: [
          clusterSpec("blue", [endpoint(9001)], { reportLoad: true }),
          // Circuit breakers take it off the fast encoder (fast-encode.ts), onto the generic one.
          clusterSpec("red", [endpoint(9003)], {
            reportLoad: true,
            circuitBreakers: { thresholds: [] },
          }),
          clusterSpec("green", [endpoint(9002)]),
        ],
      }),
    );
    const clusters = config.groups[0]?.snapshot.resources(TypeUrl.Cluster);
    expect(reportsLoadToSelf(clusters?.get("blue")?.body ?? new Uint8Array())).toBe(true);
    expect(reportsLoadToSelf(clusters?.get("red")?.body ?? new Uint8Array())).toBe(true);
    expect(reportsLoadToSelf(clusters?.get("green")?.body ?? new Uint8Array())).toBe(false);
  });
});
