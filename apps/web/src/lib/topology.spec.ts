import { create } from "@bufbuild/protobuf";
import {
  ClusterSchema,
  ListenerSchema,
  RouteActionKind,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import {
  buildTopology,
  focusChoices,
  focusTopology,
  indexTopology,
  layoutTopology,
  maxEndpointsShown,
  maxGraphNodes,
  maxNeighboursShown,
  type Topology,
} from "./topology";

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
  it("draws the same graph from the TARGETS view (distinct targets and a route count) as from every route", () => {
    const full = create(RouteConfigurationSchema, {
      name: "edge-routes",
      virtualHosts: [
        {
          name: "api",
          domains: ["api.example.com"],
          routes: [
            { actionKind: RouteActionKind.CLUSTER, cluster: "backend" },
            { actionKind: RouteActionKind.CLUSTER, cluster: "backend" },
            {
              actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
              weightedClusters: [
                { name: "backend", weight: 3 },
                { name: "canary", weight: 1 },
              ],
            },
          ],
        },
      ],
    });
    const targets = create(RouteConfigurationSchema, {
      name: "edge-routes",
      virtualHosts: [
        {
          name: "api",
          domains: ["api.example.com"],
          routeCount: 3,
          routes: [full.virtualHosts[0]?.routes[0] ?? {}, full.virtualHosts[0]?.routes[2] ?? {}],
        },
      ],
    });
    const input = {
      listeners: [listener("edge", "edge-routes")],
      clusters: [cluster("backend"), cluster("canary")],
    };
    const fromTargets = buildTopology({ ...input, routeConfigurations: [targets] });
    expect(fromTargets).toEqual(buildTopology({ ...input, routeConfigurations: [full] }));
    expect(fromTargets.nodes.find((n) => n.id === "virtual-host:edge-routes/api")?.detail).toBe(
      "api.example.com · 3 routes",
    );
  });

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

/**
 * The shape of the speed benchmark's configuration (`largeConfigSpec` in @switchyard/snapshot):
 * route configurations of 100 routes in one virtual host, route n to cluster n mod `clusters`,
 * every tenth a 80/20 split with the next cluster; 3 endpoints a cluster; one listener per route
 * configuration.
 */
function largeConfig(clusters: number, routeCount: number) {
  const perConfig = 100;
  const configs = Math.ceil(routeCount / perConfig);
  return {
    clusters: Array.from({ length: clusters }, (_, i) => cluster(`svc-${i}`, 3)),
    routeConfigurations: Array.from({ length: configs }, (_, c) =>
      create(RouteConfigurationSchema, {
        name: `routes-${c}`,
        virtualHosts: [
          {
            name: `vh-${c}`,
            domains: [`app-${c}.example.com`],
            routes: Array.from(
              { length: Math.min(perConfig, routeCount - c * perConfig) },
              (_, r) => {
                const n = c * perConfig + r;
                return n % 10 === 0
                  ? {
                      actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
                      weightedClusters: [
                        { name: `svc-${n % clusters}`, weight: 80 },
                        { name: `svc-${(n + 1) % clusters}`, weight: 20 },
                      ],
                    }
                  : { actionKind: RouteActionKind.CLUSTER, cluster: `svc-${n % clusters}` };
              },
            ),
          },
        ],
      }),
    ),
    listeners: Array.from({ length: configs }, (_, c) => listener(`listener-${c}`, `routes-${c}`)),
  };
}

const ids = (t: Topology) => new Set(t.nodes.map((n) => n.id));

describe("focusTopology", () => {
  const large = indexTopology(buildTopology(largeConfig(500, 5_000)));

  it("is needed at the benchmark's size: the whole graph is far over the bound", () => {
    expect(large.topology.nodes.length).toBeGreaterThan(10 * maxGraphNodes);
  });

  it("draws a listener's route configuration, virtual host, its first clusters with their endpoints, and one node for the other clusters", () => {
    const t = focusTopology(large, "listener:listener-0");
    if (!t) throw new Error("listener-0 is stored");
    expect(t.nodes.length).toBeLessThanOrEqual(maxGraphNodes);
    const drawn = ids(t);
    expect(drawn).toContain("route-configuration:routes-0");
    expect(drawn).toContain("virtual-host:routes-0/vh-0");
    expect(t.nodes.filter((n) => n.kind === "cluster" && !n.summary)).toHaveLength(
      maxNeighboursShown,
    );
    expect(drawn).toContain("endpoint:svc-1/2");
    expect(drawn).not.toContain("listener:listener-1");
    // vh-0 routes to svc-0 … svc-99, and its splits add svc-1 … svc-91 again: 100 clusters.
    const more = t.nodes.find((n) => n.id === "more:down:virtual-host:routes-0/vh-0");
    expect(more).toMatchObject({
      kind: "cluster",
      label: `+${100 - maxNeighboursShown} more`,
      href: "/routes/routes-0",
      summary: true,
    });
    expect(t.edges).toContainEqual(
      expect.objectContaining({ source: "virtual-host:routes-0/vh-0", target: more?.id }),
    );
  });

  it("draws a cluster with the virtual hosts that route to it, their route configurations and listeners, but not their other clusters", () => {
    const t = focusTopology(large, "cluster:svc-7");
    if (!t) throw new Error("svc-7 is stored");
    const drawn = ids(t);
    // Routes 7, 507, … 4507 go to svc-7: one in each of 10 route configurations.
    for (let c = 5; c < 50; c += 5) {
      expect(drawn).toContain(`listener:listener-${c}`);
      expect(drawn).toContain(`virtual-host:routes-${c}/vh-${c}`);
    }
    expect(drawn).toContain("endpoint:svc-7/0");
    expect(t.nodes.filter((n) => n.kind === "cluster")).toHaveLength(1);
  });

  it("keeps every focus of the large configuration within the bound, summary nodes included", () => {
    for (const choice of focusChoices(large)) {
      const t = focusTopology(large, choice.id);
      expect(t?.nodes.length).toBeLessThanOrEqual(maxGraphNodes);
      expect(t?.nodes.length).toBeGreaterThan(1);
      const tight = focusTopology(large, choice.id, { maxNodes: 12, maxNeighbours: 50 });
      expect(tight?.nodes.length).toBeLessThanOrEqual(12);
    }
  });

  it("draws only edges between drawn nodes", () => {
    const t = focusTopology(large, "route-configuration:routes-3");
    if (!t) throw new Error("routes-3 is stored");
    const drawn = ids(t);
    for (const e of t.edges) {
      expect(drawn).toContain(e.source);
      expect(drawn).toContain(e.target);
    }
  });

  it("leaves out what the focus's traffic does not pass through in a small configuration", () => {
    const index = indexTopology(
      buildTopology({
        listeners: [listener("edge", "r")],
        routeConfigurations: [routes("r", "b")],
        clusters: [cluster("b"), cluster("inventory")],
      }),
    );
    expect([...ids(focusTopology(index, "cluster:inventory") ?? { nodes: [], edges: [] })]).toEqual(
      ["cluster:inventory", "endpoint:inventory/0"],
    );
    expect(ids(focusTopology(index, "listener:edge") ?? { nodes: [], edges: [] })).toEqual(
      new Set([
        "listener:edge",
        "route-configuration:r",
        "virtual-host:r/api",
        "cluster:b",
        "endpoint:b/0",
      ]),
    );
  });

  it("has nothing to draw for an object that is not in the configuration", () => {
    expect(focusTopology(large, "cluster:nope")).toBeUndefined();
  });
});

describe("focusChoices", () => {
  it("offers the stored listeners, route configurations and clusters, not references to missing ones", () => {
    const index = indexTopology(
      buildTopology({
        listeners: [listener("edge", "gone")],
        routeConfigurations: [routes("r", "b")],
        clusters: [cluster("b")],
      }),
    );
    expect(focusChoices(index).map((n) => n.id)).toEqual([
      "listener:edge",
      "route-configuration:r",
      "cluster:b",
    ]);
  });
});
