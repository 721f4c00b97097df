/**
 * Review requests (Team.requireReview): a member whose team requires review asks an admin to
 * publish the draft for them; an admin approves (publishes exactly the requested draft on top of
 * exactly the requested version) or rejects with a reason; the requester may withdraw. Each step
 * is audited in its own transaction, and an approval's publish, audit and state change commit
 * together or not at all.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient, ReviewRequest as ReviewRow, TransactionClient } from "@switchyard/db";
import {
  type ConfigService,
  type PublishResponse,
  type ReviewRequest,
  ReviewRequestSchema,
  ReviewState,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { SourceChange } from "@switchyard/snapshot";
import { publishDecision } from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { assertAllowed, auditActor, recordAudit } from "../auth/index.js";
import { PublishError } from "../store/publish-transaction.js";
import type { PublishedSnapshot } from "../store/snapshot-records.js";
import type { SnapshotStore } from "../store/snapshot-store.js";
import { toConnectError, translated } from "./errors.js";
import { changeNames } from "./object-changes.js";
import { guarded, version } from "./publishing.js";
import { gateOnRouteTests, type StoredTestRunner } from "./route-test-gate.js";

type StoredState = ReviewRow["state"];

const STATE: Record<StoredState, ReviewState> = {
  OPEN: ReviewState.OPEN,
  APPROVED: ReviewState.APPROVED,
  REJECTED: ReviewState.REJECTED,
  WITHDRAWN: ReviewState.WITHDRAWN,
};
const STORED_STATE = new Map<ReviewState, StoredState>(
  Object.entries(STATE).map(([stored, state]) => [state, stored as StoredState]),
);

/** The changes a request recorded, as stored (names only). */
type StoredChange = Pick<SourceChange, "kind" | "name" | "change">;

/** What the draft is now, to tell whether an open request can still be approved. */
interface DraftHead {
  readonly latestVersion: number;
  readonly draftRevision: string;
}

function reviewMessage(row: ReviewRow, head: DraftHead | undefined): ReviewRequest {
  return create(ReviewRequestSchema, {
    id: BigInt(row.id),
    state: STATE[row.state],
    requester: row.requester,
    team: row.team,
    message: row.message,
    baseVersion: BigInt(row.baseVersion),
    draftRevision: row.draftRevision,
    changes: changeNames(row.changes as unknown as StoredChange[]),
    createTime: timestampFromDate(row.createdAt),
    decidedBy: row.decidedBy ?? "",
    ...(row.decidedAt === null ? {} : { decideTime: timestampFromDate(row.decidedAt) }),
    comment: row.comment,
    publishedVersion: BigInt(row.publishedVersion ?? 0),
    current:
      row.state === "OPEN" &&
      head !== undefined &&
      head.latestVersion === row.baseVersion &&
      head.draftRevision === row.draftRevision,
  });
}

const MAX_REVIEW_ID = 2n ** 63n - 1n;

function reviewId(value: bigint): bigint {
  if (value <= 0n)
    throw new ConnectError(
      "name the review request by its id (see switchyard review list)",
      Code.InvalidArgument,
    );
  return value;
}

function notOpen(row: Pick<ReviewRow, "id" | "state">, action: string): ConnectError {
  return new ConnectError(
    `review #${row.id} is ${row.state.toLowerCase()}: only an open request can be ${action}`,
    Code.FailedPrecondition,
  );
}

