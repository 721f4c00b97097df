/**
 * How a publishing command asks for a rollout, and what it prints of the rollouts it started
 * (README, "Rollouts"): `--rollout PLAN` (a stored plan), or a plan given inline as `--waves ...
 * [--bake ...]`, read by @switchyard/rollout's inlinePlan (whose errors name the flag) and sent as
 * its document; `--skip-rollout REASON` (admins) publishes to every node at once past the default
 * plan and a team's requirement. The server checks the plan again and decides the rest.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { RolloutRequestSchema } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { inlinePlan, PlanError, planDocument } from "@switchyard/rollout";
import { shownPath } from "@switchyard/snapshot";
import { stringify as toYaml } from "yaml";
import { CliError, type RolloutClient } from "./client.js";
import type { Output } from "./output.js";

/** `publish`'s rollout flags, as commander hands them over. */
export interface PublishRolloutFlags {
  readonly rollout?: string;
  readonly waves?: string;
  readonly bake?: string;
  readonly ackTimeout?: string;
  readonly maxErrorIncrease?: string;
  readonly minRequests?: string;
  readonly onFailure?: string;
  readonly skipRollout?: string;
}

/** The flags that only shape a plan given with --waves, as the user typed them. */
const INLINE_FLAGS = [
  ["bake", "--bake"],
  ["ackTimeout", "--ack-timeout"],
  ["maxErrorIncrease", "--max-error-increase"],
  ["minRequests", "--min-requests"],
  ["onFailure", "--on-failure"],
] as const;

/**
 * The PublishRequest.rollout the flags ask for; undefined when they ask for none (the server then
 * goes by the admins' default plan and the author's team). Throws a CliError naming the flag.
 */
export function rolloutRequestOf(
  flags: PublishRolloutFlags,
): MessageInitShape<typeof RolloutRequestSchema> | undefined {
  const given = INLINE_FLAGS.filter(([field]) => flags[field] !== undefined);
  if (flags.skipRollout !== undefined) {
    if (flags.skipRollout.trim() === "")
      throw new CliError("--skip-rollout: give the reason (it is recorded in the audit log)");
    const also = [
      ...(flags.rollout !== undefined ? ["--rollout"] : []),
      ...(flags.waves !== undefined ? ["--waves"] : []),
      ...given.map(([, flag]) => flag),
    ];
    if (also.length > 0)
      throw new CliError(
        `--skip-rollout publishes to every node at once: drop ${also.join(", ")}, or drop --skip-rollout`,
      );
    return { skipReason: flags.skipRollout };
  }
  if (flags.rollout !== undefined && flags.waves !== undefined)
    throw new CliError(
      "--rollout names a stored plan and --waves gives one with the publish: use one of them",
    );
  if (flags.waves === undefined) {
    const [first] = given;
    if (first !== undefined)
      throw new CliError(
        flags.rollout !== undefined
          ? `${first[1]}: the stored plan ${JSON.stringify(flags.rollout)} has its own; ${first[1]} goes with --waves (a plan given with the publish)`
          : `${first[1]}: goes with --waves, the waves of the plan given with the publish (e.g. --waves 1,10%,100%)`,
      );
    if (flags.rollout === undefined) return undefined;
    if (flags.rollout.trim() === "")
      throw new CliError("--rollout: name a stored plan (switchyard rollout plans lists them)");
    return { plan: { case: "planName", value: flags.rollout } };
  }
  try {
    const plan = inlinePlan({
      waves: flags.waves,
      ...(flags.bake !== undefined ? { bake: flags.bake } : {}),
      ...(flags.ackTimeout !== undefined ? { ackTimeout: flags.ackTimeout } : {}),
      ...(flags.maxErrorIncrease !== undefined ? { maxErrorIncrease: flags.maxErrorIncrease } : {}),
      ...(flags.minRequests !== undefined ? { minRequests: flags.minRequests } : {}),
      ...(flags.onFailure !== undefined ? { onFailure: flags.onFailure } : {}),
    });
    return { plan: { case: "planDocument", value: toYaml(planDocument(plan)) } };
  } catch (error) {
    if (!(error instanceof PlanError)) throw error;
    const lines = error.issues.map((issue) =>
      issue.path === "" ? issue.message : `${shownPath(issue.path)}: ${issue.message}`,
    );
    throw new CliError(
      lines.length === 1
        ? (lines[0] ?? "")
        : `the rollout flags do not make a plan:\n${lines.map((line) => `  ${line}`).join("\n")}`,
      { cause: error },
    );
  }
}

/**
 * After a publish: the rollouts it started, one line each (from the server's summary), and how
 * to follow them. Nothing when it went to every node at once. Without a rollout client (a command
 * that publishes on the side) only their ids.
 */
export async function printStartedRollouts(
  output: Output,
  ids: readonly bigint[],
  client?: RolloutClient,
): Promise<void> {
  if (ids.length === 0) return;
  for (const id of ids) {
    if (client === undefined) {
      output.out(`started rollout ${id}\n`);
      continue;
    }
    const rollout = await client.getRollout({ id, nodeLimit: 1 });
    output.out(`started rollout ${id} in node group "${rollout.group}": ${rollout.summary}\n`);
  }
  const [only] = ids;
  output.out(
    ids.length === 1
      ? `follow it: switchyard rollout status --id ${only} --watch (in CI: switchyard wait, exit 0 when it completes, 1 when it fails)\n`
      : `follow them: switchyard rollout status --id N --watch (in CI: switchyard wait, exit 0 when every one completes, 1 when one fails)\n`,
  );
}
