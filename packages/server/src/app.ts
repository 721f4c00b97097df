import * as os from "node:os";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  createPrismaClient,
  listenForNotifications,
  migrate,
  type PrismaClient,
  startEmbeddedPostgres,
} from "@switchyard/db";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { compile, configSpecOf } from "@switchyard/snapshot";
import { ConvergenceTracker, NodeStatusTracker } from "@switchyard/status";
import { combineCallbacks, createXdsServer, SnapshotCache, type XdsServer } from "@switchyard/xds";
import type { Logger } from "pino";
import { createAccessInterceptor, TokenUseRecorder } from "./access/access-interceptor.js";
import { createAccessService } from "./access/access-service.js";
import { AUDIT_EXPORT_PATH, auditExportHandler } from "./access/audit-export.js";
import { bodyPolicy } from "./access/body-policy.js";
import { requestContextValues, trustedProxies } from "./access/request-context.js";
import { createConfigService } from "./api/config-service.js";
import { errorInterceptor } from "./api/error-interceptor.js";
import { createStatusService } from "./api/status-service.js";
import {
  ensureInitialAdmin,
  type InitialAdmin,
  LoginLimiter,
  type LoginLimits,
} from "./auth/index.js";
import { type ConsoleTlsOptions, readConsoleTls } from "./console-tls.js";
import { FileDelivery, type FileDeliveryOptions } from "./file-delivery.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createEnvoyImporter } from "./import/envoy-importer.js";
import { createMetrics } from "./metrics.js";
import { createKeyring, type SecretsKey } from "./secrets-key.js";
import { hasErrorCode, redactUrl, StartupError } from "./startup-error.js";
import { StatusWriter, writeStatusBatch } from "./status/index.js";
import { publicationOf } from "./status/live-convergence.js";
import { ReplicaLease } from "./status/replica-lease.js";
import { StatusFeed } from "./status/status-feed.js";
import { parseStatusPayload, STATUS_CHANNEL } from "./status/status-store.js";
import { resealSecrets } from "./store/reseal.js";
import { SnapshotFollower } from "./store/snapshot-follower.js";
import {
  loadLatestSnapshot,
  type PublishedSnapshot,
  SNAPSHOT_CHANNEL,
  SnapshotStore,
} from "./store/snapshot-store.js";
import { loadWebConsole, type WebConsole } from "./web-console.js";
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

export interface SwitchyardOptions {
  readonly httpPort: number;
  readonly xdsPort: number;
  readonly host: string;
  /** An external database; when undefined an embedded PostgreSQL is started in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Serve the web console (false for API/xDS-only processes, e.g. in tests). */
  readonly webConsole: boolean;
  readonly logger: Logger;
  /** How long a response may go unanswered before its type is STALE. Default 30 s. */
  readonly staleAfterMs?: number;
  /**
   * How long this replica's lease lasts without renewal before other replicas mark its nodes
   * disconnected (status/replica-lease.ts). Default 20 s; renewed every quarter of it.
   */
  readonly replicaLeaseMs?: number;
  /** Also write every version served as files, per node group (file-delivery.ts). */
  readonly fileDelivery?: FileDeliveryOptions;
  /** How long a disconnected node stays listed. Default 24 h. */
  readonly retainDisconnectedMs?: number;
  /** SWITCHYARD_ADMIN_PASSWORD: the first admin's password; generated when unset. */
  readonly adminPassword?: string | undefined;
  /** Login attempt limits; the defaults otherwise (tests tighten them). */
  readonly loginLimits?: LoginLimits;
  /**
   * The key that seals TLS private keys at rest (secrets-key.ts). Default: none, and then secrets
   * with private keys can be neither written nor published.
   */
  readonly secretsKey?: SecretsKey;
  /** Client authentication and TLS on the xDS port. Default: none, cleartext. */
  readonly xdsSecurity?: XdsSecurityOptions;
  /**
   * The xdstp:// authorities served (xds-authority.ts). Default: DEFAULT_XDS_AUTHORITY; empty:
   * xdstp:// names resolve to nothing.
   */
  readonly xdsAuthorities?: readonly string[];
  /** Directories under which members may make proxies read files (auth/local-sources.ts). */
  readonly memberFileDirs?: readonly string[];
  /**
   * Proxies in front of the console whose X-Forwarded-For/-Proto are believed: addresses and
   * CIDR ranges (access/request-context.ts). Default none.
   */
  readonly trustedProxies?: readonly string[];
  /** The longest an API token may live. Default 90 days. */
  readonly tokenMaxLifetimeMs?: number;
  /** Host names REST-JSON discovery answers to besides IP addresses and localhost. */
  readonly xdsRestHosts?: readonly string[];
  /** HTTPS on the console port (console-tls.ts); plain HTTP without. */
  readonly consoleTls?: ConsoleTlsOptions;
  /**
   * Start although the xDS port is reachable beyond this machine with no client authentication
   * (checkXdsExposure). Secrets are withheld from such clients regardless.
   */
  readonly insecure?: boolean;
}

