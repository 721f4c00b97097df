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
import { tokenOf } from "./credentials.js";
import { CliError } from "./errors.js";

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
  return `  ${severity}  ${issue.path}: ${issue.message}${issue.hint ? ` (${issue.hint})` : ""}`;
}

/** Turns an API error into a CliError with the server's message and every issue at its path. */
export function explain(error: unknown, server: string): CliError {
  const connectError = ConnectError.from(error);
  if (
    connectError.code === Code.Unavailable ||
    (connectError.code === Code.Unknown && /ECONNREFUSED|fetch failed/.test(connectError.message))
  ) {
    return new CliError(
      `cannot reach the Switchyard server at ${server} (set --server or SWITCHYARD_SERVER): is it running? Start one with \`npm start\``,
    );
  }
  if (connectError.code === Code.Unauthenticated) {
    const login = `switchyard login --server ${server}`;
    if (tokenOf(server) === undefined)
      return new CliError(`not logged in: run \`${login}\` or set SWITCHYARD_TOKEN`);
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
