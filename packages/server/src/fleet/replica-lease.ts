/**
 * Replica leases. Node status is written by the replica serving each node; a replica that dies
 * without stopping (SIGKILL, OOM, a lost machine) cannot write its nodes' disconnects. So every
 * replica renews a lease (XdsReplica.seenAt) every `intervalMs`, and reaps the replicas whose
 * lease is older than `expireAfterMs`: their nodes still marked connected are marked
 * disconnected as of the lease's last renewal, with a disconnect event saying why, and every
 * replica's live views are told (STATUS_CHANNEL). The nodes that reconnect elsewhere are written
 * connected again by the replica that serves them.
 *
 * A replica that finds its own lease gone (reaped while the database was away from it) has its
 * status writer write every node it serves again.
 */
import type { PrismaClient } from "@switchyard/db";
import { STATUS_CHANNEL, statusPayload } from "./status-store.js";

export const DEFAULT_LEASE_INTERVAL_MS = 5_000;
export const DEFAULT_LEASE_EXPIRY_MS = 20_000;

export interface ReplicaLeaseOptions {
  readonly prisma: PrismaClient;
  readonly replicaId: string;
  readonly intervalMs?: number;
  readonly expireAfterMs?: number;
  /** Called when this replica's lease was found reaped: write every node again. */
  readonly onReaped: () => void;
  /** Called with the node ids of each replica reaped here. */
  readonly onReapedOther?: (replicaId: string, nodeIds: readonly string[]) => void;
  readonly onError: (error: unknown) => void;
}

export class ReplicaLease {
  readonly #options: ReplicaLeaseOptions;
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #renewed = false;
  #closed = false;

  constructor(options: ReplicaLeaseOptions) {
    this.#options = options;
    this.#timer = setInterval(
      () => void this.renew(),
      options.intervalMs ?? DEFAULT_LEASE_INTERVAL_MS,
    );
    this.#timer.unref();
  }

  /** Renews this replica's lease and reaps expired ones; errors go to onError. */
  renew(): Promise<void> {
    this.#running ??= this.#renew().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #renew(): Promise<void> {
    if (this.#closed) return;
    const { prisma, replicaId } = this.#options;
    const expireMs = this.#options.expireAfterMs ?? DEFAULT_LEASE_EXPIRY_MS;
    try {
      // xmax = 0 only on the row version an INSERT created: the lease did not exist.
      const [lease] = await prisma.$queryRaw<Array<{ inserted: boolean }>>`
        INSERT INTO "XdsReplica" ("id", "seenAt") VALUES (${replicaId}, now())
        ON CONFLICT ("id") DO UPDATE SET "seenAt" = now()
        RETURNING (xmax = 0) AS inserted`;
      if (lease?.inserted === true && this.#renewed) this.#options.onReaped();
      this.#renewed = true;
      const reaped = await prisma.$transaction(async (tx) => {
        const rows = await tx.$queryRaw<Array<{ replicaId: string; nodeId: string; at: Date }>>`
          WITH dead AS (
            DELETE FROM "XdsReplica"
            WHERE "seenAt" < now() - make_interval(secs => ${expireMs / 1000})
            RETURNING "id", "seenAt"
          ), nodes AS (
            UPDATE "XdsNode" n
            SET "openStreams" = 0, "disconnectedAt" = dead."seenAt", "updatedAt" = now()
            FROM dead
            WHERE n."replicaId" = dead."id" AND n."disconnectedAt" IS NULL
            RETURNING n."id" AS "nodeId", dead."id" AS "replicaId", dead."seenAt" AS "at"
          )
          SELECT "replicaId", "nodeId", "at" FROM nodes`;
        if (rows.length === 0) return rows;
        await tx.xdsNodeEvent.createMany({
          data: rows.map((row) => ({
            nodeId: row.nodeId,
            kind: "disconnect",
            at: row.at,
            replicaId: row.replicaId,
            detail: {
              nodeDisconnected: true,
              reason: `replica ${row.replicaId} stopped renewing its lease (killed or cut off)`,
            },
          })),
        });
        await tx.$executeRaw`SELECT pg_notify(${STATUS_CHANNEL}, ${statusPayload(rows.map((r) => r.nodeId))})`;
        return rows;
      });
      const byReplica = new Map<string, string[]>();
      for (const row of reaped)
        byReplica.set(row.replicaId, [...(byReplica.get(row.replicaId) ?? []), row.nodeId]);
      for (const [id, nodeIds] of byReplica) this.#options.onReapedOther?.(id, nodeIds);
    } catch (error) {
      this.#options.onError(error);
    }
  }

  /** Stops renewing and gives the lease up (the replica's own disconnects are written by then). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
    this.#closed = true;
    await this.#options.prisma.xdsReplica
      .delete({ where: { id: this.#options.replicaId } })
      .catch(() => undefined);
  }
}
