import { Graph, layout } from "@dagrejs/dagre";
import {
  type Cluster,
  type Listener,
  RouteActionKind,
  type RouteConfiguration,
} from "@switchyard/proto/switchyard/v1/config_pb";

/**
 * How many routes a virtual host has. In the TARGETS view (what the page asks for, config.proto)
 * `routes` are only their distinct targets and route_count the routes; a full route
 * configuration has every route and no count.
 */
function routeCountOf(vh: RouteConfiguration["virtualHosts"][number]): number {
  return Math.max(vh.routeCount, vh.routes.length);
}

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
        summary: false,
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
        summary: false,
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
      summary: false,
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
      summary: false,
    });
    for (const vh of rc.virtualHosts) {
      const vhId = `virtual-host:${rc.name}/${vh.name}`;
      const routes = routeCountOf(vh);
      addNode({
        id: vhId,
        kind: "virtual-host",
        label: vh.name,
        detail: `${vh.domains.join(", ") || "no domains"} · ${routes} ${routes === 1 ? "route" : "routes"}`,
        href,
        missing: false,
        summary: false,
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
      summary: false,
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
        summary: false,
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
        summary: true,
      });
      addEdge(id, moreId);
    }
  }

  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** What a node of each kind is called, one and several. */
export const kindTitles: Record<TopologyKind, string> = {
  listener: "Listener",
  "route-configuration": "Route configuration",
  "virtual-host": "Virtual host",
  cluster: "Cluster",
  endpoint: "Endpoint",
};
export const kindPlurals: Record<TopologyKind, string> = {
  listener: "listeners",
  "route-configuration": "route configurations",
  "virtual-host": "virtual hosts",
  cluster: "clusters",
  endpoint: "endpoints",
};

/** The list page of each kind: where the objects a summary node stands for are all listed. */
const listPageOf: Record<TopologyKind, string> = {
  listener: "/listeners",
  "route-configuration": "/routes",
  "virtual-host": "/routes",
  cluster: "/clusters",
  endpoint: "/clusters",
};

/**
 * The most nodes the page lays out and draws. Dagre and React Flow both grow faster than
 * linearly; past this the page stops being interactive within a second (issue 6, "Speed"), and a
 * graph this size is already as much as anyone reads.
 */
export const maxGraphNodes = 150;

/** In a focused view, the most neighbours of one node drawn on one side; the rest are "+N more". */
export const maxNeighboursShown = 10;

/** A topology with its edges looked up by node, built once per configuration. */
export interface TopologyIndex {
  readonly topology: Topology;
  readonly nodes: ReadonlyMap<string, TopologyNode>;
  /** Edges leaving each node, in the order the configuration lists them. */
  readonly outgoing: ReadonlyMap<string, readonly TopologyEdge[]>;
  /** Edges arriving at each node. */
  readonly incoming: ReadonlyMap<string, readonly TopologyEdge[]>;
}

export function indexTopology(topology: Topology): TopologyIndex {
  const nodes = new Map(topology.nodes.map((n) => [n.id, n]));
  const outgoing = new Map<string, TopologyEdge[]>();
  const incoming = new Map<string, TopologyEdge[]>();
  const push = (map: Map<string, TopologyEdge[]>, key: string, e: TopologyEdge) => {
    const list = map.get(key);
    if (list) list.push(e);
    else map.set(key, [e]);
  };
  for (const e of topology.edges) {
    push(outgoing, e.source, e);
    push(incoming, e.target, e);
  }
  return { topology, nodes, outgoing, incoming };
}

export interface FocusOptions {
  /** At most this many nodes, summary nodes included. */
  readonly maxNodes?: number;
  readonly maxNeighbours?: number;
}

/**
 * The neighbourhood of one object, bounded: everything its traffic flows on to (a listener's
 * route configurations, their virtual hosts, the clusters those route to, their endpoints) and
 * everything that sends traffic to it (a cluster's virtual hosts, their route configurations,
 * the listeners that serve those). Other branches of the objects upstream are left out.
 *
 * Breadth first from the focus, so the objects nearest to it are kept when the bound bites. A
 * node with more than `maxNeighbours` new neighbours on one side shows the first ones and one
 * "+N more" node for the rest; the result never has more than `maxNodes` nodes. Edges are those
 * of the whole topology between drawn nodes. `undefined` when the topology has no such node.
 */
