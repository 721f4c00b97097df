/**
 * File delivery: a node group's configuration as the DiscoveryResponse files an Envoy reads through
 * filesystem config sources (`path_config_source`) instead of a gRPC stream. Pure: the same
 * snapshot and root give the same files.
 *
 * Layout under `root` (the folder as Envoy sees it):
 *   cds.yaml             every Cluster (one DiscoveryResponse)
 *   lds.yaml             every Listener
 *   eds/<cluster>.yaml   one ClusterLoadAssignment each: Envoy's EDS and RDS subscriptions take
 *   rds/<name>.yaml      one RouteConfiguration each     exactly one resource per update
 *   rtds/<layer>.yaml    one Runtime layer each (as RTDS)
 *
 * The resources are the compiler's, with their config sources pointed at the files: a cluster's
 * `eds_config` and a listener's RDS `config_source` become `path_config_source` naming the file of
 * the assignment or route configuration they load. Names are made safe for a file name with
 * encodeURIComponent (and "." / ".." escaped); a name too long for a file system is shortened
 * with a hash (fileNameOf).
 */
import { create, toJson } from "@bufbuild/protobuf";
import { type Any, AnySchema, anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { type Cluster, ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import {
  ApiVersion,
  type ConfigSource,
  ConfigSourceSchema,
} from "@switchyard/proto/envoy/config/core/v3/config_source_pb";
import {
  type Listener,
  ListenerSchema,
} from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { VirtualHostSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { stringify } from "yaml";
import { envoyFromBinary, envoyToBinary } from "./envoy/envoy-proto-json.js";
import { fileNameOf } from "./file-names.js";
import { type ResourceSnapshot, TypeUrl, type XdsResource } from "./serving/resource-snapshot.js";
import { splitVhdsName } from "./serving/vhds.js";

export { fileNameOf, MAX_FILE_NAME } from "./file-names.js";

export type FileFormat = "yaml" | "json";

/** One file of a node group's delivery: its path relative to the group's folder, and content. */
export interface DeliveryFile {
  /** "cds.yaml", "eds/payments.yaml", ... */
  readonly path: string;
  readonly typeUrl: TypeUrl;
  readonly content: string;
}

/** Where each type's files go, relative to a group's folder. */
export function deliveryPath(typeUrl: TypeUrl, name: string, format: FileFormat): string {
  switch (typeUrl) {
    case TypeUrl.Cluster:
      return `cds.${format}`;
    case TypeUrl.Listener:
      return `lds.${format}`;
    case TypeUrl.ClusterLoadAssignment:
      return `eds/${fileNameOf(name)}.${format}`;
    case TypeUrl.RouteConfiguration:
      return `rds/${fileNameOf(name)}.${format}`;
    case TypeUrl.Runtime:
      return `rtds/${fileNameOf(name)}.${format}`;
    // Never written: a private key does not go to a file Switchyard writes (SDS over ADS only).
    case TypeUrl.Secret:
      return `sds/${fileNameOf(name)}.${format}`;
    case TypeUrl.VirtualHost:
      // VHDS is Delta xDS only (xDS protocol, "RPC Services and Methods for Each Variant": its
      // SotW method is "N/A"): no file form.
      throw new Error(
        `on-demand virtual host "${name}" has no file: VHDS is served over Delta xDS only`,
      );
  }
}

function pathSource(path: string): ConfigSource {
  return create(ConfigSourceSchema, {
    configSourceSpecifier: { case: "pathConfigSource", value: { path } },
    resourceApiVersion: ApiVersion.V3,
  });
}

function join(root: string, path: string): string {
  return `${root.replace(/\/+$/, "")}/${path}`;
}

/** The cluster with its EDS config source pointed at its assignment's file. */
function clusterForFiles(cluster: Cluster, root: string, format: FileFormat): Cluster {
  const eds = cluster.edsClusterConfig;
  if (eds === undefined) return cluster;
  const assignment = eds.serviceName || cluster.name;
  return {
    ...cluster,
    edsClusterConfig: {
      ...eds,
      edsConfig: pathSource(
        join(root, deliveryPath(TypeUrl.ClusterLoadAssignment, assignment, format)),
      ),
    },
  };
}

/** The listener with every HTTP connection manager's RDS config source pointed at its file. */
function listenerForFiles(listener: Listener, root: string, format: FileFormat): Listener {
  const pointed = (any: Any | undefined): Any | undefined => {
    if (
      any === undefined ||
      any.typeUrl !== `type.googleapis.com/${HttpConnectionManagerSchema.typeName}`
    )
      return any;
    const hcm = anyUnpack(any, HttpConnectionManagerSchema);
    if (hcm === undefined || hcm.routeSpecifier.case !== "rds") return any;
    const rds = hcm.routeSpecifier.value;
    return anyPack(HttpConnectionManagerSchema, {
      ...hcm,
      routeSpecifier: {
        case: "rds",
        value: {
          ...rds,
          configSource: pathSource(
            join(root, deliveryPath(TypeUrl.RouteConfiguration, rds.routeConfigName, format)),
          ),
        },
      },
    });
  };
  return {
    ...listener,
    ...(listener.apiListener === undefined
      ? {}
      : {
          apiListener: {
            ...listener.apiListener,
            apiListener: pointed(listener.apiListener.apiListener),
          },
        }),
    filterChains: listener.filterChains.map((chain) => ({
      ...chain,
      filters: chain.filters.map((filter) =>
        filter.configType.case === "typedConfig"
          ? {
              ...filter,
              configType: {
                case: "typedConfig",
                value: pointed(filter.configType.value) ?? filter.configType.value,
              },
            }
          : filter,
      ),
    })),
  };
}

/**
 * A route configuration with on-demand virtual hosts (VHDS) as a file: with its virtual hosts
 * inline and no `vhds`. VHDS is Delta xDS only, and an Envoy reading files has no ADS to ask (it
 * refuses `vhds` over ADS without one), so it gets every virtual host, as it would without VHDS.
 */
function routeConfigurationBody(resource: XdsResource, snapshot: ResourceSnapshot): Uint8Array {
  const routeConfiguration = envoyFromBinary(RouteConfigurationSchema, resource.body);
  if (routeConfiguration.vhds === undefined) return resource.body;
  const virtualHosts = [...snapshot.resources(TypeUrl.VirtualHost).values()]
    .filter((vhost) => splitVhdsName(vhost.name)?.routeConfiguration === resource.name)
    .map((vhost) => envoyFromBinary(VirtualHostSchema, vhost.body));
  return envoyToBinary(RouteConfigurationSchema, {
    ...routeConfiguration,
    vhds: undefined,
    virtualHosts: [...routeConfiguration.virtualHosts, ...virtualHosts],
  });
}

function packed(
  resource: XdsResource,
  root: string,
  format: FileFormat,
  snapshot: ResourceSnapshot,
) {
  switch (resource.typeUrl) {
    case TypeUrl.Cluster:
      return anyPack(
        ClusterSchema,
        clusterForFiles(envoyFromBinary(ClusterSchema, resource.body), root, format),
      );
    case TypeUrl.Listener:
      return anyPack(
        ListenerSchema,
        listenerForFiles(envoyFromBinary(ListenerSchema, resource.body), root, format),
      );
    case TypeUrl.RouteConfiguration:
      return create(AnySchema, {
        typeUrl: resource.typeUrl,
        value: routeConfigurationBody(resource, snapshot),
      });
    default:
      return create(AnySchema, { typeUrl: resource.typeUrl, value: resource.body });
  }
}

/** A DiscoveryResponse of `resources` as file text. `version` is the published version. */
function responseText(
  typeUrl: TypeUrl,
  resources: readonly XdsResource[],
  version: string,
  root: string,
  format: FileFormat,
  snapshot: ResourceSnapshot,
): string {
  const response = create(DiscoveryResponseSchema, {
    versionInfo: version,
    typeUrl,
    resources: resources.map((r) => packed(r, root, format, snapshot)),
  });
  const json = toJson(DiscoveryResponseSchema, response, { registry });
  return format === "json"
    ? `${JSON.stringify(json, null, 2)}\n`
    : stringify(json, { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * The files of one node group's snapshot, in make-before-break order (what a writer applies
 * first comes first): assignments, clusters, route configurations, listeners, runtime layers. `root` is the
 * group's folder as Envoy sees it (absolute), `version` the published version.
 */
export function deliveryFiles(
  snapshot: ResourceSnapshot,
  options: { readonly root: string; readonly version: string; readonly format: FileFormat },
): DeliveryFile[] {
  const { root, version, format } = options;
  const order = [
    TypeUrl.ClusterLoadAssignment,
    TypeUrl.Cluster,
    TypeUrl.RouteConfiguration,
    TypeUrl.Listener,
    TypeUrl.Runtime,
  ];
  const files: DeliveryFile[] = [];
  for (const typeUrl of order) {
    const resources = [...snapshot.resources(typeUrl).values()];
    if (typeUrl === TypeUrl.Cluster || typeUrl === TypeUrl.Listener) {
      files.push({
        path: deliveryPath(typeUrl, "", format),
        typeUrl,
        content: responseText(typeUrl, resources, version, root, format, snapshot),
      });
    } else {
      for (const resource of resources)
        files.push({
          path: deliveryPath(typeUrl, resource.name, format),
          typeUrl,
          content: responseText(typeUrl, [resource], version, root, format, snapshot),
        });
    }
  }
  return files;
}
