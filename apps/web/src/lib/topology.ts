import { Graph, layout } from "@dagrejs/dagre";
import {
  type GetTopologyResponse,
  ResourceKind,
  TopologyNodeKind,
  type TopologyNode as TopologyNodeMessage,
} from "@switchyard/proto/switchyard/v1/config_pb";

/**
 * The Topology page's graph, as GetTopology gives it (the server builds the graph and picks the
 * neighbourhood to draw, config.proto): here each node gets the console page it opens, and the
 * graph its layout.
 */

/** The columns of the graph, from where traffic enters to where it ends. */
export type TopologyKind =
  | "listener"
  | "route-configuration"
  | "virtual-host"
  | "cluster"
  | "endpoint";

export interface TopologyNode {
  /** Unique in the graph: `cluster:backend`, `virtual-host:edge/api`. */
  readonly id: string;
  readonly kind: TopologyKind;
  readonly label: string;
  /** One line under the label: an address, domains, an endpoint count. */
  readonly detail: string;
  /** The console page of the object the node stands for (a virtual host: its route configuration). */
  readonly href: string | undefined;
  /** Referred to, but not stored: drawn as a warning. */
  readonly missing: boolean;
  /** Stands for several objects not drawn ("+N more"); its link leads to where they are listed. */
  readonly summary: boolean;
}

export interface TopologyEdge {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** e.g. a weighted split's "70%". */
  readonly label: string | undefined;
}

export interface Topology {
  readonly nodes: readonly TopologyNode[];
  readonly edges: readonly TopologyEdge[];
}

const kinds: Record<TopologyNodeKind, TopologyKind> = {
  [TopologyNodeKind.UNSPECIFIED]: "cluster",
  [TopologyNodeKind.LISTENER]: "listener",
  [TopologyNodeKind.ROUTE_CONFIGURATION]: "route-configuration",
  [TopologyNodeKind.VIRTUAL_HOST]: "virtual-host",
  [TopologyNodeKind.CLUSTER]: "cluster",
  [TopologyNodeKind.ENDPOINT]: "endpoint",
};

/** Each stored kind's list page; an object's page is below it. */
const pageOf: Partial<Record<ResourceKind, string>> = {
  [ResourceKind.LISTENER]: "/listeners",
  [ResourceKind.ROUTE_CONFIGURATION]: "/routes",
  [ResourceKind.CLUSTER]: "/clusters",
};

/** A node of the response, with the page it opens: its object's, or its kind's list. */
export function topologyNodeOf(node: TopologyNodeMessage): TopologyNode {
  const list = pageOf[node.objectKind];
  return {
    id: node.id,
    kind: kinds[node.kind],
    label: node.label,
    detail: node.detail,
    href:
      list === undefined
        ? undefined
        : node.objectName
          ? `${list}/${encodeURIComponent(node.objectName)}`
          : list,
    missing: node.missing,
    summary: node.summary,
  };
}

/** What the response draws. */
export function topologyOf(response: GetTopologyResponse): Topology {
  return {
    nodes: response.nodes.map(topologyNodeOf),
    edges: response.edges.map((e) => ({
      id: `${e.source}->${e.target}`,
      source: e.source,
      target: e.target,
      label: e.label || undefined,
    })),
  };
}

/** What a node of each kind is called. */
export const kindTitles: Record<TopologyKind, string> = {
  listener: "Listener",
  "route-configuration": "Route configuration",
  "virtual-host": "Virtual host",
  cluster: "Cluster",
  endpoint: "Endpoint",
};

/**
 * What the graph draws, node and edge ids and their text: two topologies with one signature lay
 * out the same, so a refetch that changed nothing keeps the layout it had.
 */
export function topologySignature(topology: Topology): string {
  const parts: string[] = [];
  for (const n of topology.nodes)
    parts.push(`${n.id}\t${n.label}\t${n.detail}\t${n.href}\t${n.missing}`);
  for (const e of topology.edges) parts.push(`${e.id}\t${e.label}`);
  return parts.join("\n");
}

/** The column of each kind, left to right. */
export const columnOf: Record<TopologyKind, number> = {
  listener: 0,
  "route-configuration": 1,
  "virtual-host": 2,
  cluster: 3,
  endpoint: 4,
};

export interface Position {
  readonly x: number;
  readonly y: number;
}

/**
 * Top-left positions for every node, laid out left to right by dagre (listeners in the first
 * column, endpoints in the last). Every node has the same size, `width` × `height`.
 */
export function layoutTopology(
  topology: Topology,
  size: { width: number; height: number },
): Map<string, Position> {
  const g = new Graph();
  g.setGraph({ rankdir: "LR", nodesep: 16, ranksep: 44, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of topology.nodes) g.setNode(n.id, { width: size.width, height: size.height });
  for (const e of topology.edges) g.setEdge(e.source, e.target);
  // Dagre ranks a node by its longest path from a source, so a cluster no route uses would land
  // in the listeners' column. An invisible root with an edge of length "column + 1" to every
  // node nothing points at keeps each kind in its own column.
  const root = "root"; // Node ids all have a "kind:" prefix: no clash.
  const targets = new Set(topology.edges.map((e) => e.target));
  g.setNode(root, { width: 0, height: 0 });
  for (const n of topology.nodes) {
    if (!targets.has(n.id)) g.setEdge(root, n.id, { minlen: columnOf[n.kind] + 1 });
  }
  layout(g);
  const rootX = (g.node(root) as { x: number }).x;
  const positions = new Map<string, Position>();
  for (const n of topology.nodes) {
    const laid = g.node(n.id) as { x: number; y: number };
    positions.set(n.id, { x: laid.x - rootX - size.width / 2, y: laid.y - size.height / 2 });
  }
  return positions;
}
