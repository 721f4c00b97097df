/**
 * Predicted rejections gate like route tests (issue 46). Validation marks the warnings whose rule
 * says some node group's clients would NACK the resource (`rejection`, validate-rejections.ts in
 * @switchyard/snapshot: today the proxyless gRPC rules). A publish (an apply, an approved review,
 * endpoint registration) whose configuration has a predicted rejection the latest published
 * version does not have — the same rule, object and node group — is refused
 * (FailedPrecondition, naming each) unless the caller accepts the warnings (accept_warnings;
 * `--accept-warnings`; the console's confirmation). A rejection the latest version has too is
 * one the fleet already lives with: it refuses nothing, or it would block every unrelated publish
 * until someone fixes it. Rollbacks are not gated: they restore what ran. A refused publish
 * writes nothing (it is refused inside the publish transaction, before any write).
 */

import type { TransactionClient } from "@switchyard/db";
import {
  type ConfigSpec,
  issueObject,
  KIND_LABEL,
  KIND_OF_FIELD,
  markPublishedRejections,
  newRejections,
  predictedRejections,
  type RejectionEntry,
  type ValidationIssue,
  validate,
} from "@switchyard/snapshot";
import type { SecretKeyring } from "../secrets-key.js";

/** Whether a publish is gated on predicted rejections, and whether its caller accepted them. */
export interface RejectionGate {
  /** accept_warnings: publish past new predicted rejections (they stay warnings of the answer). */
  readonly accept: boolean;
  /**
   * The predicted rejections of published version `version` (SnapshotStore's, worked out once
   * per version); without it the publish validates that version again.
   */
  readonly published?: (
    tx: TransactionClient,
    version: number,
  ) => Promise<readonly RejectionEntry[]>;
}

/** Rejections listed in a refusal at most; the rest are counted. */
const LISTED = 20;

/** The predicted rejections of a published configuration (none: nothing published). */
export function rejectionsOf(
  spec: ConfigSpec | undefined,
  keyring: SecretKeyring | undefined,
): RejectionEntry[] {
  if (spec === undefined) return [];
  return predictedRejections(validate(spec, keyring ? { openSecret: keyring.open } : {}).issues);
}

/** `cluster "echo-v2"` for `clusters["echo-v2"]`. */
function objectWords(path: string): string {
  const object = issueObject(path);
  if (object === null) return path;
  const kind = KIND_OF_FIELD[object.kind];
  return `${kind ? KIND_LABEL[kind] : object.kind} ${JSON.stringify(object.name)}`;
}

/** The refusal: each new predicted rejection by node group, object and rule, and what to do. */
export function rejectionRefusalText(
  fresh: readonly RejectionEntry[],
  latestVersion: number,
): string {
  const since = latestVersion === 0 ? "" : ` that version ${latestVersion} does not have`;
  const lines = [
    `validation predicts ${fresh.length} rejection(s) by clients${since}: fix the configuration, or publish anyway with --accept-warnings (accept_warnings in the API):`,
  ];
  for (const entry of fresh.slice(0, LISTED)) {
    const clients = entry.by === "grpc" ? "proxyless gRPC clients" : "Envoy proxies";
    lines.push(
      `  node group ${JSON.stringify(entry.nodeGroup)} (${clients}), ${objectWords(entry.object)}: ${entry.rule}`,
    );
    lines.push(`    ${entry.message}`);
  }
  if (fresh.length > LISTED) lines.push(`  and ${fresh.length - LISTED} more`);
  return lines.join("\n");
}

/** What the gate found: the issues with `alreadyPublished` said, and the new rejections. */
export interface RejectionVerdict {
  readonly issues: readonly ValidationIssue[];
  readonly fresh: readonly RejectionEntry[];
}

/**
 * `issues` (a validation of what is about to be published) compared with the predicted
 * rejections of the latest version, which `latest` gives, asked only when `issues` has some.
 */
export async function rejectionVerdict(
  issues: readonly ValidationIssue[],
  latest: () => Promise<readonly RejectionEntry[]>,
): Promise<RejectionVerdict> {
  const predicted = predictedRejections(issues);
  if (predicted.length === 0) return { issues, fresh: [] };
  const published = await latest();
  return {
    issues: markPublishedRejections(issues, published),
    fresh: newRejections(predicted, published),
  };
}
