/**
 * The start steps of a process that serves xDS: node status tracking, the served snapshot, the
 * database notifications that keep it current, and the xDS port. `startSwitchyard` (app.ts)
 * composes them with the database, the API and the console; an xDS worker (xds-workers.ts)
 * composes them alone, as `startXdsReplica`. Each step adds its stopping to the Teardown it is
 * given as soon as it has started.
 */
import * as os from "node:os";
import {
  createPrismaClient,
  createSqlPool,
  listenForNotifications,
  type PrismaClient,
} from "@switchyard/db";
import { compile, configSpecOf, type NodeIdentity } from "@switchyard/snapshot";
import { ConvergenceTracker, NodeStatusTracker } from "@switchyard/status";
import { combineCallbacks, createXdsServer, SnapshotCache, type XdsServer } from "@switchyard/xds";
import type { Logger } from "pino";
import { csdsService } from "./api/csds-service.js";
import type { FileDelivery } from "./file-delivery.js";
import { publicationOf } from "./fleet/live-convergence.js";
import { ReplicaLease } from "./fleet/replica-lease.js";
import type { StatusFeed } from "./fleet/status-feed.js";
import { parseStatusPayload, STATUS_CHANNEL, writeStatusBatch } from "./fleet/status-store.js";
import { StatusWriter } from "./fleet/status-writer.js";
import { LoadWriter } from "./load/load-writer.js";
import { loadReportingService } from "./load/lrs-service.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { RolloutServing, type ServingCommand } from "./rollout-serving.js";
import { RolloutFollower } from "./rollouts/rollout-follower.js";
import { ROLLOUT_CHANNEL } from "./rollouts/rollout-rows.js";
import { createKeyring, type SecretKeyring, type SecretsKey } from "./secrets-key.js";
import { hasErrorCode, StartupError } from "./startup-error.js";
import { ENVOY_SCHEMA_CHANNEL, installStoredSchemas } from "./store/envoy-schemas.js";
import { SnapshotFollower } from "./store/snapshot-follower.js";
import {
  type PublishedSnapshot,
  SNAPSHOT_CHANNEL,
  SnapshotReader,
} from "./store/snapshot-records.js";
import { Teardown } from "./teardown.js";
import { DEFAULT_XDS_AUTHORITY } from "./xds-authority.js";
import { xdsLogCallbacks } from "./xds-log.js";
import {
  checkXdsExposure,
  checkXdsSecurity,
  isLoopback,
  readXdsCredentials,
  readXdsTls,
  watchXdsCredentials,
  type XdsSecurityOptions,
} from "./xds-security.js";

export function portInUse(port: number, what: string, flag: string, variable: string) {
  return new StartupError(
    `port ${port} (${what}) is already in use: stop the process listening there, or choose another port with ${flag} or ${variable}`,
  );
}

/** What the xDS port needs from files, read and checked before anything starts. */
export interface XdsInputs {
  readonly security: XdsSecurityOptions;
  readonly tls: ReturnType<typeof readXdsTls>;
  readonly credentials: ReturnType<typeof readXdsCredentials>;
}

/** Checks the xDS security settings and reads their files: a missing file is a one-line error. */
export function readXdsInputs(options: {
  readonly host: string;
  readonly xdsSecurity?: XdsSecurityOptions | undefined;
  readonly insecure?: boolean | undefined;
}): XdsInputs {
  const security: XdsSecurityOptions = options.xdsSecurity ?? { mode: "none" };
  checkXdsSecurity(security);
  checkXdsExposure(options.host, security.mode, options.insecure === true);
  return {
    security,
    tls: readXdsTls(security),
    credentials: readXdsCredentials(security.credentialsFile),
  };
}

/** What this process tracks of the nodes connected to it, and persists for every replica. */
export interface StatusTracking {
  readonly replicaId: string;
  readonly tracker: NodeStatusTracker;
  readonly convergence: ConvergenceTracker;
  readonly writer: StatusWriter;
}

export interface StatusTrackingOptions {
  readonly prisma: PrismaClient;
  /** The database status is written to, through a connection of its own (writeStatusBatch). */
  readonly databaseUrl: string;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly teardown: Teardown;
  readonly staleAfterMs?: number | undefined;
  readonly replicaLeaseMs?: number | undefined;
  readonly retainDisconnectedMs?: number | undefined;
  readonly historyRetentionMs?: number | undefined;
  readonly historyMaxRows?: number | undefined;
  /**
   * Whether this process serves xDS streams (false: the main process of `--xds-workers`, whose
   * writer only runs the once-a-minute retention pass). Default true.
   */
  readonly servesStreams?: boolean;
}

