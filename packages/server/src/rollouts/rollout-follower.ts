/**
 * Every process that serves xDS serves rollouts from their rows (rollout-rows.ts), not from
 * messages: which version a node gets follows from the stored state alone (the core's
 * `versionFor`), so a replica, an xDS worker or a process started mid-rollout serves each node
 * what the driver decided, whichever process the driver runs in. `sync` reads the rows and turns
 * the difference from what this process serves into ServingCommands (rollout-serving.ts):
 *
 * - a rollout not seen before: `hold` its group on the previous version, its promoted nodes on the
 *   new one;
 * - nodes promoted since (a wave started): `promote`; nodes no longer (a rollback): `demote`;
 * - an ended rollout: `settle` on the new version (completed) or the previous one (failed,
 *   aborted).
 *
 * It runs before every install of a version (a rollout's row is committed with the version that
 * starts it, so a process that sees the version sees the rollout and never serves it unheld), on
 * every rollout notification, and when the process starts, before its first install.
 */
import type { PrismaClient } from "@switchyard/db";
import type { Logger } from "pino";
import type { RolloutServing, ServingCommand } from "../rollout-serving.js";
import { type RolloutServingRow, rolloutServing } from "./rollout-rows.js";

interface Followed {
  readonly id: number;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly promoted: Set<string>;
}

/** The commands that bring `known` (changed in place) to the serving `rows` ask for. */
export function servingCommands(
  known: Map<string, Followed>,
  rows: readonly RolloutServingRow[],
  /** `rows` are the running rollouts only: one known and not among them may have ended. */
  runningOnly = false,
): ServingCommand[] {
  const commands: ServingCommand[] = [];
  const seen = new Set<number>();
  // Ended ones first: a rollout superseded by the next one in its group settles before it holds.
  for (const row of rows) {
    seen.add(row.id);
    const followed = known.get(row.group);
    if (row.active || followed?.id !== row.id) continue;
    commands.push({
      t: "settle",
      group: row.group,
      version: row.phase === "completed" ? row.toVersion : row.fromVersion,
    });
    known.delete(row.group);
  }
  for (const [group, followed] of known) {
    if (seen.has(followed.id) || runningOnly) continue;
    // Its row is gone (not possible short of a hand-made delete): serve what the group ran.
    commands.push({ t: "settle", group, version: followed.fromVersion });
    known.delete(group);
  }
  for (const row of rows) {
    if (!row.active) continue;
    const followed = known.get(row.group);
    if (followed !== undefined && followed.id !== row.id) {
      commands.push({ t: "settle", group: row.group, version: followed.fromVersion });
      known.delete(row.group);
    }
    const current = known.get(row.group);
    if (current === undefined) {
      commands.push({
        t: "hold",
        group: row.group,
        fromVersion: row.fromVersion,
        toVersion: row.toVersion,
        promoted: row.promoted,
      });
      known.set(row.group, {
        id: row.id,
        fromVersion: row.fromVersion,
        toVersion: row.toVersion,
        promoted: new Set(row.promoted),
      });
      continue;
    }
    const wanted = new Set(row.promoted);
    const promote = row.promoted.filter((id) => !current.promoted.has(id));
    const demote = [...current.promoted].filter((id) => !wanted.has(id));
    if (demote.length > 0) commands.push({ t: "demote", group: row.group, nodeIds: demote });
    if (promote.length > 0) commands.push({ t: "promote", group: row.group, nodeIds: promote });
    known.set(row.group, { ...current, promoted: wanted });
  }
  return commands;
}

export class RolloutFollower {
  readonly #prisma: PrismaClient;
  readonly #serving: RolloutServing;
  readonly #logger: Logger;
  readonly #known = new Map<string, Followed>();
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(options: {
    readonly prisma: PrismaClient;
    readonly serving: RolloutServing;
    readonly logger: Logger;
  }) {
    this.#prisma = options.prisma;
    this.#serving = options.serving;
    this.#logger = options.logger;
  }

  /**
   * Reads the rollouts and gives the commands for what changed; resolves once they are given
   * (RolloutServing carries them out in order, before any install given after). Calls made
   * while one runs share the next run, which starts after it: a change committed before the call
   * is always read.
   */
  sync(): Promise<void> {
    if (this.#running === undefined) {
      this.#running = this.#syncOnce().finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined;
      return this.sync();
    });
    return this.#queued;
  }

  /**
   * The running rollouts as a publish transaction read them (with its own version's): given
   * at once, so that the version it published is installed held without another read.
   */
  follow(running: readonly RolloutServingRow[]): void {
    this.#give(servingCommands(this.#known, running, true));
  }

  #give(commands: readonly ServingCommand[]): void {
    for (const command of commands) {
      this.#serving
        .command(command)
        .catch((error: unknown) =>
          this.#logger.warn(
            { err: error, command: { ...command, nodeIds: undefined, promoted: undefined } },
            "serving a rollout's step failed",
          ),
        );
    }
  }

  async #syncOnce(): Promise<void> {
    const known = [...this.#known.values()].map((f) => f.id);
    const rows = await rolloutServing(this.#prisma, known);
    for (const command of servingCommands(this.#known, rows)) {
      this.#serving
        .command(command)
        .catch((error: unknown) =>
          this.#logger.warn(
            { err: error, command: { ...command, nodeIds: undefined, promoted: undefined } },
            "serving a rollout's step failed",
          ),
        );
    }
  }
}
