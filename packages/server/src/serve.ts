/**
 * A `switchyard serve` process (its command line is @switchyard/cli's): the settings from flags
 * and the environment, the server started (app.ts), its banner, and the signals that stop it.
 */
import * as path from "node:path";
import { pino } from "pino";
import { type Switchyard, startSwitchyard } from "./app.js";
import { routeConsoleToLogger } from "./console-log.js";
import { readEnv } from "./env.js";
import type { FileDeliveryOptions } from "./file-delivery.js";
import { embeddedSecretsKey, SECRETS_KEY_VARIABLE, type SecretsKey } from "./secrets-key.js";
import { StartupError } from "./startup-error.js";
import { xdsAddressProblem } from "./xds-advertise.js";
import { describeAuthorities } from "./xds-authority.js";
import { xdsAuthMode } from "./xds-security.js";

/** A file delivery format, as the flag and SWITCHYARD_FILE_FORMAT spell it. */
export function fileFormat(value: string): "yaml" | "json" {
  if (value !== "yaml" && value !== "json")
    throw new StartupError(`"${value}" is not a file format: use yaml or json`);
  return value;
}

/** The file delivery settings of `serve`, from its flags and the environment. */
function fileDeliveryOf(
  flags: { fileDelivery?: string; fileFormat?: "yaml" | "json"; fileDeliveryEnvoyDir?: string },
  env: ReturnType<typeof readEnv>,
): { fileDelivery?: FileDeliveryOptions } {
  const dir = flags.fileDelivery ?? env.SWITCHYARD_FILE_DELIVERY;
  if (dir === undefined) return {};
  const envoyDir = flags.fileDeliveryEnvoyDir ?? env.SWITCHYARD_FILE_DELIVERY_ENVOY_DIR;
  return {
    fileDelivery: {
      dir: path.resolve(dir),
      format: flags.fileFormat ?? fileFormat(env.SWITCHYARD_FILE_FORMAT),
      ...(envoyDir === undefined ? {} : { envoyDir }),
    },
  };
}

/** The LRS interval asked of proxies: from 1 s (more often only loads them) to an hour. */
function loadReportInterval(ms: number): number {
  if (ms < 1_000 || ms > 3_600_000)
    throw new StartupError(
      `a load report interval of ${ms} ms is out of range: use 1s to 1h (--load-report-interval, SWITCHYARD_LOAD_REPORT_INTERVAL)`,
    );
  return ms;
}

/** Where `npm start` keeps the embedded database: `.data/` at the repository root. */
function defaultDataDir(): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), ".data");
}