export interface Switchyard {
  readonly httpPort: number;
  /** "https" when the console port serves TLS itself (consoleTls), else "http". */
  readonly httpScheme: "http" | "https";
  readonly xdsPort: number;
  readonly databaseUrl: string;
  /** The embedded cluster's data directory, where it really is; undefined with DATABASE_URL. */
  readonly embeddedDataDir: string | undefined;
  readonly prisma: PrismaClient;
  readonly cache: SnapshotCache;
  /** This replica's view of its connected nodes, and the writer persisting it. */
  readonly status: { readonly tracker: NodeStatusTracker; readonly writer: StatusWriter };
  /**
   * What ensureInitialAdmin did at this start: `created` with `generatedPassword` set means the
   * caller must show that password once (the CLI prints it framed on stdout); it is kept nowhere.
   */
  readonly initialAdmin: InitialAdmin;
  /**
   * Drains the xDS port first (new connections refused, open streams ended with UNAVAILABLE so
   * proxies reconnect to another replica at once), then stops everything else in reverse order
   * of start. Idempotent.
   */
  stop(): Promise<void>;
}

function portInUse(port: number, what: string, flag: string, variable: string): StartupError {
  return new StartupError(
    `port ${port} (${what}) is already in use: stop the process listening there, or choose another port with ${flag} or ${variable}`,
  );
}

/**
 * Starts Switchyard: the database (embedded unless a URL is given), migrations, the xDS server and
 * the console. On failure, whatever was started is stopped before the error is rethrown.
 */
