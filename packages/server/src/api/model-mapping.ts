import { create, type JsonObject as ProtoJsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Cluster,
  ClusterSchema,
  DiscoveryType,
  HealthStatus,
  LbPolicy,
  type Listener,
  ListenerSchema,
  type NodeGroup,
  NodeGroupSchema,
  RouteActionKind,
  type RouteConfiguration,
  RouteConfigurationSchema,
  RouteMatchKind,
  type RuntimeEntry,
  type RuntimeLayer,
  RuntimeLayerSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type {
  ClusterSpec,
  JsonObject,
  JsonValue,
  ListenerSpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  RuntimeValue,
} from "@switchyard/snapshot";

/**
 * The API's messages (switchyard.v1) to and from the core's specs. Unspecified enum values take
 * the model's defaults, as the database columns do.
 */

type EnumObject = Record<string, string | number>;

export function enumName<T extends string>(values: EnumObject, value: number, fallback: T): T {
  const name = values[value];
  return typeof name === "string" && name !== "UNSPECIFIED" ? (name as T) : fallback;
}

function enumValue(values: EnumObject, name: string): number {
  const value = values[name];
  return typeof value === "number" ? value : 0;
}

function object(value: ProtoJsonObject | undefined): JsonObject {
  return (value ?? {}) as JsonObject;
}

function objectOrNull(value: ProtoJsonObject | undefined): JsonObject | null {
  return value === undefined ? null : (value as JsonObject);
}

function protoObject(value: JsonObject | null): ProtoJsonObject | undefined {
  return value === null ? undefined : (value as ProtoJsonObject);
}

function protoObjects(values: readonly JsonValue[]): ProtoJsonObject[] {
  return values.filter(
    (v): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v),
  ) as ProtoJsonObject[];
}

const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function clusterSpecOf(message: Cluster): ClusterSpec {
  return {
    name: message.name,
    discoveryType: enumName(DiscoveryType, message.discoveryType, "EDS"),
    lbPolicy: enumName(LbPolicy, message.lbPolicy, "ROUND_ROBIN"),
    connectTimeoutMs: message.connectTimeoutMs || 5000,
    http2: message.http2,
    reportLoad: message.reportLoad,
    healthChecks: message.healthChecks as JsonValue[],
    circuitBreakers: objectOrNull(message.circuitBreakers),
    outlierDetection: objectOrNull(message.outlierDetection),
    tlsSecretName: message.tlsSecretName ?? null,
    edsServiceName: message.edsServiceName ?? null,
    extra: object(message.extra),
    assignmentExtra: object(message.assignmentExtra),
    localities: message.localities.map((locality) => ({
      region: locality.region,
      zone: locality.zone,
      subZone: locality.subZone,
      weight: locality.weight ?? null,
      priority: locality.priority,
      extra: object(locality.extra),
      endpoints: locality.endpoints.map((endpoint) => ({
        address: endpoint.address,
        port: endpoint.port,
        weight: endpoint.weight ?? null,
        healthStatus: enumName(HealthStatus, endpoint.healthStatus, "UNKNOWN"),
        extra: object(endpoint.extra),
      })),
    })),
  };
}

