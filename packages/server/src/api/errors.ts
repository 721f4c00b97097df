import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type Issue,
  IssueSchema,
  Severity,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { MissingReferenceError } from "../store/draft-store.js";
import { PublishError } from "../store/publish-transaction.js";

/** What the API reports as an Issue: a validation issue, or an import issue (which has a position). */
export interface ApiIssue {
  readonly severity: "error" | "warning" | "info";
  readonly code?: string;
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
  readonly line?: number;
  readonly column?: number;
  /** A predicted rejection (ValidationIssue.rejection). */
  readonly rejection?: {
    readonly by: string;
    readonly nodeGroups: readonly string[];
    readonly alreadyPublished?: boolean;
  };
}

const severityOf = {
  error: Severity.ERROR,
  warning: Severity.WARNING,
  info: Severity.INFO,
} as const;

export function issueMessage(issue: ApiIssue): Issue {
  const position =
    issue.line === undefined
      ? ""
      : ` (line ${issue.line}${issue.column === undefined ? "" : `, column ${issue.column}`})`;
  return create(IssueSchema, {
    severity: severityOf[issue.severity],
    code: issue.code ?? (issue.severity === "info" ? "import-note" : "invalid-envoy-config"),
    path: issue.path,
    message: `${issue.message}${position}`,
    hint: issue.hint ?? "",
    line: issue.line ?? 0,
    column: issue.column ?? 0,
    ...(issue.rejection === undefined
      ? {}
      : {
          rejection: {
            client: issue.rejection.by,
            nodeGroups: [...issue.rejection.nodeGroups],
            alreadyPublished: issue.rejection.alreadyPublished === true,
          },
        }),
  });
}

/**
 * A request refused because of its content: InvalidArgument (or `code`), with every issue attached
 * as a `switchyard.v1.ValidationErrors` detail so clients can show each at its path.
 */
export function invalidArgument(
  message: string,
  issues: readonly ApiIssue[],
  code: Code = Code.InvalidArgument,
): ConnectError {
  return new ConnectError(message, code, undefined, [
    { desc: ValidationErrorsSchema, value: { issues: issues.map(issueMessage) } },
  ]);
}

export function notFound(what: string): ConnectError {
  return new ConnectError(`${what} does not exist`, Code.NotFound);
}

/** Maps the stores' errors to the API's codes; anything else propagates (Connect reports Internal). */
export function toConnectError(error: unknown): unknown {
  if (error instanceof PublishError) {
    switch (error.code) {
      case "invalid":
        return invalidArgument(error.message, error.issues);
      case "not-found":
        return new ConnectError(error.message, Code.NotFound);
      case "predicted-rejection":
        // Each new predicted rejection attached, so a client can list them (the console asks).
        return invalidArgument(error.message, error.issues, Code.FailedPrecondition);
      default:
        return new ConnectError(error.message, Code.FailedPrecondition);
    }
  }
  if (error instanceof MissingReferenceError)
    return new ConnectError(error.message, Code.FailedPrecondition);
  return error;
}

/** Runs `work`, translating store errors into ConnectErrors. */
export async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toConnectError(error);
  }
}
