import type { ConfigSpec, RouteSpec, SourceChange } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  routeConfigurationSpec,
  routeSpec,
  tcpProxyListenerSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { touchedClusters } from "./touched-clusters.js";

const clusters = ["a", "b", "c", "d", "db"].map((name) =>
  clusterSpec(name, [], { reportLoad: name !== "d" }),
);
const route = (cluster: string, prefix: string, overrides: Partial<RouteSpec> = {}) =>
  routeSpec(cluster, { matchValue: prefix, ...overrides });
const shop = (routes: readonly RouteSpec[], domains = ["shop.example.com"]) =>
  configSpec({
    clusters,
    routeConfigurations: [
      routeConfigurationSpec("shop", "a", {
        virtualHosts: [
          virtualHostSpec("shop", domains, routes),
          virtualHostSpec("other", ["other.example.com"], [route("c", "/")]),
        ],
      }),
    ],
    listeners: [apiListenerSpec("shop", "shop")],
  });
const changed = (kind: SourceChange["kind"], name: string): SourceChange => ({
  kind,
  name,
  change: "modified",
});
const names = (before: ConfigSpec | undefined, after: ConfigSpec, changes: SourceChange[]) =>
  touchedClusters(before, after, changes).map((c) => c.name);

describe("the clusters a version touched", () => {
  it("a changed cluster is touched, and says whether it reports load", () => {
    const touched = touchedClusters(shop([route("a", "/")]), shop([route("a", "/")]), [
      changed("cluster", "a"),
      changed("cluster", "d"),
    ]);
    expect(touched.map((c) => [c.name, [...c.reasons], c.reportsLoad])).toEqual([
      ["a", ["cluster"], true],
      ["d", ["cluster"], false],
    ]);
  });

  it("a route moved from one cluster to another touches both, and no cluster of the unchanged routes", () => {
    const before = shop([route("a", "/api"), route("b", "/")]);
    const after = shop([route("c", "/api"), route("b", "/")]);
    const touched = touchedClusters(before, after, [changed("routeConfiguration", "shop")]);
    expect(touched.map((c) => c.name)).toEqual(["a", "c"]);
    expect([...(touched[0]?.touchedBy ?? [])]).toEqual(["route_configuration/shop"]);
    expect([...(touched[0]?.reasons ?? [])]).toEqual(["route"]);
  });

  it("a weighted split touches every cluster of the split", () => {
    const before = shop([route("a", "/")]);
    const after = shop([
      route("", "/", {
        actionKind: "WEIGHTED_CLUSTERS",
        cluster: null,
        weightedClusters: [
          { name: "a", weight: 80 },
          { name: "b", weight: 20 },
        ],
      }),
    ]);
    expect(names(before, after, [changed("routeConfiguration", "shop")])).toEqual(["a", "b"]);
  });

  it("routes reordered change who takes which request (first match wins): all of them are touched", () => {
    const before = shop([route("a", "/api"), route("b", "/")]);
    const after = shop([route("b", "/"), route("a", "/api")]);
    expect(names(before, after, [changed("routeConfiguration", "shop")])).toEqual(["a", "b"]);
  });

  it("a route added ahead of unchanged ones touches only its own cluster", () => {
    const before = shop([route("a", "/api"), route("b", "/")]);
    const after = shop([route("c", "/new"), route("a", "/api"), route("b", "/")]);
    expect(names(before, after, [changed("routeConfiguration", "shop")])).toEqual(["c"]);
  });

  it("a virtual host whose domains changed touches every cluster it routes to, not its neighbours'", () => {
    const before = shop([route("a", "/api"), route("b", "/")]);
    const after = shop([route("a", "/api"), route("b", "/")], ["shop.example.org"]);
    expect(names(before, after, [changed("routeConfiguration", "shop")])).toEqual(["a", "b"]);
  });

  it("a route configuration added whole touches every cluster it routes to", () => {
    const after = shop([route("a", "/api"), route("b", "/")]);
    expect(
      names(undefined, after, [{ kind: "routeConfiguration", name: "shop", change: "added" }]),
    ).toEqual(["a", "b", "c"]);
  });

  it("a listener changed touches the clusters of its route configurations and of its TCP proxy", () => {
    const before = shop([route("a", "/")]);
    const after = {
      ...before,
      listeners: [
        ...before.listeners,
        tcpProxyListenerSpec("db", 5432, { statPrefix: "db", cluster: "db" }),
      ],
    };
    const touched = touchedClusters(before, after, [
      changed("listener", "shop"),
      { kind: "listener", name: "db", change: "added" },
    ]);
    expect(touched.map((c) => [c.name, [...c.touchedBy]])).toEqual([
      ["a", ["listener/shop"]],
      ["c", ["listener/shop"]],
      ["db", ["listener/db"]],
    ]);
  });

  it("a removed cluster says whether it reported load before", () => {
    const before = shop([route("a", "/")]);
    const after = { ...before, clusters: before.clusters.filter((c) => c.name !== "b") };
    expect(
      touchedClusters(before, after, [{ kind: "cluster", name: "b", change: "removed" }]),
    ).toMatchObject([{ name: "b", reportsLoad: true }]);
  });

  it("node groups, runtime layers and secrets touch no cluster", () => {
    const spec = shop([route("a", "/")]);
    expect(
      names(spec, spec, [
        changed("nodeGroup", "g"),
        changed("runtimeLayer", "r"),
        changed("secret", "s"),
      ]),
    ).toEqual([]);
  });
});
