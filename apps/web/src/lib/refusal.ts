import { Code, ConnectError } from "@connectrpc/connect";
import { type Issue, ValidationErrorsSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { isRejectionRefusal } from "./predicted-rejections";
import { isRouteTestRefusal, parseRouteTestRefusal, type RouteTestRefusal } from "./route-tests";

/**
 * Why the API refused a publish, rollback or import, in the terms the console acts on:
 * - `stale-base`: another version was published after the one reviewed;
 * - `draft-changed`: someone edited the draft after it was reviewed;
 * - `no-changes`: the draft is identical to the latest version;
 * - `invalid`: the content has errors, each in `issues` at its path;
 * - `review-required`: the caller's team requires an admin's review (Team.require_review): they
 *   request one instead of publishing;
 * - `route-tests`: the change breaks stored route tests, each failing case in `failures`; an
 *   admin may publish anyway with a reason (PublishRequest.route_test_override);
 * - `rollout-running`: a node group the version changes has a rollout under way (`rolloutId`,
 *   the first named); the publish may abort it (PublishRequest.abort_rollout);
 * - `predicted-rejections`: validation predicts that some node group's clients will reject the
 *   version, each new rejection in `issues`; the publish may accept the warnings
 *   (PublishRequest.accept_warnings);
 * - `other`: anything else; `message` is the server's.
 */
export type Refusal =
  | { readonly t: "stale-base"; readonly message: string }
  | { readonly t: "draft-changed"; readonly message: string }
  | { readonly t: "no-changes"; readonly message: string }
  | { readonly t: "invalid"; readonly message: string; readonly issues: readonly Issue[] }
  | { readonly t: "review-required"; readonly message: string }
  | { readonly t: "route-tests"; readonly message: string; readonly failures: RouteTestRefusal }
  | { readonly t: "rollout-running"; readonly message: string; readonly rolloutId: bigint }
  | {
      readonly t: "predicted-rejections";
      readonly message: string;
      readonly issues: readonly Issue[];
    }
  | { readonly t: "other"; readonly message: string; readonly code: Code };

/**
 * Classifies an API error. The FailedPrecondition refusals share a code; they are told apart by
 * the server's message (packages/server/src/store/snapshot-store.ts, writeSnapshot,
 * src/auth/authorize.ts for review, src/api/route-test-gate.ts for route tests, and
 * src/api/rollout-start.ts for a running rollout).
 */
export function classifyRefusal(error: unknown): Refusal {
  const e = ConnectError.from(error);
  const message = e.rawMessage;
  if (e.code === Code.InvalidArgument) {
    const issues = e.findDetails(ValidationErrorsSchema).flatMap((d) => d.issues);
    return { t: "invalid", message, issues };
  }
  if (e.code === Code.FailedPrecondition) {
    if (/published after the version you reviewed/.test(message))
      return { t: "stale-base", message };
    if (/draft changed after you reviewed/.test(message)) return { t: "draft-changed", message };
    if (/^nothing to publish/.test(message)) return { t: "no-changes", message };
    // A rollback's refusal says to ask an admin, and stays "other" with the server's words.
    if (/requires an admin's review.*request one/.test(message))
      return { t: "review-required", message };
    if (isRouteTestRefusal(message))
      return { t: "route-tests", message, failures: parseRouteTestRefusal(message) };
    if (isRejectionRefusal(message)) {
      const issues = e.findDetails(ValidationErrorsSchema).flatMap((d) => d.issues);
      return { t: "predicted-rejections", message, issues };
    }
    const running = /has rollout (\d+) .*--abort-rollout/.exec(message);
    if (running) return { t: "rollout-running", message, rolloutId: BigInt(running[1] ?? "0") };
  }
  return { t: "other", message, code: e.code };
}

/**
 * One sentence for a toast or an alert's title: what happened and what to do now, `then` being
 * what the reader was doing ("publish", "request a review").
 */
export function refusalTitle(refusal: Refusal, then = "publish"): string {
  switch (refusal.t) {
    case "stale-base":
      return `Someone published a newer version while you were reviewing. Review the changes again, then ${then}.`;
    case "draft-changed":
      return `The draft changed after you reviewed it. Review the updated changes, then ${then}.`;
    case "no-changes":
      return "Nothing to publish: the draft is identical to the latest version.";
    case "invalid":
      return refusal.issues.length > 0
        ? `Refused: ${refusal.issues.length} ${refusal.issues.length === 1 ? "problem" : "problems"} to fix first.`
        : `Refused: ${refusal.message}`;
    case "review-required":
      return "Your team now requires an admin's review: request one instead of publishing.";
    case "route-tests": {
      const n = refusal.failures.count;
      return `Refused: this change breaks ${n} route test ${n === 1 ? "case" : "cases"}. Fix the change or the tests.`;
    }
    case "rollout-running":
      return `Refused: rollout ${refusal.rolloutId} is under way in a node group this version changes. Wait for it to end, or abort it and ${then}.`;
    case "predicted-rejections": {
      const n = refusal.issues.length;
      return `Refused: validation predicts that clients will reject this version (${n} ${n === 1 ? "warning" : "warnings"}). Fix it, or accept the warnings and ${then}.`;
    }
    case "other":
      return refusal.message || "The request failed.";
  }
}
