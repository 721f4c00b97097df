/**
 * Rollouts in waves with both real proxyless gRPC clients (@grpc/grpc-js-xds and gRPC C-core)
 * sending RPCs to real backends (issue 45, "Done when" 1 to 4): three clients of one node group,
 * each calling without pause. A good change goes through three waves with no failed RPC; a
 * change to a backend failing half its RPCs trips the traffic gate in wave 1 (the clients' own
 * load reports, canary against the clients still on the previous version) and is rolled back by
 * itself, the clients outside wave 1 never having had it; a change the clients NACK fails wave 1
 * at once; and a server restarted mid-rollout finishes it.
 */
import type { TestDatabase } from "@switchyard/db/testing";
import { createTestDatabase } from "@switchyard/db/testing";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type Rollout,
  RolloutAckState,
  RolloutPhase,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { hashOrder } from "@switchyard/rollout";
import type { Switchyard } from "@switchyard/server";
import {
  adminToken,
  bearer,
  configClient,
  loadReportingCluster,
  REAL_CLIENTS,
  type RolloutClient,
  rolloutClient,
  shopListener,
  shopRoutes,
  startAppOn,
  until,
  untilAnswerIs,
} from "@switchyard/server/testing";
import {
  callUntilReady,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./processes.js";

/** What one client's RPCs answered, and how they failed, while it calls without pause. */
interface Calls {
  answers: string[];
  failures: unknown[];
}

const plan = (lines: string) => ({ plan: { case: "planDocument" as const, value: lines } });

describe.each(REAL_CLIENTS)("rollouts in waves with real clients (%s)", (name, real) => {
  const slug = name
    .replace(/[^a-z]+/gi, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
  const ids = ["a", "b", "c"].map((s) => `${slug}-${s}`);
  /** Wave 1 (one node) takes the first in hash order, wave 2 the second. */
  const order = hashOrder(ids);
  const [first, second] = order as [string, string, string];
  let database: TestDatabase;
  let xdsPort: number;
  let app: Switchyard | undefined;
  let api: ReturnType<typeof configClient>;
  let rollouts: RolloutClient;
  let blue: EchoBackend;
  let green: EchoBackend;
  let broken: EchoBackend;
  const clients = new Map<string, XdsEchoClient>();
  const calls = new Map<string, Calls>();
  let calling = true;
  let pumps: Promise<void>[] = [];

  const start = async () => {
    app = await startAppOn(database.url, { app: { xdsPort, loadReportIntervalMs: 1_000 } });
    const baseUrl = `http://127.0.0.1:${app.httpPort}`;
    const token = await adminToken(baseUrl);
    api = configClient(baseUrl, [bearer(token)]);
    rollouts = rolloutClient(baseUrl, [bearer(token)]);
  };
  const resetCalls = () => {
    for (const id of ids) calls.set(id, { answers: [], failures: [] });
  };
  const answered = (id: string) => new Set(calls.get(id)?.answers);
  const failures = () => ids.flatMap((id) => calls.get(id)?.failures ?? []);
  const rolloutUntil = (id: bigint, done: (r: Rollout) => boolean, what: string, ms = 60_000) =>
    until(() => rollouts.getRollout({ id, nodeLimit: 10 }), done, `rollout ${id} ${what}`, ms);

  beforeAll(async () => {
    [blue, green, broken] = await Promise.all([
      startEchoBackend("blue"),
      startEchoBackend("green"),
      // Every other RPC fails with UNAVAILABLE.
      startEchoBackend("broken", 0, { unavailableEvery: 2 }),
    ]);
    database = await createTestDatabase();
    xdsPort = await freePort();
    await start();
    await api.createCluster(loadReportingCluster("shop-backend", [blue]));
    await api.createRouteConfiguration(shopRoutes("shop-backend"));
    await api.createListener(shopListener());
    await api.publish({ message: "the shop on blue" });
    for (const id of ids) {
      const client = await real.connect("shop", { server: `127.0.0.1:${xdsPort}`, nodeId: id });
      clients.set(id, client);
      expect(await callUntilReady(client)).toBe("blue");
    }
    resetCalls();
    pumps = ids.map(async (id) => {
      const client = clients.get(id);
      while (calling && client) {
        const record = calls.get(id);
        await client.call(5_000).then(
          (answer) => record?.answers.push(answer),
          (error: unknown) => record?.failures.push(error),
        );
      }
    });
    // Wave 1 is chosen among the nodes listed connected at the publish.
    await until(
      async () => app?.prisma.xdsNode.count({ where: { disconnectedAt: null } }),
      (count) => count === ids.length,
      "every client listed connected",
    );
  });

  afterAll(async () => {
    calling = false;
    await Promise.all(pumps);
    for (const client of clients.values()) client.close();
    await app?.stop();
    await database?.drop();
    await Promise.all([blue?.stop(), green?.stop(), broken?.stop()]);
  });

  it("a good change goes through three waves, wave 1's client first, and every client ends on it with no failed RPC", async () => {
    resetCalls();
    await api.updateCluster(loadReportingCluster("shop-backend", [green]));
    const published = await api.publish({
      message: "the shop on green",
      rollout: plan(`bake: 2s\nackTimeout: 30s\nwaves: [1, 2, "100%"]\n`),
    });
    const id = published.rolloutIds[0] ?? 0n;
    // While wave 1 bakes, only its client reaches green.
    await rolloutUntil(id, (r) => r.wave === 1 && r.phase === RolloutPhase.BAKING, "baking wave 1");
    await untilAnswerIs(clients.get(first) as XdsEchoClient, "green");
    const onGreen = ids.filter((n) => answered(n).has("green"));
    expect(onGreen).toEqual([first]);

    const done = await rolloutUntil(id, (r) => r.phase === RolloutPhase.COMPLETED, "completing");
    expect(done.waves.map((w) => [w.wave, w.ended, w.sent])).toEqual([
      [1, "passed", 1],
      [2, "passed", 1],
      [3, "passed", 1],
    ]);
    for (const n of ids) await untilAnswerIs(clients.get(n) as XdsEchoClient, "green");
    expect(failures()).toEqual([]);
  });

  it("a change to a failing backend trips the traffic gate in wave 1 and is rolled back by itself: the other clients never had it, and the rollout names the cluster and both error ratios", async () => {
    resetCalls();
    await api.updateCluster(loadReportingCluster("shop-backend", [broken]));
    const published = await api.publish({
      message: "the shop on a broken backend",
      rollout: plan(
        [
          "bake: 2m",
          "ackTimeout: 30s",
          "traffic: { maxErrorIncrease: 5, minRequests: 20, withoutTraffic: fail }",
          'waves: [1, "100%"]',
          "",
        ].join("\n"),
      ),
    });
    const id = published.rolloutIds[0] ?? 0n;
    const failed = await rolloutUntil(
      id,
      (r) => r.phase === RolloutPhase.FAILED,
      "failing",
      90_000,
    );
    expect(failed.failure?.kind).toBe("traffic");
    expect(failed.failure?.wave).toBe(1);
    const figures = failed.failure?.clusters[0];
    expect(figures?.cluster).toBe("shop-backend");
    expect(Number(figures?.canaryErrors)).toBeGreaterThan(0);
    expect(Number(figures?.controlRequests)).toBeGreaterThanOrEqual(20);
    expect(failed.failure?.message).toMatch(
      /wave 1: cluster "shop-backend" errors rose more than 5 points with version \d+: \d+\.\d\d% over \d+ requests on the wave's nodes against \d+\.\d\d% over \d+ requests on the nodes still on the previous version/,
    );
    // Only wave 1's client ever reached the broken backend; the others' ledgers say so too.
    expect(answered(first).has("broken") || calls.get(first)?.failures.length).toBeTruthy();
    for (const other of ids.filter((n) => n !== first)) {
      expect(answered(other).has("broken")).toBe(false);
      expect(calls.get(other)?.failures).toEqual([]);
      expect(failed.nodes.find((n) => n.nodeId === other)?.wave).toBe(0);
    }
    // Rolled back: wave 1's client is on green again, and the draft still holds the change.
    await untilAnswerIs(clients.get(first) as XdsEchoClient, "green", 20_000);
    expect((await api.diff({})).changes.map((c) => c.name)).toEqual(["shop-backend"]);
    await api.discardDraft({});
  }, 120_000);

  it("a change the clients NACK fails wave 1 at once with the client's text and is rolled back, no RPC failing", async () => {
    resetCalls();
    await api.updateCluster({
      ...loadReportingCluster("shop-backend", [green]),
      lbPolicy: LbPolicy.LEAST_REQUEST,
    });
    const published = await api.publish({
      message: "least request",
      // Validation predicts the NACK: publishing it anyway is what this test is about.
      acceptWarnings: true,
      rollout: plan(`bake: 1m\nackTimeout: 30s\nwaves: [1, "100%"]\n`),
    });
    const id = published.rolloutIds[0] ?? 0n;
    const failed = await rolloutUntil(id, (r) => r.phase === RolloutPhase.FAILED, "failing");
    expect(failed.failure?.kind).toBe("nack");
    expect(failed.failure?.nodeIds).toEqual([first]);
    expect(failed.failure?.nackDetail).toMatch(real.leastRequestNack);
    expect(failed.nodes.find((n) => n.nodeId === first)?.ack).toBe(RolloutAckState.NACKED);
    for (const other of ids.filter((n) => n !== first))
      expect(failed.nodes.find((n) => n.nodeId === other)?.wave).toBe(0);
    for (const n of ids) await untilAnswerIs(clients.get(n) as XdsEchoClient, "green");
    expect(failures()).toEqual([]);
    await api.discardDraft({});
  });

  it("a server restarted mid-rollout finishes it: the nodes keep their wave's version through the restart, and all end on the change", async () => {
    resetCalls();
    await api.updateCluster(loadReportingCluster("shop-backend", [blue]));
    const published = await api.publish({
      message: "the shop back on blue",
      rollout: plan(`bake: 3s\nackTimeout: 30s\nwaves: [1, 2, "100%"]\n`),
    });
    const id = published.rolloutIds[0] ?? 0n;
    await rolloutUntil(id, (r) => r.wave === 2, "at wave 2");
    await app?.stop();
    app = undefined;
    await start();
    const done = await rolloutUntil(id, (r) => r.phase === RolloutPhase.COMPLETED, "completing");
    expect(done.waves.map((w) => w.wave)).toEqual([1, 2, 3]);
    expect(done.waves.every((w) => w.ended === "passed")).toBe(true);
    for (const n of ids) await untilAnswerIs(clients.get(n) as XdsEchoClient, "blue");
    // The last wave's client stayed on green until its wave: it never went to blue early.
    const last = order[2] as string;
    expect(answered(last).has("green")).toBe(true);
    expect(failures()).toEqual([]);
    expect(second).not.toBe(first);
  }, 120_000);
});
