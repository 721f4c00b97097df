// The public surface of @switchyard/db. Test helpers live apart, in "@switchyard/db/testing".

export type {
  Cluster,
  Endpoint,
  FilterChain,
  Listener,
  Locality,
  NodeGroup,
  NodeGroupCluster,
  NodeGroupListener,
  PrismaClient,
  ReviewRequest,
  Route,
  RouteConfiguration,
  VirtualHost,
} from "../generated/prisma/client.js";
export {
  DiscoveryType,
  HealthStatus,
  LbPolicy,
  Prisma,
  RouteActionKind,
  RouteMatchKind,
} from "../generated/prisma/client.js";
export { createPrismaClient, type PrismaClientOptions } from "./client.js";
export {
  type EmbeddedPostgres,
  type EmbeddedPostgresOptions,
  type PostgresBinaries,
  RELOCATION_ROOT,
  startEmbeddedPostgres,
} from "./embedded-postgres.js";
export { DbError, type DbErrorCode, isDatabaseUnavailable } from "./errors.js";
export { type MigrateOptions, type MigrateResult, migrate } from "./migrate.js";

/** The client handed to `prisma.$transaction(async (tx) => ...)` callbacks. */
export type TransactionClient = import("../generated/prisma/client.js").Prisma.TransactionClient;
export {
  listenForNotifications,
  type NotificationListener,
  type NotificationListenerOptions,
} from "./notifications.js";
export { createSqlPool, type SqlPool, type SqlPoolOptions, type SqlRunner } from "./sql-pool.js";
