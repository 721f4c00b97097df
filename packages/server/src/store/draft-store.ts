import { randomUUID } from "node:crypto";
import { Prisma, type TransactionClient } from "@switchyard/db";
import type {
  ClusterSpec,
  ConfigSpec,
  EndpointSpec,
  FilterChainSpec,
  ListenerSpec,
  LocalitySpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  SecretSpec,
  SourceKind,
  VirtualHostSpec,
} from "@switchyard/snapshot";
import { sourceObjects } from "@switchyard/snapshot";
import { type Column, chunks, column, quoted, rowsSource } from "./bulk-sql.js";
import { readConfigSpec } from "./config-store.js";

/**
 * Writes to the draft. Every object is written whole (replace by name), children in the order
 * given, so what is stored is exactly the spec that was submitted. Run inside a transaction: a
 * failed write (a node group naming a missing listener) leaves earlier statements to roll back.
 *
 * One write path serves one object and a whole fleet (draft-store.spec.ts): per kind, one upsert
 * of the parents by name, then one delete of the replaced parents' children (grandchildren
 * cascade), then inserts of children and grandchildren. The upsert keeps a replaced row's id and
 * createdAt (deleting and re-inserting it would cascade to the node groups listing a cluster or
 * listener), and sets revision (old + 1, or 1 for a new object) and updatedAt. Children get their
 * ids here, so they are linked without reading anything back. Rows travel as one array per column
 * (INSERT ... SELECT FROM UNNEST), so a statement binds a handful of parameters whatever its row
 * count, far from Postgres' 65535 limit; rows are still sent in chunks to bound one statement.
 * Prisma's createMany took ten times as long (7 s for the 30,000 endpoints alone).
 *
 * Long because each kind's column table and writer sits here on that one path: a column added to
 * the schema is added to its table here, next to how its parents and children are written.
 */

async function insertRows<Row>(
  db: TransactionClient,
  table: string,
  columns: readonly Column<Row>[],
  rows: readonly Row[],
): Promise<void> {
  for (const chunk of chunks(rows)) {
    await db.$executeRaw`INSERT INTO ${Prisma.raw(quoted(table))} ${rowsSource(columns, chunk)}`;
  }
}

/** Deletes the rows of `table` whose `parentColumn` is one of `parentIds` (their children cascade). */
async function deleteChildren(
  db: TransactionClient,
  table: string,
  parentColumn: string,
  parentIds: readonly string[],
): Promise<void> {
  for (const chunk of chunks(parentIds)) {
    await db.$executeRaw`DELETE FROM ${Prisma.raw(quoted(table))} WHERE ${Prisma.raw(quoted(parentColumn))} = ANY(${chunk}::uuid[])`;
  }
}

/** The stored parent rows of one written batch: id by name, and the ids that were replaced. */
interface Parents {
  readonly idOf: ReadonlyMap<string, string>;
  readonly replaced: readonly string[];
}

/**
 * Inserts or replaces `objects` by name: a new name gets a fresh id and revision 1; an existing
 * row keeps its id and createdAt, takes every column of `columns`, and its revision goes up by one.
 */
async function upsertParents<Spec extends { readonly name: string }>(
  db: TransactionClient,
  table: string,
  columns: readonly Column<Spec>[],
  objects: readonly Spec[],
  updatedAt: string,
): Promise<Parents> {
  const fresh = new Map(objects.map((o) => [o.name, randomUUID()]));
  const all: Column<Spec>[] = [
    column("id", "uuid", (o) => fresh.get(o.name)),
    column("name", "text", (o) => o.name),
    ...columns,
  ];
  const fixed = [
    ["revision", Prisma.sql`1`],
    ["updatedAt", Prisma.sql`${updatedAt}::timestamp(3)`],
  ] as const;
  const set = Prisma.raw(
    [
      ...columns.map((c) => `${quoted(c.name)} = EXCLUDED.${quoted(c.name)}`),
      `"revision" = ${quoted(table)}."revision" + 1`,
      `"updatedAt" = EXCLUDED."updatedAt"`,
    ].join(", "),
  );
  const idOf = new Map<string, string>();
  const replaced: string[] = [];
  for (const chunk of chunks(objects)) {
    const rows = await db.$queryRaw<{ id: string; name: string }[]>`
      INSERT INTO ${Prisma.raw(quoted(table))} ${rowsSource(all, chunk, fixed)}
      ON CONFLICT ("name") DO UPDATE SET ${set}
      RETURNING "id", "name"`;
    for (const { id, name } of rows) {
      idOf.set(name, id);
      if (id !== fresh.get(name)) replaced.push(id);
    }
  }
  return { idOf, replaced };
}

