/**
 * What a publish does about rollouts, inside its transaction once the version row is written
 * (README, "Rollouts"):
 *
 * 1. A node group the version changes that has a rollout under way: the publish is refused,
 *    naming the rollout, unless it aborts it (`abort_rollout`) or is a rollback (always
 *    allowed); then the rollout ends as aborted, superseded by the version, and the group's
 *    nodes are served the version as below. A publish that leaves such a group as it is (a
 *    change to another group) does not touch its rollout.
 * 2. The plan: the one the request names or gives, else the admins' default plan, unless an
 *    admin skips it (audited with the reason); a member of a team that requires rollouts cannot
 *    publish without one. Rollbacks go to every node at once.
 * 3. With a plan, a rollout starts in every group whose served resources the version changes
 *    against what the group's nodes run (a superseded rollout's previous version, else the
 *    latest), with the group's connected nodes then; a group new in the version has nothing to
 *    roll back to and is served at once.
 *
 * Each started rollout's row is committed with the version, so every process that sees the
 * version sees the rollout too, and installs it held (rollout-follower.ts).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { TransactionClient } from "@switchyard/db";
import type { RolloutRequest } from "@switchyard/proto/switchyard/v1/rollout_pb";
import {
  describeFailure,
  hasEnded,
  type RolloutPlan,
  type RolloutState,
  startRollout,
  step,
  stepAll,
} from "@switchyard/rollout";
import { quotedInput, selectNodeGroup, TYPE_ORDER } from "@switchyard/snapshot";
import { auditActor, type Principal, recordAudits } from "../auth/index.js";
import { stringMetadata } from "../fleet/convergence-reader.js";
import { listConnectedIdentities, type NodeIdentity } from "../fleet/status-reader.js";
import { touchedClusters } from "../load/touched-clusters.js";
import { rolloutAudits } from "../rollouts/rollout-audit.js";
import { groupNodeOf } from "../rollouts/rollout-events.js";
import {
  activeRolloutsOf,
  createRollout,
  nextRolloutId,
  type RolloutRow,
  writeRolloutState,
} from "../rollouts/rollout-rows.js";
import type { RolloutHook, WrittenVersion } from "../store/publish-transaction.js";
import { specOfVersion } from "../store/publish-transaction.js";
import { defaultPlanName, getRolloutPlan } from "../store/rollout-plans.js";
import { readPlan, storedPlan } from "./rollout-messages.js";

/** The connected nodes a rollout starts with, at most. */
const MAX_START_NODES = 1_000_000;

export interface RolloutChoice {
  /** Undefined: a rollback, or an Apply/endpoints publish without a rollout of its own. */
  readonly request?: RolloutRequest | undefined;
  readonly abortRollout?: boolean;
  /** A rollback: supersedes rollouts under way, starts none. */
  readonly rollback?: boolean;
  /**
   * To every node at once, whatever the default plan says (endpoint registrations: a deploy's
   * endpoints are not a change to roll out); refused during a rollout of a group it changes,
   * as any publish.
   */
  readonly immediate?: boolean;
}

type Resources = WrittenVersion["groups"][number]["resources"];

function sameResources(a: Resources | undefined, b: Resources | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return TYPE_ORDER.every((typeUrl) => {
    const x = a[typeUrl] ?? {};
    const y = b[typeUrl] ?? {};
    const keys = Object.keys(x);
    return keys.length === Object.keys(y).length && keys.every((name) => x[name] === y[name]);
  });
}

function describeRollout(row: RolloutRow): string {
  const { phase } = row.state;
  const where =
    phase.t === "rolling-back"
      ? "rolling back"
      : "wave" in phase
        ? `${phase.t} wave ${phase.wave} of ${row.state.plan.waves.length}`
        : phase.t;
  return `rollout ${row.id} (version ${row.fromVersion} → ${row.toVersion}, ${where})`;
}

/** The plan a publish goes out with; undefined: to every node at once. */
async function choosePlan(
  tx: TransactionClient,
  caller: Principal,
  choice: RolloutChoice,
): Promise<{ plan: RolloutPlan; planName: string } | undefined> {
  if (choice.rollback || choice.immediate) return undefined;
  const request = choice.request;
  const skip = (request?.skipReason ?? "").trim();
  if (skip !== "") {
    if (caller.role !== "ADMIN")
      throw new ConnectError(
        "rollout.skip_reason: only admins may publish to every node at once past the rollout plan",
        Code.PermissionDenied,
      );
    return undefined;
  }
  if (request?.plan.case === "planName") {
    const stored = await getRolloutPlan(tx, request.plan.value);
    if (stored === null)
      throw new ConnectError(
        `rollout.plan_name: rollout plan ${quotedInput(request.plan.value)} does not exist (switchyard rollout plans lists them)`,
        Code.NotFound,
      );
    return { plan: storedPlan(stored), planName: stored.name };
  }
  if (request?.plan.case === "planDocument")
    return { plan: readPlan(undefined, request.plan.value), planName: "" };
  const name = await defaultPlanName(tx);
  if (name !== null) {
    const stored = await getRolloutPlan(tx, name);
    if (stored !== null) return { plan: storedPlan(stored), planName: stored.name };
  }
  if (caller.team !== null) {
    const team = await tx.team.findUnique({
      where: { id: caller.team.id },
      select: { requireRollout: true, name: true },
    });
    if (team?.requireRollout)
      throw new ConnectError(
        `team "${team.name}" requires its changes to go out as rollouts, and no default plan is set: publish with --rollout PLAN or --waves (README, "Rollouts")`,
        Code.FailedPrecondition,
      );
  }
  return undefined;
}

