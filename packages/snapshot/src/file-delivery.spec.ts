import { fromJson } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compile } from "./compile.js";
import { deliveryFiles, fileNameOf, MAX_FILE_NAME } from "./file-delivery.js";
import { endpointSpec, grpcServiceSpec, runtimeLayerSpec } from "./fixtures.js";
import { TypeUrl } from "./serving/resource-snapshot.js";

const snapshot = () => {
  const compiled = compile(grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50051)]));
  expect(compiled.issues).toEqual([]);
  const group = compiled.groups[0];
  if (group === undefined) throw new Error("no group");
  return group.snapshot;
};

describe("file delivery", () => {
  it("writes CDS and LDS as one DiscoveryResponse each and every assignment and route configuration in a file of its own, in make-before-break order", () => {
    const files = deliveryFiles(snapshot(), {
      root: "/etc/envoy/xds",
      version: "7",
      format: "yaml",
    });
    expect(files.map((f) => f.path)).toEqual([
      "eds/greeter-backend.yaml",
      "cds.yaml",
      "rds/greeter-routes.yaml",
      "lds.yaml",
    ]);
    for (const file of files) {
      const response = fromJson(DiscoveryResponseSchema, parse(file.content), { registry });
      expect(response.versionInfo).toBe("7");
      expect(response.typeUrl).toBe(file.typeUrl);
      if (
        file.typeUrl === TypeUrl.ClusterLoadAssignment ||
        file.typeUrl === TypeUrl.RouteConfiguration
      )
        expect(response.resources).toHaveLength(1);
    }
  });

  it("points each cluster's EDS and each listener's RDS at their files instead of ADS", () => {
    const files = deliveryFiles(snapshot(), {
      root: "/etc/envoy/xds/",
      version: "1",
      format: "json",
    });
    const content = (path: string) => {
      const file = files.find((f) => f.path === path);
      if (file === undefined) throw new Error(`no ${path}`);
      return fromJson(DiscoveryResponseSchema, JSON.parse(file.content), { registry });
    };
    const [clusterAny] = content("cds.json").resources;
    const cluster = clusterAny && anyUnpack(clusterAny, ClusterSchema);
    expect(cluster?.edsClusterConfig?.edsConfig?.configSourceSpecifier).toEqual({
      case: "pathConfigSource",
      value: expect.objectContaining({ path: "/etc/envoy/xds/eds/greeter-backend.json" }),
    });
    const [listenerAny] = content("lds.json").resources;
    const listener = listenerAny && anyUnpack(listenerAny, ListenerSchema);
    const hcmAny = listener?.apiListener?.apiListener;
    const hcm = hcmAny && anyUnpack(hcmAny, HttpConnectionManagerSchema);
    expect(hcm?.routeSpecifier.case).toBe("rds");
    if (hcm?.routeSpecifier.case === "rds")
      expect(hcm.routeSpecifier.value.configSource?.configSourceSpecifier).toEqual({
        case: "pathConfigSource",
        value: expect.objectContaining({ path: "/etc/envoy/xds/rds/greeter-routes.json" }),
      });
  });

  it("writes each runtime layer in a file of its own, after the listeners", () => {
    const spec = grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50051)]);
    const compiled = compile({
      ...spec,
      runtimeLayers: [runtimeLayerSpec("faults", { "a.b": 1 })],
    });
    expect(compiled.issues).toEqual([]);
    const group = compiled.groups[0];
    if (group === undefined) throw new Error("no group");
    const files = deliveryFiles(group.snapshot, { root: "/x", version: "2", format: "yaml" });
    expect(files.map((f) => f.path).at(-1)).toBe("rtds/faults.yaml");
    const response = fromJson(DiscoveryResponseSchema, parse(files.at(-1)?.content ?? ""), {
      registry,
    });
    expect(response.typeUrl).toBe(TypeUrl.Runtime);
    expect(response.resources).toHaveLength(1);
  });

  it("makes any resource name a safe file name", () => {
    expect(fileNameOf("a/b")).toBe("a%2Fb");
    expect(fileNameOf("..")).toBe("%2E%2E");
    expect(fileNameOf("xdstp://auth/envoy.config.cluster.v3.Cluster/x")).not.toContain("/");
  });

  it("gives a name too long for a file system a short file name, distinct for each name", () => {
    const long = "a".repeat(250);
    const named = [long, `${long}b`, "é".repeat(200), `${"a".repeat(100)}+${"0".repeat(32)}`];
    const files = named.map(fileNameOf);

    for (const file of files) expect(Buffer.byteLength(file)).toBeLessThanOrEqual(MAX_FILE_NAME);
    expect(new Set(files).size).toBe(named.length);
    expect(files[0]).toMatch(/^a+\+[0-9a-f]{32}$/);
    // Cut between escapes: the readable start still decodes.
    expect(decodeURIComponent(files[2]?.split("+")[0] ?? "")).toMatch(/^é+$/);
    // The same name, the same file, version after version.
    expect(fileNameOf(long)).toBe(files[0]);
  });
});
