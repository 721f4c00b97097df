import type { Prisma, PrismaClient, TransactionClient } from "@switchyard/db";
import type {
  ClusterSpec,
  ConfigSpec,
  JsonObject,
  JsonValue,
  ListenerSpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  RuntimeEntrySpec,
  RuntimeLayerSpec,
  SecretSpec,
  WeightedClusterSpec,
} from "@switchyard/snapshot";
import type { LoadedRow } from "./row-cache.js";

/** Reads of the draft, as the plain specs the compiler takes. */

const byPosition = { orderBy: { position: "asc" } } as const;

export const clusterInclude = {
  localities: { ...byPosition, include: { endpoints: byPosition } },
} satisfies Prisma.ClusterInclude;
export const listenerInclude = { filterChains: byPosition } satisfies Prisma.ListenerInclude;
export const routeConfigurationInclude = {
  virtualHosts: { ...byPosition, include: { routes: byPosition } },
} satisfies Prisma.RouteConfigurationInclude;
export const nodeGroupInclude = {
  listeners: { include: { listener: { select: { name: true } } } },
  clusters: { include: { cluster: { select: { name: true } } } },
} satisfies Prisma.NodeGroupInclude;

type ClusterRow = Prisma.ClusterGetPayload<{ include: typeof clusterInclude }>;
type ListenerRow = Prisma.ListenerGetPayload<{ include: typeof listenerInclude }>;
type RouteConfigurationRow = Prisma.RouteConfigurationGetPayload<{
  include: typeof routeConfigurationInclude;
}>;
type NodeGroupRow = Prisma.NodeGroupGetPayload<{ include: typeof nodeGroupInclude }>;
type RuntimeLayerRow = Prisma.RuntimeLayerGetPayload<object>;
type SecretRow = Prisma.SecretGetPayload<object>;

function object(value: unknown): JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}

function array(value: unknown): readonly JsonValue[] {
  return Array.isArray(value) ? (value as JsonValue[]) : [];
}

function objectOrNull(value: unknown): JsonObject | null {
  return value === null || value === undefined ? null : object(value);
}

function stringRecord(value: unknown): { readonly [key: string]: string } {
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(object(value))) if (typeof v === "string") out[key] = v;
  return out;
}

function weightedClusters(value: unknown): readonly WeightedClusterSpec[] {
  return array(value).flatMap((entry) => {
    const { name, weight, extra } = object(entry);
    if (typeof name !== "string" || typeof weight !== "number") return [];
    const kept = object(extra);
    return [Object.keys(kept).length > 0 ? { name, weight, extra: kept } : { name, weight }];
  });
}

export function clusterSpecOfRow(c: ClusterRow): ClusterSpec {
  return {
    name: c.name,
    discoveryType: c.discoveryType,
    lbPolicy: c.lbPolicy,
    connectTimeoutMs: c.connectTimeoutMs,
    http2: c.http2,
    reportLoad: c.reportLoad,
    healthChecks: array(c.healthChecks),
    circuitBreakers: objectOrNull(c.circuitBreakers),
    outlierDetection: objectOrNull(c.outlierDetection),
    tlsSecretName: c.tlsSecretName,
    edsServiceName: c.edsServiceName,
    extra: object(c.extra),
    assignmentExtra: object(c.assignmentExtra),
    localities: c.localities.map((l) => ({
      region: l.region,
      zone: l.zone,
      subZone: l.subZone,
      weight: l.weight,
      priority: l.priority,
      extra: object(l.extra),
      endpoints: l.endpoints.map((e) => ({
        address: e.address,
        port: e.port,
        weight: e.weight,
        healthStatus: e.healthStatus,
        extra: object(e.extra),
      })),
    })),
  };
}

export function listenerSpecOfRow(l: ListenerRow): ListenerSpec {
  return {
    name: l.name,
    apiListener: l.apiListener,
    address: l.address,
    port: l.port,
    extra: object(l.extra),
    filterChains: l.filterChains.map((f) => ({
      name: f.name,
      isDefault: f.isDefault,
      serverNames: f.serverNames,
      tlsSecretName: f.tlsSecretName,
      networkFilters: array(f.networkFilters),
      networkOnly: f.networkOnly,
      statPrefix: f.statPrefix,
      rdsRouteConfigName: f.rdsRouteConfigName,
      inlineRouteConfigName: f.inlineRouteConfigName,
      httpFilters: array(f.httpFilters),
      accessLog: array(f.accessLog),
      hcmExtra: object(f.hcmExtra),
      extra: object(f.extra),
    })),
  };
}