export function reviewHandlers(
  prisma: PrismaClient,
  store: SnapshotStore,
  published: (
    snapshot: PublishedSnapshot,
  ) => Promise<Omit<PublishResponse, "$typeName" | "outside">>,
  routeTests: StoredTestRunner,
) {
  const head = async (): Promise<DraftHead> => {
    const diff = await store.diff(undefined, undefined);
    return { latestVersion: diff.fromVersion, draftRevision: diff.draftRevision ?? "" };
  };

  const load = async (id: bigint): Promise<ReviewRow> => {
    // Ids are 64-bit signed in the database: a larger one cannot exist, and would fail the query.
    const row =
      reviewId(id) > MAX_REVIEW_ID
        ? null
        : await prisma.reviewRequest.findUnique({ where: { id } });
    if (row === null)
      throw new ConnectError(
        `review #${id} does not exist (see switchyard review list)`,
        Code.NotFound,
      );
    return row;
  };

  /** Closes an open request (reject, withdraw): refused if someone closed it first. */
  const close = async (
    context: HandlerContext,
    row: ReviewRow,
    state: "REJECTED" | "WITHDRAWN",
    comment: string,
  ): Promise<ReviewRequest> => {
    const caller = callerOf(context);
    const action = state === "REJECTED" ? "rejected" : "withdrawn";
    const updated = await prisma.$transaction(async (tx) => {
      const { count } = await tx.reviewRequest.updateMany({
        where: { id: row.id, state: "OPEN" },
        data: { state, decidedBy: caller.username, decidedAt: new Date(), comment },
      });
      if (count === 0)
        throw notOpen(await tx.reviewRequest.findUniqueOrThrow({ where: { id: row.id } }), action);
      await recordAudit(tx, {
        ...auditActor(caller),
        action: state === "REJECTED" ? "review.reject" : "review.withdraw",
        target: `review/${row.id}`,
        ip: ipOf(context),
        detail: { requester: row.requester, comment },
      });
      return tx.reviewRequest.findUniqueOrThrow({ where: { id: row.id } });
    });
    return reviewMessage(updated, undefined);
  };

  return {
    async requestReview(request, context) {
      const caller = callerOf(context);
      const message = request.message.trim();
      if (message === "")
        throw new ConnectError(
          "a review request needs a message saying what changed and why (it becomes the published version's message)",
          Code.InvalidArgument,
        );
      if (request.draftRevision === "")
        throw new ConnectError(
          "draft_revision is required: a review request names the draft it asks to publish (DiffResponse.draft_revision, as switchyard diff shows it)",
          Code.InvalidArgument,
        );
      const row = await translated(() =>
        store.checkDraft(
          {
            baseVersion: version(request.baseVersion, "base_version"),
            draftRevision: request.draftRevision,
            // Whoever may publish the draft, or may once an admin reviews it, may ask.
            authorize: async (tx, changes, draft, latestVersion) => {
              const decision = await publishDecision(
                tx,
                caller,
                "publish",
                changes,
                draft,
                latestVersion,
              );
              if (decision.t === "deny") assertAllowed(decision);
              // The route tests the approval would run, run now: a requester whose change breaks
              // one learns it (and fixes it) before anyone is asked to review it.
              return (await gateOnRouteTests(tx, routeTests, changes, draft, latestVersion, ""))
                .notes;
            },
          },
          async (tx, { changes, latestVersion }) => {
            // One open request per requester: a new one replaces theirs.
            await tx.reviewRequest.updateMany({
              where: { requester: caller.username, state: "OPEN" },
              data: {
                state: "WITHDRAWN",
                decidedBy: caller.username,
                decidedAt: new Date(),
                comment: "replaced by a newer request",
              },
            });
            const stored: StoredChange[] = changes.map((c) => ({
              kind: c.kind,
              name: c.name,
              change: c.change,
            }));
            const created = await tx.reviewRequest.create({
              data: {
                requester: caller.username,
                team: caller.team?.name ?? "",
                message,
                baseVersion: latestVersion,
                draftRevision: request.draftRevision,
                changes: stored as unknown as object,
              },
            });
            await recordAudit(tx, {
              ...auditActor(caller),
              action: "review.request",
              target: `review/${created.id}`,
              ip: ipOf(context),
              detail: {
                message,
                baseVersion: latestVersion,
                draftRevision: request.draftRevision,
                diff: stored,
              },
            });
            return created;
          },
        ),
      );
      return reviewMessage(row, {
        latestVersion: row.baseVersion,
        draftRevision: row.draftRevision,
      });
    },

    async listReviewRequests(request) {
      const states = request.states.map((state) => {
        const stored = STORED_STATE.get(state);
        if (stored === undefined)
          throw new ConnectError(`states: ${state} is not a review state`, Code.InvalidArgument);
        return stored;
      });
      const rows = await prisma.reviewRequest.findMany({
        where: states.length > 0 ? { state: { in: states } } : {},
        orderBy: { id: "desc" },
        take: Math.min(request.limit || 50, 500),
      });
      const now = rows.some((row) => row.state === "OPEN") ? await head() : undefined;
      return { requests: rows.map((row) => reviewMessage(row, now)) };
    },

    async getReviewRequest(request) {
      const row = await load(request.id);
      return reviewMessage(row, row.state === "OPEN" ? await head() : undefined);
    },

    async approveReview(request, context) {
      const row = await load(request.id);
      if (row.state !== "OPEN") throw notOpen(row, "approved");
      const caller = callerOf(context);
      const hooks = guarded(context, {
        action: "publish",
        routeTests,
        routeTestOverride: request.routeTestOverride,
        abortRollout: request.abortRollout,
        acceptWarnings: request.acceptWarnings,
      });
      const comment = request.comment.trim();
      let snapshot: PublishedSnapshot;
      try {
        snapshot = await store.publishDraft({
          author: row.requester,
          message: `${row.message} (review #${row.id}, approved by ${caller.username})`,
          baseVersion: row.baseVersion || undefined,
          draftRevision: row.draftRevision,
          rollouts: hooks.rollouts,
          rejections: hooks.rejections,
          authorize: async (tx, changes, draft, latestVersion) => {
            // Two admins approving at once: the second waits here, then finds it closed.
            const [locked] = await tx.$queryRaw<Array<{ state: StoredState }>>`
              SELECT "state" FROM "ReviewRequest" WHERE "id" = ${row.id} FOR UPDATE`;
            if (locked?.state !== "OPEN")
              throw notOpen({ id: row.id, state: locked?.state ?? "WITHDRAWN" }, "approved");
            if (latestVersion !== row.baseVersion)
              throw new PublishError("stale-base", "a version was published after the request");
            return hooks.authorize(tx, changes, draft, latestVersion);
          },
          audit: async (tx: TransactionClient, record) => {
            await hooks.audit(tx, record);
            await tx.reviewRequest.update({
              where: { id: row.id },
              data: {
                state: "APPROVED",
                decidedBy: caller.username,
                decidedAt: new Date(),
                comment,
                publishedVersion: record.version,
              },
            });
            await recordAudit(tx, {
              ...auditActor(caller),
              action: "review.approve",
              target: `review/${row.id}`,
              ip: ipOf(context),
              detail: { requester: row.requester, version: record.version, comment },
            });
          },
        });
      } catch (error) {
        if (
          error instanceof PublishError &&
          (error.code === "stale-base" || error.code === "draft-changed")
        ) {
          const why =
            error.code === "draft-changed"
              ? "the draft changed after it was requested"
              : `version ${(await head()).latestVersion} was published after the request (made on version ${row.baseVersion})`;
          throw new ConnectError(
            `review #${row.id} is out of date: ${why}. Ask ${row.requester} to review the draft and request again, or reject it`,
            Code.FailedPrecondition,
          );
        }
        throw toConnectError(error);
      }
      const response = await translated(async () => published(snapshot));
      return {
        request: reviewMessage(await load(request.id), undefined),
        publish: response,
      };
    },

    async rejectReview(request, context) {
      const comment = request.comment.trim();
      if (comment === "")
        throw new ConnectError(
          "a rejection needs a comment telling the requester why",
          Code.InvalidArgument,
        );
      const row = await load(request.id);
      return close(context, row, "REJECTED", comment);
    },

    async withdrawReview(request, context) {
      const row = await load(request.id);
      const caller = callerOf(context);
      if (row.requester !== caller.username)
        throw new ConnectError(
          `only ${row.requester}, who asked, may withdraw review #${row.id}` +
            (caller.role === "ADMIN" ? "; an admin rejects it instead" : ""),
          Code.PermissionDenied,
        );
      return close(context, row, "WITHDRAWN", request.comment.trim());
    },
  } satisfies Partial<ServiceImpl<typeof ConfigService>>;
}
