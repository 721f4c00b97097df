/**
 * Rollout rows in PostgreSQL (prisma/schema.prisma, model Rollout): the rollout core's state as it
 * is, its driver's lease and its revision. Every write of a state names the revision it read, so
 * of two replicas that both believe they drive a rollout (a lease that ran out while its holder
 * was cut off from the database) only one write lands; and every write notifies ROLLOUT_CHANNEL,
 * which every process follows to serve the group (rollout-follower.ts) and the watches read.
 */
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { hasEnded, type RolloutState } from "@switchyard/rollout";

export const ROLLOUT_CHANNEL = "switchyard_rollouts";

type Db = PrismaClient | TransactionClient;

/** One window of load the traffic gate counted, per touched cluster, for the console's chart. */
export interface TrafficWindow {
  readonly from: number;
  readonly to: number;
  readonly wave: number;
  readonly clusters: readonly {
    readonly cluster: string;
    readonly canary: { readonly requests: number; readonly errored: number };
    readonly control: { readonly requests: number; readonly errored: number };
  }[];
}

/** The windows kept per rollout (an hour of 5 s windows). */
export const MAX_TRAFFIC_WINDOWS = 720;

export interface RolloutRow {
  readonly id: number;
  readonly group: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly planName: string;
  readonly state: RolloutState;
  readonly active: boolean;
  readonly revision: number;
  readonly driver: string | null;
  readonly loadedUntil: number | undefined;
  readonly series: readonly TrafficWindow[];
  readonly supersededBy: number | null;
  readonly createdBy: string;
  readonly message: string;
  readonly createdAt: Date;
  readonly endedAt: Date | null;
}

interface StoredRow {
  id: number;
  group: string;
  fromVersion: number;
  toVersion: number;
  planName: string;
  state: unknown;
  active: boolean;
  revision: number;
  driver: string | null;
  loadedUntil: Date | null;
  series: unknown;
  supersededBy: number | null;
  createdBy: string;
  message: string;
  createdAt: Date;
  endedAt: Date | null;
}

function rowOf(row: StoredRow): RolloutRow {
  return {
    ...row,
    state: row.state as RolloutState,
    loadedUntil: row.loadedUntil?.getTime(),
    series: row.series as TrafficWindow[],
  };
}

const select = {
  id: true,
  group: true,
  fromVersion: true,
  toVersion: true,
  planName: true,
  state: true,
  active: true,
  revision: true,
  driver: true,
  loadedUntil: true,
  series: true,
  supersededBy: true,
  createdBy: true,
  message: true,
  createdAt: true,
  endedAt: true,
} as const;

export async function readRollout(db: Db, id: number): Promise<RolloutRow | undefined> {
  const row = await db.rollout.findUnique({ where: { id }, select });
  return row === null ? undefined : rowOf(row);
}

/** Newest first. */
export async function listRollouts(
  db: Db,
  options: {
    readonly limit: number;
    readonly activeOnly?: boolean;
    readonly toVersion?: number;
    readonly group?: string;
  },
): Promise<RolloutRow[]> {
  const rows = await db.rollout.findMany({
    where: {
      ...(options.activeOnly ? { active: true } : {}),
      ...(options.group === undefined ? {} : { group: options.group }),
      ...(options.toVersion === undefined ? {} : { toVersion: options.toVersion }),
    },
    orderBy: { id: "desc" },
    take: options.limit,
    select,
  });
  return rows.map(rowOf);
}

/** The rollouts not ended whose group is one of `groups`, locked for this transaction. */
export async function activeRolloutsOf(
  tx: TransactionClient,
  groups: readonly string[],
): Promise<RolloutRow[]> {
  if (groups.length === 0) return [];
  const ids = await tx.$queryRaw<{ id: number }[]>`
    SELECT "id" FROM "Rollout" WHERE "active" AND "group" = ANY(${groups as string[]}::text[])
    ORDER BY "id" FOR UPDATE`;
  if (ids.length === 0) return [];
  const rows = await tx.rollout.findMany({
    where: { id: { in: ids.map((r) => r.id) } },
    orderBy: { id: "asc" },
    select,
  });
  return rows.map(rowOf);
}

/** The id the next rollout created gets (its state names it before the row is written). */
export async function nextRolloutId(tx: TransactionClient): Promise<number> {
  const [row] = await tx.$queryRaw<{ id: bigint }[]>`
    SELECT nextval(pg_get_serial_sequence('"Rollout"', 'id')) AS "id"`;
  if (row === undefined) throw new Error("no rollout id from the sequence");
  return Number(row.id);
}

export async function createRollout(
  tx: TransactionClient,
  input: {
    readonly id: number;
    readonly planName: string;
    readonly state: RolloutState;
    readonly createdBy: string;
    readonly message: string;
  },
): Promise<void> {
  const { state } = input;
  await tx.rollout.create({
    data: {
      id: input.id,
      group: state.group,
      fromVersion: state.fromVersion,
      toVersion: state.toVersion,
      planName: input.planName,
      state: state as unknown as object,
      phase: state.phase.t,
      active: !hasEnded(state.phase),
      createdBy: input.createdBy,
      message: input.message,
      ...(hasEnded(state.phase) ? { endedAt: new Date(state.now) } : {}),
    },
  });
  await notifyRollout(tx, input.id);
}

