import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { PrismaClient } from "@switchyard/db";
import {
  ResourceKind,
  type ResourceSummary,
  ResourceSummarySchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ClusterSpec,
  findReferencesInJson,
  type JsonValue,
  type RouteConfigurationSpec,
} from "@switchyard/snapshot";
import type { Stored } from "../store/config-store.js";
import { perInstance } from "../store/row-cache.js";

/** One line per stored object, for the console's inventory and `switchyard get KIND`. */

/**
 * The two big kinds (every endpoint, every route) as the list caches hold them (row-cache.ts):
 * an unchanged object is the same instance from one read to the next, so its summary is made
 * once (perInstance) instead of reading and summing every route again for each list.
 */
export interface SummarySources {
  readonly clusters: () => Promise<readonly Stored<ClusterSpec>[]>;
  readonly routeConfigurations: () => Promise<readonly Stored<RouteConfigurationSpec>[]>;
}

function clusterSummary({ spec, updatedAt }: Stored<ClusterSpec>): ResourceSummary {
  const endpoints = spec.localities.reduce((sum, l) => sum + l.endpoints.length, 0);
  const description = [
    spec.discoveryType,
    spec.lbPolicy,
    plural(endpoints, "endpoint"),
    spec.http2 ? "HTTP/2" : undefined,
  ]
    .filter(Boolean)
    .join(", ");
  return summary(ResourceKind.CLUSTER, spec.name, description, [], updatedAt);
}

function routeConfigurationSummary({
  spec,
  updatedAt,
}: Stored<RouteConfigurationSpec>): ResourceSummary {
  const routes = spec.virtualHosts.flatMap((vh) => vh.routes);
  const references = routes.flatMap((r) => [
    ...(r.cluster ? [r.cluster] : []),
    ...r.weightedClusters.map((w) => w.name),
  ]);
  const hosts = plural(
    spec.virtualHosts.length,
    spec.vhds ? "on-demand virtual host" : "virtual host",
  );
  return summary(
    ResourceKind.ROUTE_CONFIGURATION,
    spec.name,
    `${hosts}, ${plural(routes.length, "route")}`,
    references,
    updatedAt,
  );
}

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

const clusterLine = perInstance(clusterSummary);
const routeConfigurationLine = perInstance(routeConfigurationSummary);

/** How a secret's type reads in a summary. */
const SECRET_TYPE_WORDS: Readonly<Record<string, string>> = {
  TLS_CERTIFICATE: "TLS certificate",
  VALIDATION_CONTEXT: "validation context",
  GENERIC_SECRET: "generic secret",
  SESSION_TICKET_KEYS: "session ticket keys",
};

export async function listSummaries(
  prisma: PrismaClient,
  sources: SummarySources,
  kind: ResourceKind,
): Promise<ResourceSummary[]> {
  const wants = (k: ResourceKind) => kind === ResourceKind.UNSPECIFIED || kind === k;
  const out: ResourceSummary[] = [];
  if (wants(ResourceKind.CLUSTER)) {
    for (const cluster of await sources.clusters()) out.push(clusterLine(cluster));
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
      const references = l.filterChains.flatMap((f) => [
        ...[f.rdsRouteConfigName, f.inlineRouteConfigName].filter((n): n is string => n !== null),
        // The clusters its network filters (a tcp_proxy, ...) send connections to.
        ...(Array.isArray(f.networkFilters) ? (f.networkFilters as JsonValue[]) : []).flatMap(
          (filter) =>
            findReferencesInJson("envoy.config.listener.v3.Filter", filter)
              .filter((reference) => reference.kind === "cluster")
              .map((reference) => reference.name),
        ),
      ]);
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
    for (const rc of await sources.routeConfigurations()) out.push(routeConfigurationLine(rc));
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
      const description = SECRET_TYPE_WORDS[s.type] ?? "TLS certificate";
      out.push(summary(ResourceKind.SECRET, s.name, description, [], s.updatedAt));
    }
  }
  return out;
}
