export {
  type ConvergenceReport,
  ConvergenceTracker,
  type ConvergenceTrackerOptions,
  DEFAULT_RETAIN_VERSIONS,
  type HoldsPredicate,
  holdsExactly,
  type NodeConvergence,
  type NodeStatusSource,
  type Publication,
  type VersionTally,
} from "./convergence.js";
export {
  bucketOf,
  LoadBuckets,
  type LoadCounts,
  type LoadKey,
  LoadReportError,
  type LoadRow,
  loadRowsOf,
  MAX_ROWS_PER_REPORT,
} from "./load-stats.js";
export type {
  AckedState,
  HeldBackResource,
  HeldResource,
  Locality,
  NackRecord,
  NodeConnection,
  NodeIdentity,
  NodeLike,
  NodeStatus,
  SentResponse,
  StatusChange,
  StatusEvent,
  StreamInfo,
  TypeLedger,
  TypeStatus,
  TypeView,
} from "./node-status.js";
export {
  DEFAULT_EVENT_CAPACITY,
  DEFAULT_STALE_AFTER_MS,
  NodeStatusTracker,
  type NodeStatusTrackerOptions,
  type RequestEvent,
  type ResponseEvent,
  type StreamOpenEvent,
} from "./node-status-tracker.js";
export { type DurationSummary, nearestRank, summarizeDurations } from "./percentiles.js";
export { RingBuffer } from "./ring-buffer.js";
