import {
  ResourceKind,
  TopologyNodeKind,
  TopologyScope,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  apiListenerSpec,
  clusterSpec,
  endpointSpec,
  largeConfigSpec,
  routeConfigurationSpec,
  routeSpec,
  tcpProxyListenerSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import {
  buildTopology,
  builtTopology,
  focusChoices,
  focusTopology,
  indexTopology,
  maxEndpointsShown,
  maxGraphNodes,
  maxNeighboursShown,
  type Topology,
  TopologyCache,
  topologyView,
} from "./topology.js";

const listener = (name: string, routes: string) => apiListenerSpec(name, routes);
const cluster = (name: string, endpoints = 1) =>
  clusterSpec(
    name,
    Array.from({ length: endpoints }, (_, i) => endpointSpec("10.0.0.1", 8000 + i)),
  );
const routes = (name: string, ...clusters: string[]) =>
  routeConfigurationSpec(name, "", {
    virtualHosts: [
      virtualHostSpec(
        "api",
        ["*"],
        clusters.map((c) => routeSpec(c)),
      ),
    ],
  });
const split = (name: string, ...weights: [string, number][]) =>
  routeConfigurationSpec(name, "", {
    virtualHosts: [
      virtualHostSpec(
        "v",
        ["api.example.com"],
        [
          routeSpec("", {
            actionKind: "WEIGHTED_CLUSTERS",
            cluster: null,
            weightedClusters: weights.map(([n, weight]) => ({ name: n, weight })),
          }),
        ],
      ),
    ],
  });

const ids = (t: Topology) => new Set(t.nodes.map((n) => n.id));

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

  it("links a TCP listener to the clusters its network filters send connections to, labelled with the filter", () => {
    const tcp = tcpProxyListenerSpec("passthrough", 443, {
      statPrefix: "passthrough",
      weightedClusters: {
        clusters: [
          { name: "db", weight: 9 },
          { name: "db-replica", weight: 1 },
        ],
      },
    });
    const t = buildTopology({
      listeners: [tcp],
      routeConfigurations: [],
      clusters: [cluster("db")],
    });
    expect(t.edges.slice(0, 2)).toEqual([
      { source: "listener:passthrough", target: "cluster:db", label: "tcp_proxy" },
      { source: "listener:passthrough", target: "cluster:db-replica", label: "tcp_proxy" },
    ]);
    expect(t.nodes.find((n) => n.id === "cluster:db-replica")?.missing).toBe(true);
  });

  it("names each node's stored object: a virtual host's is its route configuration, an endpoint's its cluster", () => {
    const t = buildTopology({
      listeners: [listener("edge", "r")],
      routeConfigurations: [routes("r", "b c")],
      clusters: [cluster("b c")],
    });
    const object = (id: string) => {
      const n = t.nodes.find((node) => node.id === id);
      return [n?.objectKind, n?.objectName];
    };
    expect(object("listener:edge")).toEqual([ResourceKind.LISTENER, "edge"]);
    expect(object("route-configuration:r")).toEqual([ResourceKind.ROUTE_CONFIGURATION, "r"]);
    expect(object("virtual-host:r/api")).toEqual([ResourceKind.ROUTE_CONFIGURATION, "r"]);
    expect(object("cluster:b c")).toEqual([ResourceKind.CLUSTER, "b c"]);
    expect(object("endpoint:b c/0")).toEqual([ResourceKind.CLUSTER, "b c"]);
  });

  it("draws a reference to an object that is not stored as a missing node, naming no object", () => {
    const t = buildTopology({
      listeners: [listener("edge", "gone")],
      routeConfigurations: [],
      clusters: [],
    });
    expect(t.nodes.find((n) => n.id === "route-configuration:gone")).toMatchObject({
      missing: true,
      objectKind: ResourceKind.UNSPECIFIED,
      detail: "not stored",
    });
  });

  it("draws one edge for several routes to the same cluster, and counts every route on the virtual host", () => {
    const t = buildTopology({
      listeners: [],
      routeConfigurations: [routes("r", "b", "b")],
      clusters: [cluster("b", 0)],
    });
    expect(t.edges.filter((e) => e.target === "cluster:b")).toHaveLength(1);
    expect(t.nodes.find((n) => n.id === "virtual-host:r/api")?.detail).toBe("* · 2 routes");
  });

  it("labels a weighted split's edges with each cluster's share", () => {
    const t = buildTopology({
      listeners: [],
      routeConfigurations: [split("r", ["blue", 3], ["green", 1])],
      clusters: [],
    });
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
    const endpoints = t.nodes.filter((n) => n.kind === TopologyNodeKind.ENDPOINT);
    expect(endpoints).toHaveLength(maxEndpointsShown + 1);
    expect(endpoints.at(-1)).toMatchObject({ label: "+4 more", summary: true });
  });
});

