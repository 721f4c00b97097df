/**
 * A compiled resource as it is served under an xdstp:// name (xdstp.ts): the same resource with
 * its own name set to the name the client asked for, and every name in it that refers to another
 * resource Switchyard serves (a listener's route configuration, a route's clusters, a cluster's
 * assignment, a TLS context's secrets) written as an xdstp:// name under the same authority, so
 * the client fetches those by xdstp:// too and a federated client keeps them under the authority
 * it trusts for them (the "xDS transport next steps" design doc, linked in xdstp.ts: "Federation",
 * "Resource locators": simple string names "will be deprecated and mutually exclusive with"
 * locators). The config sources those references come with (ADS) name the authority in
 * `authorities` ("Transport network addressing").
 *
 * References carry no context parameters: a client adds its own (Envoy's node_context_params) when
 * it requests them. The projection's version is the compiled resource's: its content follows from
 * that content, the authority and the name, so the version changes exactly when the resource does,
 * and convergence compares it with what the node should hold under the stored name.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { SecretSchema } from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import {
  envoyFromBinary,
  envoyFromJson,
  envoyToBinary,
  envoyToJson,
} from "../envoy/envoy-proto-json.js";
import type { JsonObject, JsonValue } from "../model.js";
import { referencedType, TypeUrl, type XdsResource } from "./resource-snapshot.js";
import { xdstpNameOf } from "./xdstp.js";

/** The types that can be served under xdstp:// names (VHDS virtual hosts cannot: see docs). */
const SCHEMAS: ReadonlyMap<string, DescMessage> = new Map<string, DescMessage>([
  [TypeUrl.Cluster, ClusterSchema],
  [TypeUrl.ClusterLoadAssignment, ClusterLoadAssignmentSchema],
  [TypeUrl.Listener, ListenerSchema],
  [TypeUrl.RouteConfiguration, RouteConfigurationSchema],
  [TypeUrl.Secret, SecretSchema],
  [TypeUrl.Runtime, RuntimeSchema],
]);

/** Whether resources of `typeUrl` can be served under xdstp:// names. */
export function servesXdstp(typeUrl: string): boolean {
  return SCHEMAS.has(typeUrl);
}

/**
 * Projections already made, per compiled resource (shared by every stream and kept as long as
 * the resource is in a snapshot: compiled resources are reused across versions when unchanged),
 * by requested name. A projection is decoded and encoded once, not per node.
 */
const projections = new WeakMap<XdsResource, Map<string, XdsResource>>();

/**
 * `resource` served as `name` (an xdstp:// name under `authority` naming it, as the client asked
 * for it, context parameters included). The result is cached and shared: it must not be altered.
 */
export function projectXdstp(resource: XdsResource, authority: string, name: string): XdsResource {
  let byName = projections.get(resource);
  if (!byName) {
    byName = new Map();
    projections.set(resource, byName);
  }
  const known = byName.get(name);
  if (known) return known;
  const projected = project(resource, authority, name);
  byName.set(name, projected);
  return projected;
}

function project(resource: XdsResource, authority: string, name: string): XdsResource {
  const schema = SCHEMAS.get(resource.typeUrl);
  if (!schema) throw new Error(`${resource.typeUrl} cannot be served under an xdstp:// name`);
  const json = envoyToJson(schema, envoyFromBinary(schema, resource.body)) as JsonObject;
  const rewritten = rewrite(json, authority) as { [key: string]: JsonValue };
  if (resource.typeUrl === TypeUrl.ClusterLoadAssignment) rewritten.clusterName = name;
  else rewritten.name = name;
  if (resource.typeUrl === TypeUrl.Cluster) {
    const eds = rewritten.edsClusterConfig;
    if (eds && typeof eds === "object" && !Array.isArray(eds)) {
      const serviceName = (json.edsClusterConfig as JsonObject).serviceName;
      const assignment = typeof serviceName === "string" ? serviceName : resource.name;
      rewritten.edsClusterConfig = {
        ...eds,
        serviceName: xdstpNameOf(authority, TypeUrl.ClusterLoadAssignment, assignment),
      };
    }
  }
  const body = envoyToBinary(schema, envoyFromJson(schema, rewritten));
  const dependent = referencedType(resource.typeUrl);
  return {
    typeUrl: resource.typeUrl,
    name,
    version: resource.version,
    body,
    references: dependent
      ? resource.references.map((reference) => xdstpNameOf(authority, dependent, reference))
      : [],
  };
}

const cluster = (authority: string, value: JsonValue): JsonValue =>
  typeof value === "string" && value !== ""
    ? xdstpNameOf(authority, TypeUrl.Cluster, value)
    : value;

/**
 * The references in a resource's proto3 JSON, rewritten. What is a reference is read from where a
 * name sits, as the Envoy API defines it: `rds.routeConfigName` (HttpConnectionManager);
 * `cluster` and `weightedClusters.clusters[].name` (RouteAction, TcpProxy, mirror policies);
 * an SdsSecretConfig's `name` (an object with `sdsConfig`). A ConfigSource for ADS (`ads`) gains
 * the authority.
 */
function rewrite(value: JsonValue, authority: string): JsonValue {
  if (Array.isArray(value)) return value.map((item: JsonValue) => rewrite(item, authority));
  if (value === null || typeof value !== "object") return value;
  const object = value as JsonObject;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, child] of Object.entries(object)) {
    if (key === "cluster") out[key] = cluster(authority, child);
    else if (key === "weightedClusters") out[key] = weightedClusters(child, authority);
    else out[key] = rewrite(child, authority);
  }
  if (typeof object.routeConfigName === "string" && "configSource" in object) {
    out.routeConfigName = xdstpNameOf(
      authority,
      TypeUrl.RouteConfiguration,
      object.routeConfigName,
    );
  }
  if (typeof object.name === "string" && "sdsConfig" in object) {
    out.name = xdstpNameOf(authority, TypeUrl.Secret, object.name);
  }
  if ("ads" in object) out.authorities = [{ name: authority }];
  return out;
}

function weightedClusters(value: JsonValue, authority: string): JsonValue {
  const rewritten = rewrite(value, authority);
  if (rewritten === null || typeof rewritten !== "object" || Array.isArray(rewritten))
    return rewritten;
  const object = rewritten as JsonObject;
  if (!Array.isArray(object.clusters)) return rewritten;
  return {
    ...object,
    clusters: (object.clusters as JsonValue[]).map((entry) => {
      if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return entry;
      const weighted = entry as JsonObject;
      return { ...weighted, name: cluster(authority, weighted.name ?? "") };
    }),
  };
}
