/**
 * Stored rollout plans (RolloutPlan rows) and the admins' default plan (the one RolloutSettings
 * row). A plan is kept as its document (planDocument of @switchyard/rollout), which planOf reads
 * back as the same plan; the handler checked it before it was written.
 */
import type { Prisma, PrismaClient, TransactionClient } from "@switchyard/db";

type Db = PrismaClient | TransactionClient;

export interface StoredRolloutPlan {
  readonly name: string;
  /** The plan's document as JSON: planOf's input. */
  readonly document: unknown;
  readonly createdAt: Date;
  readonly createdBy: string;
  readonly updatedAt: Date;
  readonly updatedBy: string;
}

/** The settings row's key: there is one. */
const SETTINGS_ID = 1;

const select = {
  name: true,
  document: true,
  createdAt: true,
  createdBy: true,
  updatedAt: true,
  updatedBy: true,
} as const;

export async function listRolloutPlans(db: Db): Promise<StoredRolloutPlan[]> {
  return db.rolloutPlan.findMany({ select, orderBy: { name: "asc" } });
}

export async function countRolloutPlans(db: Db): Promise<number> {
  return db.rolloutPlan.count();
}

export async function getRolloutPlan(db: Db, name: string): Promise<StoredRolloutPlan | null> {
  return db.rolloutPlan.findUnique({ where: { name }, select });
}

/** Creates or replaces the plan `name`; `by` is recorded as its author (and creator if new). */
export async function putRolloutPlan(
  db: Db,
  plan: { readonly name: string; readonly document: Prisma.InputJsonObject; readonly by: string },
): Promise<StoredRolloutPlan> {
  return db.rolloutPlan.upsert({
    where: { name: plan.name },
    create: {
      name: plan.name,
      document: plan.document,
      createdBy: plan.by,
      updatedBy: plan.by,
    },
    update: { document: plan.document, updatedBy: plan.by },
    select,
  });
}

/** Deletes the plan; false when there was none. The default plan's row refuses (a foreign key). */
export async function deleteRolloutPlan(db: Db, name: string): Promise<boolean> {
  const { count } = await db.rolloutPlan.deleteMany({ where: { name } });
  return count > 0;
}

/** The admins' default plan's name, or null when none is set. */
export async function defaultPlanName(db: Db): Promise<string | null> {
  const row = await db.rolloutSettings.findUnique({
    where: { id: SETTINGS_ID },
    select: { defaultPlanName: true },
  });
  return row?.defaultPlanName ?? null;
}

/** Sets (or, with null, clears) the default plan; the plan must exist (a foreign key). */
export async function setDefaultPlanName(db: Db, name: string | null, by: string): Promise<void> {
  await db.rolloutSettings.upsert({
    where: { id: SETTINGS_ID },
    create: { id: SETTINGS_ID, defaultPlanName: name, updatedBy: by },
    update: { defaultPlanName: name, updatedBy: by },
  });
}
