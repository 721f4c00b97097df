/**
 * The topology of the draft (GetTopology, config.proto): listener → route configuration →
 * virtual host → cluster → endpoint as a graph, and bounded neighbourhoods of one object in it.
 * Pure functions of the stored specs; the handler (draft-handlers.ts) builds the graph once per
 * set of cached objects and answers each request with what to draw.
 *
 * Long because building the graph, indexing it and cutting a neighbourhood out of it share one
 * form of node and edge (ids, kinds, labels, missing references), defined once at the top.
 */
import {
  ResourceKind,
  type TopologyCounts,
  TopologyNodeKind,
  TopologyScope,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ClusterSpec,
  findReferencesInJson,
  formatAddress,
  type JsonValue,
  type ListenerSpec,
  type RouteConfigurationSpec,
  type VirtualHostSpec,
} from "@switchyard/snapshot";

export interface TopologyNode {
  /** Unique in the graph: `cluster:backend`, `virtual-host:edge/api`. */
  readonly id: string;
  readonly kind: TopologyNodeKind;
  readonly label: string;
  readonly detail: string;
  /** The stored object the node stands for (UNSPECIFIED: none, a missing reference). */
  readonly objectKind: ResourceKind;
  readonly objectName: string;
  readonly missing: boolean;
  readonly summary: boolean;
}

export interface TopologyEdge {
  readonly source: string;
  readonly target: string;
  /** e.g. a weighted split's "70%"; empty when none. */
  readonly label: string;
}

export interface Topology {
  readonly nodes: readonly TopologyNode[];
  readonly edges: readonly TopologyEdge[];
}

export interface TopologyInput {
  readonly listeners: readonly ListenerSpec[];
  readonly routeConfigurations: readonly RouteConfigurationSpec[];
  readonly clusters: readonly ClusterSpec[];
}

/** More endpoints than this per cluster are summed up in one "+N more" node. */
export const maxEndpointsShown = 6;

/**
 * The most nodes a response draws. The console lays them out (dagre) and draws them (React
 * Flow), both of which grow faster than linearly; a graph this size is already as much as anyone
 * reads.
 */
export const maxGraphNodes = 150;

/** In a neighbourhood, the most neighbours of one node drawn on one side; the rest are "+N more". */
export const maxNeighboursShown = 10;

const kindNames: Record<TopologyNodeKind, readonly [one: string, many: string]> = {
  [TopologyNodeKind.UNSPECIFIED]: ["object", "objects"],
  [TopologyNodeKind.LISTENER]: ["listener", "listeners"],
  [TopologyNodeKind.ROUTE_CONFIGURATION]: ["route configuration", "route configurations"],
  [TopologyNodeKind.VIRTUAL_HOST]: ["virtual host", "virtual hosts"],
  [TopologyNodeKind.CLUSTER]: ["cluster", "clusters"],
  [TopologyNodeKind.ENDPOINT]: ["endpoint", "endpoints"],
};

/** The stored kind whose list shows the objects a summary node of this kind stands for. */
const listedAs: Record<TopologyNodeKind, ResourceKind> = {
  [TopologyNodeKind.UNSPECIFIED]: ResourceKind.UNSPECIFIED,
  [TopologyNodeKind.LISTENER]: ResourceKind.LISTENER,
  [TopologyNodeKind.ROUTE_CONFIGURATION]: ResourceKind.ROUTE_CONFIGURATION,
  [TopologyNodeKind.VIRTUAL_HOST]: ResourceKind.ROUTE_CONFIGURATION,
  [TopologyNodeKind.CLUSTER]: ResourceKind.CLUSTER,
  [TopologyNodeKind.ENDPOINT]: ResourceKind.CLUSTER,
};

const plural = (n: number, kind: TopologyNodeKind) => {
  const [one, many] = kindNames[kind];
  return `${n} ${n === 1 ? one : many}`;
};