export async function startSwitchyard(options: SwitchyardOptions): Promise<Switchyard> {
  const { logger } = options;
  const cleanups: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.error({ err: error }, "error while stopping");
      }
    }
  };

  try {
    // Checked and read before anything starts: a missing file is a one-line error, not a half
    // started server.
    const security: XdsSecurityOptions = options.xdsSecurity ?? { mode: "none" };
    checkXdsSecurity(security);
    checkXdsExposure(options.host, security.mode, options.insecure === true);
    const xdsTls = readXdsTls(security);
    const consoleTls = readConsoleTls(options.consoleTls);
    const xdsCredentials = readXdsCredentials(security.credentialsFile);
    let databaseUrl = options.databaseUrl;
    let embeddedDataDir: string | undefined;
    if (databaseUrl === undefined) {
      const postgres = await startEmbeddedPostgres({
        dataDir: options.dataDir,
        port: 0,
        notice: (line) => logger.info(`embedded PostgreSQL: ${line}`),
      });
      cleanups.push(() => postgres.stop());
      databaseUrl = postgres.url;
      embeddedDataDir = postgres.dataDir;
      logger.info({ dataDir: postgres.dataDir }, "embedded PostgreSQL started");
    }
    try {
      await migrate(databaseUrl);
    } catch (error) {
      if (
        options.databaseUrl !== undefined &&
        hasErrorCode(
          error,
          "ECONNREFUSED",
          "ENOTFOUND",
          "ETIMEDOUT",
          "EHOSTUNREACH",
          "28P01",
          "3D000",
        )
      ) {
        throw new StartupError(
          `cannot reach the database at ${redactUrl(databaseUrl)} (DATABASE_URL): ${error instanceof Error ? error.message : String(error)}; check that it is running and the URL is right, or unset DATABASE_URL to use the embedded PostgreSQL`,
          { cause: error },
        );
      }
      throw error;
    }
    const prisma = createPrismaClient(databaseUrl);
    cleanups.push(() => prisma.$disconnect());
    const initialAdmin = await ensureInitialAdmin(prisma, { password: options.adminPassword });
    if (initialAdmin.t === "created")
      logger.info(
        { username: initialAdmin.username },
        initialAdmin.generatedPassword === null
          ? "created the first admin account with SWITCHYARD_ADMIN_PASSWORD"
          : "created the first admin account with a generated password (shown once on stdout)",
      );

    // What proxies get is the latest published snapshot, exactly as it was published.
    const cache = new SnapshotCache();
    const metrics = createMetrics();
    // Publishes and rollbacks are timed as database work, without instrumenting Prisma globally.
    const keyring = createKeyring(options.secretsKey ?? { t: "none" });
    if (keyring.previousKeyIds.length > 0) {
      // Rotating the secrets key: what the previous keys sealed is sealed again (reseal.ts).
      const counts = await prisma.$transaction((tx) => resealSecrets(tx, keyring), {
        timeout: 60_000,
      });
      logger.info(
        { ...counts, keyId: keyring.keyId, previousKeyIds: keyring.previousKeyIds },
        "secrets sealed again with the current secrets key",
      );
    }
    const store = new SnapshotStore(prisma, {
      timed: (operation, work) => metrics.timeDb(operation, work),
      keyring,
    });
    const latest = await metrics.timeDb("load_latest_snapshot", () =>
      loadLatestSnapshot(prisma, keyring),
    );
    metrics.onLoaded(latest?.record.version ?? 0);
    cache.setConfig(latest?.config ?? compile(configSpecOf({})), latest?.record.version ?? 0);
    if (latest) metrics.onServed(latest.config);
    const files =
      options.fileDelivery &&
      new FileDelivery(options.fileDelivery, {
        onError: ({ file, error }, version) =>
          logger.error(
            { err: error, file, version },
            "writing a configuration file failed; the others are written",
          ),
        onWritten: (version, count) =>
          logger.info({ version, files: count }, "configuration files written"),
      });
    if (files) {
      if (latest) void files.deliver(latest.config, latest.record.version);
      cleanups.push(() => files.idle());
    }
    logger.info(
      { version: latest?.record.version ?? 0 },
      latest ? "serving the latest published snapshot" : "nothing published yet",
    );
    /** Serves `snapshot` if it is newer than what is served (never goes back). */
    const serve = (snapshot: PublishedSnapshot) => {
      if ((cache.version ?? 0) >= snapshot.record.version) return;
      // Targets are the nodes connected before the push; times count from the publish, wherever
      // it happened. Evaluated on the turn the push starts (SnapshotCache: the streams are told
      // over the next turns, and no ACK of the version can be read before), not before the
      // publish answers: at 10,000 nodes that is a few hundred milliseconds.
      const publication = publicationOf(
        snapshot.config,
        snapshot.record.version,
        tracker,
        snapshot.record.createdAt.getTime(),
      );
      cache.setConfig(snapshot.config, snapshot.record.version);
      setImmediate(() => convergence.publish(publication));
      metrics.onServed(snapshot.config);
      void files?.deliver(snapshot.config, snapshot.record.version);
    };
    const onPublished = (snapshot: PublishedSnapshot) => {
      metrics.onPublished(snapshot.record.version);
      serve(snapshot);
      logger.info(
        { version: snapshot.record.version, author: snapshot.record.author },
        "published",
      );
    };
    // Publishes by other replicas (and rollbacks) reach this one through the database.
    const follower = new SnapshotFollower({
      prisma,
      keyring,
      current: () => cache.version ?? 0,
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
    cleanups.push(async () => follower.close());

    // Node status: tracked from the xDS streams, written to Postgres in batches so every
    // replica's console sees every node. The writer stops after the xDS server (cleanups run in
    // reverse), so the last disconnects are written.
    const replicaId = `${os.hostname()}:${process.pid}`;
    const tracker = new NodeStatusTracker({
      replicaId,
      ...(options.staleAfterMs === undefined ? {} : { staleAfterMs: options.staleAfterMs }),
    });
    // Convergence time per node, for the histogram in /metrics (the console's convergence is
    // read from the database, for every replica's nodes).
    const convergence = new ConvergenceTracker({
      nodes: tracker,
      onConverged: (_version, _nodeId, ms) => metrics.observeConvergence(ms),
    });
    tracker.subscribe((change) => convergence.onChange(change));
    const statusWriter = new StatusWriter({
      tracker,
      prisma,
      ...(options.retainDisconnectedMs === undefined
        ? {}
        : { retainDisconnectedMs: options.retainDisconnectedMs }),
      write: (batch) => metrics.timeDb("status_flush", () => writeStatusBatch(prisma, batch)),
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
        statusWriter.rewriteAll();
      },
      onReapedOther: (reaped, nodeIds) =>
        logger.warn(
          { replica: reaped, nodes: nodeIds.length },
          "a replica stopped renewing its lease: its nodes are marked disconnected",
        ),
      onError: (error) => logger.warn({ err: error }, "renewing the replica lease failed"),
    });
    await lease.renew();
    cleanups.push(() => lease.close());
    cleanups.push(async () => {
      await statusWriter.close();
    });

    // Live views: every replica's status writes and publishes reach this replica's Watch* streams
    // through Postgres NOTIFY. Notifications missed while the connection was down are made up
    // for by re-reading everything.
    const feed = new StatusFeed({
      prisma,
      onError: (error) => logger.warn({ err: error }, "reading node status for live views failed"),
    });
    const notifications = await listenForNotifications({
      url: databaseUrl,
      channels: [STATUS_CHANNEL, SNAPSHOT_CHANNEL],
      onNotification: (channel, payload) => {
        if (channel === STATUS_CHANNEL) feed.nodesChanged(parseStatusPayload(payload));
        else if (channel === SNAPSHOT_CHANNEL) {
          void follower.check();
          feed.published(Number(payload));
        }
      },
      onResync: () => {
        logger.info("database notifications reconnected");
        feed.refreshAll();
        void follower.check();
      },
      onError: (error) => logger.warn({ err: error }, "database notifications lost; reconnecting"),
    });
    cleanups.push(() => notifications.close());
    cleanups.push(async () => feed.close());

    const xds: XdsServer = createXdsServer({
      watcher: cache,
      controlPlaneId: `switchyard@${replicaId}`,
      authorities: options.xdsAuthorities ?? [DEFAULT_XDS_AUTHORITY],
      callbacks: combineCallbacks(xdsLogCallbacks(logger), tracker, metrics.callbacks),
      ...(xdsTls ? { tls: xdsTls } : {}),
      auth: { mode: security.mode, credentials: xdsCredentials },
      restHosts: options.xdsRestHosts ?? [],
    });
    if (security.credentialsFile !== undefined) {
      const file = security.credentialsFile;
      const stopWatching = watchXdsCredentials(
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
      );
      cleanups.push(async () => stopWatching());
    }
    let xdsPort: number;
    try {
      xdsPort = await xds.listen(options.xdsPort, options.host);
    } catch (error) {
      if (hasErrorCode(error, "EADDRINUSE"))
        throw portInUse(options.xdsPort, "xDS gRPC", "--xds-port", "SWITCHYARD_XDS_PORT");
      throw error;
    }
    cleanups.push(() => xds.close());
    if (!isLoopback(options.host)) {
      if (security.mode === "none") {
        logger.warn(
          { host: options.host, xdsPort },
          "the xDS port is reachable beyond this machine with no client authentication: any client that reaches it is served the configuration of any node group it claims; require mTLS (--xds-auth mtls) or bearer tokens (--xds-auth token), or bind to 127.0.0.1",
        );
      } else if (security.mode === "token" && xdsTls === undefined) {
        logger.warn(
          { host: options.host, xdsPort },
          "xDS bearer tokens travel in cleartext on a port reachable beyond this machine: add --xds-tls-cert and --xds-tls-key",
        );
      }
    }

    let web: WebConsole | undefined;
    if (options.webConsole) {
      web = await loadWebConsole({ hostname: options.host, port: options.httpPort });
      cleanups.push(() => (web as WebConsole).close());
    }
    const limiter = new LoginLimiter(options.loginLimits);
    const importer = createEnvoyImporter({ logger });
    cleanups.push(() => importer.close());
    const routes = (router: ConnectRouter) => {
      router.service(
        ConfigService,
        createConfigService({
          prisma,
          store,
          onPublished,
          keyring,
          writePolicy: { memberFileDirs: options.memberFileDirs ?? [] },
          importer,
        }),
      );
      router.service(StatusService, createStatusService({ prisma, feed }));
      router.service(
        AccessService,
        createAccessService({
          prisma,
          limiter,
          ...(options.tokenMaxLifetimeMs === undefined
            ? {}
            : { tokenMaxLifetimeMs: options.tokenMaxLifetimeMs }),
        }),
      );
    };
    let http: HttpServer;
    try {
      http = await startHttpServer({
        port: options.httpPort,
        host: options.host,
        routes,
        // Every method of every service passes the access gate (access/access-rules.ts).
        interceptors: [
          errorInterceptor(logger),
          createAccessInterceptor({ prisma, tokenUse: new TokenUseRecorder(prisma) }),
        ],
        bodyPolicy: bodyPolicy(prisma),
        contextValues: requestContextValues(trustedProxies(options.trustedProxies ?? [])),
        extraRoutes: {
          "/metrics": metrics.handler,
          [AUDIT_EXPORT_PATH]: auditExportHandler(prisma),
        },
        tls: consoleTls,
        fallback: web
          ? web.handler
          : (_request, response) => {
              response
                .writeHead(404, { "content-type": "text/plain" })
                .end("the web console is disabled in this process\n");
            },
      });
    } catch (error) {
      if (hasErrorCode(error, "EADDRINUSE"))
        throw portInUse(options.httpPort, "web console", "--http-port", "SWITCHYARD_HTTP_PORT");
      throw error;
    }
    cleanups.push(() => http.close());
    // Runs first at stop: live API streams end cleanly before their connections are closed.
    cleanups.push(async () => feed.close());

    return {
      httpPort: http.port,
      httpScheme: consoleTls === undefined ? "http" : "https",
      xdsPort,
      databaseUrl,
      embeddedDataDir,
      prisma,
      cache,
      status: { tracker, writer: statusWriter },
      initialAdmin,
      // Draining first: proxies move to another replica while the rest shuts down (the status
      // writer still records their disconnects: it stops after the xDS server).
      stop: async () => {
        await xds.close();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
