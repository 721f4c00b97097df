import { Code, ConnectError } from "@connectrpc/connect";
import { Severity, ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import type { FormIssue } from "./issue-path";

/**
 * Why a save was refused, as the forms present it.
 *
 * - `invalid`: the server's validation refused the object (InvalidArgument); `issues` holds each
 *   problem with its model path (a `switchyard.v1.ValidationErrors` detail). A refusal without the
 *   detail (a bad name) still has a message, kept as one issue without a path.
 * - `exists`: create of a name already taken.
 * - `gone`: update or delete of an object that no longer exists.
 * - `changed`: the update named the version it edited (update_time) and someone saved another
 *   since (Aborted).
 * - `denied`: the caller may not make this change (PermissionDenied); `message` says which part
 *   is not theirs (a virtual host another team owns, a cluster).
 * - `other`: anything else; `message` says what.
 */
export type SaveFailure =
  | { readonly t: "invalid"; readonly issues: readonly FormIssue[]; readonly message: string }
  | { readonly t: "exists"; readonly message: string }
  | { readonly t: "gone"; readonly message: string }
  | { readonly t: "changed"; readonly message: string }
  | { readonly t: "denied"; readonly message: string }
  | { readonly t: "other"; readonly message: string };

export function saveFailureOf(error: unknown): SaveFailure {
  const e = ConnectError.from(error);
  switch (e.code) {
    case Code.InvalidArgument: {
      const issues = e
        .findDetails(ValidationErrorsSchema)
        .flatMap((d) => d.issues)
        .filter((issue) => issue.severity !== Severity.WARNING && issue.severity !== Severity.INFO)
        .map((issue) => ({
          path: issue.path,
          code: issue.code,
          message: issue.message,
          hint: issue.hint,
        }));
      return {
        t: "invalid",
        issues:
          issues.length > 0
            ? issues
            : [{ path: "", code: "invalid", message: e.rawMessage, hint: "" }],
        message: e.rawMessage,
      };
    }
    case Code.AlreadyExists:
      return { t: "exists", message: e.rawMessage };
    case Code.NotFound:
      return { t: "gone", message: e.rawMessage };
    case Code.Aborted:
      return { t: "changed", message: e.rawMessage };
    case Code.PermissionDenied:
      return { t: "denied", message: e.rawMessage };
    default:
      return { t: "other", message: e.rawMessage };
  }
}