describe("focusTopology", () => {
  // The speed benchmark's configuration: 50 route configurations of 100 routes, 500 clusters.
  const large = indexTopology(buildTopology(largeConfigSpec(500, 5_000)));

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
    expect(t.nodes.filter((n) => n.kind === TopologyNodeKind.CLUSTER && !n.summary)).toHaveLength(
      maxNeighboursShown,
    );
    expect(drawn).toContain("endpoint:svc-1/2");
    expect(drawn).not.toContain("listener:listener-1");
    // vh-0 routes to svc-0 … svc-99, and its splits add svc-1 … svc-91 again: 100 clusters.
    const more = t.nodes.find((n) => n.id === "more:down:virtual-host:routes-0/vh-0");
    expect(more).toMatchObject({
      kind: TopologyNodeKind.CLUSTER,
      label: `+${100 - maxNeighboursShown} more`,
      objectKind: ResourceKind.ROUTE_CONFIGURATION,
      objectName: "routes-0",
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
    expect(t.nodes.filter((n) => n.kind === TopologyNodeKind.CLUSTER)).toHaveLength(1);
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

describe("topologyView (GetTopology)", () => {
  const small = builtTopology({
    listeners: [listener("edge", "r")],
    routeConfigurations: [routes("r", "b")],
    clusters: [cluster("b"), cluster("inventory")],
  });
  const large = builtTopology(largeConfigSpec(500, 5_000));

  it("draws a small draft whole when no focus is asked for", () => {
    const view = topologyView(small, "");
    expect(view).toMatchObject({ scope: TopologyScope.WHOLE, focus: "", totalNodes: 7 });
    expect(view.nodes).toHaveLength(7);
    expect(view.counts).toEqual({
      listeners: 1,
      routeConfigurations: 1,
      virtualHosts: 1,
      routes: 1,
      clusters: 2,
      endpoints: 2,
    });
  });

  it("draws a large draft around its first listener when no focus is asked for, within the bound", () => {
    const view = topologyView(large, "");
    expect(view.scope).toBe(TopologyScope.FOCUSED);
    expect(view.focus).toBe("listener:listener-0");
    expect(view.nodes.length).toBeLessThanOrEqual(maxGraphNodes);
    expect(view.totalNodes).toBeGreaterThan(maxGraphNodes);
    expect(view.choices).toHaveLength(50 + 50 + 500);
    expect(view.counts.routes).toBe(5_000);
  });

  it("draws the focus asked for, and says when it is not in the draft", () => {
    expect(topologyView(small, "cluster:inventory")).toMatchObject({
      scope: TopologyScope.FOCUSED,
      focus: "cluster:inventory",
    });
    const gone = topologyView(small, "cluster:renamed");
    expect(gone).toMatchObject({ scope: TopologyScope.FOCUS_NOT_FOUND, focus: "cluster:renamed" });
    expect(gone.nodes).toEqual([]);
  });
});

describe("TopologyCache", () => {
  const stored = <T>(spec: T) => ({ spec });
  const listeners = [stored(listener("edge", "r"))];
  const routeConfigurations = [stored(routes("r", "b"))];
  const clusters = [stored(cluster("b"))];

  it("builds the graph again only when an object is a new instance (changed)", () => {
    const cache = new TopologyCache();
    const first = cache.of(listeners, routeConfigurations, clusters);
    expect(cache.of([...listeners], [...routeConfigurations], [...clusters])).toBe(first);
    const changed = cache.of(listeners, routeConfigurations, [stored(cluster("b", 2))]);
    expect(changed).not.toBe(first);
    expect(changed.counts.endpoints).toBe(2);
    expect(cache.of(listeners, routeConfigurations, [])).not.toBe(changed);
  });
});