/** Ends `row` as aborted, superseded by `version`: its nodes are served what the version gives. */
async function supersede(
  tx: TransactionClient,
  row: RolloutRow,
  version: number,
  caller: Principal,
  now: number,
): Promise<void> {
  const aborted = step(row.state, { t: "abort", now, by: caller.username });
  let state: RolloutState = aborted.state;
  const actions = [...aborted.actions];
  // The rollback is not waited for: the version replaces what the rollout served.
  if (state.phase.t === "rolling-back") {
    const ended = stepAll(state, [{ t: "tick", now: Math.max(now, state.phase.until) }]);
    state = ended.state;
    actions.push(...ended.actions);
  }
  if (!hasEnded(state.phase))
    throw new Error(`rollout ${row.id} did not end when superseded (${state.phase.t})`);
  const written = await writeRolloutState(tx, row.id, row.revision, {
    state,
    supersededBy: version,
  });
  if (!written)
    throw new ConnectError(
      `rollout ${row.id} changed while this publish superseded it: publish again`,
      Code.Aborted,
    );
  await recordAudits(
    tx,
    rolloutAudits(row, actions, { superseded: version, actor: auditActor(caller) }),
  );
}

/** The publish's rollout hook (WriteInput.rollouts) for `caller`. */
export function rolloutHook(caller: Principal, choice: RolloutChoice): RolloutHook {
  return async (tx, written) => {
    const now = Date.now();
    const { record, groups, previous } = written;
    const chosen = await choosePlan(tx, caller, choice);
    const skipped = (choice.request?.skipReason ?? "").trim();
    if (skipped !== "")
      await recordAudits(tx, [
        {
          ...auditActor(caller),
          action: "rollout.skip",
          target: `snapshot/${record.version}`,
          detail: { reason: skipped, version: record.version },
        },
      ]);
    const under = await activeRolloutsOf(
      tx,
      groups.map((g) => g.name),
    );
    // The rollouts in groups this version changes: refused unless superseded.
    const blocking = under.filter(
      (row) =>
        !sameResources(
          groups.find((g) => g.name === row.group)?.resources,
          previous.get(row.group),
        ),
    );
    if (blocking.length > 0 && !choice.abortRollout && !choice.rollback) {
      const names = blocking.map((row) => `node group "${row.group}" has ${describeRollout(row)}`);
      throw new ConnectError(
        `${names.join("; ")}: wait for it to end, abort it (switchyard rollout abort ${blocking[0]?.id}), or publish with --abort-rollout`,
        Code.FailedPrecondition,
      );
    }
    for (const row of blocking) await supersede(tx, row, record.version, caller, now);
    if (chosen === undefined) return [];
    const supersededFrom = new Map(blocking.map((row) => [row.group, row.fromVersion]));
    const started: number[] = [];
    let connected: NodeIdentity[] | undefined;
    /** The clusters the version touched: the same for every group it starts a rollout in. */
    let clusters: string[] | undefined;
    for (const group of groups) {
      const fromVersion = supersededFrom.get(group.name) ?? record.previousVersion;
      if (fromVersion === 0) continue;
      // What the group's nodes run: a superseded rollout's previous version, else the latest.
      const baseline = supersededFrom.has(group.name)
        ? await written.groupsOf(tx, fromVersion)
        : previous;
      const ran = baseline.get(group.name);
      if (ran === undefined || sameResources(group.resources, ran)) continue;
      // A rollout under way that this version leaves as it is runs on.
      if (under.some((row) => row.group === group.name && !blocking.includes(row))) continue;
      connected ??= await listConnectedIdentities(tx, MAX_START_NODES);
      const nodes = connected
        .filter(
          (node) =>
            selectNodeGroup(written.config.groups, {
              id: node.id,
              cluster: node.cluster,
              metadata: stringMetadata(node.metadata),
            }).name === group.name,
        )
        .map(groupNodeOf);
      clusters ??= touchedClusters(
        await specOfVersion(tx, record.previousVersion),
        written.draft,
        record.changes,
      ).map((c) => c.name);
      const id = await nextRolloutId(tx);
      const first = startRollout({
        id: String(id),
        group: group.name,
        plan: chosen.plan,
        fromVersion,
        toVersion: record.version,
        clusters,
        nodes,
        now,
      });
      if (first.state.phase.t !== "applying") {
        const reason =
          first.state.phase.t === "rolling-back" && first.state.phase.outcome.t === "failed"
            ? describeFailure(first.state.phase.outcome.reason)
            : `it would start ${first.state.phase.t}`;
        throw new ConnectError(
          `the rollout of node group "${group.name}" cannot start: ${reason}; nothing was published`,
          Code.FailedPrecondition,
        );
      }
      await createRollout(tx, {
        id,
        planName: chosen.planName,
        state: first.state,
        createdBy: caller.username,
        message: record.message,
      });
      const row = {
        id,
        group: group.name,
        fromVersion,
        toVersion: record.version,
      };
      await recordAudits(
        tx,
        rolloutAudits(row, first.actions, { actor: auditActor(caller), started: chosen }),
      );
      started.push(id);
    }
    return started;
  };
}
