import { createSecureContext } from "node:tls";
import { readFlagFile, StartupError } from "./startup-error.js";

/**
 * HTTPS on the console port, served by Switchyard itself (`serve --tls --tls-cert FILE --tls-key
 * FILE`), for deployments with no TLS-terminating proxy in front. Sessions made over it get a
 * `Secure` cookie (access/request-context.ts reads the encrypted socket); behind a proxy, the
 * proxy's X-Forwarded-Proto says the same (SWITCHYARD_TRUSTED_PROXIES).
 */
export interface ConsoleTlsOptions {
  /** `--tls`: serve HTTPS; needs the certificate and key. Implied by giving them. */
  readonly enabled?: boolean | undefined;
  readonly certFile?: string | undefined;
  readonly keyFile?: string | undefined;
}

/** PEM certificate (chain) and private key. */
export interface ConsoleTls {
  readonly cert: string;
  readonly key: string;
}

/**
 * The console's certificate and key, or undefined for plain HTTP. Checked before anything starts:
 * a missing file, a key that is not the certificate's, or `--tls` alone is a one-line error.
 */
export function readConsoleTls(options: ConsoleTlsOptions | undefined): ConsoleTls | undefined {
  const { enabled = false, certFile, keyFile } = options ?? {};
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new StartupError(
      "--tls-cert and --tls-key (SWITCHYARD_TLS_CERT, SWITCHYARD_TLS_KEY) go together: give both for an HTTPS console, or neither for HTTP",
    );
  }
  if (certFile === undefined || keyFile === undefined) {
    if (!enabled) return undefined;
    throw new StartupError(
      "--tls (SWITCHYARD_TLS=true) serves the console over HTTPS and needs its certificate and key: give --tls-cert FILE and --tls-key FILE",
    );
  }
  const tls = {
    cert: readFlagFile(certFile, "--tls-cert"),
    key: readFlagFile(keyFile, "--tls-key"),
  };
  try {
    createSecureContext(tls);
  } catch (error) {
    throw new StartupError(
      `--tls-cert ${certFile} and --tls-key ${keyFile} are not a PEM certificate and its private key: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return tls;
}
