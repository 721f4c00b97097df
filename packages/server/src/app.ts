import type { ConnectRouter } from "@connectrpc/connect";
import {
  createPrismaClient,
  migrate,
  type PrismaClient,
  startEmbeddedPostgres,
} from "@switchyard/db";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REGEX_MAX_PROGRAM_SIZE,
  setMaxResponseBytes,
  setRegexMaxProgramSize,
} from "@switchyard/snapshot";
import type { NodeStatusTracker } from "@switchyard/status";
import { peerWentAway, type SnapshotCache } from "@switchyard/xds";
import type { Logger } from "pino";
import { createAccessInterceptor, TokenUseRecorder } from "./access/access-interceptor.js";
import { createAccessService } from "./access/access-service.js";
import { AUDIT_EXPORT_PATH, auditExportHandler } from "./access/audit-export.js";
import { bodyPolicy } from "./access/body-policy.js";
import { requestContextValues, trustedProxies } from "./access/request-context.js";
import { createConfigService } from "./api/config-service.js";
import { errorInterceptor } from "./api/error-interceptor.js";
import { createRolloutService } from "./api/rollout-service.js";
import { createRoutingService } from "./api/routing-service.js";
import { createStatusService } from "./api/status-service.js";
import {
  ensureInitialAdmin,
  type InitialAdmin,
  LoginLimiter,
  type LoginLimits,
} from "./auth/index.js";
import { type ConsoleTlsOptions, readConsoleTls } from "./console-tls.js";
import { FileDelivery, type FileDeliveryOptions } from "./file-delivery.js";
import { StatusFeed } from "./fleet/status-feed.js";
import type { StatusWriter } from "./fleet/status-writer.js";
import { type HttpServer, startHttpServer } from "./http-server.js";
import { createEnvoyImporter } from "./import/envoy-importer.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { requireMetricsToken } from "./metrics-token.js";
import {
  followEnvoySchemas,
  listenToDatabase,
  portInUse,
  readXdsInputs,
  startServing,
  startStatusTracking,
  startXdsPort,
  warnAboutConsoleHosts,
  warnAboutXdsExposure,
} from "./replica.js";
import type { ServingCommand } from "./rollout-serving.js";
import { RolloutDriver } from "./rollouts/rollout-driver.js";
import { RolloutHub } from "./rollouts/rollout-hub.js";
import { createRouteTestRunner } from "./routing/route-test-runner.js";
import { createKeyring, type SecretKeyring, type SecretsKey } from "./secrets-key.js";
import { hasErrorCode, redactUrl, StartupError } from "./startup-error.js";
import { storeSchemaFiles } from "./store/envoy-schemas.js";
import { resealSecrets } from "./store/reseal.js";
import type { PublishedSnapshot } from "./store/snapshot-records.js";
import { SnapshotStore } from "./store/snapshot-store.js";
import { Teardown } from "./teardown.js";
import { loadWebConsole } from "./web-console.js";
import { type XdsAdvertisement, xdsServerInfo } from "./xds-advertise.js";
import type { XdsSecurityOptions } from "./xds-security.js";
import { startXdsWorkers } from "./xds-workers.js";

