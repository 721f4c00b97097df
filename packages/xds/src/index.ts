export { type SotwResponse, SotwSession, type SotwTypedRequest } from "./ads-sotw-session.js";
export type { XdsCallbacks, XdsVariant } from "./callbacks.js";
export { kRemoteAddress } from "./context-keys.js";
export { nodeIdentity } from "./node-identity.js";
export { type ConfigWatcher, SnapshotCache, type SnapshotWatch } from "./snapshot-cache.js";
export {
  isFullStateType,
  type RequestVerdict,
  type SotwRequest,
  type SotwResponsePlan,
  SotwSubscription,
} from "./sotw-subscription.js";
export { createXdsServer, type XdsServer, type XdsServerOptions } from "./xds-server.js";
