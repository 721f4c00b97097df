/**
 * A rollout's transitions as audit events: one per `audit` action of the core (a wave started,
 * baked, was promoted, paused, resumed; the rollout rolled back, completed, failed or was
 * aborted), each naming the rollout, its group and versions and, for a failure, the reason as
 * `switchyard wait` prints it. A person's command is theirs; what the driver decided is the
 * system's.
 */
import {
  describeFailure,
  describePlan,
  type RolloutAction,
  type RolloutPlan,
} from "@switchyard/rollout";
import type { AuditInput } from "../auth/index.js";

export interface RolloutIdentity {
  readonly id: number;
  readonly group: string;
  readonly fromVersion: number;
  readonly toVersion: number;
}

type Actor = Pick<AuditInput, "actor" | "actorKind">;

const SYSTEM: Actor = { actor: "system", actorKind: "system" };

export function rolloutAudits(
  row: RolloutIdentity,
  actions: readonly RolloutAction[],
  options: {
    /** Who caused the step (a person's command, a publish); default the system. */
    readonly actor?: Actor;
    /** The rollout was started by this step, with this plan. */
    readonly started?: { readonly planName: string; readonly plan: RolloutPlan };
    /** The version that superseded it. */
    readonly superseded?: number;
  } = {},
): AuditInput[] {
  const target = `rollout/${row.id}`;
  const base = { group: row.group, fromVersion: row.fromVersion, toVersion: row.toVersion };
  const events: AuditInput[] = [];
  if (options.started)
    events.push({
      ...(options.actor ?? SYSTEM),
      action: "rollout.start",
      target,
      detail: {
        ...base,
        plan: options.started.planName || "(given with the publish)",
        summary: describePlan(options.started.plan),
      },
    });
  for (const action of actions) {
    if (action.t !== "audit") continue;
    const actor = action.by !== undefined ? (options.actor ?? SYSTEM) : SYSTEM;
    events.push({
      ...actor,
      action: `rollout.${action.kind}`,
      target,
      at: new Date(action.at),
      detail: {
        ...base,
        message: action.message,
        ...(action.wave === undefined ? {} : { wave: action.wave }),
        ...(action.reason === undefined ? {} : { reason: describeFailure(action.reason) }),
        ...(options.superseded === undefined ? {} : { supersededBy: options.superseded }),
      },
    });
  }
  return events;
}