export function routeConfigurationSpecOfRow(rc: RouteConfigurationRow): RouteConfigurationSpec {
  return {
    name: rc.name,
    vhds: rc.vhds,
    extra: object(rc.extra),
    virtualHosts: rc.virtualHosts.map((vh) => ({
      name: vh.name,
      domains: vh.domains,
      extra: object(vh.extra),
      routes: vh.routes.map((r) => ({
        name: r.name,
        matchKind: r.matchKind,
        matchValue: r.matchValue,
        caseSensitive: r.caseSensitive,
        headers: array(r.headers),
        queryParameters: array(r.queryParameters),
        actionKind: r.actionKind,
        cluster: r.cluster,
        weightedClusters: weightedClusters(r.weightedClusters),
        redirect: objectOrNull(r.redirect),
        directResponse: objectOrNull(r.directResponse),
        timeoutMs: r.timeoutMs,
        retryPolicy: objectOrNull(r.retryPolicy),
        prefixRewrite: r.prefixRewrite,
        extra: object(r.extra),
      })),
    })),
  };
}

export function nodeGroupSpecOfRow(g: NodeGroupRow): NodeGroupSpec {
  return {
    name: g.name,
    isDefault: g.isDefault,
    priority: g.priority,
    nodeIds: g.nodeIds,
    nodeClusters: g.nodeClusters,
    nodeMetadata: stringRecord(g.nodeMetadata),
    listeners: g.listeners.map((m) => m.listener.name).sort(),
    clusters: g.clusters.map((m) => m.cluster.name).sort(),
    ...(g.maxResponseBytes === null ? {} : { maxResponseBytes: Number(g.maxResponseBytes) }),
  };
}