const stored = (
  id: string,
  kind: TopologyNodeKind,
  label: string,
  detail: string,
  objectKind: ResourceKind,
  objectName: string,
): TopologyNode => ({
  id,
  kind,
  label,
  detail,
  objectKind,
  objectName,
  missing: false,
  summary: false,
});

const missingNode = (id: string, kind: TopologyNodeKind, label: string): TopologyNode => ({
  id,
  kind,
  label,
  detail: "not stored",
  objectKind: ResourceKind.UNSPECIFIED,
  objectName: "",
  missing: true,
  summary: false,
});

/** The virtual host's distinct targets: each cluster once, a weighted split's with its share. */
function targetsOf(vh: VirtualHostSpec): { cluster: string; share: string }[] {
  const out: { cluster: string; share: string }[] = [];
  for (const route of vh.routes) {
    if (route.actionKind === "CLUSTER" && route.cluster) {
      out.push({ cluster: route.cluster, share: "" });
    } else if (route.actionKind === "WEIGHTED_CLUSTERS") {
      const total = route.weightedClusters.reduce((n, w) => n + w.weight, 0);
      for (const w of route.weightedClusters) {
        out.push({
          cluster: w.name,
          share: total > 0 ? `${Math.round((w.weight / total) * 100)}%` : "",
        });
      }
    }
  }
  return out;
}

/**
 * The graph of the stored configuration. A reference to an object that is not stored still gets
 * a node, marked missing, so a dangling reference is visible where it breaks the chain. Edges
 * are unique: two routes of one virtual host to one cluster draw one edge (its labels joined).
 */
