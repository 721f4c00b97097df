/**
 * switchyard.v1.RolloutService's running rollouts (README, "Rollouts"): List, Get and Watch for
 * anyone who reads status; Pause, Resume, Promote and Abort for admins and the rollout's author.
 * A command is a step of the core like any other event (step), stored as the driver stores its
 * own (rollout-commit.ts: fenced by the revision read, audited, an abort's rollback published),
 * so whichever replica answers, the driving replica reads the result and goes on from it. A
 * command that does not apply is FailedPrecondition with the core's reason, and changes nothing.
 */
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import type {
  RolloutCommandRequest,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import {
  type RolloutAction,
  type RolloutEvent,
  type RolloutState,
  step,
} from "@switchyard/rollout";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor } from "../auth/index.js";
import { type CommitDeps, commitStep } from "../rollouts/rollout-commit.js";
import type { RolloutHub } from "../rollouts/rollout-hub.js";
import { listRollouts, type RolloutRow, readRollout } from "../rollouts/rollout-rows.js";
import { version } from "./publishing.js";
import { DEFAULT_ROLLOUT_NODES, MAX_ROLLOUT_NODES, rolloutMessage } from "./rollout-view.js";

/** How often a watch sends the rollout again with nothing stored (its summary's countdown). */
const WATCH_REFRESH_MS = 5_000;
/** Tries of a command whose rollout the driver wrote meanwhile. */
const COMMAND_TRIES = 5;

export interface RolloutHandlersOptions extends CommitDeps {
  readonly hub: RolloutHub;
}

const noneRunning = () =>
  new ConnectError(
    "no rollout is running (switchyard rollout status shows the latest)",
    Code.NotFound,
  );

const notFound = (id: number) =>
  new ConnectError(
    `rollout ${id} does not exist (switchyard rollout status lists them)`,
    Code.NotFound,
  );

/** The rollout `id` names; 0: the running one (newest), else the latest. */
async function chosenRollout(prisma: PrismaClient, id: bigint): Promise<RolloutRow> {
  if (id !== 0n) {
    const number = version(id, "id");
    const row = await readRollout(prisma, number);
    if (row === undefined) throw notFound(number);
    return row;
  }
  const [running] = await listRollouts(prisma, { limit: 1, activeOnly: true });
  if (running) return running;
  const [latest] = await listRollouts(prisma, { limit: 1 });
  if (latest === undefined) throw new ConnectError("no rollout has run yet", Code.NotFound);
  return latest;
}

/** The rollout a command is for: `id`, or the one running when exactly one is. */
async function commandedRollout(prisma: PrismaClient, id: bigint): Promise<RolloutRow> {
  if (id !== 0n) return chosenRollout(prisma, id);
  const running = await listRollouts(prisma, { limit: 2, activeOnly: true });
  if (running.length === 0) throw noneRunning();
  const [only, other] = running;
  if (other !== undefined || only === undefined)
    throw new ConnectError(
      "several rollouts are running: name one (--id; switchyard rollout status lists them)",
      Code.FailedPrecondition,
    );
  return only;
}

function nodeLimitOf(limit: number): number {
  if (limit === 0) return DEFAULT_ROLLOUT_NODES;
  return Math.min(limit, MAX_ROLLOUT_NODES);
}

type Command = "pause" | "resume" | "promote" | "abort";

/** The step a command makes; promote all is every remaining wave's promotion, in one step. */
function commandStep(
  state: RolloutState,
  command: Command,
  by: string,
  all: boolean,
  now: number,
): { state: RolloutState; actions: RolloutAction[]; refused?: string } {
  const event: RolloutEvent = { t: command, now, by };
  const first = step(state, event);
  if (first.refused !== undefined || command !== "promote" || !all)
    return { ...first, actions: [...first.actions] };
  let current = first;
  const actions = [...first.actions];
  for (let wave = 1; wave < state.plan.waves.length; wave++) {
    const next = step(current.state, event);
    if (next.refused !== undefined) break;
    current = next;
    actions.push(...next.actions);
  }
  return { state: current.state, actions };
}

