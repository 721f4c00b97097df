import {
  type Cluster,
  LbPolicy,
  type Listener,
  type RouteConfiguration,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { type NodeSummary, NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl } from "@switchyard/proto/type-url";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import {
  apiListener,
  catchAllRoutes,
  edsCluster,
  type FilterChainInit,
  type RouteInit,
  type RouteTarget,
} from "./api-objects.js";
import { bearer, statusClient } from "./auth.js";
import type { Harness } from "./harness.js";

/**
 * The "shop" the end-to-end tests run: a proxyless gRPC listener `shop` → route configuration
 * `shop-routes` → EDS clusters on real echo backends, stored and published through the API.
 */

export const TYPE = {
  CDS: TypeUrl.Cluster,
  EDS: TypeUrl.ClusterLoadAssignment,
  LDS: TypeUrl.Listener,
  RDS: TypeUrl.RouteConfiguration,
} as const;

/** What gRPC answers when a cluster uses a load-balancing policy it does not implement. */
export const GRPC_LB_NACK = /unsupported lb_policy: LEAST_REQUEST/;

/** The shop's cluster `name` on `backend`: EDS over HTTP/2, round robin, 1 s connect timeout. */
export function shopCluster(
  name: string,
  backend: EchoBackend,
  options: { lbPolicy?: LbPolicy; connectTimeoutMs?: number } = {},
): Cluster {
  return edsCluster(name, `127.0.0.1:${backend.port}`, {
    lbPolicy: options.lbPolicy ?? LbPolicy.ROUND_ROBIN,
    http2: true,
    connectTimeoutMs: options.connectTimeoutMs ?? 1000,
  });
}

/**
 * The shop's cluster `name`, reporting its load (LRS), with one locality per backend: region
 * "eu", zones "eu-1", "eu-2", ... in the order given.
 */
export function loadReportingCluster(name: string, backends: readonly EchoBackend[]): Cluster {
  return edsCluster(name, `127.0.0.1:${backends[0]?.port ?? 0}`, {
    lbPolicy: LbPolicy.ROUND_ROBIN,
    http2: true,
    connectTimeoutMs: 1000,
    reportLoad: true,
    localities: backends.map((backend, i) => ({
      region: "eu",
      zone: `eu-${i + 1}`,
      weight: 1,
      endpoints: [{ address: "127.0.0.1", port: backend.port }],
    })),
  });
}

/**
 * `shop-routes`: every RPC (match value "") to one cluster, or split by weight; `route` sets more
 * of that one route (a retryPolicy, ...).
 */
export function shopRoutes(target: RouteTarget, route: RouteInit = {}): RouteConfiguration {
  return catchAllRoutes("shop-routes", target, {
    virtualHost: "shop",
    route: { matchValue: "", ...route },
  });
}

/** `shop`: the API listener loading `shop-routes`; `chain` adds to its filter chain. */
export function shopListener(chain: FilterChainInit = {}): Listener {
  return apiListener("shop", "shop-routes", chain);
}

/**
 * Stores and publishes the shop with cluster `blue` on `backend`, then connects a real gRPC xDS
 * client as `nodeId`; resolves once an RPC reached the backend.
 */
export async function openShop(
  harness: Harness,
  backend: EchoBackend,
  nodeId: string,
): Promise<XdsEchoClient> {
  const api = harness.api();
  await api.createCluster(shopCluster("blue", backend));
  await api.createRouteConfiguration(shopRoutes("blue"));
  await api.createListener(shopListener());
  await api.publish({ message: "shop on blue" });
  const client = createXdsEchoClient("shop", {
    server: `127.0.0.1:${harness.app.xdsPort}`,
    nodeId,
  });
  const answer = await callUntilReady(client);
  if (answer !== backend.name) throw new Error(`the shop answered ${answer}, not ${backend.name}`);
  return client;
}

/**
 * The first half of a history with an ACK and a NACK in it: the shop opened for a real gRPC xDS
 * client as `nodeId` (openShop), which ACKs it; resolves with the node's summary once its CDS is
 * SYNCED in the database (its history rows are written in the same transaction).
 */
export async function ackedShop(
  harness: Harness,
  backend: EchoBackend,
  nodeId: string,
): Promise<{ client: XdsEchoClient; acked: NodeSummary }> {
  const client = await openShop(harness, backend, nodeId);
  const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
  const acked = await until(
    async () => (await status.getNode({ id: nodeId })).summary,
    (s) => typeStatusOf(s, TYPE.CDS) === NodeTypeStatus.SYNCED,
    `${nodeId} never showed CDS SYNCED`,
  );
  return { client, acked: acked as NodeSummary };
}

/**
 * The second half: cluster `blue` put on LEAST_REQUEST and published, which gRPC NACKs
 * (GRPC_LB_NACK); resolves once `nodeId`'s CDS is NACKED in the database, with the version
 * published.
 */
export async function nackedPublish(
  harness: Harness,
  backend: EchoBackend,
  nodeId: string,
): Promise<{ readonly version: bigint; readonly summary: NodeSummary }> {
  await harness
    .api()
    .updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
  const published = await harness
    .api()
    .publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });
  const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
  const nacked = await until(
    async () => (await status.getNode({ id: nodeId })).summary,
    (s) => typeStatusOf(s, TYPE.CDS) === NodeTypeStatus.NACKED,
    `${nodeId} never showed CDS NACKED`,
  );
  return { version: published.snapshot?.version ?? 0n, summary: nacked as NodeSummary };
}

/** Sends RPCs until one is answered by the backend named `expected` (a publish has reached the client). */
export async function untilAnswerIs(
  client: XdsEchoClient,
  expected: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.call().catch(() => "");
    if (answer === expected) return;
    if (Date.now() > deadline)
      throw new Error(`RPCs never reached ${expected} (last answer: ${answer || "an error"})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls `read` until `done` holds (node status reaches the database in batches, every 250 ms). */
export async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `${what} within ${timeoutMs} ms; last read: ${JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls `check` until it holds; a check that throws counts as not yet. */
export async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  await until(check, (ok) => ok, what, timeoutMs);
}

/** A node's status for one type, as a summary lists it. */
export const typeStatusOf = (summary: NodeSummary | undefined, typeUrl: string) =>
  summary?.types.find((t) => t.typeUrl === typeUrl)?.status;

/** A STATIC Envoy v3 Cluster on 127.0.0.1:`port`, as a YAML list item of an applied file. */
export const clusterYaml = (name: string, port: number) =>
  [
    '- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster',
    `  name: ${name}`,
    "  connect_timeout: 1s",
    "  type: STATIC",
    "  load_assignment:",
    `    cluster_name: ${name}`,
    "    endpoints:",
    "    - lb_endpoints:",
    `      - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ${port} } } }`,
    "",
  ].join("\n");

/** An Envoy v3 RouteConfiguration sending every request for any host to `cluster`, as YAML. */
export const routesYaml = (name: string, cluster: string) =>
  [
    '- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
    `  name: ${name}`,
    "  virtual_hosts:",
    "  - name: shop",
    '    domains: ["*"]',
    "    routes:",
    '    - match: { prefix: "/" }',
    `      route: { cluster: ${cluster} }`,
    "",
  ].join("\n");