export function buildTopology(input: TopologyInput): Topology {
  const nodes = new Map<string, TopologyNode>();
  const edges = new Map<string, TopologyEdge>();
  const addNode = (node: TopologyNode) => {
    if (!nodes.has(node.id)) nodes.set(node.id, node);
  };
  const addEdge = (source: string, target: string, label = "") => {
    const key = `${source}->${target}`;
    const existing = edges.get(key);
    if (!existing) edges.set(key, { source, target, label });
    else if (label && existing.label !== label)
      edges.set(key, {
        ...existing,
        label: existing.label ? `${existing.label}, ${label}` : label,
      });
  };

  const storedRoutes = new Set(input.routeConfigurations.map((r) => r.name));
  const storedClusters = new Set(input.clusters.map((c) => c.name));
  const routeNode = (name: string) => {
    const id = `route-configuration:${name}`;
    if (!storedRoutes.has(name))
      addNode(missingNode(id, TopologyNodeKind.ROUTE_CONFIGURATION, name));
    return id;
  };
  const clusterNode = (name: string) => {
    const id = `cluster:${name}`;
    if (!storedClusters.has(name)) addNode(missingNode(id, TopologyNodeKind.CLUSTER, name));
    return id;
  };

  for (const listener of input.listeners) {
    const id = `listener:${listener.name}`;
    const detail = listener.apiListener
      ? "gRPC API listener"
      : listener.address === null
        ? `internal listener (envoy://${listener.name})`
        : formatAddress(listener.address, listener.port);
    addNode(
      stored(
        id,
        TopologyNodeKind.LISTENER,
        listener.name,
        detail,
        ResourceKind.LISTENER,
        listener.name,
      ),
    );
    for (const chain of listener.filterChains) {
      const target = chain.rdsRouteConfigName ?? chain.inlineRouteConfigName;
      if (target) addEdge(id, routeNode(target), chain.inlineRouteConfigName ? "inline" : "");
      // TCP paths: the clusters its network filters send connections to (a tcp_proxy, redis
      // prefix routes, ...), labelled with the filter.
      for (const { cluster, label } of networkTargets(chain.networkFilters)) {
        addEdge(id, clusterNode(cluster), label);
      }
    }
  }

  for (const rc of input.routeConfigurations) {
    const id = `route-configuration:${rc.name}`;
    const object = [ResourceKind.ROUTE_CONFIGURATION, rc.name] as const;
    const hosts = plural(rc.virtualHosts.length, TopologyNodeKind.VIRTUAL_HOST);
    addNode(stored(id, TopologyNodeKind.ROUTE_CONFIGURATION, rc.name, hosts, ...object));
    for (const vh of rc.virtualHosts) {
      const vhId = `virtual-host:${rc.name}/${vh.name}`;
      const routes = `${vh.routes.length} ${vh.routes.length === 1 ? "route" : "routes"}`;
      const detail = `${vh.domains.join(", ") || "no domains"} · ${routes}`;
      addNode(stored(vhId, TopologyNodeKind.VIRTUAL_HOST, vh.name, detail, ...object));
      addEdge(id, vhId);
      for (const { cluster, share } of targetsOf(vh)) addEdge(vhId, clusterNode(cluster), share);
    }
  }

  for (const cluster of input.clusters) {
    const id = `cluster:${cluster.name}`;
    const object = [ResourceKind.CLUSTER, cluster.name] as const;
    const endpoints = cluster.localities.flatMap((l) => l.endpoints);
    const count = plural(endpoints.length, TopologyNodeKind.ENDPOINT);
    addNode(stored(id, TopologyNodeKind.CLUSTER, cluster.name, count, ...object));
    endpoints.slice(0, maxEndpointsShown).forEach((e, i) => {
      const epId = `endpoint:${cluster.name}/${i}`;
      const detail = e.weight === null ? "endpoint" : `weight ${e.weight}`;
      addNode(
        stored(
          epId,
          TopologyNodeKind.ENDPOINT,
          formatAddress(e.address, e.port),
          detail,
          ...object,
        ),
      );
      addEdge(id, epId);
    });
    const more = endpoints.length - maxEndpointsShown;
    if (more > 0) {
      const moreId = `endpoint:${cluster.name}/more`;
      addNode({
        ...stored(moreId, TopologyNodeKind.ENDPOINT, `+${more} more`, "endpoints", ...object),
        summary: true,
      });
      addEdge(id, moreId);
    }
  }

  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** The short name of a network filter: `envoy.filters.network.tcp_proxy` → "tcp_proxy". */
function filterLabel(filter: JsonValue): string {
  const name =
    typeof filter === "object" && filter !== null && !Array.isArray(filter) && "name" in filter
      ? filter.name
      : undefined;
  return typeof name === "string" ? name.slice(name.lastIndexOf(".") + 1) : "";
}

/** The clusters a chain's network filters send traffic to, each with its filter's name. */
function networkTargets(filters: readonly JsonValue[]): { cluster: string; label: string }[] {
  return filters.flatMap((filter) =>
    findReferencesInJson("envoy.config.listener.v3.Filter", filter)
      .filter((reference) => reference.kind === "cluster")
      .map((reference) => ({ cluster: reference.name, label: filterLabel(filter) })),
  );
}

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
    let kind: TopologyNodeKind | undefined;
    for (const e of around.get(node.id) ?? []) {
      const other = side === "down" ? e.target : e.source;
      if (!drawn.has(other)) {
        hidden.add(other);
        kind ??= index.nodes.get(other)?.kind;
      }
    }
    if (hidden.size === 0 || kind === undefined || nodes.length >= maxNodes) continue;
    const id = `more:${side}:${node.id}`;
    // Downstream, the parent's object lists them (a route configuration its virtual hosts and
    // their clusters, a cluster its endpoints); upstream, only the kind's list does.
    const down = side === "down" && node.objectKind !== ResourceKind.UNSPECIFIED;
    nodes.push({
      id,
      kind,
      label: `+${hidden.size} more`,
      detail: kindNames[kind][hidden.size === 1 ? 0 : 1],
      objectKind: down ? node.objectKind : listedAs[kind],
      objectName: down ? node.objectName : "",
      missing: false,
      summary: true,
    });
    edges.push(
      side === "down"
        ? { source: node.id, target: id, label: "" }
        : { source: id, target: node.id, label: "" },
    );
  }
  return { nodes, edges };
}