export function rolloutHandlers(
  options: RolloutHandlersOptions,
): Pick<
  ServiceImpl<typeof RolloutService>,
  | "listRollouts"
  | "getRollout"
  | "watchRollout"
  | "pauseRollout"
  | "resumeRollout"
  | "promoteRollout"
  | "abortRollout"
> {
  const { prisma } = options;

  const command = async (
    name: Command,
    request: RolloutCommandRequest,
    context: HandlerContext,
  ) => {
    const caller = callerOf(context);
    const reason = request.reason.trim();
    if (request.all && name !== "promote")
      throw new ConnectError(
        "all: only a promotion takes every wave at once",
        Code.InvalidArgument,
      );
    if (request.all && caller.role !== "ADMIN")
      throw new ConnectError(
        "all: only admins may skip a rollout's plan (promote every wave at once)",
        Code.PermissionDenied,
      );
    if (request.all && reason === "")
      throw new ConnectError(
        "reason: skipping a rollout's plan needs a reason, recorded in the audit log",
        Code.InvalidArgument,
      );
    for (let attempt = 0; attempt < COMMAND_TRIES; attempt++) {
      const row = await commandedRollout(prisma, request.id);
      if (caller.role !== "ADMIN" && row.createdBy !== caller.username)
        throw new ConnectError(
          `rollout ${row.id} was started by ${row.createdBy}: only they and admins may ${name} it`,
          Code.PermissionDenied,
        );
      const next = commandStep(row.state, name, caller.username, request.all, Date.now());
      if (next.refused !== undefined)
        throw new ConnectError(
          `rollout ${row.id} cannot ${name}: ${next.refused}`,
          Code.FailedPrecondition,
        );
      const stored = await commitStep(options, row, next, {
        actor: auditActor(caller),
        ...(request.all
          ? {
              audits: [
                {
                  ...auditActor(caller),
                  action: "rollout.skip",
                  target: `rollout/${row.id}`,
                  ip: ipOf(context),
                  detail: { group: row.group, toVersion: row.toVersion, reason },
                },
              ],
            }
          : {}),
      });
      if (!stored) continue;
      const after = await readRollout(prisma, row.id);
      if (after === undefined) throw notFound(row.id);
      return rolloutMessage(after, DEFAULT_ROLLOUT_NODES);
    }
    throw new ConnectError(
      "the rollout kept changing while the command was stored: try again",
      Code.Aborted,
    );
  };

  return {
    async listRollouts(request) {
      const limit = Math.min(request.limit || 50, 500);
      const rows = await listRollouts(prisma, {
        limit,
        activeOnly: request.activeOnly,
        ...(request.toVersion === 0n
          ? {}
          : { toVersion: version(request.toVersion, "to_version") }),
      });
      return { rollouts: rows.map((row) => rolloutMessage(row, 0)) };
    },

    async getRollout(request) {
      const row = await chosenRollout(prisma, request.id);
      return rolloutMessage(row, nodeLimitOf(request.nodeLimit));
    },

    async *watchRollout(request, context) {
      const first = await chosenRollout(prisma, request.id);
      const limit = nodeLimitOf(request.nodeLimit);
      const watch = options.hub.watch(first.id);
      try {
        let row: RolloutRow | undefined = first;
        while (row !== undefined) {
          yield rolloutMessage(row, limit);
          if (!row.active) return;
          const woken = await watch.next(context.signal, WATCH_REFRESH_MS);
          if (!woken && context.signal.aborted) return;
          row = await readRollout(prisma, first.id);
        }
      } finally {
        watch.close();
      }
    },

    pauseRollout: (request, context) => command("pause", request, context),
    resumeRollout: (request, context) => command("resume", request, context),
    promoteRollout: (request, context) => command("promote", request, context),
    abortRollout: (request, context) => command("abort", request, context),
  };
}
