/**
 * What `switchyard bootstrap` asks the server when not told `--xds-address`: where proxies reach
 * its xDS port (WhoAmI's ServerInfo: `serve --advertise-xds-address`, else its bind address and
 * port), and whether that port wants TLS or client credentials the flags do not give.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ServerInfo } from "@switchyard/proto/switchyard/v1/access_pb";
import { connectAccess, explain, unreachable } from "./client.js";
import type { ServerChoice } from "./credentials.js";
import { CliError } from "./errors.js";

/** The flags of `switchyard bootstrap` that say how the proxy reaches the xDS port. */
export interface BootstrapReach {
  readonly grpc?: boolean | undefined;
  readonly xdsCa?: string | undefined;
  readonly clientCert?: string | undefined;
  readonly token?: string | undefined;
}

/** The server's answer, or a one-line CliError saying to pass --xds-address or --server. */
export async function askServer(choice: ServerChoice): Promise<ServerInfo> {
  const server = choice.url;
  const instead = "pass --xds-address HOST:PORT, or --server URL (the console's address)";
  let info: ServerInfo | undefined;
  try {
    info = (await connectAccess(server).whoAmI({})).server;
  } catch (error) {
    const connectError = ConnectError.from(error);
    if (unreachable(connectError)) {
      const why =
        choice.from === "login"
          ? "the server `switchyard login` signed in to"
          : choice.from === "default"
            ? "the default server"
            : `from ${choice.from}`;
      throw new CliError(
        `cannot ask the server at ${server} where proxies reach its xDS port: nothing answers there (${why}); ${instead}`,
        { cause: error },
      );
    }
    if (connectError.code === Code.Unauthenticated)
      throw new CliError(
        `cannot ask the server at ${server} where proxies reach its xDS port: not logged in (\`switchyard login --server ${server}\`); or ${instead}`,
      );
    const reason = explain(error, choice).message.split("\n", 1)[0];
    throw new CliError(
      `cannot ask the server at ${server} where proxies reach its xDS port (${reason}): ${instead}`,
      { cause: error },
    );
  }
  if (info === undefined || info.xdsAddress === "")
    throw new CliError(
      `the server at ${server} does not say where proxies reach its xDS port (an older Switchyard): ${instead}`,
    );
  return info;
}

/**
 * Refuses a bootstrap that cannot reach the port as the server serves it (plaintext to a TLS
 * port), and returns notes for what the flags may be missing (a credential the server asks for).
 */
export function checkReach(info: ServerInfo, flags: BootstrapReach): string[] {
  const at = `the xDS port at ${info.xdsAddress}`;
  if (info.xdsTls && flags.xdsCa === undefined)
    throw new CliError(
      `${at} speaks TLS (serve --xds-tls-cert): pass --xds-ca FILE, the CA that signed its certificate`,
    );
  const notes: string[] = [];
  if (info.xdsAuth === "mtls" && flags.clientCert === undefined)
    notes.push(
      `${at} asks proxies for a client certificate (--xds-auth mtls): pass --client-cert and --client-key`,
    );
  if (info.xdsAuth === "token" && flags.token === undefined && flags.clientCert === undefined)
    notes.push(
      flags.grpc
        ? `${at} authenticates proxies (--xds-auth token): a gRPC bootstrap carries no token; use a client certificate (--client-cert, --client-key) the credentials file accepts`
        : `${at} authenticates proxies (--xds-auth token): pass --token (from \`switchyard xds-token\`)`,
    );
  return notes;
}
