/**
 * A fleet of simulated proxies for benchmarks: real gRPC streams to a real server, each node
 * subscribing as Envoy does over ADS (wildcard CDS and LDS; then, named, the EDS assignments of
 * the clusters it received and the RDS route configurations its listeners name) and ACKing every
 * response at once. SotW or Delta.
 */
import { toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type { Listener } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import type { HttpConnectionManager } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import {
  type DeltaDiscoveryResponse,
  DeltaDiscoveryResponseSchema,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestClient, resourceName, type TestClient } from "@switchyard/xds/testing";

const {
  Cluster: CDS,
  ClusterLoadAssignment: EDS,
  Listener: LDS,
  RouteConfiguration: RDS,
} = TypeUrl;

export type FleetVariant = "sotw" | "delta";

export interface FleetNode {
  readonly id: string;
  /** Type URL → what the node holds now (name → nothing: SotW gives no per-resource version). */
  readonly held: Map<string, Set<string>>;
  /** ACKs sent, and when the latest was sent (ms, performance.now()). */
  acks: number;
  lastAckAt: number;
  /**
   * Type URL → when the node sent its first ACK of that type since the fleet's last `mark()`
   * (ms since the epoch, with fractions: comparable across processes).
   */
  readonly ackedSinceMark: Map<string, number>;
  /** Bytes of the response messages received, as encoded on the wire (with `countBytes`). */
  bytes: number;
}

/** Now, in ms since the epoch with sub-millisecond precision, comparable across processes. */
export const epochNow = (): number => performance.timeOrigin + performance.now();

export interface Fleet {
  readonly nodes: readonly FleetNode[];
  /** Resolves once `done(node)` holds for every node; rejects after `timeoutMs`. */
  until(done: (node: FleetNode) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Closes the connections of about `count` nodes (whole connections, the last ones). */
  closeSome(count: number): void;
  /** Reconnects every closed connection's nodes, as after a network blip. */
  reconnect(): void;
  /** Forgets every node's `ackedSinceMark`: the start of a measured change. */
  mark(): void;
  close(): void;
}

/** The route configuration names a listener uses through RDS. */
function rdsNames(listener: Listener): string[] {
  const names: string[] = [];
  const hcms = [
    listener.apiListener?.apiListener,
    ...listener.filterChains.flatMap((chain) =>
      chain.filters.map((filter) =>
        filter.configType.case === "typedConfig" ? filter.configType.value : undefined,
      ),
    ),
  ];
  for (const any of hcms) {
    if (any === undefined) continue;
    const hcm = anyUnpack(any, registry) as HttpConnectionManager | undefined;
    if (hcm?.routeSpecifier.case === "rds") names.push(hcm.routeSpecifier.value.routeConfigName);
  }
  return names;
}

function listenersOf(response: DiscoveryResponse | DeltaDiscoveryResponse): Listener[] {
  const anys =
    response.$typeName === "envoy.service.discovery.v3.DiscoveryResponse"
      ? response.resources
      : response.resources.flatMap((r) => (r.resource ? [r.resource] : []));
  return anys.map((any) => anyUnpack(any, registry) as Listener);
}

const decoder = new TextDecoder();

/**
 * The name of a packed Cluster, ClusterLoadAssignment, Listener or RouteConfiguration without
 * decoding it: in each the name is field 1, a string, written first. Falls back to decoding.
 */
function nameOf(resource: DiscoveryResponse["resources"][number]): string {
  const bytes = resource.value;
  if (bytes[0] === 0x0a) {
    let length = 0;
    let shift = 0;
    let i = 1;
    for (; i < bytes.length && i < 6; i++) {
      const byte = bytes[i] as number;
      length |= (byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) === 0) break;
    }
    return decoder.decode(bytes.subarray(i + 1, i + 1 + length));
  }
  return resourceName(resource);
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]) =>
  a.size === b.length && b.every((n) => a.has(n));

function acked(node: FleetNode, typeUrl: string): void {
  node.acks += 1;
  node.lastAckAt = performance.now();
  if (!node.ackedSinceMark.has(typeUrl)) node.ackedSinceMark.set(typeUrl, epochNow());
}

/** One SotW ADS node: reads responses forever, ACKing each and following EDS/RDS names. */
async function runSotw(
  client: TestClient,
  node: FleetNode,
  signal: AbortSignal,
  countBytes: boolean,
): Promise<void> {
  const stream = client.open("ads", { node: { id: node.id, cluster: "bench" } });
  const names = new Map<string, string[]>([
    [CDS, []],
    [LDS, []],
  ]);
  stream.request(CDS, []);
  stream.request(LDS, []);
  while (!signal.aborted) {
    const response = await stream.next(3_600_000).catch(() => undefined);
    if (response === undefined) return;
    if (countBytes) node.bytes += toBinary(DiscoveryResponseSchema, response).length;
    const typeUrl = response.typeUrl;
    const got = response.resources.map(nameOf);
    if (typeUrl === CDS || typeUrl === LDS) node.held.set(typeUrl, new Set(got));
    else node.held.set(typeUrl, new Set([...(node.held.get(typeUrl) ?? []), ...got]));
    stream.ack(response, names.get(typeUrl) ?? []);
    acked(node, typeUrl);
    // Envoy asks for what the new clusters and listeners need.
    const want =
      typeUrl === CDS
        ? ([EDS, got.sort()] as const)
        : typeUrl === LDS
          ? ([RDS, [...new Set(listenersOf(response).flatMap(rdsNames))].sort()] as const)
          : undefined;
    if (want !== undefined) {
      const [dependent, wanted] = want;
      const current = names.get(dependent);
      if (current === undefined || !sameSet(new Set(current), wanted)) {
        names.set(dependent, [...wanted]);
        stream.request(dependent, wanted);
      }
    }
  }
  stream.close();
}

