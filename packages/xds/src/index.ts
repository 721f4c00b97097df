export { type SotwResponse, SotwSession, type SotwTypedRequest } from "./ads-sotw-session.js";
export { combineCallbacks, type XdsCallbacks, type XdsVariant } from "./callbacks.js";
export { kRemoteAddress } from "./context-keys.js";
export { type DeltaResponse, DeltaSession, type DeltaTypedRequest } from "./delta-session.js";
export {
  type DeltaRequest,
  type DeltaResponsePlan,
  DeltaSubscription,
  type DeltaVerdict,
} from "./delta-subscription.js";
export { nodeIdentity } from "./node-identity.js";
export { type ConfigWatcher, SnapshotCache, type SnapshotWatch } from "./snapshot-cache.js";
export {
  isFullStateType,
  type RequestVerdict,
  type SotwRequest,
  type SotwResponsePlan,
  SotwSubscription,
} from "./sotw-subscription.js";
export { type Subscription, versionOf, WILDCARD } from "./subscription.js";
export {
  FEATURE_RESOURCE_IN_SOTW,
  FEATURE_RESOURCE_TTL,
  type Heartbeat,
  type NodeFeatures,
  type ResourceTtl,
  type SessionOptions,
  type TtlOptions,
} from "./subscription-ttl.js";
export { createXdsServer, type XdsServer, type XdsServerOptions } from "./xds-server.js";