export interface SwitchyardOptions {
  readonly httpPort: number;
  readonly xdsPort: number;
  /**
   * HOST:PORT proxies dial for xDS, when not the bind address and port (xds-advertise.ts):
   * what WhoAmI tells the CLI's bootstrap and the console's hints.
   */
  readonly advertiseXdsAddress?: string | undefined;
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
   * How long a replica's hold on the rollouts it drives lasts without renewal: another takes them
   * over after (rollout-driver.ts). Default 15 s; a replica that stops gives them up at once.
   */
  readonly rolloutLeaseMs?: number;
  /**
   * How long this replica's lease lasts without renewal before other replicas mark its nodes
   * disconnected (fleet/replica-lease.ts). Default 20 s; renewed every quarter of it.
   */
  readonly replicaLeaseMs?: number;
  /** Also write every version served as files, per node group (file-delivery.ts). */
  readonly fileDelivery?: FileDeliveryOptions;
  /** How long a disconnected node stays listed. Default 24 h. */
  readonly retainDisconnectedMs?: number;
  /** SWITCHYARD_HISTORY_RETENTION: how long node history is kept. Default 14 days. */
  readonly historyRetentionMs?: number;
  /** SWITCHYARD_HISTORY_MAX_ROWS: the most node history rows kept. Default 5,000,000. */
  readonly historyMaxRows?: number;
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
   * The largest RE2 program a caller's regex may compile to (snapshot's match/regex-limit.ts):
   * set for the whole process, its worker threads included. Default 100, Envoy's.
   */
  readonly regexMaxProgramSize?: number;
  /**
   * Proxies in front of the console whose X-Forwarded-For/-Proto are believed: addresses and
   * CIDR ranges (access/request-context.ts). Default none.
   */
  readonly trustedProxies?: readonly string[];
  /** The longest an API token may live. Default 90 days. */
  readonly tokenMaxLifetimeMs?: number;
  /** The bearer token a scrape of /metrics must send (metrics-token.ts). Default: none, open. */
  readonly metricsToken?: string | undefined;
  /** Host names REST-JSON discovery answers to besides IP addresses and localhost. */
  readonly xdsRestHosts?: readonly string[];
  /** Host names the console port answers to besides IP addresses and localhost. */
  readonly consoleHosts?: readonly string[];
  /** The interval proxies are asked to report load at (LRS). Default 10 s. */
  readonly loadReportIntervalMs?: number;
  /** HTTPS on the console port (console-tls.ts); plain HTTP without. */
  readonly consoleTls?: ConsoleTlsOptions;
  /**
   * Start although the xDS port is reachable beyond this machine with no client authentication
   * (checkXdsExposure). Secrets are withheld from such clients regardless.
   */
  readonly insecure?: boolean;
  /**
   * Serve xDS from this many worker processes sharing the xDS port (xds-workers.ts); 0 (the
   * default here; `serve` defaults to the cores) serves it from this process. Workers need the
   * built server (they run dist/xds-worker-main.js).
   */
  readonly xdsWorkers?: number;
  /**
   * The largest xDS response sent to a node group without a limit of its own: larger ones are
   * split where the protocol allows, and validation refuses what cannot be (response-size.ts in
   * @switchyard/snapshot). Default 4 MiB, gRPC's default max receive message size.
   */
  readonly xdsMaxResponseBytes?: number;
  /**
   * Descriptor sets of newer Envoy APIs to store at start (SWITCHYARD_ENVOY_SCHEMA), besides the
   * ones already stored (switchyard schema add): store/envoy-schemas.ts.
   */
  readonly envoySchemaFiles?: readonly string[];
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
  /**
   * Serves a node group's nodes a rollout's versions (rollout-serving.ts): in this process and
   * in every xDS worker. What the rollout driver carries its `send` and `settle` actions out by.
   */
  rollout(command: ServingCommand): Promise<void>;
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

/** The database: embedded unless a URL is given, migrated either way. */
async function startDatabase(
  options: SwitchyardOptions,
  teardown: Teardown,
): Promise<{ readonly url: string; readonly embeddedDataDir: string | undefined }> {
  const { logger } = options;
  let url = options.databaseUrl;
  let embeddedDataDir: string | undefined;
  if (url === undefined) {
    const postgres = await startEmbeddedPostgres({
      dataDir: options.dataDir,
      port: 0,
      notice: (line) => logger.info(`embedded PostgreSQL: ${line}`),
    });
    teardown.add(() => postgres.stop());
    url = postgres.url;
    embeddedDataDir = postgres.dataDir;
    logger.info({ dataDir: postgres.dataDir }, "embedded PostgreSQL started");
  }
  try {
    await migrate(url);
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
        `cannot reach the database at ${redactUrl(url)} (DATABASE_URL): ${error instanceof Error ? error.message : String(error)}; check that it is running and the URL is right, or unset DATABASE_URL to use the embedded PostgreSQL`,
        { cause: error },
      );
    }
    throw error;
  }
  return { url, embeddedDataDir };
}

