/**
 * The files and environment variables a stored object makes a proxy read (envoy-data-sources.ts),
 * each at its field in the model: what the server refuses from a member (README, "Security").
 * Pure: the object is compiled to its Envoy form and walked, every filter and extension included.
 */
import type { DescMessage, Message } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { localSourcesIn } from "./envoy/envoy-data-sources.js";
import { clusterJson, listenerJson, routeConfigurationFormJson } from "./envoy/envoy-json.js";
import {
  clusterModelPath,
  listenerModelPath,
  routeConfigurationModelPath,
} from "./envoy/envoy-model-path.js";
import { envoyFromJson } from "./envoy/envoy-proto-json.js";
import type { Segment } from "./envoy/envoy-walk.js";
import type { ClusterSpec, JsonObject, ListenerSpec, RouteConfigurationSpec } from "./model.js";

/** A file or environment variable an object makes its proxies read, at its model field. */
export interface ModelLocalSource {
  readonly path: string;
  readonly kind: "file" | "environment variable";
  readonly name: string;
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
  return localSourcesIn(schema, message).map(({ at, kind, name }) => ({
    path: pathOf(at),
    kind,
    name,
  }));
}

export function clusterLocalSources(cluster: ClusterSpec): ModelLocalSource[] {
  return found(ClusterSchema, clusterJson(cluster), (at) => clusterModelPath(cluster, at));
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
