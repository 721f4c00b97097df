import * as os from "node:os";
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  MAX_MAX_RESPONSE_BYTES,
  MIN_MAX_RESPONSE_BYTES,
} from "@switchyard/snapshot";
import { z } from "zod";
import { trustedProxies } from "./access/request-context.js";
import { DURATION_HINT, durationMs } from "./duration.js";
import { metricsTokenProblem } from "./metrics-token.js";
import { decodeSecretsKey } from "./secrets-key.js";
import { xdsAddressProblem } from "./xds-advertise.js";
import { DEFAULT_XDS_AUTHORITY, parseAuthorities } from "./xds-authority.js";

/** A duration such as "10s" or "24h", as ms. */
const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, context) => {
      const ms = durationMs(text);
      if (ms === undefined) {
        context.addIssue({
          code: "custom",
          message: `invalid duration "${text}": ${DURATION_HINT}`,
        });
        return z.NEVER;
      }
      return ms;
    });

/** Host names, comma-separated. */
const hostNames = z
  .string()
  .default("")
  .transform((text) =>
    text
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );

/**
 * Every environment variable Switchyard reads, validated once. Nothing else reads process.env.
 * Flags given to the CLI take precedence over these.
 */
/**
 * An xDS response limit (`--xds-max-response-bytes`): a whole number of bytes, or of KiB / MiB
 * ("64KiB", "4MiB"), from 16 KiB to 2^31 - 1 bytes. The problem in words when it is not one.
 */
export function parseResponseBytes(text: string): number | { readonly problem: string } {
  const match = /^\s*(\d+)\s*(|B|KiB|K|MiB|M)\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? "";
  const scale = unit.startsWith("m") ? 1024 * 1024 : unit.startsWith("k") ? 1024 : 1;
  const bytes = match?.[1] === undefined ? Number.NaN : Number(match[1]) * scale;
  if (
    Number.isSafeInteger(bytes) &&
    bytes >= MIN_MAX_RESPONSE_BYTES &&
    bytes <= MAX_MAX_RESPONSE_BYTES
  )
    return bytes;
  return {
    problem: `"${text}" is not an xDS response limit: a whole number of bytes (or KiB, MiB: "4MiB") from ${MIN_MAX_RESPONSE_BYTES} (16 KiB) to ${MAX_MAX_RESPONSE_BYTES}, the max receive message size of your proxies' gRPC clients (4 MiB by default)`,
  };
}

/** The most xDS worker processes `serve` starts. */
export const MAX_XDS_WORKERS = 64;

