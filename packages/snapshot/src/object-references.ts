/**
 * The resources a stored object names, each at its field in the model: what the server checks a
 * member may use (README, "Access control": references are authorized, not only objects). Found
 * with the reference table compile and validation read (envoy-references.ts), on the object's
 * Envoy form, so a name inside any extension counts as much as a modelled one: a route's cluster,
 * a mirror's, an ext_authz service's, an UpstreamTlsContext's SDS secret, an endpoint reaching an
 * internal listener. A kind of reference added to that table is found here the day it is added.
 * Pure.
 */
import type { DescMessage, Message } from "@bufbuild/protobuf";
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
import {
  type EnvoyReference,
  type ReferenceKind,
  referencesVisitor,
} from "./envoy/envoy-references.js";
import { type Segment, walkEnvoy } from "./envoy/envoy-walk.js";
import type { ClusterSpec, JsonObject, RouteConfigurationSpec } from "./model.js";

/** A resource an object names, at its field in the model. */
export interface ModelReference {
  readonly kind: ReferenceKind;
  /** Empty when the request picks it (`chosenByRequest`). */
  readonly name: string;
  /** The model path of the field: `clusters["pay"].extra.transportSocket...`. */
  readonly path: string;
  /**
   * The field names no cluster: each request picks one (a header's value, a cluster specifier
   * plugin), so it may reach any cluster the proxy has.
   */
  readonly chosenByRequest?: true;
}

/**
 * The fields where a request picks the cluster by a header or a plugin: RouteAction's
 * cluster_header ("the upstream cluster ... is read from the request header"),
 * cluster_specifier_plugin and inline_cluster_specifier_plugin, and a weighted cluster's
 * cluster_header; thrift_proxy's RouteAction.cluster_header likewise.
 */
const CHOSEN_BY_REQUEST: ReadonlySet<string> = new Set([
  "envoy.config.route.v3.RouteAction.cluster_header",
  "envoy.config.route.v3.RouteAction.cluster_specifier_plugin",
  "envoy.config.route.v3.RouteAction.inline_cluster_specifier_plugin",
  "envoy.config.route.v3.WeightedCluster.ClusterWeight.cluster_header",
  "envoy.extensions.filters.network.thrift_proxy.v3.RouteAction.cluster_header",
]);

type Found = { kind: ReferenceKind; name: string; at: readonly Segment[]; chosenByRequest?: true };

/** A reference in a route configuration, with the virtual host holding it (none: its own fields). */
export interface RouteConfigurationReference extends ModelReference {
  readonly virtualHost: string | undefined;
}

function referencesIn(schema: DescMessage, json: JsonObject): readonly Found[] {
  let message: Message;
  try {
    message = envoyFromJson(schema, json);
  } catch {
    // Envoy's schema refuses the object: validation says why, and it cannot be published.
    return [];
  }
  // envoyFromJson reads with the newest Envoy API loaded: walk with the same.
  const named: EnvoyReference[] = [];
  const found: Found[] = [];
  const references = referencesVisitor(named);
  const take = () => {
    for (const { kind, name, at } of named.splice(0)) found.push({ kind, name, at });
  };
  walkEnvoy(newestSchema(schema), message, {
    enter(desc, entered, at) {
      references.enter?.(desc, entered, at);
      take();
      return true;
    },
    value(field, value, at) {
      references.value?.(field, value, at);
      if (CHOSEN_BY_REQUEST.has(`${field.parent.typeName}.${field.name}`) && value !== "") {
        found.push({ kind: "cluster", name: "", at: [...at], chosenByRequest: true });
      }
      return true;
    },
  });
  return found;
}

/** What a cluster names: in its Cluster (secrets, aggregate members, ...) and its endpoints. */
export function clusterReferences(cluster: ClusterSpec): ModelReference[] {
  const json = clusterJson(cluster);
  const own = referencesIn(ClusterSchema, json).map(({ at, ...found }) => ({
    ...found,
    path: clusterModelPath(cluster, at),
  }));
  // An EDS cluster's endpoints are a resource of their own; the others' are inline.
  if (json.loadAssignment !== undefined) return own;
  return [
    ...own,
    ...referencesIn(ClusterLoadAssignmentSchema, clusterLoadAssignmentJson(cluster)).map(
      ({ at, ...found }) => ({ ...found, path: assignmentModelPath(cluster, at) }),
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
  return referencesIn(RouteConfigurationSchema, json).map(({ at, ...found }) => ({
    ...found,
    path: routeConfigurationModelPath(routeConfiguration, at),
    virtualHost:
      at[0] === "virtualHosts" && typeof at[1] === "number"
        ? routeConfiguration.virtualHosts[at[1]]?.name
        : undefined,
  }));
}