export function clusterMessageOf(spec: ClusterSpec, updatedAt?: Date): Cluster {
  return create(ClusterSchema, {
    name: spec.name,
    discoveryType: enumValue(DiscoveryType, spec.discoveryType),
    lbPolicy: enumValue(LbPolicy, spec.lbPolicy),
    connectTimeoutMs: spec.connectTimeoutMs,
    http2: spec.http2,
    reportLoad: spec.reportLoad,
    healthChecks: protoObjects(spec.healthChecks),
    circuitBreakers: protoObject(spec.circuitBreakers),
    outlierDetection: protoObject(spec.outlierDetection),
    tlsSecretName: optional(spec.tlsSecretName),
    edsServiceName: optional(spec.edsServiceName),
    extra: protoObject(spec.extra),
    assignmentExtra: protoObject(spec.assignmentExtra),
    localities: spec.localities.map((locality) => ({
      region: locality.region,
      zone: locality.zone,
      subZone: locality.subZone,
      weight: optional(locality.weight),
      priority: locality.priority,
      extra: protoObject(locality.extra),
      endpoints: locality.endpoints.map((endpoint) => ({
        address: endpoint.address,
        port: endpoint.port,
        weight: optional(endpoint.weight),
        healthStatus: enumValue(HealthStatus, endpoint.healthStatus),
        extra: protoObject(endpoint.extra),
      })),
    })),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

export function listenerSpecOf(message: Listener): ListenerSpec {
  return {
    name: message.name,
    apiListener: message.apiListener,
    address: message.address ?? null,
    port: message.port ?? null,
    extra: object(message.extra),
    filterChains: message.filterChains.map((chain) => ({
      name: chain.name,
      isDefault: chain.isDefault,
      serverNames: chain.serverNames,
      tlsSecretName: chain.tlsSecretName ?? null,
      networkFilters: chain.networkFilters as JsonValue[],
      networkOnly: chain.networkOnly,
      statPrefix: chain.statPrefix || (chain.networkOnly ? "" : "ingress_http"),
      rdsRouteConfigName: chain.rdsRouteConfigName ?? null,
      inlineRouteConfigName: chain.inlineRouteConfigName ?? null,
      httpFilters: chain.httpFilters as JsonValue[],
      accessLog: chain.accessLog as JsonValue[],
      hcmExtra: object(chain.hcmExtra),
      extra: object(chain.extra),
    })),
  };
}

export function listenerMessageOf(spec: ListenerSpec, updatedAt?: Date): Listener {
  return create(ListenerSchema, {
    name: spec.name,
    apiListener: spec.apiListener,
    address: optional(spec.address),
    port: optional(spec.port),
    extra: protoObject(spec.extra),
    filterChains: spec.filterChains.map((chain) => ({
      name: chain.name,
      isDefault: chain.isDefault,
      serverNames: [...chain.serverNames],
      tlsSecretName: optional(chain.tlsSecretName),
      networkFilters: protoObjects(chain.networkFilters),
      networkOnly: chain.networkOnly,
      statPrefix: chain.statPrefix,
      rdsRouteConfigName: optional(chain.rdsRouteConfigName),
      inlineRouteConfigName: optional(chain.inlineRouteConfigName),
      httpFilters: protoObjects(chain.httpFilters),
      accessLog: protoObjects(chain.accessLog),
      hcmExtra: protoObject(chain.hcmExtra),
      extra: protoObject(chain.extra),
    })),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

/** The stored form of a route configuration; output-only fields (owner_team) are dropped. */
export function routeConfigurationSpecOf(message: RouteConfiguration): RouteConfigurationSpec {
  return {
    name: message.name,
    vhds: message.vhds,
    extra: object(message.extra),
    virtualHosts: message.virtualHosts.map((virtualHost) => ({
      name: virtualHost.name,
      domains: virtualHost.domains,
      extra: object(virtualHost.extra),
      routes: virtualHost.routes.map((route) => ({
        name: route.name,
        matchKind: enumName(RouteMatchKind, route.matchKind, "PREFIX"),
        matchValue: route.matchValue,
        caseSensitive: route.caseSensitive,
        headers: route.headers as JsonValue[],
        queryParameters: route.queryParameters as JsonValue[],
        actionKind: enumName(RouteActionKind, route.actionKind, "CLUSTER"),
        cluster: route.cluster ?? null,
        weightedClusters: route.weightedClusters.map((w) =>
          w.extra === undefined || Object.keys(w.extra).length === 0
            ? { name: w.name, weight: w.weight }
            : { name: w.name, weight: w.weight, extra: object(w.extra) },
        ),
        redirect: objectOrNull(route.redirect),
        directResponse: objectOrNull(route.directResponse),
        timeoutMs: route.timeoutMs ?? null,
        retryPolicy: objectOrNull(route.retryPolicy),
        prefixRewrite: route.prefixRewrite ?? null,
        extra: object(route.extra),
      })),
    })),
  };
}

export function routeConfigurationMessageOf(
  spec: RouteConfigurationSpec,
  updatedAt?: Date,
): RouteConfiguration {
  return create(RouteConfigurationSchema, {
    name: spec.name,
    vhds: spec.vhds,
    extra: protoObject(spec.extra),
    virtualHosts: spec.virtualHosts.map((virtualHost) => ({
      name: virtualHost.name,
      domains: [...virtualHost.domains],
      extra: protoObject(virtualHost.extra),
      routes: virtualHost.routes.map((route) => ({
        name: route.name,
        matchKind: enumValue(RouteMatchKind, route.matchKind),
        matchValue: route.matchValue,
        caseSensitive: route.caseSensitive,
        headers: protoObjects(route.headers),
        queryParameters: protoObjects(route.queryParameters),
        ...routeTargetOf(route),
        redirect: protoObject(route.redirect),
        directResponse: protoObject(route.directResponse),
        timeoutMs: optional(route.timeoutMs),
        retryPolicy: protoObject(route.retryPolicy),
        prefixRewrite: optional(route.prefixRewrite),
        extra: protoObject(route.extra),
      })),
    })),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

/** Where a route sends traffic: the fields of a Route message that say so. */
function routeTargetOf(route: RouteSpec) {
  return {
    actionKind: enumValue(RouteActionKind, route.actionKind),
    cluster: optional(route.cluster),
    weightedClusters: route.weightedClusters.map((w) => ({
      name: w.name,
      weight: w.weight,
      extra: w.extra === undefined ? undefined : protoObject(w.extra),
    })),
  };
}

/**
 * A route configuration in ListRouteConfigurations' TARGETS view (config.proto): each virtual
 * host's routes reduced to their distinct targets, in first-use order, with the route count.
 */
export function routeConfigurationTargetsOf(
  spec: RouteConfigurationSpec,
  updatedAt?: Date,
): RouteConfiguration {
  return create(RouteConfigurationSchema, {
    name: spec.name,
    vhds: spec.vhds,
    virtualHosts: spec.virtualHosts.map((virtualHost) => {
      const seen = new Set<string>();
      const targets = virtualHost.routes.filter((route) => {
        const key = JSON.stringify([
          route.actionKind,
          route.cluster,
          route.weightedClusters.map((w) => [w.name, w.weight]),
        ]);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      return {
        name: virtualHost.name,
        domains: [...virtualHost.domains],
        routeCount: virtualHost.routes.length,
        routes: targets.map(routeTargetOf),
      };
    }),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

export function nodeGroupSpecOf(message: NodeGroup): NodeGroupSpec {
  return {
    name: message.name,
    isDefault: message.isDefault,
    priority: message.priority,
    nodeIds: message.nodeIds,
    nodeClusters: message.nodeClusters,
    nodeMetadata: { ...message.nodeMetadata },
    listeners: [...message.listeners].sort(),
    clusters: [...message.clusters].sort(),
    ...(message.maxResponseBytes === undefined
      ? {}
      : { maxResponseBytes: message.maxResponseBytes }),
  };
}

export function nodeGroupMessageOf(spec: NodeGroupSpec, updatedAt?: Date): NodeGroup {
  return create(NodeGroupSchema, {
    name: spec.name,
    isDefault: spec.isDefault,
    priority: spec.priority,
    nodeIds: [...spec.nodeIds],
    nodeClusters: [...spec.nodeClusters],
    nodeMetadata: { ...spec.nodeMetadata },
    listeners: [...spec.listeners],
    clusters: [...spec.clusters],
    ...(spec.maxResponseBytes === undefined ? {} : { maxResponseBytes: spec.maxResponseBytes }),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}

/**
 * An entry without a value reads as the empty string. Entries keep the order the client sent, so
 * validation issues (`entries[2].key`) point at the row the client wrote; the store sorts them by
 * key (draft-store.ts), so that order never counts as a change.
 */
function runtimeValueOf(entry: RuntimeEntry): RuntimeValue {
  switch (entry.value.case) {
    case "stringValue":
    case "numberValue":
    case "boolValue":
      return entry.value.value;
    default:
      return "";
  }
}

export function runtimeLayerSpecOf(message: RuntimeLayer): RuntimeLayerSpec {
  return {
    name: message.name,
    entries: message.entries.map((entry) => ({ key: entry.key, value: runtimeValueOf(entry) })),
  };
}

export function runtimeLayerMessageOf(spec: RuntimeLayerSpec, updatedAt?: Date): RuntimeLayer {
  return create(RuntimeLayerSchema, {
    name: spec.name,
    entries: spec.entries.map((entry) => ({
      key: entry.key,
      value:
        typeof entry.value === "string"
          ? { case: "stringValue" as const, value: entry.value }
          : typeof entry.value === "number"
            ? { case: "numberValue" as const, value: entry.value }
            : { case: "boolValue" as const, value: entry.value },
    })),
    updateTime: updatedAt ? timestampFromDate(updatedAt) : undefined,
  });
}
