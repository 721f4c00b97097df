import { Graph, layout } from "@dagrejs/dagre";
import {
  type Cluster,
  type Listener,
  RouteActionKind,
  type RouteConfiguration,
} from "@switchyard/proto/switchyard/v1/config_pb";

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
  /** One line under the label: an address, domains, an LB policy. */
  readonly detail: string;
  /** The console page of the object the node stands for (a virtual host: its route configuration). */
  readonly href: string | undefined;
  /** Referred to, but not stored: drawn as a warning. */
  readonly missing: boolean;
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

export interface TopologyInput {
  readonly listeners: readonly Listener[];
  readonly routeConfigurations: readonly RouteConfiguration[];
  readonly clusters: readonly Cluster[];
}

/** More endpoints than this per cluster are summed up in one "+N more" node. */
export const maxEndpointsShown = 6;

const enc = encodeURIComponent;

/**
 * The graph of the stored configuration: listener → route configuration → virtual host →
 * cluster → endpoint. A reference to an object that is not stored still gets a node, marked
 * missing, so a dangling reference is visible where it breaks the chain. Edges are unique: two
 * routes of one virtual host to one cluster draw one edge.
 */
export function buildTopology(input: TopologyInput): Topology {
  const nodes = new Map<string, TopologyNode>();
  const edges = new Map<string, TopologyEdge>();
  const addNode = (node: TopologyNode) => {
    if (!nodes.has(node.id)) nodes.set(node.id, node);
  };
  const addEdge = (source: string, target: string, label?: string) => {
    const id = `${source}->${target}`;
    const existing = edges.get(id);
    if (!existing) edges.set(id, { id, source, target, label });
    else if (label && existing.label !== label)
      edges.set(id, { ...existing, label: existing.label ? `${existing.label}, ${label}` : label });
  };

  const storedRoutes = new Set(input.routeConfigurations.map((r) => r.name));
  const storedClusters = new Set(input.clusters.map((c) => c.name));
  const routeNode = (name: string) => {
    const id = `route-configuration:${name}`;
    if (!storedRoutes.has(name))
      addNode({
        id,
        kind: "route-configuration",
        label: name,
        detail: "not stored",
        href: undefined,
        missing: true,
      });
    return id;
  };
  const clusterNode = (name: string) => {
    const id = `cluster:${name}`;
    if (!storedClusters.has(name))
      addNode({
        id,
        kind: "cluster",
        label: name,
        detail: "not stored",
        href: undefined,
        missing: true,
      });
    return id;
  };

  for (const listener of input.listeners) {
    const id = `listener:${listener.name}`;
    addNode({
      id,
      kind: "listener",
      label: listener.name,
      detail: listener.apiListener
        ? "gRPC API listener"
        : `${listener.address ?? "0.0.0.0"}:${listener.port ?? "?"}`,
      href: `/listeners/${enc(listener.name)}`,
      missing: false,
    });
    for (const chain of listener.filterChains) {
      const target = chain.rdsRouteConfigName ?? chain.inlineRouteConfigName;
      if (target)
        addEdge(id, routeNode(target), chain.inlineRouteConfigName ? "inline" : undefined);
    }
  }

  for (const rc of input.routeConfigurations) {
    const id = `route-configuration:${rc.name}`;
    const href = `/routes/${enc(rc.name)}`;
    const hosts = rc.virtualHosts.length;
    addNode({
      id,
      kind: "route-configuration",
      label: rc.name,
      detail: `${hosts} virtual ${hosts === 1 ? "host" : "hosts"}`,
      href,
      missing: false,
    });
    for (const vh of rc.virtualHosts) {
      const vhId = `virtual-host:${rc.name}/${vh.name}`;
      const routes = vh.routes.length;
      addNode({
        id: vhId,
        kind: "virtual-host",
        label: vh.name,
        detail: `${vh.domains.join(", ") || "no domains"} · ${routes} ${routes === 1 ? "route" : "routes"}`,
        href,
        missing: false,
      });
      addEdge(id, vhId);
      for (const route of vh.routes) {
        if (route.actionKind === RouteActionKind.CLUSTER && route.cluster) {
          addEdge(vhId, clusterNode(route.cluster));
        } else if (route.actionKind === RouteActionKind.WEIGHTED_CLUSTERS) {
          const total = route.weightedClusters.reduce((n, w) => n + w.weight, 0);
          for (const w of route.weightedClusters) {
            const share = total > 0 ? `${Math.round((w.weight / total) * 100)}%` : undefined;
            addEdge(vhId, clusterNode(w.name), share);
          }
        }
      }
    }
  }

  for (const cluster of input.clusters) {
    const id = `cluster:${cluster.name}`;
    const href = `/clusters/${enc(cluster.name)}`;
    const endpoints = cluster.localities.flatMap((l) => l.endpoints);
    addNode({
      id,
      kind: "cluster",
      label: cluster.name,
      detail: `${endpoints.length} ${endpoints.length === 1 ? "endpoint" : "endpoints"}`,
      href,
      missing: false,
    });
    endpoints.slice(0, maxEndpointsShown).forEach((e, i) => {
      const epId = `endpoint:${cluster.name}/${i}`;
      addNode({
        id: epId,
        kind: "endpoint",
        label: `${e.address}:${e.port}`,
        detail: e.weight === undefined ? "endpoint" : `weight ${e.weight}`,
        href,
        missing: false,
      });
      addEdge(id, epId);
    });
    const more = endpoints.length - maxEndpointsShown;
    if (more > 0) {
      const moreId = `endpoint:${cluster.name}/more`;
      addNode({
        id: moreId,
        kind: "endpoint",
        label: `+${more} more`,
        detail: "endpoints",
        href,
        missing: false,
      });
      addEdge(id, moreId);
    }
  }

  return { nodes: [...nodes.values()], edges: [...edges.values()] };
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