/**
 * Node status: tracked from the xDS streams, written to Postgres in batches so every replica's
 * console sees every node. The writer stops after the xDS server (teardown runs in reverse), so
 * the last disconnects are written.
 */
export async function startStatusTracking(options: StatusTrackingOptions): Promise<StatusTracking> {
  const { prisma, metrics, logger, teardown } = options;
  const replicaId = `${os.hostname()}:${process.pid}`;
  const tracker = new NodeStatusTracker({
    replicaId,
    ...(options.staleAfterMs === undefined ? {} : { staleAfterMs: options.staleAfterMs }),
  });
  // Convergence time per node, for the histogram in /metrics, and each version's tally for the
  // fleet's convergence timeline (written by the status writer; the console's per-node
  // convergence is read from the database, for every replica's nodes).
  const convergence = new ConvergenceTracker({
    nodes: tracker,
    onConverged: (_version, _nodeId, ms) => metrics.observeConvergence(ms),
  });
  tracker.subscribe((change) => convergence.onChange(change));
  const pool = createSqlPool(options.databaseUrl, {
    // Kept open where streams are served (a write a second while a fleet is busy); closed when
    // idle where only the retention pass writes, once a minute.
    ...(options.servesStreams === false ? { idleTimeoutMs: 5_000 } : {}),
    onIdleError: (error) => logger.warn({ err: error }, "the node status connection was lost"),
  });
  teardown.add(() => pool.close());
  const writer = new StatusWriter({
    tracker,
    ...(options.retainDisconnectedMs === undefined
      ? {}
      : { retainDisconnectedMs: options.retainDisconnectedMs }),
    ...(options.historyRetentionMs === undefined
      ? {}
      : { historyRetentionMs: options.historyRetentionMs }),
    ...(options.historyMaxRows === undefined ? {} : { historyMaxRows: options.historyMaxRows }),
    convergence,
    write: (batch) => metrics.timeDb("status_flush", () => writeStatusBatch(pool, batch)),
    onError: (error) => logger.warn({ err: error }, "writing node status failed; will retry"),
  });
  // A replica killed outright cannot write its nodes' disconnects: leases let the others do it.
  const lease = new ReplicaLease({
    prisma,
    replicaId,
    ...(options.replicaLeaseMs === undefined
      ? {}
      : {
          expireAfterMs: options.replicaLeaseMs,
          intervalMs: Math.max(100, Math.floor(options.replicaLeaseMs / 4)),
        }),
    onReaped: () => {
      logger.warn(
        { replicaId },
        "this replica's lease had run out (the database was away from it): writing its nodes again",
      );
      writer.rewriteAll();
    },
    onReapedOther: (reaped, nodeIds) =>
      logger.warn(
        { replica: reaped, nodes: nodeIds.length },
        "a replica stopped renewing its lease: its nodes are marked disconnected",
      ),
    onError: (error) => logger.warn({ err: error }, "renewing the replica lease failed"),
  });
  await lease.renew();
  teardown.add(() => lease.close());
  teardown.add(() => writer.close());
  return { replicaId, tracker, convergence, writer };
}

/** The snapshot this process serves, kept on the latest published version. */
export interface Serving {
  readonly cache: SnapshotCache;
  readonly follower: SnapshotFollower;
  /** Serves `snapshot` if it is newer than what is served (never goes back). */
  serve(snapshot: PublishedSnapshot): void;
  /** Node groups held by rollouts, and their nodes' versions (rollout-serving.ts). */
  readonly rollouts: RolloutServing;
  /** Serves the stored rollouts (rollout-follower.ts): sync on every rollout notification. */
  readonly followRollouts: RolloutFollower;
}

export interface ServingOptions {
  readonly prisma: PrismaClient;
  readonly keyring: SecretKeyring;
  readonly metrics: Metrics;
  readonly logger: Logger;
  readonly teardown: Teardown;
  readonly status: StatusTracking;
  /** Also writes every version served as files (file-delivery.ts). */
  readonly files?: FileDelivery | undefined;
}

/**
 * Loads the latest published snapshot and serves it exactly as it was published; versions
 * published later, here or by another replica, are served through `serve` (the follower calls
 * it for the others' on every notification and every few seconds).
 */