/** The objects a focus can start from: stored listeners, route configurations and clusters. */
export function focusChoices(index: TopologyIndex): readonly TopologyNode[] {
  return index.topology.nodes.filter(
    (n) =>
      !n.missing &&
      (n.kind === TopologyNodeKind.LISTENER ||
        n.kind === TopologyNodeKind.ROUTE_CONFIGURATION ||
        n.kind === TopologyNodeKind.CLUSTER),
  );
}

/** How many objects the configuration holds. */
export function countObjects(input: TopologyInput): Omit<TopologyCounts, "$typeName"> {
  let virtualHosts = 0;
  let routes = 0;
  for (const rc of input.routeConfigurations) {
    virtualHosts += rc.virtualHosts.length;
    for (const vh of rc.virtualHosts) routes += vh.routes.length;
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

/** The draft's graph, built once: what every GetTopology of one configuration answers from. */
export interface BuiltTopology {
  readonly index: TopologyIndex;
  readonly choices: readonly TopologyNode[];
  readonly counts: Omit<TopologyCounts, "$typeName">;
}

export function builtTopology(input: TopologyInput): BuiltTopology {
  const index = indexTopology(buildTopology(input));
  return { index, choices: focusChoices(index), counts: countObjects(input) };
}

/**
 * What GetTopology answers for `focus` (config.proto): the whole graph when it is small enough
 * and no focus is asked for; else the focus's neighbourhood, by default the first choice's.
 */
export function topologyView(built: BuiltTopology, focus: string) {
  const { index, choices, counts } = built;
  const total = index.topology.nodes.length;
  const answer = (scope: TopologyScope, drawnFocus: string, drawn: Topology | undefined) => ({
    scope,
    focus: drawnFocus,
    nodes: [...(drawn?.nodes ?? [])],
    edges: [...(drawn?.edges ?? [])],
    totalNodes: total,
    choices: [...choices],
    counts,
    maxNodes: maxGraphNodes,
  });
  if (focus === "" && total <= maxGraphNodes) {
    return answer(TopologyScope.WHOLE, "", index.topology);
  }
  const chosen = focus || (choices[0] ?? index.topology.nodes[0])?.id || "";
  const drawn = focusTopology(index, chosen);
  return drawn
    ? answer(TopologyScope.FOCUSED, chosen, drawn)
    : answer(TopologyScope.FOCUS_NOT_FOUND, chosen, undefined);
}

/** A stored object as the list caches return it: an unchanged object is the same instance. */
interface StoredSpec<T> {
  readonly spec: T;
}

/**
 * The draft's graph, kept while the stored objects are the same instances (row-cache.ts returns
 * an unchanged object as the same instance): building it walks every route, so it is built again
 * only when an object changed, not on every request.
 */
export class TopologyCache {
  #inputs: readonly (readonly StoredSpec<unknown>[])[] = [];
  #built: BuiltTopology | undefined;

  of(
    listeners: readonly StoredSpec<ListenerSpec>[],
    routeConfigurations: readonly StoredSpec<RouteConfigurationSpec>[],
    clusters: readonly StoredSpec<ClusterSpec>[],
  ): BuiltTopology {
    const inputs = [listeners, routeConfigurations, clusters];
    const same =
      this.#built !== undefined &&
      inputs.every((list, i) => {
        const before = this.#inputs[i];
        return before?.length === list.length && list.every((item, j) => item === before[j]);
      });
    if (!same || this.#built === undefined) {
      this.#built = builtTopology({
        listeners: listeners.map((l) => l.spec),
        routeConfigurations: routeConfigurations.map((r) => r.spec),
        clusters: clusters.map((c) => c.spec),
      });
      this.#inputs = inputs;
    }
    return this.#built;
  }
}
