/**
 * `switchyard wait` for CI pipelines: when the version waited for went out as a rollout (or with
 * `--rollout N`), it follows the rollout (RolloutService.WatchRollout) until it ends: exit 0 when
 * it completes, 1 when it fails, is rolled back or aborted, printing why (the failure's sentence:
 * the node and its NACK text, or the cluster and both error ratios). A version published to
 * every node at once is waited for as before (status-commands.ts, waitForVersion).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { SnapshotInfo } from "@switchyard/proto/switchyard/v1/config_pb";
import { type Rollout, RolloutPhase } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { CliError, type ConfigClient, type RolloutClient } from "./client.js";
import type { Output } from "./output.js";
import { endedText, hasEnded, rolloutLine } from "./rollout-view.js";
import { parseDuration, type StatusClient, waitForVersion } from "./status-commands.js";

export interface WaitCommandOptions {
  readonly version?: string;
  readonly rollout?: string;
  /** Absent: 30s for a version sent to every node at once; a rollout is waited for until it ends. */
  readonly timeout?: string;
  readonly watch?: boolean;
  readonly maxErrorRatio?: string;
}

export interface WaitClients {
  readonly status: StatusClient;
  readonly config: ConfigClient;
  readonly rollout: RolloutClient;
}

/** How long to wait before opening a watch again that the server or the network closed. */
const REOPEN_MS = 1_000;
/** Watches opened in a row without a message before `wait` gives up. */
const MAX_REOPENS = 10;

/** `wait`: the rollouts of the version (or the one named), else the version's convergence. */
export async function wait(
  clients: WaitClients,
  output: Output,
  options: WaitCommandOptions,
): Promise<void> {
  if (options.rollout !== undefined) {
    if (options.version !== undefined)
      throw new CliError("--rollout and --version: give one (a rollout knows its version)");
    if (!/^\d+$/.test(options.rollout) || BigInt(options.rollout) === 0n)
      throw new CliError(
        `--rollout: "${options.rollout}" is not a rollout id (switchyard rollout list shows them)`,
      );
    const id = BigInt(options.rollout);
    refuseErrorRatio(options, `rollout ${id}`);
    await followRollouts(clients.rollout, output, [id], options);
    return;
  }
  const latest =
    options.version === undefined
      ? (await clients.config.listSnapshots({ limit: 1 })).snapshots[0]
      : undefined;
  const version = options.version ?? String(latest?.version ?? "");
  if (version === "") throw new CliError("nothing published yet: no version to wait for");
  if (/^\d+$/.test(version) && BigInt(version) > 0n) {
    const ids = await rolloutsOf(clients.rollout, BigInt(version), latest);
    if (ids.length > 0) {
      refuseErrorRatio(
        options,
        `version ${version} goes out as rollout ${ids.join(", ")}, which its plan's gates judge`,
      );
      await followRollouts(clients.rollout, output, ids, options);
      return;
    }
  }
  await waitForVersion(clients.status, output, { ...options, version });
}

/**
 * The rollouts `wait` follows for `version`: those it started; or, when it is the latest version
 * and took a rollout's change back (the failed or aborted rollout of the version before it, from
 * the version it went back to), that rollout, so a pipeline started after the rollback still
 * learns that its change failed.
 */
async function rolloutsOf(
  client: RolloutClient,
  version: bigint,
  latest: SnapshotInfo | undefined,
): Promise<bigint[]> {
  const started = await client.listRollouts({ toVersion: version, limit: 500 });
  if (started.rollouts.length > 0) return started.rollouts.map((r) => r.id).reverse();
  if (latest === undefined || latest.rolledBackFrom === 0n || latest.previousVersion === 0n)
    return [];
  const before = await client.listRollouts({ toVersion: latest.previousVersion, limit: 500 });
  return before.rollouts
    .filter(
      (r) =>
        r.fromVersion === latest.rolledBackFrom &&
        r.supersededBy === 0n &&
        (r.phase === RolloutPhase.ROLLING_BACK ||
          r.phase === RolloutPhase.FAILED ||
          r.phase === RolloutPhase.ABORTED),
    )
    .map((r) => r.id);
}

function refuseErrorRatio(options: WaitCommandOptions, what: string): void {
  if (options.maxErrorRatio !== undefined)
    throw new CliError(
      `--max-error-ratio judges a version sent to every node at once; ${what}: drop --max-error-ratio (the rollout's traffic gate compares its nodes' errors with the others')`,
    );
}

/** "12:00:05", UTC, the time a line was printed. */
function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

/**
 * Follows each rollout until it ends, printing a line when its phase or wave changes (with
 * --watch, whenever its summary does); resolves when every one completed, throws a CliError with
 * the reason as soon as one did not, or when `--timeout` passes first.
 */
async function followRollouts(
  client: RolloutClient,
  output: Output,
  ids: readonly bigint[],
  options: WaitCommandOptions,
): Promise<void> {
  const controller = new AbortController();
  const timeoutMs = options.timeout === undefined ? undefined : parseDuration(options.timeout);
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
  const latest = new Map<bigint, Rollout>();
  const follow = async (id: bigint): Promise<void> => {
    let printed = "";
    let hinted = false;
    let reopens = 0;
    for (;;) {
      try {
        for await (const rollout of client.watchRollout(
          { id, nodeLimit: 1 },
          { signal: controller.signal },
        )) {
          reopens = 0;
          latest.set(id, rollout);
          if (hasEnded(rollout)) {
            if (rollout.phase !== RolloutPhase.COMPLETED) throw new CliError(endedText(rollout));
            output.out(`${clock()}  ${rolloutLine(rollout)}\n`);
            return;
          }
          const key = options.watch ? rollout.summary : `${rollout.phase}/${rollout.wave}`;
          if (key !== printed) {
            output.out(`${clock()}  ${rolloutLine(rollout)}\n`);
            printed = key;
          }
          if (rollout.phase === RolloutPhase.PAUSED && !hinted) {
            output.out(
              `  rollout ${id} waits for a person: switchyard rollout resume|promote|abort --id ${id}\n`,
            );
            hinted = true;
          }
        }
      } catch (error) {
        if (error instanceof CliError || controller.signal.aborted) throw error;
        if (ConnectError.from(error).code !== Code.Unavailable) throw error;
      }
      // The watch closed before the rollout ended (a server restarting): open it again.
      if (++reopens > MAX_REOPENS)
        throw new CliError(`lost the watch of rollout ${id} ${MAX_REOPENS} times in a row`);
      await new Promise((resolve) => setTimeout(resolve, REOPEN_MS));
    }
  };
  try {
    await Promise.all(ids.map(follow));
  } catch (error) {
    if (!timedOut) throw error;
    const lines = ids
      .map((id) => latest.get(id))
      .filter((r): r is Rollout => r !== undefined && !hasEnded(r))
      .map((r) => `  ${rolloutLine(r)}`);
    throw new CliError(
      [`the rollout has not ended after ${options.timeout}:`, ...lines].join("\n"),
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
