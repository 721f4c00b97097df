import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { CliError } from "./client.js";

const aliases: Record<string, ResourceKind> = {
  cluster: ResourceKind.CLUSTER,
  clusters: ResourceKind.CLUSTER,
  listener: ResourceKind.LISTENER,
  listeners: ResourceKind.LISTENER,
  route: ResourceKind.ROUTE_CONFIGURATION,
  routes: ResourceKind.ROUTE_CONFIGURATION,
  routeconfiguration: ResourceKind.ROUTE_CONFIGURATION,
  routeconfigurations: ResourceKind.ROUTE_CONFIGURATION,
  nodegroup: ResourceKind.NODE_GROUP,
  nodegroups: ResourceKind.NODE_GROUP,
  runtime: ResourceKind.RUNTIME_LAYER,
  runtimes: ResourceKind.RUNTIME_LAYER,
  runtimelayer: ResourceKind.RUNTIME_LAYER,
  runtimelayers: ResourceKind.RUNTIME_LAYER,
  secret: ResourceKind.SECRET,
  secrets: ResourceKind.SECRET,
};

export const KIND_HELP =
  "cluster, listener, route (route configuration), nodegroup, runtime (runtime layer) or secret";

export function parseKind(value: string): ResourceKind {
  const kind = aliases[value.toLowerCase().replace(/[-_]/g, "")];
  if (kind === undefined) throw new CliError(`unknown kind "${value}": use ${KIND_HELP}`);
  return kind;
}

export const kindLabel: Record<ResourceKind, string> = {
  [ResourceKind.UNSPECIFIED]: "object",
  [ResourceKind.CLUSTER]: "cluster",
  [ResourceKind.LISTENER]: "listener",
  [ResourceKind.ROUTE_CONFIGURATION]: "route configuration",
  [ResourceKind.NODE_GROUP]: "node group",
  [ResourceKind.RUNTIME_LAYER]: "runtime layer",
  [ResourceKind.SECRET]: "secret",
};
