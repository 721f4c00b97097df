import { fromBinary, toJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { describe, expect, it } from "vitest";
import { compile } from "../compile.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  socketListenerSpec,
  validationSecretSpec,
  virtualHostSpec,
} from "../fixtures.js";
import { TypeUrl, type XdsResource } from "./resource-snapshot.js";
import { projectXdstp } from "./xdstp-projection.js";

const AUTH = "xds.example.com";
const CA = `-----BEGIN CERTIFICATE-----
MIIBhTCCASugAwIBAgIUTest
-----END CERTIFICATE-----`;

const x = (type: string, id: string) => `xdstp://${AUTH}/${type}/${id}`;

function compiled() {
  const spec = configSpec({
    clusters: [
      clusterSpec("team-a/blue", [endpointSpec("10.0.0.1", 9000)], { tlsSecretName: "ca" }),
      clusterSpec("green", [endpointSpec("10.0.0.2", 9000)], { edsServiceName: "green-eps" }),
    ],
    routeConfigurations: [
      routeConfigurationSpec("shop", "team-a/blue", {
        virtualHosts: [
          virtualHostSpec(
            "shop",
            ["*"],
            [
              routeSpec("", {
                actionKind: "WEIGHTED_CLUSTERS",
                cluster: null,
                weightedClusters: [
                  { name: "team-a/blue", weight: 80 },
                  { name: "green", weight: 20 },
                ],
              }),
            ],
          ),
        ],
      }),
    ],
    listeners: [socketListenerSpec("edge", 8080, "shop")],
    secrets: [validationSecretSpec("ca", CA, [])],
  });
  const config = compile(spec);
  const snapshot = config.groups[0]?.snapshot;
  if (!snapshot) throw new Error("no group");
  const get = (typeUrl: TypeUrl, name: string): XdsResource => {
    const resource = snapshot.resources(typeUrl).get(name);
    if (!resource) throw new Error(`${name} not compiled: ${JSON.stringify(config.issues)}`);
    return resource;
  };
  return { get };
}

describe("a resource served under its xdstp:// name", () => {
  const { get } = compiled();

  it("carries the requested name and refers to the route configuration by its xdstp:// name, via ADS for the authority", () => {
    const name = `${x("envoy.config.listener.v3.Listener", "edge")}?xds.node.cluster=edge`;
    const projected = projectXdstp(get(TypeUrl.Listener, "edge"), AUTH, name);
    const listener = toJson(ListenerSchema, fromBinary(ListenerSchema, projected.body), {
      registry,
    }) as { name: string; filterChains: { filters: { typedConfig: { rds: object } }[] }[] };
    expect(listener.name).toBe(name);
    expect(listener.filterChains[0]?.filters[0]?.typedConfig.rds).toEqual({
      configSource: { ads: {}, resourceApiVersion: "V3", authorities: [{ name: AUTH }] },
      routeConfigName: x("envoy.config.route.v3.RouteConfiguration", "shop"),
    });
    expect(projected.references).toEqual([x("envoy.config.route.v3.RouteConfiguration", "shop")]);
    expect(projected.version).toBe(get(TypeUrl.Listener, "edge").version);
  });

  it("routes to clusters by their xdstp:// names, weighted ones too", () => {
    const name = x("envoy.config.route.v3.RouteConfiguration", "shop");
    const projected = projectXdstp(get(TypeUrl.RouteConfiguration, "shop"), AUTH, name);
    const routes = fromBinary(RouteConfigurationSchema, projected.body);
    const action = routes.virtualHosts[0]?.routes[0]?.action;
    if (action?.case !== "route") throw new Error("no route action");
    const weighted = action.value.clusterSpecifier;
    if (weighted.case !== "weightedClusters") throw new Error("not weighted");
    expect(weighted.value.clusters.map((c) => c.name)).toEqual([
      x("envoy.config.cluster.v3.Cluster", "team-a/blue"),
      x("envoy.config.cluster.v3.Cluster", "green"),
    ]);
    expect(projected.references).toEqual([
      x("envoy.config.cluster.v3.Cluster", "green"),
      x("envoy.config.cluster.v3.Cluster", "team-a/blue"),
    ]);
  });

  it("names its assignment and its secrets by xdstp:// names; the assignment keeps its own service name", () => {
    const blue = fromBinary(
      ClusterSchema,
      projectXdstp(
        get(TypeUrl.Cluster, "team-a/blue"),
        AUTH,
        x("envoy.config.cluster.v3.Cluster", "team-a/blue"),
      ).body,
    );
    expect(blue.name).toBe(x("envoy.config.cluster.v3.Cluster", "team-a/blue"));
    expect(blue.edsClusterConfig?.serviceName).toBe(
      x("envoy.config.endpoint.v3.ClusterLoadAssignment", "team-a/blue"),
    );
    expect(JSON.stringify(toJson(ClusterSchema, blue, { registry }))).toContain(
      JSON.stringify(x("envoy.extensions.transport_sockets.tls.v3.Secret", "ca")),
    );
    const green = fromBinary(
      ClusterSchema,
      projectXdstp(
        get(TypeUrl.Cluster, "green"),
        AUTH,
        x("envoy.config.cluster.v3.Cluster", "green"),
      ).body,
    );
    expect(green.edsClusterConfig?.serviceName).toBe(
      x("envoy.config.endpoint.v3.ClusterLoadAssignment", "green-eps"),
    );
    const assignment = fromBinary(
      ClusterLoadAssignmentSchema,
      projectXdstp(
        get(TypeUrl.ClusterLoadAssignment, "green-eps"),
        AUTH,
        x("envoy.config.endpoint.v3.ClusterLoadAssignment", "green-eps"),
      ).body,
    );
    expect(assignment.clusterName).toBe(
      x("envoy.config.endpoint.v3.ClusterLoadAssignment", "green-eps"),
    );
    expect(assignment.endpoints).toHaveLength(1);
  });

  it("is made once per resource and name, and shared", () => {
    const resource = get(TypeUrl.Cluster, "green");
    const name = x("envoy.config.cluster.v3.Cluster", "green");
    expect(projectXdstp(resource, AUTH, name)).toBe(projectXdstp(resource, AUTH, name));
  });
});
