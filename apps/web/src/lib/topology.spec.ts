import { create } from "@bufbuild/protobuf";
import {
  GetTopologyResponseSchema,
  ResourceKind,
  TopologyNodeKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { layoutTopology, type Topology, topologyOf } from "./topology";

type NodeInit = [id: string, kind: TopologyNodeKind, object?: [ResourceKind, string]];

/** A GetTopology answer drawing `nodes` (id, kind, stored object) joined by `edges`. */
function topology(nodes: NodeInit[], edges: [string, string, string?][]): Topology {
  return topologyOf(
    create(GetTopologyResponseSchema, {
      nodes: nodes.map(([id, kind, object]) => ({
        id,
        kind,
        label: id.slice(id.indexOf(":") + 1),
        objectKind: object?.[0] ?? ResourceKind.UNSPECIFIED,
        objectName: object?.[1] ?? "",
      })),
      edges: edges.map(([source, target, label = ""]) => ({ source, target, label })),
    }),
  );
}

const chain = (...extra: NodeInit[]) =>
  topology(
    [
      ["listener:edge", TopologyNodeKind.LISTENER, [ResourceKind.LISTENER, "edge"]],
      [
        "route-configuration:r",
        TopologyNodeKind.ROUTE_CONFIGURATION,
        [ResourceKind.ROUTE_CONFIGURATION, "r"],
      ],
      [
        "virtual-host:r/api",
        TopologyNodeKind.VIRTUAL_HOST,
        [ResourceKind.ROUTE_CONFIGURATION, "r"],
      ],
      ["cluster:b c", TopologyNodeKind.CLUSTER, [ResourceKind.CLUSTER, "b c"]],
      ["endpoint:b c/0", TopologyNodeKind.ENDPOINT, [ResourceKind.CLUSTER, "b c"]],
      ...extra,
    ],
    [
      ["listener:edge", "route-configuration:r"],
      ["route-configuration:r", "virtual-host:r/api"],
      ["virtual-host:r/api", "cluster:b c", "75%"],
      ["cluster:b c", "endpoint:b c/0"],
    ],
  );

describe("topologyOf", () => {
  it("links every node to its object's page; a virtual host to its route configuration", () => {
    const t = chain();
    const href = (id: string) => t.nodes.find((n) => n.id === id)?.href;
    expect(href("listener:edge")).toBe("/listeners/edge");
    expect(href("route-configuration:r")).toBe("/routes/r");
    expect(href("virtual-host:r/api")).toBe("/routes/r");
    expect(href("cluster:b c")).toBe("/clusters/b%20c");
    expect(href("endpoint:b c/0")).toBe("/clusters/b%20c");
  });

  it("links a summary of a kind to the kind's list, and a missing object nowhere", () => {
    const t = chain(
      [
        "more:up:cluster:b c",
        TopologyNodeKind.VIRTUAL_HOST,
        [ResourceKind.ROUTE_CONFIGURATION, ""],
      ],
      ["cluster:gone", TopologyNodeKind.CLUSTER],
    );
    expect(t.nodes.find((n) => n.id === "more:up:cluster:b c")?.href).toBe("/routes");
    expect(t.nodes.find((n) => n.id === "cluster:gone")?.href).toBeUndefined();
  });

  it("keeps an edge's label (a weighted split's share) and names edges by their ends", () => {
    const e = chain().edges.find((edge) => edge.target === "cluster:b c");
    expect(e).toEqual({
      id: "virtual-host:r/api->cluster:b c",
      source: "virtual-host:r/api",
      target: "cluster:b c",
      label: "75%",
    });
    expect(chain().edges[0]?.label).toBeUndefined();
  });
});

describe("layoutTopology", () => {
  it("places each column to the right of the one it comes from", () => {
    const p = layoutTopology(chain(), { width: 200, height: 56 });
    const x = (id: string) => p.get(id)?.x ?? Number.NaN;
    expect(x("listener:edge")).toBeLessThan(x("route-configuration:r"));
    expect(x("route-configuration:r")).toBeLessThan(x("virtual-host:r/api"));
    expect(x("virtual-host:r/api")).toBeLessThan(x("cluster:b c"));
    expect(x("cluster:b c")).toBeLessThan(x("endpoint:b c/0"));
  });

  it("keeps a cluster no route uses in the clusters' column, not the listeners'", () => {
    const t = topology(
      [
        ["listener:edge", TopologyNodeKind.LISTENER],
        ["route-configuration:r", TopologyNodeKind.ROUTE_CONFIGURATION],
        ["virtual-host:r/api", TopologyNodeKind.VIRTUAL_HOST],
        ["cluster:b", TopologyNodeKind.CLUSTER],
        ["endpoint:b/0", TopologyNodeKind.ENDPOINT],
        ["cluster:orphan", TopologyNodeKind.CLUSTER],
        ["endpoint:orphan/0", TopologyNodeKind.ENDPOINT],
      ],
      [
        ["listener:edge", "route-configuration:r"],
        ["route-configuration:r", "virtual-host:r/api"],
        ["virtual-host:r/api", "cluster:b"],
        ["cluster:b", "endpoint:b/0"],
        ["cluster:orphan", "endpoint:orphan/0"],
      ],
    );
    const p = layoutTopology(t, { width: 200, height: 56 });
    expect(p.get("cluster:orphan")?.x).toBe(p.get("cluster:b")?.x);
    expect(p.get("endpoint:orphan/0")?.x).toBe(p.get("endpoint:b/0")?.x);
  });
});
