/**
 * The Envoy resource types Switchyard stores (Cluster, ClusterLoadAssignment, Listener,
 * RouteConfiguration, Runtime, Secret), their generated schemas, and what later import stages ask of a decoded
 * resource: its name and its canonical proto3 JSON.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { newestSchema } from "@switchyard/proto";
import { type Cluster, ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import {
  type ClusterLoadAssignment,
  ClusterLoadAssignmentSchema,
} from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import {
  type Listener,
  ListenerSchema,
} from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import {
  type RouteConfiguration,
  RouteConfigurationSchema,
} from "@switchyard/proto/envoy/config/route/v3/route_pb";
import {
  type Secret,
  SecretSchema,
} from "@switchyard/proto/envoy/extensions/transport_sockets/tls/v3/secret_pb";
import { type Runtime, RuntimeSchema } from "@switchyard/proto/envoy/service/runtime/v3/rtds_pb";
import { envoyToJson } from "../envoy/envoy-proto-json.js";
import type { JsonObject } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";

/** One Envoy resource of a type Switchyard stores, decoded with the generated types. */
export type EnvoyResource =
  | { readonly typeUrl: typeof TypeUrl.Cluster; readonly message: Cluster }
  | {
      readonly typeUrl: typeof TypeUrl.ClusterLoadAssignment;
      readonly message: ClusterLoadAssignment;
    }
  | { readonly typeUrl: typeof TypeUrl.Listener; readonly message: Listener }
  | { readonly typeUrl: typeof TypeUrl.RouteConfiguration; readonly message: RouteConfiguration }
  | { readonly typeUrl: typeof TypeUrl.Runtime; readonly message: Runtime }
  | { readonly typeUrl: typeof TypeUrl.Secret; readonly message: Secret };

/** A resource as found in a user's document. */
export type DecodedResource = EnvoyResource & {
  /** Where the resource is in the document (see ImportError.path). */
  readonly path: string;
  readonly document?: number;
  /** The resource as the user wrote it: later issues are reported in the user's key spelling. */
  readonly source?: unknown;
  /** Where a path of the resource (in the user's key spelling) is in the text, when known. */
  readonly locate?: (
    segments: readonly (string | number)[],
  ) => { readonly line: number; readonly column: number } | undefined;
};

export const RESOURCE_SCHEMAS: ReadonlyMap<string, DescMessage> = new Map<string, DescMessage>([
  [TypeUrl.Cluster, ClusterSchema],
  [TypeUrl.ClusterLoadAssignment, ClusterLoadAssignmentSchema],
  [TypeUrl.Listener, ListenerSchema],
  [TypeUrl.RouteConfiguration, RouteConfigurationSchema],
  [TypeUrl.Runtime, RuntimeSchema],
  [TypeUrl.Secret, SecretSchema],
]);

/**
 * The schema of a resource type Switchyard stores: its newest definition (newestSchema), the
 * generated one unless a newer Envoy API is loaded.
 */
export function resourceSchema(typeUrl: EnvoyResource["typeUrl"]): DescMessage {
  const schema = RESOURCE_SCHEMAS.get(typeUrl);
  if (!schema) throw new Error(`not a stored resource type: ${typeUrl}`);
  return newestSchema(schema);
}

/** The name a resource is served under. */
export function resourceName(resource: EnvoyResource): string {
  return resource.typeUrl === TypeUrl.ClusterLoadAssignment
    ? resource.message.clusterName
    : resource.message.name;
}

/** Canonical proto3 JSON of a resource (camelCase keys, defaults left out, Any with "@type"). */
export function resourceJson(resource: EnvoyResource): JsonObject {
  return envoyToJson(resourceSchema(resource.typeUrl), resource.message) as JsonObject;
}

/** A decoded message as the EnvoyResource of `typeUrl`; the caller knows that they match. */
export function toResource(typeUrl: string, message: unknown): EnvoyResource {
  return { typeUrl, message } as EnvoyResource;
}

/**
 * The types a document's resources may be named by when they carry no "@type" (`switchyard
 * apply --type`, ImportRequest.resource_type): Envoy Gateway's per-type `listeners.yaml`,
 * `clusters.yaml`, ... and `istioctl proxy-config cluster -o json` are such lists. Secrets are
 * named, never imported (envoy-import-decode-resource.ts, secretNote).
 */
export const RESOURCE_LIST_TYPES = {
  listeners: TypeUrl.Listener,
  clusters: TypeUrl.Cluster,
  routes: TypeUrl.RouteConfiguration,
  endpoints: TypeUrl.ClusterLoadAssignment,
  secrets: TypeUrl.Secret,
} as const;

export type ResourceListType = keyof typeof RESOURCE_LIST_TYPES;

/** "listeners, clusters, routes, endpoints or secrets", for messages. */
export const RESOURCE_LIST_TYPE_NAMES = Object.keys(RESOURCE_LIST_TYPES)
  .join(", ")
  .replace(/, (\w+)$/, " or $1");

const TYPED_FILE = /^(?:.*\.)?(listeners|clusters|routes|endpoints|secrets)\.(?:ya?ml|json)$/i;

/**
 * The type a file's name says its resources are, as Envoy Gateway's translator names its output
 * (`listeners.yaml`, `http-route.clusters.yaml`, ...): `name` is the file's base name.
 */
export function resourceListTypeOfFile(name: string): ResourceListType | undefined {
  return TYPED_FILE.exec(name)?.[1]?.toLowerCase() as ResourceListType | undefined;
}
