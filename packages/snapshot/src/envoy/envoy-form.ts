import { type EnvoyResource, resourceSchema } from "../import/envoy-import.js";
import type { ConfigSpec, JsonObject } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { SourceKind } from "../sources.js";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  listenerJson,
  routeConfigurationFormJson,
  runtimeJson,
  secretJson,
} from "./envoy-json.js";
import { envoyFromJson, envoyToJson, withProtoFieldNames } from "./envoy-proto-json.js";

/**
 * Canonical proto3 JSON (fields in proto order, defaults omitted) under Envoy's field names
 * (`stat_prefix`), as Envoy itself prints config; the built JSON as is, renamed the same way, when
 * it does not decode (validation reports why).
 */
function typed(typeUrl: EnvoyResource["typeUrl"], json: JsonObject): JsonObject {
  const schema = resourceSchema(typeUrl);
  let canonical: JsonObject;
  try {
    canonical = envoyToJson(schema, envoyFromJson(schema, json)) as JsonObject;
  } catch {
    canonical = json;
  }
  return { "@type": typeUrl, ...(withProtoFieldNames(schema, canonical) as JsonObject) };
}

/**
 * The Envoy-native form of one stored object, as proto3 JSON with "@type": what a reviewer reads in
 * a diff and what `switchyard get KIND NAME -o yaml` prints. A cluster comes with its assignment
 * (EDS), a listener with its inline routes; a node group has no Envoy form and is shown as stored.
 * Undefined when the object does not exist in `spec`.
 */
export function envoyForm(
  spec: ConfigSpec,
  kind: SourceKind,
  name: string,
): JsonObject[] | undefined {
  switch (kind) {
    case "cluster": {
      const cluster = spec.clusters.find((c) => c.name === name);
      if (!cluster) return undefined;
      const forms = [typed(TypeUrl.Cluster, clusterJson(cluster))];
      if (cluster.discoveryType === "EDS")
        forms.push(typed(TypeUrl.ClusterLoadAssignment, clusterLoadAssignmentJson(cluster)));
      return forms;
    }
    case "listener": {
      const listener = spec.listeners.find((l) => l.name === name);
      if (!listener) return undefined;
      const routes = new Map(spec.routeConfigurations.map((rc) => [rc.name, rc]));
      return [
        typed(
          TypeUrl.Listener,
          listenerJson(listener, (n) => routes.get(n)),
        ),
      ];
    }
    case "routeConfiguration": {
      const routeConfiguration = spec.routeConfigurations.find((rc) => rc.name === name);
      return routeConfiguration
        ? [typed(TypeUrl.RouteConfiguration, routeConfigurationFormJson(routeConfiguration))]
        : undefined;
    }
    case "nodeGroup": {
      const group = spec.nodeGroups.find((g) => g.name === name);
      return group ? [group as unknown as JsonObject] : undefined;
    }
    case "runtimeLayer": {
      const layer = spec.runtimeLayers.find((r) => r.name === name);
      return layer ? [typed(TypeUrl.Runtime, runtimeJson(layer))] : undefined;
    }
    case "secret": {
      // Without its private key: a private key is never shown back (model.ts SecretSpec).
      const secret = spec.secrets.find((s) => s.name === name);
      return secret
        ? [
            {
              "@type": TypeUrl.Secret,
              ...(withProtoFieldNames(
                resourceSchema(TypeUrl.Secret),
                secretJson(secret),
              ) as JsonObject),
            },
          ]
        : undefined;
    }
  }
}
