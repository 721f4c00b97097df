/**
 * Storing a rollout's step: the next state (fenced by the revision read, and for the driver by
 * its lease), its audit events, and, when the step begins a rollback, the version that takes the
 * change back, all in one transaction. The rollback is thereby published, not only served: a
 * restart serves the previous content from the latest version itself, and the next publish of
 * the draft, which still holds the change, is compared against what the nodes run again (and
 * goes out as a rollout again) instead of slipping the change through as "unchanged".
 */
import type { PrismaClient } from "@switchyard/db";
import { describeFailure, type RolloutAction, type RolloutState } from "@switchyard/rollout";
import type { Logger } from "pino";
import { type AuditInput, recordAudits } from "../auth/index.js";
import { PublishError } from "../store/publish-transaction.js";
import type { PublishedSnapshot } from "../store/snapshot-records.js";
import type { SnapshotStore } from "../store/snapshot-store.js";
import { rolloutAudits } from "./rollout-audit.js";
import { type RolloutRow, type TrafficWindow, writeRolloutState } from "./rollout-rows.js";

export interface CommitDeps {
  readonly prisma: PrismaClient;
  readonly store: SnapshotStore;
  /** Serves a version published here (the rollback's). */
  readonly onPublished: (snapshot: PublishedSnapshot) => void;
  /** Called once per transition stored (metrics). */
  readonly onTransition?: (kind: string) => void;
  readonly logger: Logger;
}

export interface CommitOptions {
  /** The driving replica: the write holds only while its lease does. */
  readonly driver?: string;
  /** Who caused it (a person's command); default the system. */
  readonly actor?: Pick<AuditInput, "actor" | "actorKind">;
  readonly loadedUntil?: number;
  readonly windows?: readonly TrafficWindow[];
  /** Audit events besides the transitions' (an admin's skip, with its reason). */
  readonly audits?: readonly AuditInput[];
}

/** Thrown inside a transaction to roll it back when the state was written by someone else. */
class Superseded extends Error {}

function rollbackMessage(row: RolloutRow, state: RolloutState): string {
  const { phase } = state;
  const why =
    phase.t !== "rolling-back"
      ? ""
      : phase.outcome.t === "failed"
        ? `failed: ${describeFailure(phase.outcome.reason)}`
        : `aborted by ${phase.outcome.by}`;
  return `Rollout ${row.id} ${why}. Version ${row.toVersion}'s changes are taken back; the draft still holds them.`;
}

/**
 * Stores `next` as the rollout's state after `row`'s; false when someone else wrote it since
 * (nothing is stored then: read it again and decide again).
 */
export async function commitStep(
  deps: CommitDeps,
  row: RolloutRow,
  next: { readonly state: RolloutState; readonly actions: readonly RolloutAction[] },
  options: CommitOptions = {},
): Promise<boolean> {
  const audits = [
    ...(options.audits ?? []),
    ...rolloutAudits(row, next.actions, options.actor ? { actor: options.actor } : {}),
  ];
  const write = {
    state: next.state,
    ...(options.loadedUntil === undefined ? {} : { loadedUntil: options.loadedUntil }),
    ...(options.windows === undefined ? {} : { windows: options.windows }),
  };
  const done = () => {
    for (const action of next.actions) if (action.t === "audit") deps.onTransition?.(action.kind);
    return true;
  };
  if (row.state.phase.t !== "rolling-back" && next.state.phase.t === "rolling-back") {
    try {
      const snapshot = await deps.store.revert({
        from: row.fromVersion,
        to: row.toVersion,
        author: options.actor?.actor ?? "system",
        message: rollbackMessage(row, next.state),
        afterWrite: async (tx) => {
          if (!(await writeRolloutState(tx, row.id, row.revision, write, options.driver)))
            throw new Superseded();
          await recordAudits(tx, audits);
        },
      });
      deps.onPublished(snapshot);
      return done();
    } catch (error) {
      if (error instanceof Superseded) return false;
      if (!(error instanceof PublishError && error.code === "no-changes"))
        deps.logger.warn(
          { err: error, rollout: row.id },
          "publishing the version that takes a rolled-back change back failed: its nodes are served the previous version, but the latest version still holds the change",
        );
    }
  }
  const stored = await deps.prisma.$transaction(async (tx) => {
    if (!(await writeRolloutState(tx, row.id, row.revision, write, options.driver))) return false;
    await recordAudits(tx, audits);
    return true;
  });
  return stored ? done() : false;
}