export interface StateWrite {
  readonly state: RolloutState;
  readonly loadedUntil?: number;
  /** Windows to add to the series. */
  readonly windows?: readonly TrafficWindow[];
  readonly supersededBy?: number;
}

/**
 * Writes the rollout's next state if its revision is still `revision` (and, for a driver, its
 * lease is still `driver`'s); false when not, writing nothing: someone else decided since.
 */
export async function writeRolloutState(
  db: Db,
  id: number,
  revision: number,
  write: StateWrite,
  driver?: string,
): Promise<boolean> {
  const { state } = write;
  const ended = hasEnded(state.phase);
  const windows = JSON.stringify(write.windows ?? []);
  const count = await db.$executeRaw`
    UPDATE "Rollout" SET
      "state" = ${JSON.stringify(state)}::jsonb,
      "phase" = ${state.phase.t},
      "active" = ${!ended},
      "revision" = "revision" + 1,
      "loadedUntil" = COALESCE(${write.loadedUntil === undefined ? null : new Date(write.loadedUntil)}::timestamp(3), "loadedUntil"),
      "series" = (
        SELECT COALESCE(jsonb_agg(w ORDER BY n), '[]'::jsonb) FROM (
          SELECT w, n FROM jsonb_array_elements("series" || ${windows}::jsonb) WITH ORDINALITY AS t(w, n)
          ORDER BY n DESC LIMIT ${MAX_TRAFFIC_WINDOWS}
        ) kept
      ),
      "supersededBy" = COALESCE(${write.supersededBy ?? null}::int4, "supersededBy"),
      "endedAt" = CASE WHEN ${ended} THEN COALESCE("endedAt", ${new Date(state.now)}::timestamp(3)) ELSE NULL END,
      "updatedAt" = now()
    WHERE "id" = ${id} AND "revision" = ${revision}
      AND (${driver ?? null}::text IS NULL OR ("driver" = ${driver ?? null}::text AND "driverUntil" > now()))`;
  if (count === 0) return false;
  await notifyRollout(db, id);
  return true;
}

async function notifyRollout(db: Db, id: number): Promise<void> {
  await db.$executeRaw`SELECT pg_notify(${ROLLOUT_CHANNEL}, ${String(id)})`;
}

/**
 * Takes (or renews) the lease of every rollout not ended whose lease is free, ran out or is
 * `replicaId`'s already, for `leaseMs`; answers the rollouts it holds now.
 */
export async function claimRollouts(
  prisma: PrismaClient,
  replicaId: string,
  leaseMs: number,
): Promise<RolloutRow[]> {
  const claimed = await prisma.$queryRaw<{ id: number }[]>`
    UPDATE "Rollout" SET "driver" = ${replicaId},
      "driverUntil" = now() + make_interval(secs => ${leaseMs / 1000})
    WHERE "active" AND ("driver" IS NULL OR "driver" = ${replicaId} OR "driverUntil" IS NULL
      OR "driverUntil" < now())
    RETURNING "id"`;
  if (claimed.length === 0) return [];
  const rows = await prisma.rollout.findMany({
    where: { id: { in: claimed.map((r) => r.id) }, driver: replicaId },
    orderBy: { id: "asc" },
    select,
  });
  return rows.map(rowOf);
}

/** Gives up `replicaId`'s leases (a replica stopping): the next replica takes over at once. */
export async function releaseRollouts(prisma: PrismaClient, replicaId: string): Promise<void> {
  await prisma.$executeRaw`
    UPDATE "Rollout" SET "driverUntil" = now() WHERE "driver" = ${replicaId} AND "active"`;
}

/** What serving a rollout's group needs of its row: the nodes that have the new version. */
export interface RolloutServingRow {
  readonly id: number;
  readonly group: string;
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly phase: RolloutState["phase"]["t"];
  readonly active: boolean;
  /** Nodes served the new version now (versionFor), while it runs. */
  readonly promoted: readonly string[];
}

/**
 * The serving of every rollout not ended, and of the `known` ones (ended since): the nodes
 * promoted are read in SQL, not the whole state.
 */
export async function rolloutServing(
  db: Db,
  known: readonly number[],
  /** Also those this version superseded (a publish reading its own transaction's). */
  supersededBy = 0,
): Promise<RolloutServingRow[]> {
  return db.$queryRaw<RolloutServingRow[]>`
    SELECT "id", "group", "fromVersion", "toVersion", "phase", "active",
      CASE WHEN "phase" IN ('applying', 'baking', 'paused') THEN ARRAY(
        SELECT key FROM jsonb_each("state"->'nodes') WHERE value ? 'sent' ORDER BY key
      ) ELSE ARRAY[]::text[] END AS "promoted"
    FROM "Rollout"
    WHERE "active" OR "id" = ANY(${known as number[]}::int4[]) OR "supersededBy" = ${supersededBy}
    ORDER BY "id"`;
}
