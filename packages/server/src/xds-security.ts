import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import {
  ANY_NODE_GROUP,
  NO_CREDENTIALS,
  sha256Hex,
  type XdsAuthMode,
  type XdsCredentials,
  type XdsTlsOptions,
} from "@switchyard/xds";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { readFlagFile, StartupError } from "./startup-error.js";

/**
 * Client authentication on the xDS port, as `serve` is configured (flags and env): which mode,
 * the TLS files, and the credentials file. The file holds no secret: each token is listed by its
 * SHA-256, so it can sit in a ConfigMap or a repository; the token itself is shown once, by
 * `switchyard xds-token`. It is read again when it changes, and a token removed from it stops
 * working at once, open streams included.
 */
export interface XdsSecurityOptions {
  readonly mode: XdsAuthMode;
  readonly tlsCertFile?: string | undefined;
  readonly tlsKeyFile?: string | undefined;
  /** The CA client certificates must be signed by (mode mtls). */
  readonly clientCaFile?: string | undefined;
  /** YAML or JSON: `tokens` and `certificates` (see README "xDS client authentication"). */
  readonly credentialsFile?: string | undefined;
}

/** Decides the mode from what was given: `--xds-client-ca` alone means mtls. */
export function xdsAuthMode(
  given: XdsAuthMode | undefined,
  clientCaFile: string | undefined,
): XdsAuthMode {
  return given ?? (clientCaFile === undefined ? "none" : "mtls");
}

/** Whether `host` binds loopback only: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Refuses to serve xDS beyond this machine with no client authentication unless told to
 * (`--insecure`): anyone who can reach the port would be served every node group's config.
 * (Private keys are never served to unauthenticated clients, insecure or not.)
 */
export function checkXdsExposure(host: string, mode: XdsAuthMode, insecure: boolean): void {
  if (mode !== "none" || insecure || isLoopbackHost(host)) return;
  throw new StartupError(
    `the xDS port would listen on ${host} (beyond this machine) with no client authentication: ` +
      "anyone who can reach it would be served every node group's configuration. Authenticate " +
      "proxies (--xds-auth token --xds-credentials FILE, or --xds-auth mtls), bind to 127.0.0.1, " +
      "or, on a network you trust, say so with --insecure (SWITCHYARD_INSECURE=true)",
  );
}

/** Checks that the options fit together; a StartupError says what is missing. */
export function checkXdsSecurity(options: XdsSecurityOptions): void {
  const { mode } = options;
  if ((options.tlsCertFile === undefined) !== (options.tlsKeyFile === undefined)) {
    throw new StartupError(
      "--xds-tls-cert and --xds-tls-key (SWITCHYARD_XDS_TLS_CERT, SWITCHYARD_XDS_TLS_KEY) go together: give both, or neither for a cleartext xDS port",
    );
  }
  if (
    mode === "mtls" &&
    (options.tlsCertFile === undefined || options.clientCaFile === undefined)
  ) {
    throw new StartupError(
      "--xds-auth mtls needs TLS on the xDS port and a CA for client certificates: give --xds-tls-cert, --xds-tls-key and --xds-client-ca",
    );
  }
  if (mode !== "mtls" && options.clientCaFile !== undefined) {
    throw new StartupError(
      `--xds-client-ca is only used with --xds-auth mtls, but --xds-auth is ${mode}: drop one of them`,
    );
  }
  if (mode === "token" && options.credentialsFile === undefined) {
    throw new StartupError(
      "--xds-auth token needs the tokens it accepts: give --xds-credentials FILE (make entries with `switchyard xds-token`)",
    );
  }
}

/** The PEM files of the xDS port's TLS, or undefined for cleartext. */
export function readXdsTls(options: XdsSecurityOptions): XdsTlsOptions | undefined {
  if (options.tlsCertFile === undefined || options.tlsKeyFile === undefined) return undefined;
  return {
    cert: readFlagFile(options.tlsCertFile, "--xds-tls-cert"),
    key: readFlagFile(options.tlsKeyFile, "--xds-tls-key"),
    ...(options.clientCaFile === undefined
      ? {}
      : { clientCa: readFlagFile(options.clientCaFile, "--xds-client-ca") }),
  };
}

const nodeGroups = z
  .array(z.string().min(1, "a node group name is empty"))
  .min(1, `list at least one node group, or "${ANY_NODE_GROUP}" for every group`);

const CredentialsFileSchema = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' or '-' only"),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, "the SHA-256 of the token as 64 lower-case hex characters"),
        nodeGroups,
      }),
    )
    .default([]),
  certificates: z.array(z.strictObject({ subject: z.string().min(1), nodeGroups })).default([]),
});

/** Parses a credentials file's text; errors name the file and the path of the bad field. */
export function parseXdsCredentials(text: string, file: string): XdsCredentials {
  let data: unknown;
  try {
    data = parseYaml(text) ?? {};
  } catch (error) {
    throw new StartupError(
      `the xDS credentials file ${file} is not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const parsed = CredentialsFileSchema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.map(String).join(".") || "(top level)"}: ${issue.message}`,
    );
    throw new StartupError(`the xDS credentials file ${file} is invalid: ${problems.join("; ")}`);
  }
  const names = new Set<string>();
  for (const [index, token] of parsed.data.tokens.entries()) {
    if (names.has(token.name)) {
      throw new StartupError(
        `the xDS credentials file ${file} is invalid: tokens.${index}.name: "${token.name}" is used twice`,
      );
    }
    names.add(token.name);
  }
  return parsed.data;
}

export function readXdsCredentials(file: string | undefined): XdsCredentials {
  if (file === undefined) return NO_CREDENTIALS;
  return parseXdsCredentials(readFlagFile(file, "--xds-credentials"), file);
}

/**
 * Calls `onChange` with the file's credentials each time its content changes (polled, so a file
 * replaced by a rename, as Kubernetes does with mounted secrets, is seen too), or `onError` when
 * the new content is invalid (the old credentials stay). Returns the stop.
 */
export function watchXdsCredentials(
  file: string,
  onChange: (credentials: XdsCredentials) => void,
  onError: (error: unknown) => void,
  intervalMs = 1000,
): () => void {
  let last = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  const listener = () => {
    try {
      const text = fs.readFileSync(file, "utf8");
      if (text === last) return;
      last = text;
      onChange(parseXdsCredentials(text, file));
    } catch (error) {
      onError(error);
    }
  };
  fs.watchFile(file, { interval: intervalMs }, listener);
  return () => fs.unwatchFile(file, listener);
}

/** A new random token ("syx_" + 32 random bytes, base64url) and its credentials-file entry. */
export function newXdsToken(
  name: string,
  groups: readonly string[],
): {
  token: string;
  entry: { name: string; sha256: string; nodeGroups: string[] };
} {
  const token = `syx_${randomBytes(32).toString("base64url")}`;
  return { token, entry: { name, sha256: sha256Hex(token), nodeGroups: [...groups] } };
}

/** Whether `host` binds only to the loopback interface. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