/** The secrets keyring; rotating the key seals again what the previous keys sealed (reseal.ts). */
async function openKeyring(prisma: PrismaClient, options: SwitchyardOptions) {
  const keyring = createKeyring(options.secretsKey ?? { t: "none" });
  if (keyring.previousKeyIds.length > 0) {
    const counts = await prisma.$transaction((tx) => resealSecrets(tx, keyring), {
      timeout: 60_000,
    });
    options.logger.info(
      { ...counts, keyId: keyring.keyId, previousKeyIds: keyring.previousKeyIds },
      "secrets sealed again with the current secrets key",
    );
  }
  return keyring;
}

function startFileDelivery(options: SwitchyardOptions, teardown: Teardown) {
  if (!options.fileDelivery) return undefined;
  const { logger } = options;
  const files = new FileDelivery(options.fileDelivery, {
    onError: ({ file, error }, version) =>
      logger.error(
        { err: error, file, version },
        "writing a configuration file failed; the others are written",
      ),
    onWritten: (version, count) =>
      logger.info({ version, files: count }, "configuration files written"),
  });
  teardown.add(() => files.idle());
  return files;
}

/**
 * The xDS port: served by this process, or by `xdsWorkers` worker processes (whose metrics
 * /metrics then adds to this process's). Resolves with the port and how to drain it.
 */
async function startXds(
  options: SwitchyardOptions,
  step: Parameters<typeof startXdsPort>[0],
  databaseUrl: string,
): Promise<{
  readonly port: number;
  drain(): Promise<void>;
  /** Carries a rollout's step to whoever serves the xDS port (rollout-serving.ts). */
  rollout(command: ServingCommand): Promise<void>;
}> {
  const workers = options.xdsWorkers ?? 0;
  const { rollouts } = step.serving;
  if (workers === 0) {
    const { xds, port } = await startXdsPort(step);
    return { port, drain: () => xds.close(), rollout: (command) => rollouts.command(command) };
  }
  const started = await startXdsWorkers({
    count: workers,
    logger: options.logger,
    rollouts: () => rollouts.replay(),
    settings: {
      databaseUrl,
      xdsPort: options.xdsPort,
      host: options.host,
      xdsAuthorities: options.xdsAuthorities,
      xdsRestHosts: options.xdsRestHosts,
      xdsMaxResponseBytes: options.xdsMaxResponseBytes,
      loadReportIntervalMs: options.loadReportIntervalMs,
      staleAfterMs: options.staleAfterMs,
      replicaLeaseMs: options.replicaLeaseMs,
      retainDisconnectedMs: options.retainDisconnectedMs,
      historyRetentionMs: options.historyRetentionMs,
      historyMaxRows: options.historyMaxRows,
      secretsKey: options.secretsKey,
      xdsSecurity: options.xdsSecurity,
      insecure: options.insecure,
    },
  });
  step.teardown.add(() => started.close());
  step.metrics.addSource(() => started.metrics());
  return {
    port: started.port,
    drain: () => started.close(),
    // This process's cache too: file delivery and metrics read it, and its replay is what a
    // worker started later is given.
    rollout: (command) => {
      started.rollout(command);
      return rollouts.command(command);
    },
  };
}