export async function serve(flags: {
  httpPort?: number;
  xdsPort?: number;
  advertiseXdsAddress?: string;
  xdsWorkers?: number;
  xdsMaxResponseBytes?: number;
  dataDir?: string;
  host?: string;
  staleAfter?: number;
  loadReportInterval?: number;
  nodeRetention?: number;
  console: boolean;
  xdsAuth?: "none" | "mtls" | "token";
  xdsTlsCert?: string;
  xdsTlsKey?: string;
  xdsClientCa?: string;
  xdsCredentials?: string;
  fileDelivery?: string;
  fileFormat?: "yaml" | "json";
  fileDeliveryEnvoyDir?: string;
  xdsAuthority?: readonly string[];
  xdsRestHosts?: readonly string[];
  consoleHosts?: readonly string[];
  insecure?: boolean;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}): Promise<void> {
  const env = readEnv();
  const advertiseXdsAddress = flags.advertiseXdsAddress ?? env.SWITCHYARD_ADVERTISE_XDS_ADDRESS;
  const advertiseProblem =
    flags.advertiseXdsAddress === undefined
      ? undefined
      : xdsAddressProblem(flags.advertiseXdsAddress);
  if (advertiseProblem !== undefined)
    throw new StartupError(`--advertise-xds-address: ${advertiseProblem}`);
  const loadReportIntervalMs = loadReportInterval(
    flags.loadReportInterval ?? env.SWITCHYARD_LOAD_REPORT_INTERVAL,
  );
  const logger = pino({ level: env.SWITCHYARD_LOG_LEVEL, base: null });
  const dataDir = path.resolve(flags.dataDir ?? env.SWITCHYARD_DATA_DIR ?? defaultDataDir());
  const clientCaFile = flags.xdsClientCa ?? env.SWITCHYARD_XDS_CLIENT_CA;
  const xdsSecurity = {
    mode: xdsAuthMode(flags.xdsAuth ?? env.SWITCHYARD_XDS_AUTH, clientCaFile),
    tlsCertFile: flags.xdsTlsCert ?? env.SWITCHYARD_XDS_TLS_CERT,
    tlsKeyFile: flags.xdsTlsKey ?? env.SWITCHYARD_XDS_TLS_KEY,
    clientCaFile,
    credentialsFile: flags.xdsCredentials ?? env.SWITCHYARD_XDS_CREDENTIALS,
  };
  // The secrets key: from the environment, else (embedded database only) a key file in the data
  // folder; with DATABASE_URL and no key, secrets cannot be written (secrets-key.ts).
  const secretsKey: SecretsKey =
    env.SWITCHYARD_SECRETS_KEY !== undefined
      ? {
          t: "key",
          key: env.SWITCHYARD_SECRETS_KEY,
          source: "env",
          previous: env.SWITCHYARD_SECRETS_KEY_PREVIOUS,
        }
      : env.DATABASE_URL === undefined
        ? await embeddedSecretsKey(dataDir)
        : { t: "none" };
  const xdsWorkers = flags.xdsWorkers ?? env.SWITCHYARD_XDS_WORKERS;
  // Signals are handled from before the start: one that comes while starting, or in the moment
  // between the banner and the end of this function, stops the server once started rather than
  // killing it half-way (a test's SIGTERM right after the banner did, under load).
  let started: Promise<Switchyard> | undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      // In the JSON log as every line after the banner (console-log.ts).
      logger.warn({ signal }, "stopping already; waiting for PostgreSQL to shut down cleanly");
      return;
    }
    stopping = true;
    logger.info({ signal }, "stopping");
    started?.then(
      (app) =>
        app.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, "error while stopping");
            process.exit(1);
          },
        ),
      // A start that failed is reported by the caller, with its exit code.
      () => undefined,
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  // A closed terminal: stop as for Ctrl-C (PostgreSQL, in a process group of its own, is not told).
  process.on("SIGHUP", () => stop("SIGHUP"));
  // What libraries print with console.* and Node's warnings go to the JSON log too (console-log.ts),
  // from the start on; a start that fails gives the console back to the caller.
  const restoreConsole = routeConsoleToLogger(logger);
  started = startSwitchyard({
    secretsKey,
    xdsSecurity,
    httpPort: flags.httpPort ?? env.SWITCHYARD_HTTP_PORT,
    xdsPort: flags.xdsPort ?? env.SWITCHYARD_XDS_PORT,
    advertiseXdsAddress,
    xdsWorkers,
    xdsMaxResponseBytes: flags.xdsMaxResponseBytes ?? env.SWITCHYARD_XDS_MAX_RESPONSE_BYTES,
    host: flags.host ?? env.SWITCHYARD_HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: path.join(dataDir, "postgres"),
    webConsole: flags.console,
    logger,
    staleAfterMs: flags.staleAfter ?? env.SWITCHYARD_STALE_AFTER,
    loadReportIntervalMs,
    retainDisconnectedMs: flags.nodeRetention ?? env.SWITCHYARD_NODE_RETENTION,
    historyRetentionMs: env.SWITCHYARD_HISTORY_RETENTION,
    historyMaxRows: env.SWITCHYARD_HISTORY_MAX_ROWS,
    replicaLeaseMs: env.SWITCHYARD_REPLICA_LEASE,
    xdsAuthorities: flags.xdsAuthority ?? env.SWITCHYARD_XDS_AUTHORITY,
    xdsRestHosts: flags.xdsRestHosts ?? env.SWITCHYARD_XDS_REST_HOSTS,
    consoleHosts: flags.consoleHosts ?? env.SWITCHYARD_CONSOLE_HOSTS,
    trustedProxies: env.SWITCHYARD_TRUSTED_PROXIES,
    tokenMaxLifetimeMs: env.SWITCHYARD_TOKEN_MAX_LIFETIME,
    metricsToken: env.SWITCHYARD_METRICS_TOKEN,
    insecure: flags.insecure === true || env.SWITCHYARD_INSECURE,
    consoleTls: {
      enabled: flags.tls === true || env.SWITCHYARD_TLS,
      certFile: flags.tlsCert ?? env.SWITCHYARD_TLS_CERT,
      keyFile: flags.tlsKey ?? env.SWITCHYARD_TLS_KEY,
    },
    memberFileDirs: env.SWITCHYARD_MEMBER_FILE_DIRS,
    regexMaxProgramSize: env.SWITCHYARD_REGEX_MAX_PROGRAM_SIZE,
    envoySchemaFiles: env.SWITCHYARD_ENVOY_SCHEMA.map((file) => path.resolve(file)),
    ...fileDeliveryOf(flags, env),
    adminPassword: env.SWITCHYARD_ADMIN_PASSWORD,
  });
  let app: Switchyard;
  try {
    app = await started;
  } catch (error) {
    restoreConsole();
    throw error;
  }
  if (app.initialAdmin.t === "created" && app.initialAdmin.generatedPassword !== null) {
    // Shown once, here only: it is stored nowhere but as an argon2id hash (auth/index.ts).
    const rule = "  ".padEnd(72, "=");
    process.stdout.write(
      [
        "",
        rule,
        "  First start: an admin account was created.",
        `    username: ${app.initialAdmin.username}`,
        `    password: ${app.initialAdmin.generatedPassword}`,
        "  It is shown only this once: sign in and keep it in a password manager",
        "  (or set SWITCHYARD_ADMIN_PASSWORD before the first start).",
        rule,
        "",
      ].join("\n"),
    );
  }
  const bound = flags.host ?? env.SWITCHYARD_HOST;
  const shown =
    bound === "127.0.0.1" || bound === "::1"
      ? "localhost"
      : bound.includes(":") && !bound.startsWith("[")
        ? `[${bound}]`
        : bound;
  process.stdout.write(
    [
      "",
      "  Switchyard is running",
      `  ${flags.console ? "Console: " : "API:     "} ${app.httpScheme}://${shown}:${app.httpPort}`,
      `  xDS:      ${shown}:${app.xdsPort}  (gRPC, ${xdsSecurity.tlsCertFile === undefined ? "plaintext" : "TLS"}; ADS; client authentication: ${xdsSecurity.mode}${xdsWorkers === 0 ? "" : `; ${xdsWorkers} worker process${xdsWorkers === 1 ? "" : "es"}`})`,
      ...(advertiseXdsAddress === undefined
        ? []
        : [`  Proxies:  dial ${advertiseXdsAddress} (--advertise-xds-address)`]),
      `  xdstp://: ${describeAuthorities(flags.xdsAuthority ?? env.SWITCHYARD_XDS_AUTHORITY)}`,
      `  Database: ${app.embeddedDataDir === undefined ? "DATABASE_URL" : `embedded PostgreSQL in ${app.embeddedDataDir}`}`,
      `  Secrets:  ${secretsKey.t === "none" ? `no key: TLS secrets cannot be written (set ${SECRETS_KEY_VARIABLE})` : secretsKey.source === "env" ? `encrypted with ${SECRETS_KEY_VARIABLE}` : `encrypted with the key file in ${dataDir}`}`,
      "",
      "  Press Ctrl-C to stop.",
      "",
      "",
    ].join("\n"),
  );
}
