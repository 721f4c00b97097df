import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ConfigService,
  type ObjectChange,
  ResourceKind,
  type SnapshotInfo,
  SnapshotInfoSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { ConfigSpec } from "@switchyard/snapshot";
import {
  auditWrites,
  authorizeDiscard,
  authorizePublish,
  discardWrites,
} from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor, recordAudit } from "../auth/index.js";
import { readConfigSpec } from "../store/config-store.js";
import { type PublishHook, specOfVersion } from "../store/publish-transaction.js";
import {
  latestVersion,
  type PublishedSnapshot,
  type SnapshotRecord,
} from "../store/snapshot-records.js";
import { getSnapshot, listSnapshots, type SnapshotStore } from "../store/snapshot-store.js";
import { issueMessage, translated } from "./errors.js";
import { objectChanges, selectChanges, sourceKindOf } from "./object-changes.js";
import { reviewHandlers } from "./review-handlers.js";

/**
 * The hooks that authorize a publish or rollback against the draft's changes and audit it, both
 * inside the publish transaction. The author of a version is the authenticated caller.
 */
export function guarded(
  context: HandlerContext,
  action: "publish" | "rollback",
): {
  readonly author: string;
  readonly authorize: PublishHook;
  readonly audit: (tx: TransactionClient, record: SnapshotRecord) => Promise<void>;
} {
  const caller = callerOf(context);
  return {
    author: caller.username,
    authorize: ((tx, changes, draft, latestVersion) =>
      authorizePublish(tx, caller, action, changes, draft, latestVersion)) satisfies PublishHook,
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

/** The latest published version (0: none yet), as a discard authorizes against it. */
async function latestVersionOf(tx: TransactionClient): Promise<number> {
  return (await latestVersion(tx)) ?? 0;
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
function specsAroundVersion(
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
 * answer is written before it begins: when the store holds both sides in memory (the usual case),
 * the answer is rendered first (a few milliseconds; rendering yields to the event loop, where the
 * push would otherwise get ahead of it) and the version served right after, even if rendering
 * failed; else the version is served first and both sides read after. Either way the publish
 * answers in the time of its transaction and rendering, whatever the size of the fleet.
 */
export async function publishResponse(
  prisma: PrismaClient,
  snapshot: PublishedSnapshot,
  onPublished: (snapshot: PublishedSnapshot) => void,
) {
  const answer = (changes: ObjectChange[]) => ({
    snapshot: snapshotInfo(snapshot.record),
    changes,
    warnings: snapshot.warnings.map(issueMessage),
  });
  if (snapshot.sides !== undefined) {
    try {
      return answer(await objectChanges(snapshot.record.changes, snapshot.sides));
    } finally {
      onPublished(snapshot);
    }
  }
  onPublished(snapshot);
  const [before, after] = await specsAroundVersion(prisma, snapshot.record);
  return answer(await objectChanges(snapshot.record.changes, { before, after }));
}

export function publishHandlers(
  prisma: PrismaClient,
  store: SnapshotStore,
  onPublished: (snapshot: PublishedSnapshot) => void,
): Partial<ServiceImpl<typeof ConfigService>> {
  const specsAround = (record: SnapshotRecord) => specsAroundVersion(prisma, record);
  const published = (snapshot: PublishedSnapshot) => publishResponse(prisma, snapshot, onPublished);

  return {
    ...reviewHandlers(prisma, store, published),

    async validate() {
      const report = await translated(() => store.validateDraft());
      return { issues: report.issues.map(issueMessage), ok: report.ok };
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
      const selected = selectChanges(result.changes, request.bodies);
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
      const snapshot = await translated(() =>
        store.publishDraft({
          ...guarded(context, "publish"),
          message: request.message.trim(),
          baseVersion: version(request.baseVersion, "base_version"),
          draftRevision: request.draftRevision || undefined,
        }),
      );
      return published(snapshot);
    },

    async rollback(request, context) {
      if (request.version === 0n)
        throw new ConnectError(
          "name the version to roll back to (see switchyard history)",
          Code.InvalidArgument,
        );
      const snapshot = await translated(() =>
        store.rollback({
          ...guarded(context, "rollback"),
          version: version(request.version, "version"),
          message: request.message.trim(),
          baseVersion: version(request.baseVersion, "base_version"),
        }),
      );
      return published(snapshot);
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
      const selected = selectChanges(record.changes, request.bodies);
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
  };
}
