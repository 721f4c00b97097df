import { Prisma, type TransactionClient } from "@switchyard/db";
import type {
  ClusterSpec,
  ConfigSpec,
  JsonObject,
  JsonValue,
  ListenerSpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  SourceKind,
} from "@switchyard/snapshot";

/**
 * Writes to the draft. Every object is written whole (replace by name), children in the order
 * given, so what is stored is exactly the spec that was submitted. Run inside a transaction.
 */

type Json = Prisma.InputJsonValue;

function json(value: JsonValue | readonly JsonValue[]): Json {
  return value as Json;
}

function nullableJson(value: JsonObject | null): Json | typeof Prisma.DbNull {
  return value === null ? Prisma.DbNull : (value as Json);
}

export async function writeCluster(db: TransactionClient, cluster: ClusterSpec): Promise<void> {
  const fields = {
    discoveryType: cluster.discoveryType,
    lbPolicy: cluster.lbPolicy,
    connectTimeoutMs: cluster.connectTimeoutMs,
    http2: cluster.http2,
    healthChecks: json(cluster.healthChecks),
    circuitBreakers: nullableJson(cluster.circuitBreakers),
    outlierDetection: nullableJson(cluster.outlierDetection),
    tlsSecretName: cluster.tlsSecretName,
    edsServiceName: cluster.edsServiceName,
    extra: json(cluster.extra),
    assignmentExtra: json(cluster.assignmentExtra),
    localities: {
      create: cluster.localities.map((locality, position) => ({
        position,
        region: locality.region,
        zone: locality.zone,
        subZone: locality.subZone,
        weight: locality.weight,
        priority: locality.priority,
        extra: json(locality.extra),
        endpoints: {
          create: locality.endpoints.map((endpoint, index) => ({
            position: index,
            address: endpoint.address,
            port: endpoint.port,
            weight: endpoint.weight,
            healthStatus: endpoint.healthStatus,
            extra: json(endpoint.extra),
          })),
        },
      })),
    },
  };
  const existing = await db.cluster.findUnique({
    where: { name: cluster.name },
    select: { id: true },
  });
  if (existing) {
    await db.locality.deleteMany({ where: { clusterId: existing.id } });
    await db.cluster.update({ where: { id: existing.id }, data: fields });
  } else {
    await db.cluster.create({ data: { name: cluster.name, ...fields } });
  }
}

export async function writeListener(db: TransactionClient, listener: ListenerSpec): Promise<void> {
  const fields = {
    apiListener: listener.apiListener,
    address: listener.address,
    port: listener.port,
    extra: json(listener.extra),
    filterChains: {
      create: listener.filterChains.map((chain, position) => ({
        position,
        name: chain.name,
        serverNames: [...chain.serverNames],
        tlsSecretName: chain.tlsSecretName,
        statPrefix: chain.statPrefix,
        rdsRouteConfigName: chain.rdsRouteConfigName,
        inlineRouteConfigName: chain.inlineRouteConfigName,
        httpFilters: json(chain.httpFilters),
        accessLog: json(chain.accessLog),
        hcmExtra: json(chain.hcmExtra),
        extra: json(chain.extra),
      })),
    },
  };
  const existing = await db.listener.findUnique({
    where: { name: listener.name },
    select: { id: true },
  });
  if (existing) {
    await db.filterChain.deleteMany({ where: { listenerId: existing.id } });
    await db.listener.update({ where: { id: existing.id }, data: fields });
  } else {
    await db.listener.create({ data: { name: listener.name, ...fields } });
  }
}