/** A child row: its own id, its parent's, and its place among its siblings. */
interface Child<Spec> {
  readonly id: string;
  readonly parentId: string;
  readonly position: number;
  readonly spec: Spec;
}

/** The children `childrenOf(parent)` of every parent, in order, with fresh ids. */
function childRows<Parent, Spec>(
  parents: readonly Parent[],
  parentIdOf: (parent: Parent) => string,
  childrenOf: (parent: Parent) => readonly Spec[],
): Child<Spec>[] {
  return parents.flatMap((parent) => {
    const parentId = parentIdOf(parent);
    return childrenOf(parent).map((spec, position) => ({
      id: randomUUID(),
      parentId,
      position,
      spec,
    }));
  });
}

/** The last object of each name: writing a name twice in one batch keeps the later one. */
function latestByName<Spec extends { readonly name: string }>(objects: readonly Spec[]): Spec[] {
  return [...new Map(objects.map((o) => [o.name, o])).values()];
}

function idIn(parents: Parents, name: string): string {
  const id = parents.idOf.get(name);
  if (id === undefined) throw new Error(`internal: "${name}" was not written`);
  return id;
}

const clusterColumns: readonly Column<ClusterSpec>[] = [
  column("discoveryType", '"DiscoveryType"', (c) => c.discoveryType),
  column("lbPolicy", '"LbPolicy"', (c) => c.lbPolicy),
  column("connectTimeoutMs", "int4", (c) => c.connectTimeoutMs),
  column("http2", "bool", (c) => c.http2),
  column("reportLoad", "bool", (c) => c.reportLoad),
  column("healthChecks", "jsonb", (c) => c.healthChecks),
  column("circuitBreakers", "jsonb", (c) => c.circuitBreakers),
  column("outlierDetection", "jsonb", (c) => c.outlierDetection),
  column("tlsSecretName", "text", (c) => c.tlsSecretName),
  column("edsServiceName", "text", (c) => c.edsServiceName),
  column("extra", "jsonb", (c) => c.extra),
  column("assignmentExtra", "jsonb", (c) => c.assignmentExtra),
];

const localityColumns: readonly Column<Child<LocalitySpec>>[] = [
  column("id", "uuid", (l) => l.id),
  column("clusterId", "uuid", (l) => l.parentId),
  column("position", "int4", (l) => l.position),
  column("region", "text", (l) => l.spec.region),
  column("zone", "text", (l) => l.spec.zone),
  column("subZone", "text", (l) => l.spec.subZone),
  column("weight", "int4", (l) => l.spec.weight),
  column("priority", "int4", (l) => l.spec.priority),
  column("extra", "jsonb", (l) => l.spec.extra),
];

const endpointColumns: readonly Column<Child<EndpointSpec>>[] = [
  column("id", "uuid", (e) => e.id),
  column("localityId", "uuid", (e) => e.parentId),
  column("position", "int4", (e) => e.position),
  column("address", "text", (e) => e.spec.address),
  column("port", "int4", (e) => e.spec.port),
  column("weight", "int4", (e) => e.spec.weight),
  column("healthStatus", '"HealthStatus"', (e) => e.spec.healthStatus),
  column("extra", "jsonb", (e) => e.spec.extra),
];

const listenerColumns: readonly Column<ListenerSpec>[] = [
  column("apiListener", "bool", (l) => l.apiListener),
  column("address", "text", (l) => l.address),
  column("port", "int4", (l) => l.port),
  column("extra", "jsonb", (l) => l.extra),
];