/** The console API (and the console itself) on the HTTP port, with /metrics and audit export. */
async function startApi(
  options: SwitchyardOptions,
  deps: {
    readonly prisma: PrismaClient;
    readonly store: SnapshotStore;
    readonly keyring: SecretKeyring;
    readonly metrics: Metrics;
    readonly feed: StatusFeed;
    readonly consoleTls: ReturnType<typeof readConsoleTls>;
    readonly onPublished: (snapshot: PublishedSnapshot) => void;
    /** Rollout notifications for the watches, and the steps' stored transitions (metrics). */
    readonly rolloutHub: RolloutHub;
    readonly teardown: Teardown;
    readonly xds: XdsAdvertisement;
  },
): Promise<HttpServer> {
  const { logger } = options;
  const { prisma, teardown } = deps;
  const web = options.webConsole ? await loadWebConsole() : undefined;
  const limiter = new LoginLimiter(options.loginLimits);
  const importer = createEnvoyImporter({ logger });
  teardown.add(() => importer.close());
  // Callers' checks and runs of route tests, and the publish gate's, each on a pool of its own:
  // no number of the first delays a publish.
  const routeTests = createRouteTestRunner({ logger });
  teardown.add(() => routeTests.close());
  const gateRouteTests = createRouteTestRunner({ logger });
  teardown.add(() => gateRouteTests.close());
  const routes = (router: ConnectRouter) => {
    router.service(
      ConfigService,
      createConfigService({
        prisma,
        store: deps.store,
        onPublished: deps.onPublished,
        keyring: deps.keyring,
        writePolicy: { memberFileDirs: options.memberFileDirs ?? [] },
        importer,
        routeTests: { gate: gateRouteTests, dryRun: routeTests },
      }),
    );
    router.service(StatusService, createStatusService({ prisma, feed: deps.feed }));
    router.service(RoutingService, createRoutingService({ prisma, store: deps.store, routeTests }));
    router.service(
      RolloutService,
      createRolloutService({
        prisma,
        store: deps.store,
        onPublished: deps.onPublished,
        hub: deps.rolloutHub,
        onTransition: (kind) => deps.metrics.onRolloutTransition(kind),
        logger,
      }),
    );
    router.service(
      AccessService,
      createAccessService({
        prisma,
        limiter,
        serverInfo: (requestHost) => xdsServerInfo(deps.xds, requestHost),
        ...(options.tokenMaxLifetimeMs === undefined
          ? {}
          : { tokenMaxLifetimeMs: options.tokenMaxLifetimeMs }),
      }),
    );
  };
  let http: HttpServer;
  try {
    http = await startHttpServer({
      onHandlerFailure: (method, reason) => {
        if (peerWentAway(reason))
          logger.debug({ method, err: reason }, "API call ended by the client");
        else logger.error({ method, err: reason }, "API call failed");
      },
      port: options.httpPort,
      host: options.host,
      routes,
      // Every method of every service passes the access gate (access/access-rules.ts).
      interceptors: [
        errorInterceptor(logger),
        createAccessInterceptor({ prisma, limiter, tokenUse: new TokenUseRecorder(prisma) }),
      ],
      bodyPolicy: bodyPolicy(prisma),
      contextValues: requestContextValues(trustedProxies(options.trustedProxies ?? [])),
      extraRoutes: {
        "/metrics":
          options.metricsToken === undefined
            ? deps.metrics.handler
            : requireMetricsToken(deps.metrics.handler, options.metricsToken),
        [AUDIT_EXPORT_PATH]: auditExportHandler(prisma),
      },
      tls: deps.consoleTls,
      hosts: options.consoleHosts,
      fallback:
        web ??
        ((_request, response) => {
          response
            .writeHead(404, { "content-type": "text/plain" })
            .end("the web console is disabled in this process\n");
        }),
    });
  } catch (error) {
    if (hasErrorCode(error, "EADDRINUSE"))
      throw portInUse(options.httpPort, "web console", "--http-port", "SWITCHYARD_HTTP_PORT");
    throw error;
  }
  teardown.add(() => http.close());
  // Runs first at stop: live API streams end cleanly before their connections are closed.
  teardown.add(() => deps.feed.close());
  return http;
}

/**
 * Starts Switchyard, step by step in this order: the files it needs (checked first, so a missing
 * one is a one-line error, not a half-started server), the database (embedded unless a URL is
 * given), the first admin, the secrets keyring, node status tracking, the served snapshot, the
 * database notifications, the xDS port (here or in workers), then the API and the console. On
 * failure, whatever was started is stopped before the error is rethrown.
 */
