import type { PrismaClient } from "@switchyard/db";
import type {
  ConfigSpec,
  JsonObject,
  JsonValue,
  NodeGroupSpec,
  WeightedClusterSpec,
} from "@switchyard/snapshot";

const byPosition = { orderBy: { position: "asc" } } as const;

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
    const { name, weight } = object(entry);
    return typeof name === "string" && typeof weight === "number" ? [{ name, weight }] : [];
  });
}

/**
 * Reads the whole stored configuration (the draft) as the plain spec the compiler takes, in a
 * stable order: top-level objects by name, children by position. One consistent read: all
 * queries run in a single repeatable-read transaction.
 */
export async function loadConfigSpec(prisma: PrismaClient): Promise<ConfigSpec> {
  const [clusters, listeners, routeConfigurations, nodeGroups] = await prisma.$transaction(
    [
      prisma.cluster.findMany({
        orderBy: { name: "asc" },
        include: { localities: { ...byPosition, include: { endpoints: byPosition } } },
      }),
      prisma.listener.findMany({ orderBy: { name: "asc" }, include: { filterChains: byPosition } }),
      prisma.routeConfiguration.findMany({
        orderBy: { name: "asc" },
        include: { virtualHosts: { ...byPosition, include: { routes: byPosition } } },
      }),
      prisma.nodeGroup.findMany({
        orderBy: { name: "asc" },
        include: {
          listeners: { include: { listener: { select: { name: true } } } },
          clusters: { include: { cluster: { select: { name: true } } } },
        },
      }),
    ],
    { isolationLevel: "RepeatableRead" },
  );
  return {
    clusters: clusters.map((c) => ({
      name: c.name,
      discoveryType: c.discoveryType,
      lbPolicy: c.lbPolicy,
      connectTimeoutMs: c.connectTimeoutMs,
      http2: c.http2,
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
    })),
    listeners: listeners.map((l) => ({
      name: l.name,
      apiListener: l.apiListener,
      address: l.address,
      port: l.port,
      extra: object(l.extra),
      filterChains: l.filterChains.map((f) => ({
        name: f.name,
        serverNames: f.serverNames,
        tlsSecretName: f.tlsSecretName,
        statPrefix: f.statPrefix,
        rdsRouteConfigName: f.rdsRouteConfigName,
        inlineRouteConfigName: f.inlineRouteConfigName,
        httpFilters: array(f.httpFilters),
        accessLog: array(f.accessLog),
        hcmExtra: object(f.hcmExtra),
        extra: object(f.extra),
      })),
    })),
    routeConfigurations: routeConfigurations.map((rc) => ({
      name: rc.name,
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
    })),
    nodeGroups: nodeGroups.map(
      (g): NodeGroupSpec => ({
        name: g.name,
        isDefault: g.isDefault,
        priority: g.priority,
        nodeIds: g.nodeIds,
        nodeClusters: g.nodeClusters,
        nodeMetadata: stringRecord(g.nodeMetadata),
        listeners: g.listeners.map((m) => m.listener.name).sort(),
        clusters: g.clusters.map((m) => m.cluster.name).sort(),
      }),
    ),
  };
}
