/**
 * `switchyard publish`: the draft pinned as reviewed (its base version and revision) and published
 * as the next version, as a rollout when the flags or the admins' default plan say so
 * (publish-rollout.ts). `pinnedDraft` is shared with `review request`, which pins the same way.
 */
import { CliError, type ConfigClient, formatIssue, type RolloutClient } from "./client.js";
import { changeLines, type Output, summarizeChanges } from "./output.js";
import {
  type PublishRolloutFlags,
  printStartedRollouts,
  rolloutRequestOf,
} from "./publish-rollout.js";

/**
 * What publishing commands ask the server to answer with: the changes by name, which is all they
 * print. Rendering each object's YAML would only make the publish answer later.
 */
export const NAMES_ONLY = { omit: true } as const;

/**
 * The draft as it is now, pinned for a publish or a review request (its base version and
 * revision: refused if either moves before the call lands); refused when there is nothing to do.
 */
export async function pinnedDraft(
  client: ConfigClient,
  what: "publish" | "review",
  message: string,
): Promise<{ message: string; baseVersion: bigint; draftRevision: string }> {
  const reviewed = await client.diff({ bodies: { omit: true } });
  if (reviewed.changes.length === 0)
    throw new CliError(
      `nothing to ${what}: the draft is identical to version ${reviewed.fromVersion}`,
    );
  return { message, baseVersion: reviewed.fromVersion, draftRevision: reviewed.draftRevision };
}

/**
 * `switchyard publish -m MSG`: the draft as the next version. As a rollout with `--rollout PLAN`
 * or `--waves ...` (publish-rollout.ts), or when the admins' default plan says so; the rollouts
 * it started are printed after it. `--abort-rollout` supersedes a rollout running in a node group
 * the version changes (without it the publish is refused, naming the rollout). `--accept-warnings`
 * publishes past predicted rejections (without it a publish that adds one is refused, naming
 * each).
 */
export async function publish(
  client: ConfigClient,
  output: Output,
  options: PublishRolloutFlags & {
    message: string;
    overrideRouteTests?: string;
    abortRollout?: boolean;
    /** Publish past predicted rejections (accept_warnings). */
    acceptWarnings?: boolean;
  },
  rollouts?: RolloutClient,
): Promise<void> {
  const rollout = rolloutRequestOf(options);
  const published = await client.publish({
    ...(await pinnedDraft(client, "publish", options.message)),
    routeTestOverride: options.overrideRouteTests ?? "",
    ...(rollout === undefined ? {} : { rollout }),
    abortRollout: options.abortRollout === true,
    acceptWarnings: options.acceptWarnings === true,
    bodies: NAMES_ONLY,
  });
  for (const warning of published.warnings) output.out(`${formatIssue(warning)}\n`);
  output.out(
    `published version ${published.snapshot?.version}: ${summarizeChanges(published.changes)}\n${changeLines(published.changes)}`,
  );
  await printStartedRollouts(output, published.rolloutIds, rollouts);
}
