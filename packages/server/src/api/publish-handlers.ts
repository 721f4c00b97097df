import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { type ConfigService, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ConfigSpec } from "@switchyard/snapshot";
import { auditWrites, authorizeDiscard, discardWrites } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { readConfigSpec } from "../store/config-store.js";
import { specOfVersion } from "../store/publish-transaction.js";
import {
  latestVersion,
  type PublishedSnapshot,
  type SnapshotRecord,
} from "../store/snapshot-records.js";
import { getSnapshot, listSnapshots, type SnapshotStore } from "../store/snapshot-store.js";
import { issueMessage, translated } from "./errors.js";
import {
  type BodiesSelection,
  bodiesSelection,
  objectChanges,
  sourceKindOf,
} from "./object-changes.js";
import {
  guarded,
  publishResponse,
  snapshotInfo,
  specsAroundVersion,
  version,
} from "./publishing.js";
import type { StoredTestRunner } from "./route-test-gate.js";

/** The latest published version (0: none yet), as a discard authorizes against it. */
async function latestVersionOf(tx: TransactionClient): Promise<number> {
  return (await latestVersion(tx)) ?? 0;
}

export function publishHandlers(
  prisma: PrismaClient,
  store: SnapshotStore,
  onPublished: (snapshot: PublishedSnapshot) => void,
  routeTests: StoredTestRunner,
) {
  const specsAround = (record: SnapshotRecord) => specsAroundVersion(prisma, record);
  const published = (snapshot: PublishedSnapshot, select: BodiesSelection) =>
    publishResponse(prisma, snapshot, onPublished, select);

  return {
    async validate() {
      const report = await translated(() => store.validateDraft());
      // Each predicted rejection says whether the latest version has it too (rejection-gate.ts):
      // the console asks to confirm a publish only for new ones.
      const issues = await translated(() => store.markRejections(report.issues));
      return { issues: issues.map(issueMessage), ok: report.ok };
    },

    async diff(request) {
      const from =
        request.fromVersion === 0n ? undefined : version(request.fromVersion, "from_version");
      const to = request.toVersion === 0n ? undefined : version(request.toVersion, "to_version");
      if (to !== undefined && from === undefined) {
        throw new ConnectError(
          "to_version needs from_version: name both versions, or neither to diff the draft",
          Code.InvalidArgument,
        );
      }
      const result = await translated(() => store.diff(from, to));
      const selected = bodiesSelection(request.bodies)(result.changes);
      const sides =
        selected.withBodies && selected.changes.length > 0
          ? await prisma.$transaction(
              async (tx) => ({
                before:
                  result.fromVersion === 0
                    ? undefined
                    : await specOfVersion(tx, result.fromVersion),
                after: to === undefined ? await readConfigSpec(tx) : await specOfVersion(tx, to),
              }),
              { isolationLevel: "RepeatableRead" },
            )
          : undefined;
      return {
        fromVersion: BigInt(result.fromVersion),
        toVersion: BigInt(result.toVersion),
        changes: await objectChanges(selected.changes, sides),
        draftRevision: result.draftRevision ?? "",
      };
    },

    async publish(request, context) {
      if (request.message.trim() === "") {
        throw new ConnectError(
          "a publish needs a message saying what changed and why",
          Code.InvalidArgument,
        );
      }
      const select = bodiesSelection(request.bodies);
      const snapshot = await translated(() =>
        store.publishDraft({
          ...guarded(context, {
            action: "publish",
            routeTests,
            routeTestOverride: request.routeTestOverride,
            rollout: request.rollout,
            abortRollout: request.abortRollout,
            acceptWarnings: request.acceptWarnings,
          }),
          message: request.message.trim(),
          baseVersion: version(request.baseVersion, "base_version"),
          draftRevision: request.draftRevision || undefined,
        }),
      );
      return published(snapshot, select);
    },

    async rollback(request, context) {
      if (request.version === 0n)
        throw new ConnectError(
          "name the version to roll back to (see switchyard history)",
          Code.InvalidArgument,
        );
      const select = bodiesSelection(request.bodies);
      const snapshot = await translated(() =>
        store.rollback({
          ...guarded(context, { action: "rollback" }),
          version: version(request.version, "version"),
          message: request.message.trim(),
          baseVersion: version(request.baseVersion, "base_version"),
        }),
      );
      return published(snapshot, select);
    },

    async discardDraft(request, context) {
      const caller = callerOf(context);
      const only =
        request.objects.length === 0
          ? undefined
          : request.objects.map((object, index) => {
              if (object.kind === ResourceKind.UNSPECIFIED || object.name === "")
                throw new ConnectError(
                  `objects[${index}]: name an object by its kind and name`,
                  Code.InvalidArgument,
                );
              return { kind: sourceKindOf(object.kind), name: object.name };
            });
      let sides: { before: ConfigSpec; after: ConfigSpec } | undefined;
      const result = await translated(() =>
        store.discard({
          ...(only === undefined ? {} : { only }),
          authorize: async (tx, discarded) => {
            sides = { before: discarded.published, after: discarded.draft };
            const writes = discardWrites(discarded.changes, discarded.draft, discarded.published);
            await authorizeDiscard(tx, caller, writes, await latestVersionOf(tx));
          },
          audit: (tx, discarded) =>
            auditWrites(
              tx,
              caller,
              ipOf(context),
              discardWrites(discarded.changes, discarded.draft, discarded.published),
              { discarded: true },
            ),
        }),
      );
      return {
        version: BigInt(result.version),
        changes: await objectChanges(result.changes, sides),
      };
    },

    async listSnapshots(request) {
      const limit = Math.min(request.limit || 50, 500);
      const records = await listSnapshots(prisma, {
        limit,
        ...(request.beforeVersion > 0n
          ? { beforeVersion: version(request.beforeVersion, "before_version") }
          : {}),
      });
      return { snapshots: records.map(snapshotInfo) };
    },

    async getSnapshot(request) {
      const record = await translated(() =>
        getSnapshot(prisma, version(request.version, "version")),
      );
      // A names-only request (the History page's first look at a large version) reads no specs.
      const selected = bodiesSelection(request.bodies)(record.changes);
      let sides: Parameters<typeof objectChanges>[1];
      if (selected.withBodies && selected.changes.length > 0) {
        const [before, after] = await specsAround(record);
        sides = { before, after };
      }
      return {
        snapshot: snapshotInfo(record),
        changes: await objectChanges(selected.changes, sides),
      };
    },
  } satisfies Partial<ServiceImpl<typeof ConfigService>>;
}
