export {
  type AuthRefusal,
  combineCallbacks,
  type XdsCallbacks,
  type XdsVariant,
} from "./callbacks.js";
export {
  ANY_NODE_GROUP,
  type AuthRefusalReason,
  type ClientIdentity,
  NO_CREDENTIALS,
  sha256Hex,
  type XdsAuthMode,
  type XdsCertificateGrant,
  type XdsCredentials,
  type XdsTokenGrant,
} from "./client-auth.js";
export { CLIENT_TEXT_LIMITS, METADATA_TRUNCATED_KEY } from "./client-bounds.js";
export { callerIdentity, kRemoteAddress } from "./context-keys.js";
export { type DeltaResponse, DeltaSession, type DeltaTypedRequest } from "./delta-session.js";
export {
  type DeltaRequest,
  type DeltaResponsePlan,
  DeltaSubscription,
  type DeltaVerdict,
} from "./delta-subscription.js";
export { type GrpcStreamOptions, GrpcStreams } from "./grpc-streams.js";
export { type HostHeaders, hostAllowed, requestHostName } from "./host-check.js";
export { type HandlerFailure, loggedNodeAdapter, peerWentAway } from "./node-adapter.js";
export { nodeIdentity } from "./node-identity.js";
export {
  type ConfigWatcher,
  type GroupHold,
  type Served,
  type SetConfigOptions,
  SnapshotCache,
  type SnapshotListener,
  type SnapshotWatch,
} from "./snapshot-cache.js";
export { type SotwResponse, SotwSession, type SotwTypedRequest } from "./sotw-session.js";
export {
  type RequestVerdict,
  type SotwRequest,
  type SotwResponsePlan,
  SotwSubscription,
} from "./sotw-subscription.js";
export { type Subscription, WILDCARD } from "./subscription.js";
export {
  FEATURE_RESOURCE_IN_SOTW,
  FEATURE_RESOURCE_TTL,
  type Heartbeat,
  type NodeFeatures,
  type ResourceTtl,
  type SessionOptions,
  type TtlOptions,
} from "./subscription-ttl.js";
export { withoutFields } from "./wire-fields.js";
export {
  createXdsServer,
  MAX_REQUEST_BYTES,
  type XdsServer,
  type XdsServerOptions,
  type XdsTlsOptions,
} from "./xds-server.js";
