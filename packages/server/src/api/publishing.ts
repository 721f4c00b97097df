/**
 * What every handler that publishes shares (publish, rollback, review approval, apply and
 * endpoint registration with --publish): authorizing and auditing inside the publish
 * transaction, the predicted-rejection gate (store/rejection-gate.ts: publishes, not
 * rollbacks), versions from requests, and the answer, rendered before the version is served.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ObjectChange,
  type SnapshotInfo,
  SnapshotInfoSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { RolloutRequest } from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { ConfigSpec } from "@switchyard/snapshot";
import { authorizePublish } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor, recordAudit } from "../auth/index.js";
import { type PublishHook, type RolloutHook, specOfVersion } from "../store/publish-transaction.js";
import type { RejectionGate } from "../store/rejection-gate.js";
import type { PublishedSnapshot, SnapshotRecord } from "../store/snapshot-records.js";
import { issueMessage } from "./errors.js";
import {
  type BodiesSelection,
  bodiesSelection,
  changeNames,
  objectChanges,
} from "./object-changes.js";
import { rolloutHook } from "./rollout-start.js";
import {
  gateOnRouteTests,
  type RouteTestOverride,
  refuseOverrideUnlessAdmin,
  type StoredTestRunner,
} from "./route-test-gate.js";

/** What is guarded: a publish, gated on the stored route tests run by `routeTests`; a rollback. */
export type GuardedAction =
  | {
      readonly action: "publish";
      readonly routeTests: StoredTestRunner;
      readonly routeTestOverride?: string;
      /** How it goes out (rollout-start.ts); `immediate`: to every node at once, no plan. */
      readonly rollout?: RolloutRequest | "immediate" | undefined;
      readonly abortRollout?: boolean;
      /** accept_warnings: publish past new predicted rejections (store/rejection-gate.ts). */
      readonly acceptWarnings?: boolean;
    }
  | { readonly action: "rollback" };

/**
 * The hooks that authorize a publish or rollback against the draft's changes and audit it, both
 * inside the publish transaction. The author of a version is the authenticated caller. A publish
 * (not a rollback) is also gated on the stored route tests (route-test-gate.ts): refused for a
 * case it turns from passing to failing, unless an admin's `routeTestOverride` lets it through,
 * recorded in the audit event; a case already failing is a warning of its answer.
 */
export function guarded(
  context: HandlerContext,
  guard: GuardedAction,
): {
  readonly author: string;
  readonly authorize: PublishHook;
  readonly audit: (tx: TransactionClient, record: SnapshotRecord) => Promise<void>;
  readonly rollouts: RolloutHook;
  readonly rejections: RejectionGate | undefined;
} {
  const caller = callerOf(context);
  const { action } = guard;
  const override = guard.action === "publish" ? (guard.routeTestOverride ?? "").trim() : "";
  refuseOverrideUnlessAdmin(caller, override);
  let overridden: RouteTestOverride | undefined;
  const rollouts = rolloutHook(
    caller,
    guard.action === "rollback"
      ? { rollback: true }
      : {
          ...(guard.rollout === "immediate"
            ? { immediate: true }
            : guard.rollout === undefined
              ? {}
              : { request: guard.rollout }),
          abortRollout: guard.abortRollout === true,
        },
  );
  return {
    author: caller.username,
    rollouts,
    // A publish is gated on predicted rejections; a rollback is not: it restores what ran.
    rejections: guard.action === "publish" ? { accept: guard.acceptWarnings === true } : undefined,
    authorize: (async (tx, changes, draft, latestVersion) => {
      await authorizePublish(tx, caller, action, changes, draft, latestVersion);
      if (guard.action !== "publish") return [];
      const gate = await gateOnRouteTests(
        tx,
        guard.routeTests,
        changes,
        draft,
        latestVersion,
        override,
      );
      overridden = gate.override;
      return gate.notes;
    }) satisfies PublishHook,
    audit: (tx: TransactionClient, record: SnapshotRecord) =>
      recordAudit(tx, {
        ...auditActor(caller),
        action,
        target: `snapshot/${record.version}`,
        ip: ipOf(context),
        detail: {
          message: record.message,
          previousVersion: record.previousVersion,
          ...(record.rolledBackFrom === null ? {} : { rolledBackFrom: record.rolledBackFrom }),
          diff: record.changes.map((c) => ({ kind: c.kind, name: c.name, change: c.change })),
          ...(overridden === undefined ? {} : { routeTestOverride: overridden }),
        },
      }),
  };
}