const EnvSchema = z.object({
  /** Port of the web console and the console API (HTTP/1.1). */
  SWITCHYARD_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Port of the xDS gRPC server (HTTP/2 cleartext). */
  SWITCHYARD_XDS_PORT: z.coerce.number().int().min(0).max(65535).default(18000),
  /**
   * Worker processes serving xDS, sharing the xDS port (xds-workers.ts); 0 serves xDS in the main
   * process. Default: one per core.
   */
  SWITCHYARD_XDS_WORKERS: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_XDS_WORKERS)
    .default(os.availableParallelism()),
  /**
   * HOST:PORT proxies dial for xDS when it differs from the bind address and port (a load
   * balancer, a published container port): what bootstraps write (xds-advertise.ts).
   */
  SWITCHYARD_ADVERTISE_XDS_ADDRESS: z
    .string()
    .optional()
    .superRefine((text, context) => {
      const problem = text === undefined ? undefined : xdsAddressProblem(text);
      if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
    }),
  /** Address both servers bind to. Loopback by default: expose deliberately. */
  SWITCHYARD_HOST: z.string().min(1).default("127.0.0.1"),
  /** Where the embedded PostgreSQL keeps its data (ignored when DATABASE_URL is set). */
  SWITCHYARD_DATA_DIR: z.string().min(1).optional(),
  /** An external PostgreSQL; when unset, Switchyard runs an embedded one. */
  DATABASE_URL: z.string().url().optional(),
  /** Log level: fatal, error, warn, info, debug, trace or silent. */
  SWITCHYARD_LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info"),
  /**
   * The largest xDS response sent (response-size.ts in @switchyard/snapshot): larger ones are
   * split where the protocol allows, and a publish needing one that cannot be is refused. gRPC's
   * default max receive message size, 4 MiB, unless the proxies' clients are configured larger.
   */
  SWITCHYARD_XDS_MAX_RESPONSE_BYTES: z
    .string()
    .default(String(DEFAULT_MAX_RESPONSE_BYTES))
    .transform((text, context) => {
      const bytes = parseResponseBytes(text);
      if (typeof bytes === "number") return bytes;
      context.addIssue({ code: "custom", message: bytes.problem });
      return z.NEVER;
    }),
  /** How long a response may go unanswered before the node's type shows STALE. */
  SWITCHYARD_STALE_AFTER: duration("30s"),
  /** How often proxies are asked to report the load of clusters that report it (LRS). */
  SWITCHYARD_LOAD_REPORT_INTERVAL: duration("10s"),
  /**
   * How long a replica's lease lasts without renewal (renewed every quarter of it) before the
   * other replicas mark its nodes disconnected.
   */
  SWITCHYARD_REPLICA_LEASE: duration("20s"),
  /**
   * The xdstp:// authorities this server answers for, comma-separated (xds-authority.ts): every
   * resource is also served as `xdstp://AUTHORITY/TYPE/NAME`. `none`: no xdstp:// names.
   */
  SWITCHYARD_XDS_AUTHORITY: z
    .string()
    .default(DEFAULT_XDS_AUTHORITY)
    .transform((text, context) => {
      const parsed = parseAuthorities(text);
      if (typeof parsed === "string") {
        context.addIssue({ code: "custom", message: parsed });
        return z.NEVER;
      }
      return parsed;
    }),
  /** A folder to also write each node group's config to, as files (file delivery). */
  SWITCHYARD_FILE_DELIVERY: z.string().min(1).optional(),
  /** yaml or json. */
  SWITCHYARD_FILE_FORMAT: z.string().default("yaml"),
  /** The file delivery folder as Envoy sees it, when mounted elsewhere. */
  SWITCHYARD_FILE_DELIVERY_ENVOY_DIR: z.string().min(1).optional(),
  /** How long a disconnected node stays listed (with its status and events). */
  SWITCHYARD_NODE_RETENTION: duration("24h"),
  /** How long what each node held over time (XdsNodeHistory) is kept. */
  SWITCHYARD_HISTORY_RETENTION: duration("14d"),
  /** The most history rows kept (the oldest go first). */
  SWITCHYARD_HISTORY_MAX_ROWS: z.coerce.number().int().min(1).default(5_000_000),
  /** The first admin's password, used only when the database has no account yet. */
  SWITCHYARD_ADMIN_PASSWORD: z.string().optional(),
  /** The longest an API token may live: an unset expiry gets this, a later one is refused. */
  SWITCHYARD_TOKEN_MAX_LIFETIME: duration("90d"),
  /** An API token for the CLI; takes precedence over the one `switchyard login` stored. */
  SWITCHYARD_TOKEN: z.string().optional(),
  /**
   * The CLI user's own password, for scripts of the commands that sign in with it (login, token
   * create and revoke, and the privileged ones: user create, team add-domain, ...), which ask for
   * it on a terminal otherwise. Never a flag: `ps` shows arguments.
   */
  SWITCHYARD_PASSWORD: z.string().optional(),
  /**
   * Descriptor sets of newer Envoy APIs for `serve` to load (store/envoy-schemas.ts),
   * comma-separated paths: stored at start unless already stored, like `switchyard schema add`.
   */
  SWITCHYARD_ENVOY_SCHEMA: z
    .string()
    .default("")
    .transform((text) =>
      text
        .split(",")
        .map((file) => file.trim())
        .filter((file) => file !== ""),
    ),
  /** Where the CLI keeps its credentials (switchyard/credentials.json). */
  XDG_CONFIG_HOME: z.string().optional(),
  /**
   * Directories under which members may make proxies read files (a DataSource `filename`),
   * comma-separated absolute paths; unset: none (admins may name any file). auth/local-sources.ts.
   */
  SWITCHYARD_MEMBER_FILE_DIRS: z
    .string()
    .default("")
    .transform((text, context) => {
      const dirs = text
        .split(",")
        .map((dir) => dir.trim())
        .filter((dir) => dir !== "");
      const relative = dirs.find((dir) => !dir.startsWith("/"));
      if (relative !== undefined) {
        context.addIssue({ code: "custom", message: `"${relative}" is not an absolute path` });
        return z.NEVER;
      }
      return dirs;
    }),
  /**
   * The largest RE2 program a caller's regular expression may compile to (Envoy's
   * re2.max_program_size.error_level, whose default this is): snapshot's match/regex-limit.ts.
   */
  SWITCHYARD_REGEX_MAX_PROGRAM_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /**
   * Proxies in front of the console whose X-Forwarded-For and X-Forwarded-Proto are believed,
   * comma-separated IP addresses or CIDR ranges (or loopback, linklocal, uniquelocal). Unset:
   * none, and the client is the socket's peer.
   */
  SWITCHYARD_TRUSTED_PROXIES: z
    .string()
    .default("")
    .transform((text, context) => {
      const entries = text
        .split(",")
        .map((entry) => entry.trim())
        .filter((entry) => entry !== "");
      try {
        trustedProxies(entries);
      } catch (error) {
        context.addIssue({
          code: "custom",
          message: error instanceof Error ? error.message : String(error),
        });
        return z.NEVER;
      }
      return entries;
    }),
  /**
   * Host names the xDS port's REST-JSON discovery answers to besides IP addresses and localhost,
   * comma-separated (Envoy's REST fetcher sends its cluster's name as Host).
   */
  SWITCHYARD_XDS_REST_HOSTS: hostNames,
  /**
   * Host names the console port answers to besides IP addresses and localhost, comma-separated:
   * any other Host is refused (DNS rebinding).
   */
  SWITCHYARD_CONSOLE_HOSTS: hostNames,
  /**
   * `true`: start even though the xDS port is bound beyond loopback with no client
   * authentication (--insecure). Anything else: refuse to.
   */
  SWITCHYARD_INSECURE: z
    .enum(["true", "false", ""])
    .default("")
    .transform((text) => text === "true"),
  /** Client authentication on the xDS port: none, mtls or token (default none; mtls with a client CA). */
  SWITCHYARD_XDS_AUTH: z.enum(["none", "mtls", "token"]).optional(),
  /** `true`: the console port serves HTTPS (needs the two below, which imply it). */
  SWITCHYARD_TLS: z
    .enum(["true", "false", ""])
    .default("")
    .transform((text) => text === "true"),
  /** PEM certificate (chain) and key of the console port's HTTPS; unset: HTTP. */
  SWITCHYARD_TLS_CERT: z.string().min(1).optional(),
  SWITCHYARD_TLS_KEY: z.string().min(1).optional(),
  /** PEM certificate (chain) and key of the xDS port's TLS; unset: cleartext. */
  SWITCHYARD_XDS_TLS_CERT: z.string().min(1).optional(),
  SWITCHYARD_XDS_TLS_KEY: z.string().min(1).optional(),
  /** PEM CA that client certificates must be signed by (mtls). */
  SWITCHYARD_XDS_CLIENT_CA: z.string().min(1).optional(),
  /** YAML/JSON file of accepted xDS tokens (by SHA-256) and certificate entitlements. */
  SWITCHYARD_XDS_CREDENTIALS: z.string().min(1).optional(),
  /**
   * The key that encrypts TLS private keys at rest: base64 of 32 bytes, the same on every
   * replica. Unset with the embedded database: a key file in the data folder. Unset with
   * DATABASE_URL: secrets cannot be written.
   */
  SWITCHYARD_SECRETS_KEY: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined) return undefined;
      const key = decodeSecretsKey(text);
      if (typeof key === "string") {
        context.addIssue({ code: "custom", message: key });
        return z.NEVER;
      }
      return key;
    }),
  /**
   * Keys being rotated out (comma-separated, base64 of 32 bytes each): they still open what they
   * sealed, and at startup every secret they sealed is sealed again with SWITCHYARD_SECRETS_KEY.
   */
  SWITCHYARD_SECRETS_KEY_PREVIOUS: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined) return [];
      const keys: Uint8Array[] = [];
      for (const [index, part] of text.split(",").entries()) {
        const key = decodeSecretsKey(part);
        if (typeof key === "string") {
          context.addIssue({ code: "custom", message: `key ${index + 1} ${key}` });
          return z.NEVER;
        }
        keys.push(key);
      }
      return keys;
    }),
  /**
   * The bearer token a scrape of /metrics must send (metrics-token.ts); unset: /metrics is open.
   * Never shown back, in an error or otherwise.
   */
  SWITCHYARD_METRICS_TOKEN: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined) return undefined;
      const problem = metricsTokenProblem(text);
      if (problem !== undefined) {
        context.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      return text;
    }),
  /**
   * The console API address the CLI talks to. Unset: the server `switchyard login` signed in to,
   * else http://localhost:3000 (the CLI's credentials.ts).
   */
  SWITCHYARD_SERVER: z.string().url().optional(),
});

export type Env = z.infer<typeof EnvSchema>;

/** Parses the environment; throws one readable line per bad variable. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(
    Object.fromEntries(Object.entries(source).filter(([, value]) => value !== "")),
  );
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new Error(`invalid environment: ${lines.join("; ")}`);
  }
  return parsed.data;
}