export async function startServing(options: ServingOptions): Promise<Serving> {
  const { prisma, keyring, metrics, logger, teardown, status, files } = options;
  const cache = new SnapshotCache();
  const reader = new SnapshotReader(prisma, keyring);
  const rollouts = new RolloutServing({
    cache,
    readVersion: async (version) => (await reader.at(version))?.config,
  });
  const followRollouts = new RolloutFollower({ prisma, serving: rollouts, logger });
  // The rollouts under way first: the version one of them rolls out is installed held.
  await followRollouts.sync();
  const latest = await metrics.timeDb("load_latest_snapshot", () => reader.latest());
  metrics.onLoaded(latest?.record.version ?? 0);
  if (latest) await rollouts.install(latest.config, latest.record.version);
  else cache.setConfig(compile(configSpecOf({})), 0);
  if (latest) {
    metrics.onServed(latest.config);
    void files?.deliver(latest.config, latest.record.version);
  }
  logger.info(
    { version: latest?.record.version ?? 0 },
    latest ? "serving the latest published snapshot" : "nothing published yet",
  );
  /** The latest version given to serve; installs run one after another, in order. */
  let scheduled = latest?.record.version ?? 0;
  let installs: Promise<void> = Promise.resolve();
  const install = async (snapshot: PublishedSnapshot, read: boolean) => {
    const { version } = snapshot.record;
    try {
      // A rollout a version starts is committed with it: read before the version is installed.
      if (read) await followRollouts.sync();
    } catch (error) {
      logger.warn(
        { err: error, version },
        "reading the rollouts failed: serving the new version waits for the next check",
      );
      if (scheduled === version) scheduled = cache.version ?? 0;
      return;
    }
    if ((cache.version ?? 0) >= version) return;
    // Targets are the nodes connected before the push; times count from the publish, wherever it
    // happened. Evaluated on the turn the push starts (SnapshotCache: the streams are told over
    // the next turns, and no ACK of the version can be read before), not before the publish
    // answers: at 10,000 nodes that is a few hundred milliseconds.
    const publication = publicationOf(
      snapshot.config,
      version,
      status.tracker,
      snapshot.record.createdAt.getTime(),
    );
    rollouts
      .install(snapshot.config, version)
      .catch((error: unknown) =>
        logger.warn(
          { err: error, version },
          "reading the version a rollout holds its node group on failed: serving the new version waits for the next check",
        ),
      );
    reader.remember(snapshot.config);
    setImmediate(() => status.convergence.publish(publication));
    metrics.onServed(snapshot.config);
    void files?.deliver(snapshot.config, version);
  };
  const serve = (snapshot: PublishedSnapshot) => {
    if (Math.max(cache.version ?? 0, scheduled) >= snapshot.record.version) return;
    scheduled = snapshot.record.version;
    // A version published here brings the rollouts its transaction saw: served at once, as
    // before rollouts, with nothing to read first (and nothing installs ahead of it).
    if (
      snapshot.running !== undefined &&
      (cache.version ?? 0) === snapshot.record.previousVersion
    ) {
      followRollouts.follow(snapshot.running);
      installs = installs.then(() => install(snapshot, false));
      return;
    }
    installs = installs.then(() => install(snapshot, true));
  };
  // Publishes by other replicas (and rollbacks) reach this one through the database.
  const follower = new SnapshotFollower({
    prisma,
    reader,
    current: () => Math.max(cache.version ?? 0, scheduled),
    onNewer: (snapshot) => {
      metrics.onLoaded(snapshot.record.version);
      serve(snapshot);
      logger.info(
        { version: snapshot.record.version, author: snapshot.record.author },
        "serving a version published by another replica",
      );
    },
    onError: (error) => logger.warn({ err: error }, "loading the latest snapshot failed"),
  });
  teardown.add(() => follower.close());
  return { cache, follower, serve, rollouts, followRollouts };
}

/**
 * Database notifications: publishes by any replica reach the follower, and (with a feed) status
 * writes reach this process's live views. Notifications missed while the connection was down
 * are made up for by checking and re-reading everything.
 */
export async function listenToDatabase(options: {
  readonly databaseUrl: string;
  readonly follower: SnapshotFollower;
  readonly feed?: StatusFeed;
  /** Installs the stored Envoy APIs again (followEnvoySchemas). */
  readonly schemas: () => Promise<void>;
  /** A rollout's row was written (`id`), or notifications were lost (undefined). */
  readonly rollouts: (id: number | undefined) => void;
  readonly logger: Logger;
  readonly teardown: Teardown;
}): Promise<void> {
  const { follower, feed, logger } = options;
  const channels = [SNAPSHOT_CHANNEL, ENVOY_SCHEMA_CHANNEL, ROLLOUT_CHANNEL];
  const notifications = await listenForNotifications({
    url: options.databaseUrl,
    channels: feed ? [STATUS_CHANNEL, ...channels] : channels,
    onNotification: (channel, payload) => {
      if (channel === STATUS_CHANNEL) feed?.nodesChanged(parseStatusPayload(payload));
      else if (channel === SNAPSHOT_CHANNEL) {
        void follower.check();
        feed?.published(Number(payload));
      } else if (channel === ENVOY_SCHEMA_CHANNEL) void options.schemas();
      else if (channel === ROLLOUT_CHANNEL) options.rollouts(Number(payload));
    },
    onResync: () => {
      logger.info("database notifications reconnected");
      feed?.refreshAll();
      void follower.check();
      void options.schemas();
      options.rollouts(undefined);
    },
    onError: (error) => logger.warn({ err: error }, "database notifications lost; reconnecting"),
  });
  options.teardown.add(() => notifications.close());
}

