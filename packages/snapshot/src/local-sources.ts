/**
 * What a stored object makes its proxies do on their own host (proxy-local/proxy-local-walk.ts:
 * read or write a file, read an environment variable, run code, reach a local socket, use the
 * host's credentials), each at its field in the model: what the server refuses from a member
 * (README, "Access control"). Pure: the object is compiled to its Envoy form (a cluster with its
 * endpoints) and walked, every filter and extension included.
 */
import type { DescMessage, Message } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  listenerJson,
  routeConfigurationFormJson,
} from "./envoy/envoy-json.js";
import {
  assignmentModelPath,
  clusterModelPath,
  listenerModelPath,
  routeConfigurationModelPath,
} from "./envoy/envoy-model-path.js";
import { envoyFromJson } from "./envoy/envoy-proto-json.js";
import type { Segment } from "./envoy/envoy-walk.js";
import type { ClusterSpec, JsonObject, ListenerSpec, RouteConfigurationSpec } from "./model.js";
import { type ProxyLocalUse, proxyLocalIn } from "./proxy-local/proxy-local-walk.js";

/** One place where an object makes its proxies touch their host, at its model field. */
export interface ModelLocalSource extends Omit<ProxyLocalUse, "at"> {
  /** The model path: `clusters["shop"].healthChecks[0].eventLogPath`. */
  readonly path: string;
}

function found(
  schema: DescMessage,
  json: JsonObject,
  pathOf: (at: readonly Segment[]) => string,
): ModelLocalSource[] {
  let message: Message;
  try {
    message = envoyFromJson(schema, json);
  } catch {
    // Envoy's schema refuses the object: validation says why, and nothing of it is stored.
    return [];
  }
  return proxyLocalIn(schema, message).map(({ at, ...use }) => ({ path: pathOf(at), ...use }));
}

/** A cluster's own fields and its endpoints (the ClusterLoadAssignment EDS serves, too). */
export function clusterLocalSources(cluster: ClusterSpec): ModelLocalSource[] {
  const json = clusterJson(cluster);
  const own = found(ClusterSchema, json, (at) => clusterModelPath(cluster, at));
  if (json.loadAssignment !== undefined) return own;
  return [
    ...own,
    ...found(ClusterLoadAssignmentSchema, clusterLoadAssignmentJson(cluster), (at) =>
      assignmentModelPath(cluster, at),
    ),
  ];
}

export function routeConfigurationLocalSources(
  routeConfiguration: RouteConfigurationSpec,
): ModelLocalSource[] {
  return found(RouteConfigurationSchema, routeConfigurationFormJson(routeConfiguration), (at) =>
    routeConfigurationModelPath(routeConfiguration, at),
  );
}

/** A listener's own sources; its inline route configurations are objects of their own. */
export function listenerLocalSources(listener: ListenerSpec): ModelLocalSource[] {
  return found(
    ListenerSchema,
    listenerJson(listener, () => undefined),
    (at) => listenerModelPath(listener, at, () => undefined),
  );
}
