export {
  type CompiledConfig,
  type CompiledGroup,
  type ConfigIssue,
  compile,
  DEFAULT_GROUP_NAME,
  type NodeSelector,
} from "./compile.js";
export type {
  ClusterSpec,
  ConfigSpec,
  DiscoveryType,
  EndpointSpec,
  FilterChainSpec,
  HealthStatus,
  JsonObject,
  JsonValue,
  LbPolicy,
  ListenerSpec,
  LocalitySpec,
  NodeGroupSpec,
  RouteActionKind,
  RouteConfigurationSpec,
  RouteMatchKind,
  RouteSpec,
  VirtualHostSpec,
  WeightedClusterSpec,
} from "./model.js";
export { type NodeIdentity, selectNodeGroup } from "./node-group.js";
export {
  createResource,
  ResourceSnapshot,
  referencedType,
  resourceVersion,
  shortType,
  TYPE_ORDER,
  TypeUrl,
  type XdsResource,
} from "./resource-snapshot.js";