export interface XdsPortOptions {
  readonly xdsPort: number;
  readonly host: string;
  readonly xdsAuthorities?: readonly string[] | undefined;
  readonly xdsRestHosts?: readonly string[] | undefined;
  /** The interval proxies are asked to report load at (LRS). Default 10 s. */
  readonly loadReportIntervalMs?: number | undefined;
  /**
   * The largest response sent to a node group without a limit of its own (XdsServerOptions
   * maxResponseBytes). Default 4 MiB.
   */
  readonly xdsMaxResponseBytes?: number | undefined;
}

/** The xDS server, listening; its credentials file (if any) reloaded when it changes. */
export async function startXdsPort(
  options: XdsPortOptions & {
    readonly prisma: PrismaClient;
    readonly inputs: XdsInputs;
    readonly serving: Serving;
    readonly status: StatusTracking;
    readonly metrics: Metrics;
    readonly logger: Logger;
    readonly teardown: Teardown;
  },
): Promise<{ readonly xds: XdsServer; readonly port: number }> {
  const { inputs, logger, teardown } = options;
  const { cache } = options.serving;
  const served = (node: NodeIdentity) => cache.servedTo(node);
  const loadWriter = new LoadWriter({ prisma: options.prisma, logger });
  loadWriter.start();
  // Registered before the port, so closed after it (teardown runs in reverse): the reports of
  // the streams the close ends are written.
  teardown.add(() => loadWriter.close());
  const xds = createXdsServer({
    watcher: options.serving.cache,
    controlPlaneId: `switchyard@${options.status.replicaId}`,
    authorities: options.xdsAuthorities ?? [DEFAULT_XDS_AUTHORITY],
    ...(options.xdsMaxResponseBytes === undefined
      ? {}
      : { maxResponseBytes: options.xdsMaxResponseBytes }),
    callbacks: combineCallbacks(
      xdsLogCallbacks(logger),
      options.status.tracker,
      options.metrics.callbacks,
    ),
    ...(inputs.tls ? { tls: inputs.tls } : {}),
    auth: { mode: inputs.security.mode, credentials: inputs.credentials },
    restHosts: options.xdsRestHosts ?? [],
    services: [
      csdsService({ prisma: options.prisma, served }),
      loadReportingService({
        served,
        intervalMs: options.loadReportIntervalMs ?? 10_000,
        writer: loadWriter,
        metrics: options.metrics,
      }),
    ],
  });
  const file = inputs.security.credentialsFile;
  if (file !== undefined) {
    teardown.add(
      watchXdsCredentials(
        file,
        (credentials) => {
          xds.setCredentials(credentials);
          logger.info(
            {
              file,
              tokens: credentials.tokens.length,
              certificates: credentials.certificates.length,
            },
            "xDS credentials reloaded",
          );
        },
        (error) =>
          logger.warn(
            { err: error, file },
            "xDS credentials file not reloaded; keeping the previous credentials",
          ),
      ),
    );
  }
  let port: number;
  try {
    port = await xds.listen(options.xdsPort, options.host);
  } catch (error) {
    if (hasErrorCode(error, "EADDRINUSE"))
      throw portInUse(options.xdsPort, "xDS gRPC", "--xds-port", "SWITCHYARD_XDS_PORT");
    throw error;
  }
  teardown.add(() => xds.close());
  return { xds, port };
}

/** Says, once per start, what a reachable xDS port without protection exposes. */
export function warnAboutXdsExposure(
  logger: Logger,
  host: string,
  inputs: XdsInputs,
  xdsPort: number,
): void {
  if (isLoopback(host)) return;
  if (inputs.security.mode === "none") {
    logger.warn(
      { host, xdsPort },
      "the xDS port is reachable beyond this machine with no client authentication: any client that reaches it is served the configuration of any node group it claims; require mTLS (--xds-auth mtls) or bearer tokens (--xds-auth token), or bind to 127.0.0.1",
    );
  } else if (inputs.security.mode === "token" && inputs.tls === undefined) {
    logger.warn(
      { host, xdsPort },
      "xDS bearer tokens travel in cleartext on a port reachable beyond this machine: add --xds-tls-cert and --xds-tls-key",
    );
  }
}

