import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import {
  Cluster_DiscoveryType,
  ClusterSchema,
} from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  grpcServiceSpec,
  nodeGroupSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "./fixtures.js";
import { TypeUrl } from "./serving/resource-snapshot.js";

function onlyGroup(spec = grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50051)])) {
  const compiled = compile(spec);
  expect(compiled.issues).toEqual([]);
  expect(compiled.groups).toHaveLength(1);
  const [group] = compiled.groups;
  if (!group) throw new Error("no group");
  return group;
}

describe("compile", () => {
  it("turns a proxyless gRPC service into an api_listener, its RDS route configuration, an ADS EDS cluster and its assignment", () => {
    const { snapshot } = onlyGroup();
    const listener = fromBinary(
      ListenerSchema,
      snapshot.get(TypeUrl.Listener, "greeter")?.body ?? new Uint8Array(),
    );
    const hcm =
      listener.apiListener?.apiListener &&
      anyUnpack(listener.apiListener.apiListener, HttpConnectionManagerSchema);
    expect(hcm?.routeSpecifier.case).toBe("rds");
    expect(hcm?.routeSpecifier.case === "rds" && hcm.routeSpecifier.value.routeConfigName).toBe(
      "greeter-routes",
    );
    expect(
      hcm?.routeSpecifier.case === "rds" &&
        hcm.routeSpecifier.value.configSource?.configSourceSpecifier.case,
    ).toBe("ads");
    expect(hcm?.httpFilters.at(-1)?.name).toBe("envoy.filters.http.router");

    const routes = fromBinary(
      RouteConfigurationSchema,
      snapshot.get(TypeUrl.RouteConfiguration, "greeter-routes")?.body ?? new Uint8Array(),
    );
    const action = routes.virtualHosts[0]?.routes[0]?.action;
    expect(action?.case === "route" && action.value.clusterSpecifier).toEqual({
      case: "cluster",
      value: "greeter-backend",
    });

    const cluster = fromBinary(
      ClusterSchema,
      snapshot.get(TypeUrl.Cluster, "greeter-backend")?.body ?? new Uint8Array(),
    );
    expect(cluster.clusterDiscoveryType).toEqual({
      case: "type",
      value: Cluster_DiscoveryType.EDS,
    });
    expect(cluster.edsClusterConfig?.edsConfig?.configSourceSpecifier.case).toBe("ads");

    const assignment = fromBinary(
      ClusterLoadAssignmentSchema,
      snapshot.get(TypeUrl.ClusterLoadAssignment, "greeter-backend")?.body ?? new Uint8Array(),
    );
    const address = assignment.endpoints[0]?.lbEndpoints[0]?.hostIdentifier;
    expect(
      address?.case === "endpoint" &&
        address.value.address?.address.case === "socketAddress" &&
        address.value.address.address.value,
    ).toMatchObject({
      address: "127.0.0.1",
      portSpecifier: { case: "portValue", value: 50051 },
    });
    expect(assignment.endpoints[0]?.loadBalancingWeight).toBe(1);
  });

  it("records what each resource needs, so warming and dangling references can be checked", () => {
    const { snapshot } = onlyGroup();
    expect(snapshot.get(TypeUrl.Listener, "greeter")?.references).toEqual(["greeter-routes"]);
    expect(snapshot.get(TypeUrl.RouteConfiguration, "greeter-routes")?.references).toEqual([
      "greeter-backend",
    ]);
    expect(snapshot.get(TypeUrl.Cluster, "greeter-backend")?.references).toEqual([
      "greeter-backend",
    ]);
    expect(snapshot.danglingReferences()).toEqual([]);
  });

  it("gives the same content the same versions, and a changed resource a new version", () => {
    const a = onlyGroup().snapshot;
    const b = onlyGroup().snapshot;
    const moved = onlyGroup(
      grpcServiceSpec("greeter", [endpointSpec("127.0.0.1", 50052)]),
    ).snapshot;
    expect(b.get(TypeUrl.Cluster, "greeter-backend")?.version).toBe(
      a.get(TypeUrl.Cluster, "greeter-backend")?.version,
    );
    expect(moved.get(TypeUrl.Cluster, "greeter-backend")?.version).toBe(
      a.get(TypeUrl.Cluster, "greeter-backend")?.version,
    );
    expect(moved.get(TypeUrl.ClusterLoadAssignment, "greeter-backend")?.version).not.toBe(
      a.get(TypeUrl.ClusterLoadAssignment, "greeter-backend")?.version,
    );
  });

  it("keeps unmodelled Envoy fields from extra in the compiled resource", () => {
    const { snapshot } = onlyGroup(
      configSpec({
        clusters: [
          clusterSpec("c", [], {
            extra: { perConnectionBufferLimitBytes: 32768, dnsLookupFamily: "V4_ONLY" },
          }),
        ],
      }),
    );
    const cluster = fromBinary(
      ClusterSchema,
      snapshot.get(TypeUrl.Cluster, "c")?.body ?? new Uint8Array(),
    );
    expect(cluster.perConnectionBufferLimitBytes).toBe(32768);
    expect(cluster.dnsLookupFamily).toBe(1);
  });

  it("reports an Envoy field it cannot encode with the resource's path and leaves the resource out", () => {
    const compiled = compile(
      configSpec({ clusters: [clusterSpec("c", [], { extra: { notAField: 1 } })] }),
    );
    expect(compiled.issues).toHaveLength(1);
    expect(compiled.issues[0]?.path).toBe('clusters["c"]');
    expect(compiled.issues[0]?.message).toMatch(/notAField/);
    expect(compiled.groups[0]?.snapshot.resources(TypeUrl.Cluster).size).toBe(0);
  });

  it("puts a STATIC cluster's endpoints inline and serves no assignment for it", () => {
    const { snapshot } = onlyGroup(
      configSpec({
        clusters: [clusterSpec("s", [endpointSpec("10.0.0.1", 80)], { discoveryType: "STATIC" })],
      }),
    );
    const cluster = fromBinary(
      ClusterSchema,
      snapshot.get(TypeUrl.Cluster, "s")?.body ?? new Uint8Array(),
    );
    expect(cluster.loadAssignment?.endpoints[0]?.lbEndpoints).toHaveLength(1);
    expect(snapshot.resources(TypeUrl.ClusterLoadAssignment).size).toBe(0);
  });

  it("gives a named node group its listeners and clusters and what they need, and the default group everything", () => {
    const spec = configSpec({
      clusters: [clusterSpec("a"), clusterSpec("b")],
      routeConfigurations: [routeConfigurationSpec("ra", "a"), routeConfigurationSpec("rb", "b")],
      listeners: [socketListenerSpec("la", 8080, "ra"), socketListenerSpec("lb", 8081, "rb")],
      nodeGroups: [
        nodeGroupSpec("team-a", { nodeClusters: ["a"], listeners: ["la"], clusters: ["a"] }),
      ],
    });
    const compiled = compile(spec);
    const names = (name: string, typeUrl: string) => [
      ...(compiled.groups
        .find((g) => g.name === name)
        ?.snapshot.resources(typeUrl)
        .keys() ?? []),
    ];
    expect(compiled.groups.map((g) => g.name)).toEqual(["team-a", "default"]);
    expect(names("team-a", TypeUrl.Listener)).toEqual(["la"]);
    expect(names("team-a", TypeUrl.RouteConfiguration)).toEqual(["ra"]);
    expect(names("team-a", TypeUrl.Cluster)).toEqual(["a"]);
    expect(names("team-a", TypeUrl.ClusterLoadAssignment)).toEqual(["a"]);
    expect(names("default", TypeUrl.Listener)).toEqual(["la", "lb"]);
  });
});
