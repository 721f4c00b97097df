import { create } from "@bufbuild/protobuf";
import {
  ClusterSchema,
  ListenerSchema,
  RouteActionKind,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { buildTopology, layoutTopology, maxEndpointsShown } from "./topology";

const listener = (name: string, routes: string) =>
  create(ListenerSchema, {
    name,
    apiListener: true,
    filterChains: [{ rdsRouteConfigName: routes }],
  });
const cluster = (name: string, endpoints = 1) =>
  create(ClusterSchema, {
    name,
    localities: [
      {
        endpoints: Array.from({ length: endpoints }, (_, i) => ({
          address: "10.0.0.1",
          port: 8000 + i,
        })),
      },
    ],
  });
const routes = (name: string, ...clusters: string[]) =>
  create(RouteConfigurationSchema, {
    name,
    virtualHosts: [
      {
        name: "api",
        domains: ["*"],
        routes: clusters.map((c) => ({ actionKind: RouteActionKind.CLUSTER, cluster: c })),
      },
    ],
  });

describe("buildTopology", () => {
  it("links listener → route configuration → virtual host → cluster → endpoint", () => {
    const t = buildTopology({
      listeners: [listener("edge", "edge-routes")],
      routeConfigurations: [routes("edge-routes", "backend")],
      clusters: [cluster("backend")],
    });
    expect(t.edges.map((e) => `${e.source} ${e.target}`)).toEqual([
      "listener:edge route-configuration:edge-routes",
      "route-configuration:edge-routes virtual-host:edge-routes/api",
      "virtual-host:edge-routes/api cluster:backend",
      "cluster:backend endpoint:backend/0",
    ]);
  });

  it("links every node to its object's page; a virtual host to its route configuration", () => {
    const t = buildTopology({
      listeners: [listener("edge", "r")],
      routeConfigurations: [routes("r", "b c")],
      clusters: [cluster("b c")],
    });
    const href = (id: string) => t.nodes.find((n) => n.id === id)?.href;
    expect(href("listener:edge")).toBe("/listeners/edge");
    expect(href("route-configuration:r")).toBe("/routes/r");
    expect(href("virtual-host:r/api")).toBe("/routes/r");
    expect(href("cluster:b c")).toBe("/clusters/b%20c");
    expect(href("endpoint:b c/0")).toBe("/clusters/b%20c");
  });

  it("draws a reference to an object that is not stored as a missing node, without a link", () => {
    const t = buildTopology({
      listeners: [listener("edge", "gone")],
      routeConfigurations: [],
      clusters: [],
    });
    expect(t.nodes.find((n) => n.id === "route-configuration:gone")).toMatchObject({
      missing: true,
      href: undefined,
    });
  });

  it("draws one edge for several routes to the same cluster", () => {
    const t = buildTopology({
      listeners: [],
      routeConfigurations: [routes("r", "b", "b")],
      clusters: [cluster("b", 0)],
    });
    expect(t.edges.filter((e) => e.target === "cluster:b")).toHaveLength(1);
  });

  it("labels a weighted split's edges with each cluster's share", () => {
    const rc = create(RouteConfigurationSchema, {
      name: "r",
      virtualHosts: [
        {
          name: "v",
          routes: [
            {
              actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
              weightedClusters: [
                { name: "blue", weight: 3 },
                { name: "green", weight: 1 },
              ],
            },
          ],
        },
      ],
    });
    const t = buildTopology({ listeners: [], routeConfigurations: [rc], clusters: [] });
    expect(t.edges.filter((e) => e.source === "virtual-host:r/v").map((e) => e.label)).toEqual([
      "75%",
      "25%",
    ]);
  });

  it(`sums up endpoints beyond ${maxEndpointsShown} per cluster in one node`, () => {
    const t = buildTopology({
      listeners: [],
      routeConfigurations: [],
      clusters: [cluster("big", maxEndpointsShown + 4)],
    });
    const endpoints = t.nodes.filter((n) => n.kind === "endpoint");
    expect(endpoints).toHaveLength(maxEndpointsShown + 1);
    expect(endpoints.at(-1)?.label).toBe("+4 more");
  });
});

describe("layoutTopology", () => {
  it("places each column to the right of the one it comes from", () => {
    const t = buildTopology({
      listeners: [listener("edge", "r")],
      routeConfigurations: [routes("r", "b")],
      clusters: [cluster("b")],
    });
    const p = layoutTopology(t, { width: 200, height: 56 });
    const x = (id: string) => p.get(id)?.x ?? Number.NaN;
    expect(x("listener:edge")).toBeLessThan(x("route-configuration:r"));
    expect(x("route-configuration:r")).toBeLessThan(x("virtual-host:r/api"));
    expect(x("virtual-host:r/api")).toBeLessThan(x("cluster:b"));
    expect(x("cluster:b")).toBeLessThan(x("endpoint:b/0"));
  });
});

describe("layoutTopology columns", () => {
  it("keeps a cluster no route uses in the clusters' column, not the listeners'", () => {
    const t = buildTopology({
      listeners: [listener("edge", "r")],
      routeConfigurations: [routes("r", "b")],
      clusters: [cluster("b"), cluster("orphan")],
    });
    const p = layoutTopology(t, { width: 200, height: 56 });
    expect(p.get("cluster:orphan")?.x).toBe(p.get("cluster:b")?.x);
    expect(p.get("endpoint:orphan/0")?.x).toBe(p.get("endpoint:b/0")?.x);
  });
});