/**
 * The console port bound beyond loopback answers only at IP addresses and localhost until told
 * the names people reach it by (http-server.ts): says so at start, rather than leaving them to
 * find the 421 in a browser.
 */
export function warnAboutConsoleHosts(
  logger: Logger,
  host: string,
  consoleHosts: readonly string[],
): void {
  if (isLoopback(host) || consoleHosts.length > 0) return;
  logger.warn(
    { host },
    "the console port is reachable beyond this machine, and answers only requests addressed to an IP address or localhost (DNS rebinding): set SWITCHYARD_CONSOLE_HOSTS (--console-hosts) to the names people and scrapers reach it by, e.g. switchyard.example.com",
  );
}

/** What an xDS-only replica is started with: plain data, so it can cross a process boundary. */
export interface XdsReplicaSettings extends XdsPortOptions {
  /** The database the main process migrated (an xDS replica never migrates). */
  readonly databaseUrl: string;
  readonly staleAfterMs?: number | undefined;
  readonly replicaLeaseMs?: number | undefined;
  readonly retainDisconnectedMs?: number | undefined;
  readonly historyRetentionMs?: number | undefined;
  readonly historyMaxRows?: number | undefined;
  readonly secretsKey?: SecretsKey | undefined;
  readonly xdsSecurity?: XdsSecurityOptions | undefined;
  readonly insecure?: boolean | undefined;
}

export interface XdsReplica {
  readonly xdsPort: number;
  readonly metrics: Metrics;
  /** Node groups held by rollouts (rollout-serving.ts): commands from the main process. */
  readonly rollouts: RolloutServing;
  /** Drains the xDS port first, then stops the rest in reverse order of start. */
  stop(): Promise<void>;
}

/**
 * A replica that serves xDS and nothing else, on a database another process migrated and
 * publishes to: what an xDS worker runs. Its nodes' status reaches every console through the
 * database, as any replica's does.
 */
/**
 * Installs the Envoy APIs the database holds, now and each time the returned function is called
 * (on ENVOY_SCHEMA_CHANNEL): a replica or worker uses the same definitions as the one that added
 * them. A stored schema this release no longer takes is left out, with an error in the log.
 */
export async function followEnvoySchemas(
  prisma: PrismaClient,
  logger: Logger,
): Promise<() => Promise<void>> {
  const install = async () => {
    const installed = await installStoredSchemas(prisma, (name, problem) =>
      logger.error({ schema: name, problem }, "a stored Envoy API is not taken: it is left out"),
    );
    if (installed.length > 0)
      logger.info(
        { schemas: installed.map((s) => ({ name: s.name, sha256: s.sha256 })) },
        "newer Envoy APIs installed",
      );
  };
  await install();
  return () =>
    install().catch((error: unknown) =>
      logger.warn({ err: error }, "reading the stored Envoy APIs failed; the last ones stay"),
    );
}

export async function startXdsReplica(
  settings: XdsReplicaSettings,
  logger: Logger,
  /** Rollouts under way (RolloutServing.replay of the main process), applied before serving. */
  rollouts: readonly ServingCommand[] = [],
): Promise<XdsReplica> {
  const teardown = new Teardown(logger);
  try {
    const inputs = readXdsInputs(settings);
    const prisma = createPrismaClient(settings.databaseUrl);
    teardown.add(() => prisma.$disconnect());
    const keyring = createKeyring(settings.secretsKey ?? { t: "none" });
    const metrics = createMetrics();
    const schemas = await followEnvoySchemas(prisma, logger);
    const status = await startStatusTracking({ prisma, metrics, logger, teardown, ...settings });
    const serving = await startServing({ prisma, keyring, metrics, logger, teardown, status });
    await listenToDatabase({
      databaseUrl: settings.databaseUrl,
      follower: serving.follower,
      schemas,
      rollouts: () => void serving.followRollouts.sync().catch(() => undefined),
      logger,
      teardown,
    });
    // Before the port listens: a node connecting is served its rollout version from the start.
    for (const command of rollouts) await serving.rollouts.command(command);
    const { xds, port } = await startXdsPort({
      ...settings,
      prisma,
      inputs,
      serving,
      status,
      metrics,
      logger,
      teardown,
    });
    return {
      xdsPort: port,
      metrics,
      rollouts: serving.rollouts,
      stop: async () => {
        await xds.close();
        await teardown.run();
      },
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
