/**
 * Faults with real processes: two `switchyard serve` replicas on one PostgreSQL of their own,
 * behind a TCP load balancer, with real proxyless gRPC clients sending RPCs through the config
 * they are served. A replica drains on SIGTERM, another is killed with SIGKILL, a proxy moves
 * between replicas, and PostgreSQL crashes in the middle of a publish. Each case ends by checking
 * that nothing was lost: every published version present and readable, every connected node
 * converged on the latest one, the draft's edits kept.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  createPrismaClient,
  type EmbeddedPostgres,
  type PrismaClient,
  startEmbeddedPostgres,
} from "@switchyard/db";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeConvergenceState, StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  adminToken,
  bearer,
  shopCluster,
  shopListener,
  shopRoutes,
  until,
  writeObjects,
} from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import {
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  startTcpBalancer,
  type TcpBalancer,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient, deltaNamesOf, namesOf } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, type ServeProcess, startServe } from "./processes.js";

/** pg_advisory_xact_lock key of a publish (store/snapshot-store.ts, PUBLISH_LOCK). */
const PUBLISH_LOCK = 0x53_57_59_44;

describe("faults: replicas behind a load balancer on one PostgreSQL", () => {
  let folder: string;
  let postgres: EmbeddedPostgres;
  let postgresPort: number;
  let databaseUrl: string;
  let backend: EchoBackend;
  let green: EchoBackend;
  const xdsPorts: number[] = [];
  const replicas: ServeProcess[] = [];
  let balancer: TcpBalancer;
  let token: string;
  const clients: XdsEchoClient[] = [];

  const env = () => ({
    DATABASE_URL: databaseUrl,
    SWITCHYARD_STALE_AFTER: "2s",
    SWITCHYARD_REPLICA_LEASE: "2s",
  });
  /** Replica `i` (0 or 1), started on its fixed xDS port so the balancer finds it again. */
  const startReplica = async (i: number) => {
    replicas[i] = await startServe(["--no-console", "--xds-port", String(xdsPorts[i])], env());
    return replicas[i] as ServeProcess;
  };
  const interceptors = (): Interceptor[] => [bearer(token)];
  const config = (replica: ServeProcess) =>
    createClient(
      ConfigService,
      createConnectTransport({
        baseUrl: replica.baseUrl,
        httpVersion: "1.1",
        interceptors: interceptors(),
      }),
    );
  const status = (replica: ServeProcess) =>
    createClient(
      StatusService,
      createConnectTransport({
        baseUrl: replica.baseUrl,
        httpVersion: "1.1",
        interceptors: interceptors(),
      }),
    );
  /** A real gRPC xDS client whose control plane is the load balancer. */
  const proxy = (nodeId: string) => {
    const client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${balancer.port}`,
      nodeId,
    });
    clients.push(client);
    return client;
  };
  /** The replica id (host:pid) serving a node, as `replica` reports it. */
  const replicaIdOf = (replica: ServeProcess) => `:${replica.child.pid}`;

  /**
   * Nothing lost: versions 1..latest all present and readable through `via`, and every
   * connected node ACKed the latest version.
   */
  const nothingLost = async (via: ServeProcess, expectedVersions: number) => {
    const api = config(via);
    const { snapshots } = await api.listSnapshots({ limit: 500 });
    expect(snapshots.map((s) => Number(s.version)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: expectedVersions }, (_, i) => i + 1),
    );
    for (const s of snapshots) {
      const exported = await api.export({ version: s.version });
      expect(exported.content.length).toBeGreaterThan(0);
    }
    const latest = snapshots[0]?.version ?? 0n;
    await until(
      () => status(via).getConvergence({ version: latest }),
      (c) =>
        (c.summary?.targeted ?? 0) > 0 &&
        c.nodes.every((n) => n.state === NodeConvergenceState.ACKED) &&
        c.summary?.acked === c.summary?.targeted,
      `every connected node ACKing version ${latest}`,
      30_000,
    );
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "switchyard-faults-"));
    // Postgres runs as `postgres` when the tests run as root: it must enter the folder.
    chmodSync(folder, 0o755);
    postgresPort = await freePort();
    postgres = await startEmbeddedPostgres({ dataDir: join(folder, "data"), port: postgresPort });
    databaseUrl = postgres.url;
    backend = await startEchoBackend("blue");
    green = await startEchoBackend("green");
    xdsPorts.push(await freePort(), await freePort());
    await startReplica(0);
    token = await adminToken((replicas[0] as ServeProcess).baseUrl);
    await startReplica(1);
    balancer = await startTcpBalancer(xdsPorts);
    const api = config(replicas[0] as ServeProcess);
    await api.createCluster(shopCluster("blue", backend));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "shop on blue" });
    // Replica B learns the publish through PostgreSQL NOTIFY: the cases start once it serves it
    // (a proxy moved to B before then is answered from the state before any publish).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const probe = createTestClient(`http://127.0.0.1:${(replicas[1] as ServeProcess).xdsPort}`);
      const stream = probe.open("ads", { node: { id: "probe-b", cluster: "edge" } });
      stream.request(TypeUrl.Cluster, []);
      const names = namesOf(await stream.next());
      probe.close();
      if (names.includes("blue")) break;
      if (Date.now() > deadline) throw new Error("replica B never served the published version");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await balancer?.close();
    await Promise.all(replicas.map((r) => (r.child.exitCode === null ? r.stop() : undefined)));
    await backend?.stop();
    await green?.stop();
    await postgres?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it("a proxy that moves to another replica is sent nothing it already has (Delta initial_resource_versions, SotW version), since both serve the same versions", async () => {
    const [a, b] = replicas as [ServeProcess, ServeProcess];
    const onA = createTestClient(`http://127.0.0.1:${a.xdsPort}`);
    const delta = onA.openDelta("ads", { node: { id: "mover-delta", cluster: "edge" } });
    delta.request(TypeUrl.Cluster, ["*"]);
    const clusters = await delta.next();
    expect(deltaNamesOf(clusters)).toEqual(["blue"]);
    delta.ack(clusters);
    const sotw = onA.open("ads", { node: { id: "mover-sotw", cluster: "edge" } });
    sotw.request(TypeUrl.Cluster, []);
    const sotwClusters = await sotw.next();
    expect(namesOf(sotwClusters)).toEqual(["blue"]);
    sotw.ack(sotwClusters, []);
    onA.close();

    const onB = createTestClient(`http://127.0.0.1:${b.xdsPort}`);
    try {
      const deltaOnB = onB.openDelta("ads", { node: { id: "mover-delta", cluster: "edge" } });
      deltaOnB.request(TypeUrl.Cluster, ["*"], [], {
        initialResourceVersions: Object.fromEntries(
          clusters.resources.map((r) => [r.name, r.version]),
        ),
      });
      await deltaOnB.expectNoResponse(500);
      const sotwOnB = onB.open("ads", { node: { id: "mover-sotw", cluster: "edge" } });
      sotwOnB.request(TypeUrl.Cluster, [], { versionInfo: sotwClusters.versionInfo });
      await sotwOnB.expectNoResponse(500);
      // A version the other replica never served is answered in full.
      const stale = onB.openDelta("ads", { node: { id: "mover-2", cluster: "edge" } });
      stale.request(TypeUrl.Cluster, ["*"], [], { initialResourceVersions: { blue: "other" } });
      expect(deltaNamesOf(await stale.next())).toEqual(["blue"]);
    } finally {
      onB.close();
    }
  });

  it("a replica draining on SIGTERM ends its streams: its proxies reconnect through the balancer to the other replica at once and converge; it exits 0", async () => {
    const first = proxy("drain-1");
    const second = proxy("drain-2");
    expect(await callUntilReady(first)).toBe("blue");
    expect(await callUntilReady(second)).toBe("blue");
    const [a, b] = replicas as [ServeProcess, ServeProcess];
    // The balancer alternates: one proxy per replica. Drain whichever serves drain-1.
    const nodes = await until(
      () => status(b).listNodes({ idContains: "drain-", connectedOnly: true }),
      (r) => r.nodes.length === 2,
      "both proxies listed",
    );
    const servingFirst = nodes.nodes.find((n) => n.id === "drain-1")?.replica ?? "";
    const [draining, survivor] = servingFirst.endsWith(replicaIdOf(a)) ? [a, b] : [b, a];
    expect(await draining.stop()).toBe(0);
    await until(
      () => status(survivor).listNodes({ idContains: "drain-", connectedOnly: true }),
      (r) =>
        r.nodes.length === 2 && r.nodes.every((n) => n.replica.endsWith(replicaIdOf(survivor))),
      "both proxies served by the surviving replica",
      15_000,
    );
    expect(await callUntilReady(first)).toBe("blue");
    await nothingLost(survivor, 1);
    await startReplica(replicas.indexOf(draining));
  });

  it("a replica killed with SIGKILL loses no edit: its proxies reconnect to the other and converge on what was published through it", async () => {
    const third = proxy("kill-1");
    expect(await callUntilReady(third)).toBe("blue");
    const [r0, r1] = replicas as [ServeProcess, ServeProcess];
    const serving = await until(
      () => status(r0).listNodes({ idContains: "kill-1", connectedOnly: true }),
      (r) => r.nodes.length === 1,
      "the proxy listed",
    );
    // Kill the replica serving it.
    const [a, b] = serving.nodes[0]?.replica.endsWith(replicaIdOf(r0)) ? [r0, r1] : [r1, r0];
    // Edits through A: one published, one left in the draft.
    await config(a).createCluster(shopCluster("green", green));
    await config(a).updateRouteConfiguration(shopRoutes("green"));
    await config(a).publish({ message: "shop on green" });
    await config(a).createCluster(shopCluster("draft-only", green));
    // A proxy connected to A itself, not through the balancer: it has nowhere to go.
    const direct = createTestClient(`http://127.0.0.1:${a.xdsPort}`);
    const stranded = direct.openDelta("ads", { node: { id: "stranded", cluster: "edge" } });
    stranded.request(TypeUrl.Cluster, ["*"]);
    stranded.ack(await stranded.next());
    await until(
      () => status(b).listNodes({ idContains: "stranded", connectedOnly: true }),
      (r) => r.nodes.length === 1,
      "the stranded proxy listed connected",
    );
    a.child.kill("SIGKILL");
    await a.exited;
    direct.close();

    await until(
      () => third.call(),
      (answer) => answer === "green",
      "the proxy answered from green",
      15_000,
    );
    await until(
      () => status(b).listNodes({ idContains: "kill-1", connectedOnly: true }),
      (r) => r.nodes[0]?.replica.endsWith(replicaIdOf(b)) === true,
      "the proxy served by the surviving replica",
      15_000,
    );
    // The killed replica wrote no disconnect: its lease ran out, and B marked it.
    const gone = await until(
      () => status(b).listNodes({ idContains: "stranded" }),
      (r) => r.nodes[0]?.connected === false,
      "the stranded proxy shown disconnected once A's lease ran out",
      15_000,
    );
    expect(gone.nodes[0]?.disconnectedAt).toBeDefined();
    // The draft edit made through the killed replica is there.
    expect((await config(b).getCluster({ name: "draft-only" })).name).toBe("draft-only");
    await config(b).deleteCluster({ name: "draft-only" });
    await nothingLost(b, 2);
    await startReplica(replicas.indexOf(a));
  });

  it("PostgreSQL crashing mid-publish: the publish is all or nothing; replicas keep serving from memory, to new proxies too; when it returns they catch up", async () => {
    const [a, b] = replicas as [ServeProcess, ServeProcess];
    // A large draft, so the publish transaction is long enough to crash in.
    const db: PrismaClient = createPrismaClient(databaseUrl);
    try {
      await db.$transaction((tx) => writeObjects(tx, largeConfigSpec(300, 3_000)), {
        timeout: 120_000,
      });
    } finally {
      await db.$disconnect();
    }
    const watcher: PrismaClient = createPrismaClient(databaseUrl);
    const publishing = config(a)
      .publish({ message: "large config" })
      .then(
        () => "committed" as const,
        (error: unknown) => String(error),
      );
    await until(
      () =>
        watcher.$queryRaw<Array<{ n: bigint }>>`
          SELECT count(*) AS n FROM pg_locks
          WHERE locktype = 'advisory' AND objid::text = ${String(PUBLISH_LOCK)} AND granted`,
      (rows) => Number(rows[0]?.n ?? 0) > 0,
      "the publish transaction holding the publish lock",
    );
    await watcher.$disconnect().catch(() => undefined);
    // Immediate shutdown: every backend killed, no checkpoint; recovery runs at the next start.
    const pid = Number(readFileSync(join(folder, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pid, "SIGQUIT");
    const outcome = await publishing;
    if (outcome !== "committed") {
      // Not "internal error": the caller is told what happened and what to do.
      expect(outcome).toContain("[unavailable] the database is unreachable");
      expect(outcome).toContain("check (switchyard history");
    }
    await until(
      async () => {
        try {
          process.kill(pid, 0);
          return false;
        } catch {
          return true;
        }
      },
      (gone) => gone,
      "PostgreSQL gone",
    );

    // While the database is away: open streams keep their config, and a new proxy is served.
    const during = proxy("during-outage");
    expect(await callUntilReady(during, 20_000)).toBe("green");
    expect(a.child.exitCode).toBeNull();
    expect(b.child.exitCode).toBeNull();
    const refused = await config(b)
      .listClusters({})
      .then(() => "answered", String);
    expect(refused).toContain("[unavailable] the database is unreachable");

    postgres = await startEmbeddedPostgres({ dataDir: join(folder, "data"), port: postgresPort });
    const api = config(b);
    const versions = await until(
      () => api.listSnapshots({ limit: 10 }),
      () => true,
      "the API answering again",
      30_000,
    );
    const latest = Number(versions.snapshots[0]?.version ?? 0);
    if (outcome === "committed") {
      // Fully there: the version holds every cluster of the draft.
      expect(latest).toBe(3);
    } else {
      // Not at all: no version 3, nothing half-written; the draft is intact and publishes now.
      expect(latest).toBe(2);
      const diff = await api.diff({ bodies: { omit: true } });
      expect(diff.changes.filter((c) => c.name.startsWith("svc-")).length).toBe(300);
      await api.publish({ message: "large config, after the database came back" });
    }
    const exported = await api.export({ version: 3n });
    expect(exported.content.match(/name: svc-\d+\n/g)?.length ?? 0).toBeGreaterThanOrEqual(300);
    // Both replicas serve version 3: A, which may have published nothing, through its
    // notifications connection (reconnected) or its periodic check.
    const fresh = createTestClient(`http://127.0.0.1:${a.xdsPort}`);
    try {
      await until(
        async () => {
          const stream = fresh.openDelta("ads", { node: { id: "after-outage", cluster: "edge" } });
          stream.request(TypeUrl.Cluster, ["*"]);
          const all = await stream.next(10_000);
          stream.ack(all);
          if (all.resources.length < 300) stream.close();
          return all.resources.length;
        },
        (count) => count >= 300,
        "replica A serving the large config",
        20_000,
      );
      await nothingLost(b, 3);
      // The proxy that connected while the database was away is recorded now it is back.
      const listed = await status(b).listNodes({
        idContains: "during-outage",
        connectedOnly: true,
      });
      expect(listed.nodes.map((n) => n.id)).toEqual(["during-outage"]);
    } finally {
      fresh.close();
    }
  }, 180_000);
});