export function focusTopology(
  index: TopologyIndex,
  focusId: string,
  options: FocusOptions = {},
): Topology | undefined {
  const { maxNodes = maxGraphNodes, maxNeighbours = maxNeighboursShown } = options;
  const focus = index.nodes.get(focusId);
  if (!focus) return undefined;
  const drawn = new Map<string, TopologyNode>([[focus.id, focus]]);
  /** Who was expanded on which side: their summary nodes are counted once everything is drawn. */
  const expanded: { node: TopologyNode; side: "down" | "up" }[] = [];
  let summaries = 0;

  const walk = (side: "down" | "up") => {
    const edgesOf = side === "down" ? index.outgoing : index.incoming;
    const queue = [focus];
    for (let i = 0; i < queue.length; i++) {
      const node = queue[i] as TopologyNode;
      const fresh: TopologyNode[] = [];
      for (const e of edgesOf.get(node.id) ?? []) {
        const next = index.nodes.get(side === "down" ? e.target : e.source);
        if (next && !drawn.has(next.id)) fresh.push(next);
      }
      if (fresh.length === 0) continue;
      expanded.push({ node, side });
      const room = maxNodes - drawn.size - summaries;
      // All fit, or some and a summary node for the rest (when even that fits).
      const take =
        fresh.length <= Math.min(maxNeighbours, room)
          ? fresh.length
          : Math.max(0, Math.min(maxNeighbours, room - 1));
      if (take < fresh.length && room > take) summaries++;
      for (const next of fresh.slice(0, take)) {
        drawn.set(next.id, next);
        queue.push(next);
      }
    }
  };
  walk("down");
  walk("up");

  const edges = index.topology.edges.filter((e) => drawn.has(e.source) && drawn.has(e.target));
  const nodes = [...drawn.values()];
  // A neighbour left out of one node's side may have been drawn through another: count what is
  // really missing now, so "+N" is exact and a summary of nothing is not drawn.
  for (const { node, side } of expanded) {
    const around = side === "down" ? index.outgoing : index.incoming;
    const hidden = new Set<string>();
    let kind: TopologyKind | undefined;
    for (const e of around.get(node.id) ?? []) {
      const other = side === "down" ? e.target : e.source;
      if (!drawn.has(other)) {
        hidden.add(other);
        kind ??= index.nodes.get(other)?.kind;
      }
    }
    if (hidden.size === 0 || !kind || nodes.length >= maxNodes) continue;
    const id = `more:${side}:${node.id}`;
    nodes.push({
      id,
      kind,
      label: `+${hidden.size} more`,
      detail: hidden.size === 1 ? kindTitles[kind].toLowerCase() : kindPlurals[kind],
      // Downstream, the parent's page lists them (a route configuration its virtual hosts and
      // their clusters, a cluster its endpoints); upstream, only the kind's list page does.
      href: side === "down" ? (node.href ?? listPageOf[kind]) : listPageOf[kind],
      missing: false,
      summary: true,
    });
    edges.push(
      side === "down"
        ? { id: `${node.id}->${id}`, source: node.id, target: id, label: undefined }
        : { id: `${id}->${node.id}`, source: id, target: node.id, label: undefined },
    );
  }
  return { nodes, edges };
}

/** The objects a focus can start from, in the order the configuration lists them. */
export function focusChoices(index: TopologyIndex): readonly TopologyNode[] {
  return index.topology.nodes.filter(
    (n) =>
      !n.missing &&
      (n.kind === "listener" || n.kind === "route-configuration" || n.kind === "cluster"),
  );
}

export interface ObjectCounts {
  readonly listeners: number;
  readonly routeConfigurations: number;
  readonly virtualHosts: number;
  readonly routes: number;
  readonly clusters: number;
  readonly endpoints: number;
}

/** How many objects the configuration holds, for the overview line above a focused graph. */
export function countObjects(input: TopologyInput): ObjectCounts {
  let virtualHosts = 0;
  let routes = 0;
  for (const rc of input.routeConfigurations) {
    virtualHosts += rc.virtualHosts.length;
    for (const vh of rc.virtualHosts) routes += routeCountOf(vh);
  }
  let endpoints = 0;
  for (const c of input.clusters) for (const l of c.localities) endpoints += l.endpoints.length;
  return {
    listeners: input.listeners.length,
    routeConfigurations: input.routeConfigurations.length,
    virtualHosts,
    routes,
    clusters: input.clusters.length,
    endpoints,
  };
}

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
