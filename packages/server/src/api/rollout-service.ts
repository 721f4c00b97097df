/**
 * switchyard.v1.RolloutService: stored rollout plans and the admins' default plan (issue 45;
 * README, "Rollout plans"). A plan is put as a document (YAML or JSON) and stored only when it
 * reads (@switchyard/rollout, parsePlanDocument), as its normalised document; a refused put
 * stores nothing. Writes are admins' (access-rules.ts) and audited in their transaction. Running
 * rollouts (List, Get, Watch, Pause, Resume, Promote, Abort) are rollout-handlers.ts'.
 */
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { Prisma, type TransactionClient } from "@switchyard/db";
import type { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { planDocument } from "@switchyard/rollout";
import { quotedInput } from "@switchyard/snapshot";
import { callerOf, ipOf } from "../access/request-context.js";
import { auditActor, recordAudit } from "../auth/index.js";
import {
  countRolloutPlans,
  defaultPlanName,
  deleteRolloutPlan,
  getRolloutPlan,
  listRolloutPlans,
  putRolloutPlan,
  setDefaultPlanName,
} from "../store/rollout-plans.js";
import { type RolloutHandlersOptions, rolloutHandlers } from "./rollout-handlers.js";
import { planMessage, ROLLOUT_PLAN_LIMITS, readPlan, storedPlan } from "./rollout-messages.js";

export { ROLLOUT_PLAN_LIMITS };

/** A plan's name: as route tests' and as plan.ts reads a document's `name`. */
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** Writes of plans and of the default take turns (pg_advisory_xact_lock), so the limits hold. */
const ROLLOUT_PLANS_LOCK = 0x53_57_52_50; // "SWRP"

function checkedName(name: string, field = "name"): string {
  if (!NAME.test(name))
    throw new ConnectError(
      `${field}: ${quotedInput(name)} is not a rollout plan name (letters, digits, '.', '_', '-'; at most 100)`,
      Code.InvalidArgument,
    );
  return name;
}

const notFound = (name: string) =>
  new ConnectError(
    `rollout plan ${quotedInput(name)} does not exist (switchyard rollout plans lists them)`,
    Code.NotFound,
  );

/** The default plan is referenced by the settings row (onDelete: Restrict): P2003 on delete. */
const isForeignKeyViolation = (error: unknown) =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2003";

export function createRolloutService(
  options: RolloutHandlersOptions,
): ServiceImpl<typeof RolloutService> {
  const { prisma } = options;
  const audit = (
    tx: TransactionClient,
    context: HandlerContext,
    action: string,
    target: string | null,
    detail: Record<string, unknown>,
  ) =>
    recordAudit(tx, {
      ...auditActor(callerOf(context)),
      action,
      target,
      ip: ipOf(context),
      detail,
    });
  const takeTurn = (tx: TransactionClient) =>
    tx.$executeRaw`SELECT pg_advisory_xact_lock(${ROLLOUT_PLANS_LOCK})`;

  return {
    ...rolloutHandlers(options),
    async listRolloutPlans() {
      // One snapshot of both; one query at a time, as a transaction's connection runs them.
      const [rows, name] = await prisma.$transaction(
        async (tx) => [await listRolloutPlans(tx), await defaultPlanName(tx)] as const,
        { isolationLevel: "RepeatableRead" },
      );
      return { plans: rows.map((row) => planMessage(row, name)), defaultPlan: name ?? "" };
    },

    async getRolloutPlan(request) {
      const name = checkedName(request.name);
      const [row, defaultName] = await prisma.$transaction(
        async (tx) => [await getRolloutPlan(tx, name), await defaultPlanName(tx)] as const,
        { isolationLevel: "RepeatableRead" },
      );
      if (row === null) throw notFound(name);
      return planMessage(row, defaultName);
    },

    async putRolloutPlan(request, context) {
      const name = checkedName(request.name);
      const plan = readPlan(name, request.document);
      const document = planDocument(plan) as unknown as Prisma.InputJsonObject;
      const stored = Buffer.byteLength(JSON.stringify(document), "utf8");
      if (stored > ROLLOUT_PLAN_LIMITS.documentBytes)
        throw new ConnectError(
          `document: the plan written out is ${stored} bytes (YAML aliases repeat what they name), more than the ${ROLLOUT_PLAN_LIMITS.documentBytes} a rollout plan may hold`,
          Code.InvalidArgument,
        );
      const caller = callerOf(context);
      return prisma.$transaction(async (tx) => {
        await takeTurn(tx);
        const before = await getRolloutPlan(tx, name);
        if (before === null && (await countRolloutPlans(tx)) >= ROLLOUT_PLAN_LIMITS.plans)
          throw new ConnectError(
            `name: ${ROLLOUT_PLAN_LIMITS.plans} rollout plans are stored, the most there may be: delete one first`,
            Code.ResourceExhausted,
          );
        const row = await putRolloutPlan(tx, { name, document, by: caller.username });
        await audit(tx, context, "rollout-plan.put", `rollout-plan/${name}`, {
          diff: { before: before?.document ?? null, after: document },
        });
        return planMessage(row, await defaultPlanName(tx));
      });
    },

    async deleteRolloutPlan(request, context) {
      const name = checkedName(request.name);
      try {
        await prisma.$transaction(async (tx) => {
          await takeTurn(tx);
          const before = await getRolloutPlan(tx, name);
          if (before === null) throw notFound(name);
          if ((await defaultPlanName(tx)) === name) throw isDefault(name);
          await deleteRolloutPlan(tx, name);
          await audit(tx, context, "rollout-plan.delete", `rollout-plan/${name}`, {
            diff: { before: before.document, after: null },
          });
        });
      } catch (error) {
        // Set as the default by a writer that did not take its turn (the database refuses).
        if (isForeignKeyViolation(error)) throw isDefault(name);
        throw error;
      }
      return {};
    },

    async setDefaultRolloutPlan(request, context) {
      const name = request.name === "" ? null : checkedName(request.name);
      const caller = callerOf(context);
      return prisma.$transaction(async (tx) => {
        await takeTurn(tx);
        if (name !== null) {
          const row = await getRolloutPlan(tx, name);
          if (row === null) throw notFound(name);
          // A plan stored by an older version must still read before it becomes the default.
          storedPlan(row);
        }
        const previous = await defaultPlanName(tx);
        await setDefaultPlanName(tx, name, caller.username);
        const about = name ?? previous;
        await audit(tx, context, "rollout-plan.default", about && `rollout-plan/${about}`, {
          diff: { before: previous, after: name },
        });
        return { defaultPlan: name ?? "", previous: previous ?? "" };
      });
    },
  };
}

function isDefault(name: string): ConnectError {
  return new ConnectError(
    `rollout plan "${name}" is the default plan: set another default first (switchyard rollout plans default NAME, or --none)`,
    Code.FailedPrecondition,
  );
}
