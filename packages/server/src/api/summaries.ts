import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { PrismaClient } from "@switchyard/db";
import {
  ResourceKind,
  type ResourceSummary,
  ResourceSummarySchema,
} from "@switchyard/proto/switchyard/v1/config_pb";

/** One line per stored object, for the console's inventory and `switchyard get KIND`. */

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function summary(
  kind: ResourceKind,
  name: string,
  description: string,
  references: readonly string[],
  updatedAt: Date,
): ResourceSummary {
  return create(ResourceSummarySchema, {
    kind,
    name,
    description,
    references: [...new Set(references)].sort(),
    updateTime: timestampFromDate(updatedAt),
  });
}

export async function listSummaries(
  prisma: PrismaClient,
  kind: ResourceKind,
): Promise<ResourceSummary[]> {
  const wants = (k: ResourceKind) => kind === ResourceKind.UNSPECIFIED || kind === k;
  const out: ResourceSummary[] = [];
  if (wants(ResourceKind.CLUSTER)) {
    const clusters = await prisma.cluster.findMany({
      orderBy: { name: "asc" },
      include: { localities: { include: { _count: { select: { endpoints: true } } } } },
    });
    for (const c of clusters) {
      const endpoints = c.localities.reduce((sum, l) => sum + l._count.endpoints, 0);
      const description = [
        c.discoveryType,
        c.lbPolicy,
        plural(endpoints, "endpoint"),
        c.http2 ? "HTTP/2" : undefined,
      ]
        .filter(Boolean)
        .join(", ");
      out.push(summary(ResourceKind.CLUSTER, c.name, description, [], c.updatedAt));
    }
  }
  if (wants(ResourceKind.LISTENER)) {
    const listeners = await prisma.listener.findMany({
      orderBy: { name: "asc" },
      include: { filterChains: true },
    });
    for (const l of listeners) {
      const where = l.apiListener
        ? "gRPC api_listener"
        : `${l.address ?? "0.0.0.0"}:${l.port ?? 0}`;
      const references = l.filterChains.flatMap((f) =>
        [f.rdsRouteConfigName, f.inlineRouteConfigName].filter((n): n is string => n !== null),
      );
      out.push(
        summary(
          ResourceKind.LISTENER,
          l.name,
          `${where}, ${plural(l.filterChains.length, "filter chain")}`,
          references,
          l.updatedAt,
        ),
      );
    }
  }
  if (wants(ResourceKind.ROUTE_CONFIGURATION)) {
    const routeConfigurations = await prisma.routeConfiguration.findMany({
      orderBy: { name: "asc" },
      include: {
        virtualHosts: {
          include: { routes: { select: { cluster: true, weightedClusters: true } } },
        },
      },
    });
    for (const rc of routeConfigurations) {
      const routes = rc.virtualHosts.flatMap((vh) => vh.routes);
      const references = routes.flatMap((r) => [
        ...(r.cluster ? [r.cluster] : []),
        ...(Array.isArray(r.weightedClusters)
          ? r.weightedClusters.flatMap((w) =>
              w && typeof w === "object" && "name" in w && typeof w.name === "string"
                ? [w.name]
                : [],
            )
          : []),
      ]);
      out.push(
        summary(
          ResourceKind.ROUTE_CONFIGURATION,
          rc.name,
          `${plural(rc.virtualHosts.length, rc.vhds ? "on-demand virtual host" : "virtual host")}, ${plural(routes.length, "route")}`,
          references,
          rc.updatedAt,
        ),
      );
    }
  }
  if (wants(ResourceKind.NODE_GROUP)) {
    const groups = await prisma.nodeGroup.findMany({
      orderBy: { name: "asc" },
      include: { _count: { select: { listeners: true, clusters: true } } },
    });
    for (const g of groups) {
      const description = g.isDefault
        ? "default group: every node no other group claims"
        : `${plural(g._count.listeners, "listener")}, ${plural(g._count.clusters, "cluster")}`;
      out.push(summary(ResourceKind.NODE_GROUP, g.name, description, [], g.updatedAt));
    }
  }
  if (wants(ResourceKind.RUNTIME_LAYER)) {
    const layers = await prisma.runtimeLayer.findMany({ orderBy: { name: "asc" } });
    for (const r of layers) {
      const count = Array.isArray(r.entries) ? r.entries.length : 0;
      out.push(summary(ResourceKind.RUNTIME_LAYER, r.name, plural(count, "key"), [], r.updatedAt));
    }
  }
  if (wants(ResourceKind.SECRET)) {
    const secrets = await prisma.secret.findMany({
      orderBy: { name: "asc" },
      select: { name: true, type: true, updatedAt: true },
    });
    for (const s of secrets) {
      const description =
        s.type === "VALIDATION_CONTEXT" ? "validation context" : "TLS certificate";
      out.push(summary(ResourceKind.SECRET, s.name, description, [], s.updatedAt));
    }
  }
  return out;
}