export async function startSwitchyard(options: SwitchyardOptions): Promise<Switchyard> {
  const { logger } = options;
  const teardown = new Teardown(logger);
  setRegexMaxProgramSize(options.regexMaxProgramSize ?? DEFAULT_REGEX_MAX_PROGRAM_SIZE);
  setMaxResponseBytes(options.xdsMaxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  try {
    const xdsInputs = readXdsInputs(options);
    const consoleTls = readConsoleTls(options.consoleTls);
    const database = await startDatabase(options, teardown);
    const prisma = createPrismaClient(database.url);
    teardown.add(() => prisma.$disconnect());
    const initialAdmin = await ensureInitialAdmin(prisma, { password: options.adminPassword });
    if (initialAdmin.t === "created")
      logger.info(
        { username: initialAdmin.username },
        initialAdmin.generatedPassword === null
          ? "created the first admin account with SWITCHYARD_ADMIN_PASSWORD"
          : "created the first admin account with a generated password (shown once on stdout)",
      );
    await storeSchemaFiles(prisma, options.envoySchemaFiles ?? []);
    const schemas = await followEnvoySchemas(prisma, logger);
    const keyring = await openKeyring(prisma, options);
    const metrics = createMetrics();
    // Publishes and rollbacks are timed as database work, without instrumenting Prisma globally.
    const store = new SnapshotStore(prisma, {
      timed: (operation, work) => metrics.timeDb(operation, work),
      keyring,
    });
    const files = startFileDelivery(options, teardown);
    const status = await startStatusTracking({
      ...options,
      servesStreams: (options.xdsWorkers ?? 0) === 0,
      databaseUrl: database.url,
      prisma,
      metrics,
      teardown,
    });
    const serving = await startServing({
      prisma,
      keyring,
      metrics,
      logger,
      teardown,
      status,
      files,
    });
    // Live views: every replica's status writes and publishes reach this process's Watch*
    // streams through Postgres NOTIFY.
    const feed = new StatusFeed({
      prisma,
      onError: (error) => logger.warn({ err: error }, "reading node status for live views failed"),
    });
    teardown.add(() => feed.close());
    const onPublished = (snapshot: PublishedSnapshot) => {
      metrics.onPublished(snapshot.record.version);
      serving.serve(snapshot);
      logger.info(
        { version: snapshot.record.version, author: snapshot.record.author },
        "published",
      );
    };
    // Rollouts: this replica drives those whose lease it holds (rollout-driver.ts); every
    // process serves them from their rows (rollout-follower.ts).
    const rolloutHub = new RolloutHub();
    const driver = new RolloutDriver({
      prisma,
      store,
      onPublished,
      replicaId: status.replicaId,
      feed,
      onTransition: (kind) => metrics.onRolloutTransition(kind),
      logger,
      ...(options.rolloutLeaseMs === undefined ? {} : { leaseMs: options.rolloutLeaseMs }),
    });
    teardown.add(() => driver.close());
    await listenToDatabase({
      databaseUrl: database.url,
      follower: serving.follower,
      feed,
      schemas,
      rollouts: (id) => {
        void serving.followRollouts.sync().catch(() => undefined);
        rolloutHub.changed(id);
        driver.nudge();
      },
      logger,
      teardown,
    });
    driver.start();
    const xds = await startXds(
      options,
      { ...options, prisma, inputs: xdsInputs, serving, status, metrics, logger, teardown },
      database.url,
    );
    warnAboutXdsExposure(logger, options.host, xdsInputs, xds.port);
    warnAboutConsoleHosts(logger, options.host, options.consoleHosts ?? []);
    const http = await startApi(options, {
      prisma,
      store,
      keyring,
      metrics,
      feed,
      consoleTls,
      teardown,
      xds: {
        advertised: options.advertiseXdsAddress,
        host: options.host,
        port: xds.port,
        tls: options.xdsSecurity?.tlsCertFile !== undefined,
        auth: options.xdsSecurity?.mode ?? "none",
      },
      onPublished,
      rolloutHub,
    });
    return {
      httpPort: http.port,
      httpScheme: consoleTls === undefined ? "http" : "https",
      xdsPort: xds.port,
      databaseUrl: database.url,
      embeddedDataDir: database.embeddedDataDir,
      prisma,
      cache: serving.cache,
      rollout: (command) => xds.rollout(command),
      status,
      initialAdmin,
      // Draining first: proxies move to another replica while the rest shuts down (the status
      // writer still records their disconnects: it stops after the xDS server).
      stop: async () => {
        await xds.drain();
        await teardown.run();
      },
    };
  } catch (error) {
    await teardown.run();
    throw error;
  }
}
