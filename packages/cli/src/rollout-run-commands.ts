/**
 * `switchyard rollout status|list|pause|resume|promote|abort`: the rollouts publishes started
 * (RolloutService), read, followed (`status --watch`, over WatchRollout) and steered. A command
 * that does not apply is the server's FailedPrecondition with the core's reason, exit 1.
 */
import { toJson } from "@bufbuild/protobuf";
import {
  ListRolloutsResponseSchema,
  type Rollout,
  RolloutPhase,
  RolloutSchema,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { CliError, type RolloutClient } from "./client.js";
import { type Output, outputFormat } from "./output.js";
import { hasEnded, PHASE_WORD, rolloutStatus, rolloutTable } from "./rollout-view.js";

/** `--id N`: a rollout's id; 0 (absent) asks for the running one. */
export function rolloutId(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  if (!/^\d+$/.test(text) || BigInt(text) === 0n)
    throw new CliError(`--id: "${text}" is not a rollout id (switchyard rollout list shows them)`);
  return BigInt(text);
}

function count(text: string | undefined, flag: string, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > max)
    throw new CliError(`${flag}: "${text}" is not a number from 1 to ${max}`);
  return value;
}

export interface StatusOptions {
  readonly id?: string;
  readonly watch?: boolean;
  readonly output?: string;
  /** How many of the group's nodes to list (the server's node_limit). */
  readonly nodes?: string;
}

/** The exit code of a followed rollout: 0 completed, 1 failed or aborted. */
export function exitCodeOf(rollout: Rollout): 0 | 1 {
  return rollout.phase === RolloutPhase.COMPLETED ? 0 : 1;
}

/**
 * `switchyard rollout status [--id N] [--watch] [-o json]`: the running rollout (else the
 * latest). With --watch it follows WatchRollout, printing the rollout again at each change (with
 * -o json, one JSON object a line), until it ends; answers the exit code (0 without --watch, else
 * 0 when it completed and 1 when it failed or was aborted).
 */
export async function status(
  client: RolloutClient,
  output: Output,
  options: StatusOptions,
): Promise<number> {
  const format = outputFormat(options.output, ["text", "json"], "text");
  const id = rolloutId(options.id);
  const nodeLimit = count(options.nodes, "--nodes", format === "json" ? 100 : 20, 1_000);
  const render = (rollout: Rollout, compact: boolean) =>
    format === "json"
      ? `${JSON.stringify(toJson(RolloutSchema, rollout), null, compact ? undefined : 2)}\n`
      : rolloutStatus(rollout);
  if (!options.watch) {
    output.out(render(await client.getRollout({ id, nodeLimit }), false));
    return 0;
  }
  let last: Rollout | undefined;
  let printed = "";
  for await (const rollout of client.watchRollout({ id, nodeLimit })) {
    last = rollout;
    const text = render(rollout, true);
    if (text === printed) continue;
    output.out(format === "text" && printed !== "" ? `\n${text}` : text);
    printed = text;
    if (hasEnded(rollout)) break;
  }
  if (last === undefined) throw new CliError("the server sent no rollout");
  if (!hasEnded(last))
    throw new CliError(
      `the server stopped sending rollout ${last.id} before it ended (${PHASE_WORD[last.phase]}): run the command again`,
    );
  return exitCodeOf(last);
}

/** `switchyard rollout list [--limit N] [--active] [-o json]`: recent rollouts, newest first. */
export async function list(
  client: RolloutClient,
  output: Output,
  options: { readonly limit?: string; readonly active?: boolean; readonly output?: string },
): Promise<void> {
  const format = outputFormat(options.output, ["table", "json"], "table");
  const listed = await client.listRollouts({
    limit: count(options.limit, "--limit", 20, 500),
    activeOnly: options.active === true,
  });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(ListRolloutsResponseSchema, listed), null, 2)}\n`);
    return;
  }
  if (listed.rollouts.length === 0) {
    output.out(
      options.active
        ? "no rollout is running\n"
        : "no rollout has run yet (publish --rollout PLAN or --waves ... starts one)\n",
    );
    return;
  }
  output.out(rolloutTable(listed.rollouts));
}

export type SteerCommand = "pause" | "resume" | "promote" | "abort";

const DONE: Record<SteerCommand, string> = {
  pause: "paused",
  resume: "resumed",
  promote: "promoted",
  abort: "aborted",
};

/**
 * `switchyard rollout pause|resume|promote|abort [--id N]`, and an admin's `promote --all
 * --reason TEXT` (every remaining wave at once, past the plan; audited with the reason).
 */
export async function steer(
  client: RolloutClient,
  output: Output,
  command: SteerCommand,
  options: { readonly id?: string; readonly all?: boolean; readonly reason?: string },
): Promise<void> {
  const id = rolloutId(options.id);
  const all = options.all === true;
  if (all && (options.reason ?? "").trim() === "")
    throw new CliError(
      "--all skips the rollout's plan: give --reason TEXT (recorded in the audit log)",
    );
  if (!all && options.reason !== undefined)
    throw new CliError("--reason goes with --all (skipping the plan)");
  const request = { id, all, reason: options.reason ?? "" };
  const rollout =
    command === "pause"
      ? await client.pauseRollout(request)
      : command === "resume"
        ? await client.resumeRollout(request)
        : command === "promote"
          ? await client.promoteRollout(request)
          : await client.abortRollout(request);
  const how = all ? "promoted past its plan (every remaining wave)" : DONE[command];
  output.out(`rollout ${rollout.id} ${how}: ${rollout.summary}\n`);
}