/** One Delta ADS node. */
async function runDelta(
  client: TestClient,
  node: FleetNode,
  signal: AbortSignal,
  countBytes: boolean,
): Promise<void> {
  const stream = client.openDelta("ads", { node: { id: node.id, cluster: "bench" } });
  const subscribed = new Map<string, Set<string>>();
  stream.request(CDS, ["*"]);
  stream.request(LDS, ["*"]);
  while (!signal.aborted) {
    const response = await stream.next(3_600_000).catch(() => undefined);
    if (response === undefined) return;
    if (countBytes) node.bytes += toBinary(DeltaDiscoveryResponseSchema, response).length;
    const typeUrl = response.typeUrl;
    const held = node.held.get(typeUrl) ?? new Set<string>();
    for (const r of response.resources) held.add(r.name);
    for (const name of response.removedResources) held.delete(name);
    node.held.set(typeUrl, held);
    const dependent = typeUrl === CDS ? EDS : typeUrl === LDS ? RDS : undefined;
    const wanted =
      typeUrl === CDS ? [...held] : typeUrl === LDS ? listenersOf(response).flatMap(rdsNames) : [];
    const before = dependent === undefined ? undefined : (subscribed.get(dependent) ?? new Set());
    const fresh = before === undefined ? [] : wanted.filter((n) => !before.has(n));
    const gone =
      before === undefined || typeUrl !== CDS
        ? []
        : [...before].filter((n) => !held.has(n)).filter((n) => !wanted.includes(n));
    stream.ack(response);
    acked(node, typeUrl);
    if (dependent !== undefined && before !== undefined && (fresh.length > 0 || gone.length > 0)) {
      for (const n of fresh) before.add(n);
      for (const n of gone) before.delete(n);
      subscribed.set(dependent, before);
      stream.request(dependent, fresh, gone);
    }
  }
  stream.close();
}

/**
 * Connects `count` nodes (ids `${prefix}-0000`...) to the xDS server at `xdsUrl`, spread over
 * HTTP/2 connections of `perConnection` streams each, as proxies behind a few hosts would be.
 */
export function startFleet(options: {
  readonly xdsUrl: string;
  readonly count: number;
  readonly variant: FleetVariant;
  readonly prefix?: string;
  readonly perConnection?: number;
  /** Count the bytes of every response (costs the fleet an encode per response). */
  readonly countBytes?: boolean;
}): Fleet {
  const perConnection = options.perConnection ?? 100;
  const run = options.variant === "sotw" ? runSotw : runDelta;
  const nodes: FleetNode[] = Array.from({ length: options.count }, (_, i) => ({
    id: `${options.prefix ?? options.variant}-${String(i).padStart(4, "0")}`,
    held: new Map(),
    acks: 0,
    lastAckAt: 0,
    ackedSinceMark: new Map(),
    bytes: 0,
  }));
  interface Connection {
    readonly nodes: readonly FleetNode[];
    open: { readonly client: TestClient; readonly abort: AbortController } | undefined;
  }
  const connections: Connection[] = [];
  for (let i = 0; i < nodes.length; i += perConnection)
    connections.push({ nodes: nodes.slice(i, i + perConnection), open: undefined });
  const connect = (connection: Connection) => {
    const client = createTestClient(options.xdsUrl);
    const abort = new AbortController();
    connection.open = { client, abort };
    for (const node of connection.nodes) {
      node.held.clear();
      void run(client, node, abort.signal, options.countBytes ?? false);
    }
  };
  const disconnect = (connection: Connection) => {
    connection.open?.abort.abort();
    connection.open?.client.close();
    connection.open = undefined;
  };
  for (const connection of connections) connect(connection);
  return {
    nodes,
    async until(done, what, timeoutMs = 120_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const waiting = nodes.filter((n) => !done(n));
        if (waiting.length === 0) return;
        if (performance.now() > deadline)
          throw new Error(`${what}: ${waiting.length} of ${nodes.length} nodes still waiting`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    closeSome(count) {
      const closing = connections.filter((c) => c.open !== undefined);
      for (const connection of closing.slice(-Math.ceil(count / perConnection)))
        disconnect(connection);
    },
    reconnect() {
      for (const connection of connections) if (connection.open === undefined) connect(connection);
    },
    mark() {
      for (const node of nodes) node.ackedSinceMark.clear();
    },
    close() {
      for (const connection of connections) disconnect(connection);
    },
  };
}