export function snapshotInfo(record: SnapshotRecord): SnapshotInfo {
  const count = (change: string) => record.changes.filter((c) => c.change === change).length;
  return create(SnapshotInfoSchema, {
    version: BigInt(record.version),
    createTime: timestampFromDate(record.createdAt),
    author: record.author,
    message: record.message,
    previousVersion: BigInt(record.previousVersion),
    rolledBackFrom: BigInt(record.rolledBackFrom ?? 0),
    added: count("added"),
    modified: count("modified"),
    removed: count("removed"),
  });
}

/** The largest version there can be: the database stores versions as 32-bit integers. */
const MAX_VERSION = 2_147_483_647n;

/**
 * A version from a request (`what` names its field), as stored. A larger one cannot exist, and
 * would fail the database's query: it is refused here, saying so.
 */
export function version(value: bigint, what: string): number {
  if (value > MAX_VERSION)
    throw new ConnectError(
      `${what} ${value} is out of range: versions go up to ${MAX_VERSION}`,
      Code.InvalidArgument,
    );
  return Number(value);
}

/**
 * Both sides of a published version's changes, for rendering. Read after the version is
 * committed and served, so a failure here would report a publish that happened as failed: the
 * reads get as long as the publish itself, not Prisma's default 2 s to start and 5 s to finish,
 * which a busy server (a fleet reconnecting at once) can exceed (publish-busy.e2e.spec.ts).
 */
export function specsAroundVersion(
  prisma: PrismaClient,
  record: SnapshotRecord,
): Promise<[ConfigSpec | undefined, ConfigSpec]> {
  return prisma.$transaction(
    async (tx) => [
      record.previousVersion === 0 ? undefined : await specOfVersion(tx, record.previousVersion),
      await specOfVersion(tx, record.version),
    ],
    { isolationLevel: "RepeatableRead", timeout: 60_000, maxWait: 10_000 },
  );
}

/**
 * What a publish (rollback, apply) answers, and `onPublished` called to serve the version. The
 * push onPublished starts runs over the next turns of the event loop (SnapshotCache), and the
 * answer is written before it begins. An answer by names only (`select`, from the request's
 * ChangeBodies: what the console and the CLI ask for) renders nothing, and the version is served
 * at once. With YAML, when the store holds both sides in memory (the usual case), the answer is
 * rendered first (a few milliseconds; rendering yields to the event loop, where the push would
 * otherwise get ahead of it) and the version served right after, even if rendering failed; else
 * the version is served first and both sides read after. Either way the publish answers in the
 * time of its transaction and rendering, whatever the size of the fleet.
 */
export async function publishResponse(
  prisma: PrismaClient,
  snapshot: PublishedSnapshot,
  onPublished: (snapshot: PublishedSnapshot) => void,
  select: BodiesSelection = everyBody,
) {
  const answer = (changes: ObjectChange[]) => ({
    snapshot: snapshotInfo(snapshot.record),
    changes,
    warnings: snapshot.warnings.map(issueMessage),
    rolloutIds: (snapshot.rollouts ?? []).map((id) => BigInt(id)),
  });
  const selected = select(snapshot.record.changes);
  if (!selected.withBodies || selected.changes.length === 0) {
    onPublished(snapshot);
    return answer(changeNames(selected.changes));
  }
  if (snapshot.sides !== undefined) {
    try {
      return answer(await objectChanges(selected.changes, snapshot.sides));
    } finally {
      onPublished(snapshot);
    }
  }
  onPublished(snapshot);
  const [before, after] = await specsAroundVersion(prisma, snapshot.record);
  return answer(await objectChanges(selected.changes, { before, after }));
}

const everyBody = bodiesSelection(undefined);