export async function writeRouteConfiguration(
  db: TransactionClient,
  routeConfiguration: RouteConfigurationSpec,
): Promise<void> {
  const fields = {
    extra: json(routeConfiguration.extra),
    virtualHosts: {
      create: routeConfiguration.virtualHosts.map((virtualHost, position) => ({
        position,
        name: virtualHost.name,
        domains: [...virtualHost.domains],
        extra: json(virtualHost.extra),
        routes: {
          create: virtualHost.routes.map((route, index) => ({
            position: index,
            name: route.name,
            matchKind: route.matchKind,
            matchValue: route.matchValue,
            caseSensitive: route.caseSensitive,
            headers: json(route.headers),
            queryParameters: json(route.queryParameters),
            actionKind: route.actionKind,
            cluster: route.cluster,
            weightedClusters: json(
              route.weightedClusters.map((w) => ({ name: w.name, weight: w.weight })),
            ),
            redirect: nullableJson(route.redirect),
            directResponse: nullableJson(route.directResponse),
            timeoutMs: route.timeoutMs,
            retryPolicy: nullableJson(route.retryPolicy),
            prefixRewrite: route.prefixRewrite,
            extra: json(route.extra),
          })),
        },
      })),
    },
  };
  const existing = await db.routeConfiguration.findUnique({
    where: { name: routeConfiguration.name },
    select: { id: true },
  });
  if (existing) {
    await db.virtualHost.deleteMany({ where: { routeConfigurationId: existing.id } });
    await db.routeConfiguration.update({ where: { id: existing.id }, data: fields });
  } else {
    await db.routeConfiguration.create({ data: { name: routeConfiguration.name, ...fields } });
  }
}

/**
 * Writes a node group; its listeners and clusters must exist (the caller validates first), or the
 * write fails naming the missing one.
 */
export async function writeNodeGroup(db: TransactionClient, group: NodeGroupSpec): Promise<void> {
  const [listeners, clusters] = await Promise.all([
    db.listener.findMany({
      where: { name: { in: [...group.listeners] } },
      select: { id: true, name: true },
    }),
    db.cluster.findMany({
      where: { name: { in: [...group.clusters] } },
      select: { id: true, name: true },
    }),
  ]);
  const missing = [
    ...group.listeners
      .filter((name) => !listeners.some((l) => l.name === name))
      .map((name) => `listener "${name}"`),
    ...group.clusters
      .filter((name) => !clusters.some((c) => c.name === name))
      .map((name) => `cluster "${name}"`),
  ];
  if (missing.length > 0) {
    throw new MissingReferenceError(
      `node group "${group.name}" refers to ${missing.join(", ")}, which do not exist`,
    );
  }
  const fields = {
    isDefault: group.isDefault,
    priority: group.priority,
    nodeIds: [...group.nodeIds],
    nodeClusters: [...group.nodeClusters],
    nodeMetadata: json(group.nodeMetadata),
    listeners: { create: listeners.map((l) => ({ listenerId: l.id })) },
    clusters: { create: clusters.map((c) => ({ clusterId: c.id })) },
  };
  const existing = await db.nodeGroup.findUnique({
    where: { name: group.name },
    select: { id: true },
  });
  if (existing) {
    await db.nodeGroupListener.deleteMany({ where: { nodeGroupId: existing.id } });
    await db.nodeGroupCluster.deleteMany({ where: { nodeGroupId: existing.id } });
    await db.nodeGroup.update({ where: { id: existing.id }, data: fields });
  } else {
    await db.nodeGroup.create({ data: { name: group.name, ...fields } });
  }
}

/** A write refers to an object that does not exist. */
export class MissingReferenceError extends Error {
  override readonly name = "MissingReferenceError";
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
  }
}

/** Writes every object of `spec` (replace by name), node groups last since they refer to the rest. */
export async function writeObjects(
  db: TransactionClient,
  spec: Partial<ConfigSpec>,
): Promise<void> {
  for (const cluster of spec.clusters ?? []) await writeCluster(db, cluster);
  for (const routeConfiguration of spec.routeConfigurations ?? [])
    await writeRouteConfiguration(db, routeConfiguration);
  for (const listener of spec.listeners ?? []) await writeListener(db, listener);
  for (const group of spec.nodeGroups ?? []) await writeNodeGroup(db, group);
}

/** Makes the draft exactly `spec`: what rollback does before publishing. */
export async function replaceDraft(db: TransactionClient, spec: ConfigSpec): Promise<void> {
  await db.nodeGroup.deleteMany({ where: { name: { notIn: spec.nodeGroups.map((g) => g.name) } } });
  await db.listener.deleteMany({ where: { name: { notIn: spec.listeners.map((l) => l.name) } } });
  await db.routeConfiguration.deleteMany({
    where: { name: { notIn: spec.routeConfigurations.map((r) => r.name) } },
  });
  await db.cluster.deleteMany({ where: { name: { notIn: spec.clusters.map((c) => c.name) } } });
  await writeObjects(db, spec);
}
