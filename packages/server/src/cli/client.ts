import * as os from "node:os";
import {
  type Client,
  Code,
  ConnectError,
  createClient,
  type Interceptor,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  ConfigService,
  type Issue,
  Severity,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";

export type ConfigClient = Client<typeof ConfigService>;

/** A failure the CLI reports in a few readable lines, then exits non-zero. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/** Tells the server who is making changes (until accounts exist, see the access-control issue). */
const author: Interceptor = (next) => (request) => {
  request.header.set("x-switchyard-author", os.userInfo().username);
  return next(request);
};

export function connect(server: string): ConfigClient {
  return createClient(
    ConfigService,
    createConnectTransport({ baseUrl: server, httpVersion: "1.1", interceptors: [author] }),
  );
}

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
  const issues = connectError
    .findDetails(ValidationErrorsSchema)
    .flatMap((detail) => detail.issues);
  const lines = [connectError.rawMessage, ...issues.map(formatIssue)];
  return new CliError(lines.join("\n"));
}
