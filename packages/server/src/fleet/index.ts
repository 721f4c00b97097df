// Node status persisted in Postgres: the writer a replica runs beside its NodeStatusTracker, and
// the reads the console API serves from.
export {
  DEFAULT_EVENT_LIMIT,
  DEFAULT_NODE_LIMIT,
  getNode,
  listNodes,
  type NodeDetail,
  type NodeEventRecord,
  type NodeFilters,
  type NodeRecord,
  type NodeTypeRecord,
  type TypeStatusName,
} from "./status-reader.js";
export { type StatusBatch, writeStatusBatch } from "./status-store.js";
export {
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_KEEP_EVENTS,
  StatusWriter,
  type StatusWriterOptions,
} from "./status-writer.js";
