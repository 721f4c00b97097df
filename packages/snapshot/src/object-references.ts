/**
 * The resources a stored object names, each at its field in the model: what the server checks a
 * member may use (README, "Access control": references are authorized, not only objects). Found
 * with the reference table compile and validation read (envoy-references.ts), on the object's
 * Envoy form, so a name inside any extension counts as much as a modelled one: a route's cluster,
 * a mirror's, an ext_authz service's, an UpstreamTlsContext's SDS secret, an endpoint reaching an
 * internal listener. A kind of reference added to that table is found here the day it is added.
 * Pure.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { newestSchema } from "@switchyard/proto";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  routeConfigurationFormJson,
} from "./envoy/envoy-json.js";
import {
  assignmentModelPath,
  clusterModelPath,
  routeConfigurationModelPath,
} from "./envoy/envoy-model-path.js";
import { envoyFromJson } from "./envoy/envoy-proto-json.js";
import { findReferences, type ReferenceKind } from "./envoy/envoy-references.js";
import type { Segment } from "./envoy/envoy-walk.js";
import type { ClusterSpec, JsonObject, RouteConfigurationSpec } from "./model.js";

/** A resource an object names, at its field in the model. */
export interface ModelReference {
  readonly kind: ReferenceKind;
  readonly name: string;
  /** The model path of the field: `clusters["pay"].extra.transportSocket...`. */
  readonly path: string;
}

/** A reference in a route configuration, with the virtual host holding it (none: its own fields). */
export interface RouteConfigurationReference extends ModelReference {
  readonly virtualHost: string | undefined;
}

function referencesIn(
  schema: DescMessage,
  json: JsonObject,
): readonly { kind: ReferenceKind; name: string; at: readonly Segment[] }[] {
  try {
    // envoyFromJson reads with the newest Envoy API loaded: walk with the same.
    return findReferences(newestSchema(schema), envoyFromJson(schema, json));
  } catch {
    // Envoy's schema refuses the object: validation says why, and it cannot be published.
    return [];
  }
}

/** What a cluster names: in its Cluster (secrets, aggregate members, ...) and its endpoints. */
export function clusterReferences(cluster: ClusterSpec): ModelReference[] {
  const json = clusterJson(cluster);
  const own = referencesIn(ClusterSchema, json).map(({ kind, name, at }) => ({
    kind,
    name,
    path: clusterModelPath(cluster, at),
  }));
  // An EDS cluster's endpoints are a resource of their own; the others' are inline.
  if (json.loadAssignment !== undefined) return own;
  return [
    ...own,
    ...referencesIn(ClusterLoadAssignmentSchema, clusterLoadAssignmentJson(cluster)).map(
      ({ kind, name, at }) => ({ kind, name, path: assignmentModelPath(cluster, at) }),
    ),
  ];
}

/**
 * What a route configuration names, each with its virtual host: routes' clusters, mirrors,
 * per-filter configs' services; and what its own fields name (`virtualHost` undefined).
 */
export function routeConfigurationReferences(
  routeConfiguration: RouteConfigurationSpec,
): RouteConfigurationReference[] {
  const json = routeConfigurationFormJson(routeConfiguration);
  return referencesIn(RouteConfigurationSchema, json).map(({ kind, name, at }) => ({
    kind,
    name,
    path: routeConfigurationModelPath(routeConfiguration, at),
    virtualHost:
      at[0] === "virtualHosts" && typeof at[1] === "number"
        ? routeConfiguration.virtualHosts[at[1]]?.name
        : undefined,
  }));
}