/** Entries as stored; anything else in the column (written behind Switchyard's back) is skipped. */
function runtimeEntries(value: unknown): readonly RuntimeEntrySpec[] {
  return array(value).flatMap((entry) => {
    const { key, value: v } = object(entry);
    return typeof key === "string" &&
      (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
      ? [{ key, value: v }]
      : [];
  });
}

export function runtimeLayerSpecOfRow(r: RuntimeLayerRow): RuntimeLayerSpec {
  return { name: r.name, entries: runtimeEntries(r.entries) };
}

const SECRET_TYPES: ReadonlySet<string> = new Set<SecretSpec["type"]>([
  "TLS_CERTIFICATE",
  "VALIDATION_CONTEXT",
  "GENERIC_SECRET",
  "SESSION_TICKET_KEYS",
]);

/** A secret as stored: its private key and values sealed (model.ts SecretSpec). */
export function secretSpecOfRow(s: SecretRow): SecretSpec {
  return {
    name: s.name,
    type: SECRET_TYPES.has(s.type) ? (s.type as SecretSpec["type"]) : "TLS_CERTIFICATE",
    certificateChain: s.certificateChain,
    privateKey: s.privateKey,
    trustedCa: s.trustedCa,
    matchSubjectAltNames: s.matchSubjectAltNames,
    values: s.values,
  };
}

/** A stored object with when it was last written. */
export interface Stored<T> {
  readonly spec: T;
  readonly updatedAt: Date;
}

const stored =
  <R extends { updatedAt: Date }, T>(toSpec: (row: R) => T) =>
  (row: R): Stored<T> => ({
    spec: toSpec(row),
    updatedAt: row.updatedAt,
  });

export async function listClusters(db: TransactionClient): Promise<Stored<ClusterSpec>[]> {
  return (await db.cluster.findMany({ orderBy: { name: "asc" }, include: clusterInclude })).map(
    stored(clusterSpecOfRow),
  );
}

/** Rows as a RowCache loads them (row-cache.ts): the object, with its revision and updatedAt. */
const loaded =
  <R extends { id: string; revision: number; updatedAt: Date }, T>(toSpec: (row: R) => T) =>
  (rows: R[]): LoadedRow<Stored<T>>[] =>
    rows.map((row) => ({
      id: row.id,
      revision: row.revision,
      updatedAt: row.updatedAt,
      value: stored(toSpec)(row),
    }));

type Db = PrismaClient | TransactionClient;

/** Each kind's rows by id, for the caches refreshed by revision (row-cache.ts). */
export const rowsById = {
  cluster: async (db: Db, ids: string[]) =>
    loaded(clusterSpecOfRow)(
      await db.cluster.findMany({ where: { id: { in: ids } }, include: clusterInclude }),
    ),
  listener: async (db: Db, ids: string[]) =>
    loaded(listenerSpecOfRow)(
      await db.listener.findMany({ where: { id: { in: ids } }, include: listenerInclude }),
    ),
  routeConfiguration: async (db: Db, ids: string[]) =>
    loaded(routeConfigurationSpecOfRow)(
      await db.routeConfiguration.findMany({
        where: { id: { in: ids } },
        include: routeConfigurationInclude,
      }),
    ),
  nodeGroup: async (db: Db, ids: string[]) =>
    loaded(nodeGroupSpecOfRow)(
      await db.nodeGroup.findMany({ where: { id: { in: ids } }, include: nodeGroupInclude }),
    ),
  runtimeLayer: async (db: Db, ids: string[]) =>
    loaded(runtimeLayerSpecOfRow)(await db.runtimeLayer.findMany({ where: { id: { in: ids } } })),
  secret: async (db: Db, ids: string[]) =>
    loaded(secretSpecOfRow)(await db.secret.findMany({ where: { id: { in: ids } } })),
} as const;

export async function listListeners(db: TransactionClient): Promise<Stored<ListenerSpec>[]> {
  return (await db.listener.findMany({ orderBy: { name: "asc" }, include: listenerInclude })).map(
    stored(listenerSpecOfRow),
  );
}

export async function listRouteConfigurations(
  db: TransactionClient,
): Promise<Stored<RouteConfigurationSpec>[]> {
  return (
    await db.routeConfiguration.findMany({
      orderBy: { name: "asc" },
      include: routeConfigurationInclude,
    })
  ).map(stored(routeConfigurationSpecOfRow));
}

export async function listNodeGroups(db: TransactionClient): Promise<Stored<NodeGroupSpec>[]> {
  return (await db.nodeGroup.findMany({ orderBy: { name: "asc" }, include: nodeGroupInclude })).map(
    stored(nodeGroupSpecOfRow),
  );
}

export async function listRuntimeLayers(
  db: TransactionClient,
): Promise<Stored<RuntimeLayerSpec>[]> {
  return (await db.runtimeLayer.findMany({ orderBy: { name: "asc" } })).map(
    stored(runtimeLayerSpecOfRow),
  );
}

export async function findRuntimeLayer(
  db: TransactionClient,
  name: string,
): Promise<Stored<RuntimeLayerSpec> | undefined> {
  const row = await db.runtimeLayer.findUnique({ where: { name } });
  return row ? stored(runtimeLayerSpecOfRow)(row) : undefined;
}

export async function listSecrets(db: TransactionClient): Promise<Stored<SecretSpec>[]> {
  return (await db.secret.findMany({ orderBy: { name: "asc" } })).map(stored(secretSpecOfRow));
}

export async function findSecret(
  db: TransactionClient,
  name: string,
): Promise<Stored<SecretSpec> | undefined> {
  const row = await db.secret.findUnique({ where: { name } });
  return row ? stored(secretSpecOfRow)(row) : undefined;
}

export async function findCluster(
  db: TransactionClient,
  name: string,
): Promise<Stored<ClusterSpec> | undefined> {
  const row = await db.cluster.findUnique({ where: { name }, include: clusterInclude });
  return row ? stored(clusterSpecOfRow)(row) : undefined;
}

export async function findListener(
  db: TransactionClient,
  name: string,
): Promise<Stored<ListenerSpec> | undefined> {
  const row = await db.listener.findUnique({ where: { name }, include: listenerInclude });
  return row ? stored(listenerSpecOfRow)(row) : undefined;
}

export async function findRouteConfiguration(
  db: TransactionClient,
  name: string,
): Promise<Stored<RouteConfigurationSpec> | undefined> {
  const row = await db.routeConfiguration.findUnique({
    where: { name },
    include: routeConfigurationInclude,
  });
  return row ? stored(routeConfigurationSpecOfRow)(row) : undefined;
}

export async function findNodeGroup(
  db: TransactionClient,
  name: string,
): Promise<Stored<NodeGroupSpec> | undefined> {
  const row = await db.nodeGroup.findUnique({ where: { name }, include: nodeGroupInclude });
  return row ? stored(nodeGroupSpecOfRow)(row) : undefined;
}

/**
 * Reads the whole stored configuration (the draft) in a stable order: top-level objects by name,
 * children by position. Call it inside a transaction for a consistent read (see `loadConfigSpec`).
 */
export async function readConfigSpec(db: TransactionClient): Promise<ConfigSpec> {
  // One after another: a transaction is one connection, which runs one query at a time.
  const clusters = await listClusters(db);
  const listeners = await listListeners(db);
  const routeConfigurations = await listRouteConfigurations(db);
  const nodeGroups = await listNodeGroups(db);
  const runtimeLayers = await listRuntimeLayers(db);
  const secrets = await listSecrets(db);
  const specs = <T>(items: Stored<T>[]) => items.map((item) => item.spec);
  return {
    clusters: specs(clusters),
    listeners: specs(listeners),
    routeConfigurations: specs(routeConfigurations),
    nodeGroups: specs(nodeGroups),
    runtimeLayers: specs(runtimeLayers),
    secrets: specs(secrets),
  };
}

/** Reads the draft in one repeatable-read transaction, so it is one consistent state. */
export function loadConfigSpec(prisma: PrismaClient): Promise<ConfigSpec> {
  return prisma.$transaction((tx) => readConfigSpec(tx), { isolationLevel: "RepeatableRead" });
}
