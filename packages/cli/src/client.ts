import type { DescService } from "@bufbuild/protobuf";
import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import {
  ConfigService,
  type Issue,
  Severity,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { RoutingService } from "@switchyard/proto/switchyard/v1/routing_pb";
import { readEnv } from "@switchyard/server/env";
import { shownPath } from "@switchyard/snapshot";
import {
  latestLogin,
  type ServerChoice,
  type StoredCredential,
  serverKey,
  storedCredential,
  tokenOf,
} from "./credentials.js";
import { CliError } from "./errors.js";
import { cliIo } from "./io.js";

export type ConfigClient = Client<typeof ConfigService>;

export { CliError };

/** Sends the API token (SWITCHYARD_TOKEN, else the one `switchyard login` stored) as a bearer. */
export function credentials(server: string): Interceptor {
  return (next) => (request) => {
    const token = tokenOf(server);
    if (token !== undefined) request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
}

/** A client of `service` on `server`, sending the CLI's credentials. */
function connectTo<S extends DescService>(service: S, server: string): Client<S> {
  return createClient(
    service,
    createConnectTransport({
      baseUrl: server,
      httpVersion: "1.1",
      interceptors: [credentials(server)],
    }),
  );
}

export const connect = (server: string): ConfigClient => connectTo(ConfigService, server);

export const connectAccess = (server: string): Client<typeof AccessService> =>
  connectTo(AccessService, server);

export type RoutingClient = Client<typeof RoutingService>;
export const connectRouting = (server: string): RoutingClient => connectTo(RoutingService, server);

export type RolloutClient = Client<typeof RolloutService>;
export const connectRollout = (server: string): RolloutClient => connectTo(RolloutService, server);

export function formatIssue(issue: Issue): string {
  const severity =
    issue.severity === Severity.WARNING
      ? "warning"
      : issue.severity === Severity.INFO
        ? "note"
        : "error";
  return `  ${severity}  ${shownPath(issue.path)}: ${issue.message}${issue.hint ? ` (${issue.hint})` : ""}${rejectionNote(issue)}`;
}

/** A predicted rejection's clients and node groups, after its warning (Issue.rejection). */
function rejectionNote(issue: Issue): string {
  const rejection = issue.rejection;
  if (rejection === undefined) return "";
  const clients = rejection.client === "grpc" ? "gRPC clients" : "Envoy proxies";
  const groups = rejection.nodeGroups.map((group) => JSON.stringify(group)).join(", ");
  return ` [predicted rejection: ${clients} of node group ${groups}${rejection.alreadyPublished ? "; the latest version has it too" : ""}]`;
}

/** How to name a stored login in a message: "admin, logged in 2026-12-02". */
function loginOf(credential: StoredCredential): string {
  const date = credential.loggedInAt?.slice(0, 10);
  return `${credential.username}${date === undefined ? "" : `, logged in ${date}`}`;
}

/** The connection failed: nobody answers at the server's address. */
export function unreachable(error: ConnectError): boolean {
  return (
    error.code === Code.Unavailable ||
    (error.code === Code.Unknown && /ECONNREFUSED|fetch failed/.test(error.message))
  );
}

/**
 * Turns an API error into a CliError with the server's message and every issue at its path.
 * A failure to reach or sign in to the server says which server was asked and why that one
 * (the flag, the variable, or the latest login), and which server the stored login is for, so
 * a server that moved to another port is a message saying how to follow it, not a refusal.
 */
export function explain(error: unknown, choice: ServerChoice): CliError {
  const server = choice.url;
  const connectError = ConnectError.from(error);
  const login = `switchyard login --server ${server}`;
  if (unreachable(connectError)) {
    const stored = storedCredential(server);
    if (choice.from === "login" && stored !== undefined)
      return new CliError(
        `cannot reach the Switchyard server at ${server}, the one \`switchyard login\` signed in to ` +
          `(${loginOf(stored)}): is it running? If it moved (another host or port), run ` +
          "`switchyard login --server NEW_URL`, or pass --server",
      );
    return new CliError(
      `cannot reach the Switchyard server at ${server} (${choice.from === "default" ? "the default; set --server or SWITCHYARD_SERVER" : `from ${choice.from}`}): is it running? Start one with \`npm start\``,
    );
  }
  if (connectError.code === Code.Unauthenticated) {
    if (tokenOf(server) === undefined) {
      const latest = latestLogin();
      if (latest !== undefined && latest.server !== serverKey(server))
        return new CliError(
          `not logged in to ${server} (from ${choice.from}): your login is for ${latest.server} ` +
            `(${loginOf(latest.credential)}). Pass --server ${latest.server} if that is the server ` +
            `you mean, or run \`${login}\``,
        );
      return new CliError(`not logged in: run \`${login}\` or set SWITCHYARD_TOKEN`);
    }
    const stored = storedCredential(server);
    if (readEnv(cliIo().env).SWITCHYARD_TOKEN === undefined && stored !== undefined)
      return new CliError(
        `the server at ${server} refuses the login stored for it (${loginOf(stored)}): ` +
          `${connectError.rawMessage}\n  the login expired or was revoked, or another server ` +
          `answers at this address now: run \`${login}\` again`,
      );
    return new CliError(
      `${connectError.rawMessage}\n  run \`${login}\` again, or set SWITCHYARD_TOKEN to a valid token`,
    );
  }
  const issues = connectError
    .findDetails(ValidationErrorsSchema)
    .flatMap((detail) => detail.issues);
  const lines = [connectError.rawMessage, ...issues.map(formatIssue)];
  return new CliError(lines.join("\n"));
}
