import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplicaLease } from "./replica-lease.js";

describe("replica leases", () => {
  let database: TestDatabase;
  const errors: unknown[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const connectedNode = (id: string, replicaId: string) =>
    database.prisma.xdsNode.create({
      data: {
        id,
        cluster: "edge",
        userAgentName: "envoy",
        replicaId,
        variant: "ads-delta",
        remoteAddress: "10.0.0.1:5000",
        openStreams: 1,
        connectedSince: new Date(),
        updatedAt: new Date(),
      },
    });
  const lease = (replicaId: string, events: { reaped: number; others: string[][] }) =>
    new ReplicaLease({
      prisma: database.prisma,
      replicaId,
      intervalMs: 3_600_000,
      expireAfterMs: 10_000,
      onReaped: () => {
        events.reaped += 1;
      },
      onReapedOther: (id, nodeIds) => events.others.push([id, ...nodeIds]),
      onError: (error) => errors.push(error),
    });
  /**
   * Moves `replicaId`'s last renewal `ms` into the past. A lease's age is PostgreSQL's now() minus
   * its seenAt (the process's clock plays no part), so this is what `ms` of silence does to it.
   */
  const renewedAgo = (replicaId: string, ms: number) =>
    database.prisma.$executeRaw`
      UPDATE "XdsReplica" SET "seenAt" = now() - make_interval(secs => ${ms / 1000})
      WHERE "id" = ${replicaId}`;

  it("a replica whose lease ran out has its connected nodes marked disconnected by another, with an event saying why; its live nodes elsewhere are left alone", async () => {
    const deadEvents = { reaped: 0, others: [] as string[][] };
    const liveEvents = { reaped: 0, others: [] as string[][] };
    const dead = lease("host:1", deadEvents);
    const live = lease("host:2", liveEvents);
    await dead.renew();
    await live.renew();
    await connectedNode("on-dead", "host:1");
    await connectedNode("on-live", "host:2");
    // Only the live replica renews. Short of expireAfterMs, the dead one's lease still holds...
    await renewedAgo("host:1", 5_000);
    await live.renew();
    expect(liveEvents.others).toEqual([]);
    // ...past it, the lease has run out.
    await renewedAgo("host:1", 15_000);
    await live.renew();
    expect(liveEvents.others).toEqual([["host:1", "on-dead"]]);
    const nodes = await database.prisma.xdsNode.findMany({ orderBy: { id: "asc" } });
    expect(nodes.map((n) => [n.id, n.disconnectedAt === null, n.openStreams])).toEqual([
      ["on-dead", false, 0],
      ["on-live", true, 1],
    ]);
    const [event] = await database.prisma.xdsNodeEvent.findMany({ where: { nodeId: "on-dead" } });
    expect(event?.kind).toBe("disconnect");
    expect(JSON.stringify(event?.detail)).toContain("replica host:1 stopped renewing its lease");

    // The reaped replica was alive after all (cut off from the database): it notices on its next
    // renewal, and rewrites its nodes.
    await dead.renew();
    expect(deadEvents.reaped).toBe(1);
    await Promise.all([dead.close(), live.close()]);
    expect(await database.prisma.xdsReplica.count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