const filterChainColumns: readonly Column<Child<FilterChainSpec>>[] = [
  column("id", "uuid", (f) => f.id),
  column("listenerId", "uuid", (f) => f.parentId),
  column("position", "int4", (f) => f.position),
  column("name", "text", (f) => f.spec.name),
  column("isDefault", "bool", (f) => f.spec.isDefault),
  column("serverNames", "text[]", (f) => f.spec.serverNames),
  column("tlsSecretName", "text", (f) => f.spec.tlsSecretName),
  column("networkFilters", "jsonb", (f) => f.spec.networkFilters),
  column("networkOnly", "bool", (f) => f.spec.networkOnly),
  column("statPrefix", "text", (f) => f.spec.statPrefix),
  column("rdsRouteConfigName", "text", (f) => f.spec.rdsRouteConfigName),
  column("inlineRouteConfigName", "text", (f) => f.spec.inlineRouteConfigName),
  column("httpFilters", "jsonb", (f) => f.spec.httpFilters),
  column("accessLog", "jsonb", (f) => f.spec.accessLog),
  column("hcmExtra", "jsonb", (f) => f.spec.hcmExtra),
  column("extra", "jsonb", (f) => f.spec.extra),
];

const routeConfigurationColumns: readonly Column<RouteConfigurationSpec>[] = [
  column("vhds", "bool", (r) => r.vhds),
  column("extra", "jsonb", (r) => r.extra),
];

const virtualHostColumns: readonly Column<Child<VirtualHostSpec>>[] = [
  column("id", "uuid", (v) => v.id),
  column("routeConfigurationId", "uuid", (v) => v.parentId),
  column("position", "int4", (v) => v.position),
  column("name", "text", (v) => v.spec.name),
  column("domains", "text[]", (v) => v.spec.domains),
  column("extra", "jsonb", (v) => v.spec.extra),
];

const routeColumns: readonly Column<Child<RouteSpec>>[] = [
  column("id", "uuid", (r) => r.id),
  column("virtualHostId", "uuid", (r) => r.parentId),
  column("position", "int4", (r) => r.position),
  column("name", "text", (r) => r.spec.name),
  column("matchKind", '"RouteMatchKind"', (r) => r.spec.matchKind),
  column("matchValue", "text", (r) => r.spec.matchValue),
  column("caseSensitive", "bool", (r) => r.spec.caseSensitive),
  column("headers", "jsonb", (r) => r.spec.headers),
  column("queryParameters", "jsonb", (r) => r.spec.queryParameters),
  column("actionKind", '"RouteActionKind"', (r) => r.spec.actionKind),
  column("cluster", "text", (r) => r.spec.cluster),
  column("weightedClusters", "jsonb", (r) =>
    r.spec.weightedClusters.map((w) =>
      w.extra === undefined ? { name: w.name, weight: w.weight } : { ...w },
    ),
  ),
  column("redirect", "jsonb", (r) => r.spec.redirect),
  column("directResponse", "jsonb", (r) => r.spec.directResponse),
  column("timeoutMs", "int4", (r) => r.spec.timeoutMs),
  column("retryPolicy", "jsonb", (r) => r.spec.retryPolicy),
  column("prefixRewrite", "text", (r) => r.spec.prefixRewrite),
  column("extra", "jsonb", (r) => r.spec.extra),
];

const nodeGroupColumns: readonly Column<NodeGroupSpec>[] = [
  column("isDefault", "bool", (g) => g.isDefault),
  column("priority", "int4", (g) => g.priority),
  column("nodeIds", "text[]", (g) => g.nodeIds),
  column("nodeClusters", "text[]", (g) => g.nodeClusters),
  column("nodeMetadata", "jsonb", (g) => g.nodeMetadata),
  column("maxResponseBytes", "int8", (g) => g.maxResponseBytes ?? null),
];

