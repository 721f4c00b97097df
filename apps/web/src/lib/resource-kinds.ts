import { ResourceKind, ResourceKindSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { type EnumValueName, enumValueNames } from "./proto-enum";

/** A kind of stored object, by its name in config.proto: "CLUSTER", "ROUTE_CONFIGURATION", ... */
export type ResourceKindName = EnumValueName<typeof ResourceKind>;

/** Every kind of stored object, in proto order (the order ListResources sorts them in). */
export const resourceKinds = enumValueNames(ResourceKindSchema, ResourceKind);

/** Each kind as the console names it in sentences: "Cluster “x” saved", "a route configuration". */
export const resourceKindLabels = {
  CLUSTER: "cluster",
  LISTENER: "listener",
  ROUTE_CONFIGURATION: "route configuration",
  NODE_GROUP: "node group",
  RUNTIME_LAYER: "runtime layer",
  SECRET: "secret",
} as const satisfies Record<ResourceKindName, string>;

/** The name of `kind`; `undefined` for UNSPECIFIED or a kind added to the API since. */
export function resourceKindName(kind: ResourceKind): ResourceKindName | undefined {
  return resourceKinds.find((name) => ResourceKind[name] === kind);
}