/** Entries stored sorted by key (model.ts RuntimeLayerSpec): equal layers, equal rows. */
const runtimeLayerColumns: readonly Column<RuntimeLayerSpec>[] = [
  column("entries", "jsonb", (r) =>
    [...r.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  ),
];

/**
 * The private key and values columns hold sealed texts only (model.ts SecretSpec): never
 * plaintext.
 */
const secretColumns: readonly Column<SecretSpec>[] = [
  column("type", "text", (s) => s.type),
  column("certificateChain", "text", (s) => s.certificateChain),
  column("privateKey", "text", (s) => s.privateKey),
  column("trustedCa", "text", (s) => s.trustedCa),
  column("matchSubjectAltNames", "text[]", (s) => s.matchSubjectAltNames),
  column("values", "text[]", (s) => s.values),
];

interface Membership {
  readonly nodeGroupId: string;
  readonly memberId: string;
}

const membershipColumns = (memberColumn: string): readonly Column<Membership>[] => [
  column("nodeGroupId", "uuid", (m) => m.nodeGroupId),
  column(memberColumn, "uuid", (m) => m.memberId),
];

async function writeClusters(
  db: TransactionClient,
  clusters: readonly ClusterSpec[],
  updatedAt: string,
): Promise<void> {
  if (clusters.length === 0) return;
  const parents = await upsertParents(db, "Cluster", clusterColumns, clusters, updatedAt);
  await deleteChildren(db, "Locality", "clusterId", parents.replaced);
  const localities = childRows(
    clusters,
    (c) => idIn(parents, c.name),
    (c) => c.localities,
  );
  await insertRows(db, "Locality", localityColumns, localities);
  const endpoints = childRows(
    localities,
    (l) => l.id,
    (l) => l.spec.endpoints,
  );
  await insertRows(db, "Endpoint", endpointColumns, endpoints);
}

async function writeListeners(
  db: TransactionClient,
  listeners: readonly ListenerSpec[],
  updatedAt: string,
): Promise<void> {
  if (listeners.length === 0) return;
  const parents = await upsertParents(db, "Listener", listenerColumns, listeners, updatedAt);
  await deleteChildren(db, "FilterChain", "listenerId", parents.replaced);
  const filterChains = childRows(
    listeners,
    (l) => idIn(parents, l.name),
    (l) => l.filterChains,
  );
  await insertRows(db, "FilterChain", filterChainColumns, filterChains);
}

async function writeRouteConfigurations(
  db: TransactionClient,
  routeConfigurations: readonly RouteConfigurationSpec[],
  updatedAt: string,
): Promise<void> {
  if (routeConfigurations.length === 0) return;
  const parents = await upsertParents(
    db,
    "RouteConfiguration",
    routeConfigurationColumns,
    routeConfigurations,
    updatedAt,
  );
  await deleteChildren(db, "VirtualHost", "routeConfigurationId", parents.replaced);
  const virtualHosts = childRows(
    routeConfigurations,
    (r) => idIn(parents, r.name),
    (r) => r.virtualHosts,
  );
  await insertRows(db, "VirtualHost", virtualHostColumns, virtualHosts);
  const routes = childRows(
    virtualHosts,
    (v) => v.id,
    (v) => v.spec.routes,
  );
  await insertRows(db, "Route", routeColumns, routes);
}

async function writeRuntimeLayers(
  db: TransactionClient,
  layers: readonly RuntimeLayerSpec[],
  updatedAt: string,
): Promise<void> {
  if (layers.length === 0) return;
  await upsertParents(db, "RuntimeLayer", runtimeLayerColumns, layers, updatedAt);
}

async function writeSecrets(
  db: TransactionClient,
  secrets: readonly SecretSpec[],
  updatedAt: string,
): Promise<void> {
  if (secrets.length === 0) return;
  await upsertParents(db, "Secret", secretColumns, secrets, updatedAt);
}

/** Ids of the stored objects of `table` named in `names`. */
async function idsByName(
  db: TransactionClient,
  table: "Listener" | "Cluster",
  names: readonly string[],
): Promise<Map<string, string>> {
  const rows = await db.$queryRaw<{ id: string; name: string }[]>`
    SELECT "id", "name" FROM ${Prisma.raw(quoted(table))} WHERE "name" = ANY(${names}::text[])`;
  return new Map(rows.map((row) => [row.name, row.id]));
}

/**
 * Writes node groups; the listeners and clusters they name must exist (the caller validates
 * first, or writes them earlier in the same batch), or the write fails naming every missing one.
 */
async function writeNodeGroups(
  db: TransactionClient,
  groups: readonly NodeGroupSpec[],
  updatedAt: string,
): Promise<void> {
  if (groups.length === 0) return;
  const listenerIds = await idsByName(db, "Listener", [
    ...new Set(groups.flatMap((g) => g.listeners)),
  ]);
  const clusterIds = await idsByName(db, "Cluster", [
    ...new Set(groups.flatMap((g) => g.clusters)),
  ]);
  const problems = groups.flatMap((group) => {
    const missing = [
      ...group.listeners.filter((name) => !listenerIds.has(name)).map((n) => `listener "${n}"`),
      ...group.clusters.filter((name) => !clusterIds.has(name)).map((n) => `cluster "${n}"`),
    ];
    return missing.length === 0
      ? []
      : [`node group "${group.name}" refers to ${missing.join(", ")}, which do not exist`];
  });
  if (problems.length > 0) throw new MissingReferenceError(problems.join("; "));

  const parents = await upsertParents(db, "NodeGroup", nodeGroupColumns, groups, updatedAt);
  await deleteChildren(db, "NodeGroupListener", "nodeGroupId", parents.replaced);
  await deleteChildren(db, "NodeGroupCluster", "nodeGroupId", parents.replaced);
  const memberships = (
    ids: ReadonlyMap<string, string>,
    namesOf: (g: NodeGroupSpec) => readonly string[],
  ) =>
    groups.flatMap((group) =>
      // A name listed twice is one membership.
      [...new Set(namesOf(group))].map((name) => ({
        nodeGroupId: idIn(parents, group.name),
        memberId: ids.get(name) as string,
      })),
    );
  await insertRows(
    db,
    "NodeGroupListener",
    membershipColumns("listenerId"),
    memberships(listenerIds, (g) => g.listeners),
  );
  await insertRows(
    db,
    "NodeGroupCluster",
    membershipColumns("clusterId"),
    memberships(clusterIds, (g) => g.clusters),
  );
}

/** A write refers to an object that does not exist. */
export class MissingReferenceError extends Error {
  override readonly name = "MissingReferenceError";
}

/**
 * Writes every object of `spec` (replace by name; objects of other names are untouched), node
 * groups last since they refer to the rest. A name given twice in one kind is written once, as
 * its last occurrence.
 */
export async function writeObjects(
  db: TransactionClient,
  spec: Partial<ConfigSpec>,
): Promise<void> {
  // Prisma's @updatedAt is the client's clock; so is this, one instant for the whole batch.
  const updatedAt = new Date().toISOString();
  await writeClusters(db, latestByName(spec.clusters ?? []), updatedAt);
  await writeRouteConfigurations(db, latestByName(spec.routeConfigurations ?? []), updatedAt);
  await writeListeners(db, latestByName(spec.listeners ?? []), updatedAt);
  await writeNodeGroups(db, latestByName(spec.nodeGroups ?? []), updatedAt);
  await writeRuntimeLayers(db, latestByName(spec.runtimeLayers ?? []), updatedAt);
  await writeSecrets(db, latestByName(spec.secrets ?? []), updatedAt);
}

export function writeCluster(db: TransactionClient, cluster: ClusterSpec): Promise<void> {
  return writeObjects(db, { clusters: [cluster] });
}

export function writeListener(db: TransactionClient, listener: ListenerSpec): Promise<void> {
  return writeObjects(db, { listeners: [listener] });
}

export function writeRouteConfiguration(
  db: TransactionClient,
  routeConfiguration: RouteConfigurationSpec,
): Promise<void> {
  return writeObjects(db, { routeConfigurations: [routeConfiguration] });
}

export function writeRuntimeLayer(db: TransactionClient, layer: RuntimeLayerSpec): Promise<void> {
  return writeObjects(db, { runtimeLayers: [layer] });
}

/** Writes a secret; its private key must already be sealed (model.ts SecretSpec). */
export function writeSecret(db: TransactionClient, secret: SecretSpec): Promise<void> {
  return writeObjects(db, { secrets: [secret] });
}

/** Writes a node group; see writeNodeGroups for its references. */
export function writeNodeGroup(db: TransactionClient, group: NodeGroupSpec): Promise<void> {
  return writeObjects(db, { nodeGroups: [group] });
}

/** Deletes one object by kind and name; returns whether it existed. */
export async function deleteObject(
  db: TransactionClient,
  kind: SourceKind,
  name: string,
): Promise<boolean> {
  const where = { where: { name } };
  switch (kind) {
    case "cluster":
      return (await db.cluster.deleteMany(where)).count > 0;
    case "listener":
      return (await db.listener.deleteMany(where)).count > 0;
    case "routeConfiguration":
      return (await db.routeConfiguration.deleteMany(where)).count > 0;
    case "nodeGroup":
      return (await db.nodeGroup.deleteMany(where)).count > 0;
    case "runtimeLayer":
      return (await db.runtimeLayer.deleteMany(where)).count > 0;
    case "secret":
      return (await db.secret.deleteMany(where)).count > 0;
  }
}

/**
 * Writes the objects of `spec` whose content differs from `stored` (the draft as read in this
 * transaction), and only those: an object a bulk write (a rollback, an import) gives back as it is
 * keeps its row as it is, its update time, revision and owner included.
 */
export async function writeChangedObjects(
  db: TransactionClient,
  stored: ConfigSpec,
  spec: Partial<ConfigSpec>,
): Promise<void> {
  const now = new Map(sourceObjects(stored).map((o) => [`${o.kind}/${o.name}`, o.key]));
  const unchanged = new Set(
    sourceObjects(configSpecOf(spec))
      .filter((o) => now.get(`${o.kind}/${o.name}`) === o.key)
      .map((o) => `${o.kind}/${o.name}`),
  );
  const only = <T extends { name: string }>(kind: SourceKind, objects?: readonly T[]) =>
    (objects ?? []).filter((o) => !unchanged.has(`${kind}/${o.name}`));
  await writeObjects(db, {
    clusters: only("cluster", spec.clusters),
    listeners: only("listener", spec.listeners),
    routeConfigurations: only("routeConfiguration", spec.routeConfigurations),
    nodeGroups: only("nodeGroup", spec.nodeGroups),
    runtimeLayers: only("runtimeLayer", spec.runtimeLayers),
    secrets: only("secret", spec.secrets),
  });
}

/** `spec` with its missing kinds empty. */
function configSpecOf(spec: Partial<ConfigSpec>): ConfigSpec {
  return {
    clusters: spec.clusters ?? [],
    listeners: spec.listeners ?? [],
    routeConfigurations: spec.routeConfigurations ?? [],
    nodeGroups: spec.nodeGroups ?? [],
    runtimeLayers: spec.runtimeLayers ?? [],
    secrets: spec.secrets ?? [],
  };
}

/**
 * Makes the draft exactly `spec`: what rollback does before publishing. Only the objects whose
 * content differs are written, and only the objects `spec` has not are deleted, so an object the
 * rollback does not change keeps its update time.
 */
export async function replaceDraft(db: TransactionClient, spec: ConfigSpec): Promise<void> {
  const stored = await readConfigSpec(db);
  await db.nodeGroup.deleteMany({ where: { name: { notIn: spec.nodeGroups.map((g) => g.name) } } });
  await db.listener.deleteMany({ where: { name: { notIn: spec.listeners.map((l) => l.name) } } });
  await db.routeConfiguration.deleteMany({
    where: { name: { notIn: spec.routeConfigurations.map((r) => r.name) } },
  });
  await db.cluster.deleteMany({ where: { name: { notIn: spec.clusters.map((c) => c.name) } } });
  await db.runtimeLayer.deleteMany({
    where: { name: { notIn: spec.runtimeLayers.map((r) => r.name) } },
  });
  await db.secret.deleteMany({ where: { name: { notIn: spec.secrets.map((s) => s.name) } } });
  await writeChangedObjects(db, stored, spec);
}
