/**
 * Rollouts driven by the server (issue 45; src/rollouts/): a publish that names a plan starts a
 * rollout, which the server takes through its waves on the nodes' own ACKs and NACKs over real
 * ADS streams, rolls back by itself on a NACK (publishing the change's undoing, the draft kept),
 * refuses another publish to the group meanwhile unless it aborts the rollout, and obeys
 * people's pause, resume, promote and abort. Real Postgres, real gRPC streams.
 */
import { type Client, Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  type Rollout,
  RolloutAckState,
  RolloutPhase,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { hashOrder } from "@switchyard/rollout";
import {
  createTestClient,
  namesOf,
  type TestClient,
  type TestStream,
} from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { bearer, statusClient } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { TYPE, until as untilRead } from "../src/testing/shop.js";

const { CDS } = TYPE;
const NODES = ["n-1", "n-2", "n-3", "n-4"];
/** The node the hash order takes first: wave 1 of a one-node first wave. */
const [FIRST, ...REST] = hashOrder(NODES) as [string, ...string[]];

/** One node first, then everyone; short bakes; ACKs alone decide. */
const TWO_WAVES = `bake: 1s\nackTimeout: 20s\nwaves: [1, "100%"]\n`;

describe("a rollout driven by the server over real ADS streams", () => {
  let harness: Harness;
  let xds: TestClient;
  let rollouts: Client<typeof RolloutService>;
  const streams = new Map<string, TestStream>();
  /** What each node holds, by name, as it last ACKed it. */
  const held = new Map<string, string[]>();

  const open = async (id: string) => {
    const stream = xds.open("ads", { node: { id } });
    stream.request(CDS, []);
    const first = await stream.next();
    stream.ack(first, []);
    held.set(id, namesOf(first));
    streams.set(id, stream);
  };

  /** Reads the next response of `id` and ACKs it. */
  const ackNext = async (id: string, timeoutMs = 15_000) => {
    const stream = streams.get(id);
    if (!stream) throw new Error(`no stream for ${id}`);
    const response = await stream.next(timeoutMs);
    stream.ack(response, []);
    held.set(id, namesOf(response));
    return namesOf(response);
  };

  const rolloutNow = (id: bigint) => rollouts.getRollout({ id, nodeLimit: 10 });
  const until = (id: bigint, done: (r: Rollout) => boolean, what: string) =>
    untilRead(() => rolloutNow(id), done, `rollout ${id} ${what}`, 30_000);

  beforeAll(async () => {
    harness = await startHarness();
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    rollouts = createClient(
      RolloutService,
      createConnectTransport({
        baseUrl: harness.baseUrl,
        httpVersion: "1.1",
        interceptors: [bearer(await harness.token())],
      }),
    );
    const api = harness.api();
    await api.createCluster(edsCluster("blue", "127.0.0.1:9001"));
    await api.publish({ message: "blue" });
    for (const id of NODES) await open(id);
    await untilRead(
      () => harness.app.prisma.xdsNode.count({ where: { disconnectedAt: null } }),
      (count) => count === NODES.length,
      "every node listed connected",
    );
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
  });

  it("takes a good change through its waves: wave 1's node first, the others only after it ACKed and baked, and ends completed", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("green", "127.0.0.1:9002"));
    const published = await api.publish({
      message: "green",
      rollout: { plan: { case: "planDocument", value: TWO_WAVES } },
    });
    const [id] = published.rolloutIds;
    expect(published.rolloutIds).toHaveLength(1);
    if (id === undefined) throw new Error("no rollout");

    expect(await ackNext(FIRST)).toEqual(["blue", "green"]);
    // The others are not told anything until wave 1 ACKed and baked.
    for (const other of REST) await streams.get(other)?.expectNoResponse(300);
    for (const other of REST) expect(await ackNext(other)).toEqual(["blue", "green"]);

    const done = await until(id, (r) => r.phase === RolloutPhase.COMPLETED, "completing");
    expect(done.waves.map((w) => [w.wave, w.ended, w.sent])).toEqual([
      [1, "passed", 1],
      [2, "passed", 3],
    ]);
    expect(done.nodes.every((n) => n.version === published.snapshot?.version)).toBe(true);
    expect(harness.app.cache.heldGroups).toEqual([]);
  });

  it("rolls a NACKed change back by itself: the wave-1 node is served the previous version again, the others never get it, the rollout names the node and its text, and the draft keeps the change", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("red", "127.0.0.1:9003"));
    const published = await api.publish({
      message: "red",
      rollout: { plan: { case: "planDocument", value: TWO_WAVES } },
    });
    const id = published.rolloutIds[0] ?? 0n;
    const canary = streams.get(FIRST);
    if (!canary) throw new Error("no canary stream");
    const response = await canary.next(15_000);
    expect(namesOf(response)).toEqual(["blue", "green", "red"]);
    canary.nack(response, [], "cluster red: rejected by the test proxy");

    const failed = await until(id, (r) => r.phase === RolloutPhase.FAILED, "failing");
    expect(failed.failure?.kind).toBe("nack");
    expect(failed.failure?.nodeIds).toEqual([FIRST]);
    expect(failed.failure?.message).toContain("rejected by the test proxy");
    expect(failed.nodes.find((n) => n.nodeId === FIRST)?.ack).toBe(RolloutAckState.NACKED);
    // Wave 1's node is served what it had; the others were never told of red.
    expect(await ackNext(FIRST)).toEqual(["blue", "green"]);
    for (const other of REST) await streams.get(other)?.expectNoResponse(300);
    // The change was taken back as a version of its own; the draft still holds it.
    const history = await api.listSnapshots({ limit: 1 });
    expect(history.snapshots[0]?.message).toContain(`Rollout ${id} failed`);
    const diff = await api.diff({});
    expect(diff.changes.map((c) => c.name)).toEqual(["red"]);
  });

  it("refuses another publish to the group while a rollout runs, naming it, and supersedes it with --abort-rollout", async () => {
    const api = harness.api();
    const slow = `bake: 1h\nackTimeout: 1m\nwaves: [1, "100%"]\n`;
    const published = await api.publish({
      message: "red again",
      rollout: { plan: { case: "planDocument", value: slow } },
    });
    const id = published.rolloutIds[0] ?? 0n;
    expect(await ackNext(FIRST)).toEqual(["blue", "green", "red"]);
    await until(id, (r) => r.phase === RolloutPhase.BAKING, "baking");
    // Each node's page says the version its wave has reached, and the rollout.
    const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const canaryPage = await status.getNode({ id: FIRST });
    expect([canaryPage.intendedVersion, canaryPage.rolloutId]).toEqual([
      published.snapshot?.version,
      id,
    ]);
    const otherPage = await status.getNode({ id: REST[0] ?? "" });
    expect(otherPage.intendedVersion).toBe(published.snapshot?.previousVersion);
    expect(
      otherPage.held.every((h) => JSON.stringify(h.resources) === JSON.stringify(h.intended)),
    ).toBe(true);

    await api.createCluster(edsCluster("yellow", "127.0.0.1:9004"));
    const refused = await api.publish({ message: "yellow" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((refused as ConnectError).rawMessage).toContain(`rollout ${id}`);

    const superseding = await api.publish({ message: "yellow", abortRollout: true });
    const ended = await rolloutNow(id);
    expect(ended.phase).toBe(RolloutPhase.ABORTED);
    expect(ended.supersededBy).toBe(superseding.snapshot?.version);
    // Every node ends on the superseding version (wave 1's node by way of the previous one).
    for (const node of NODES) while (!held.get(node)?.includes("yellow")) await ackNext(node);
  });

  it("obeys people: pause holds the wave, resume goes on, promote ends a wave now, abort rolls back", async () => {
    const api = harness.api();
    const slow = `bake: 1h\nackTimeout: 1m\nwaves: [1, 2, "100%"]\n`;
    await api.createCluster(edsCluster("violet", "127.0.0.1:9005"));
    const published = await api.publish({
      message: "violet",
      rollout: { plan: { case: "planDocument", value: slow } },
    });
    const id = published.rolloutIds[0] ?? 0n;
    await ackNext(FIRST);
    await until(id, (r) => r.phase === RolloutPhase.BAKING, "baking");

    const paused = await rollouts.pauseRollout({ id });
    expect(paused.phase).toBe(RolloutPhase.PAUSED);
    const twice = await rollouts.pauseRollout({ id }).catch((e: unknown) => e);
    expect((twice as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((twice as ConnectError).rawMessage).toContain("paused already");
    await rollouts.resumeRollout({ id });
    await until(id, (r) => r.phase === RolloutPhase.BAKING, "baking again");

    const promoted = await rollouts.promoteRollout({ id });
    expect(promoted.wave).toBe(2);
    expect(promoted.waves[0]?.ended).toBe("promoted");
    // Wave 2 reaches a second node (2 in all).
    const second = hashOrder(NODES)[1] ?? "";
    expect(await ackNext(second)).toContain("violet");

    const aborted = await rollouts.abortRollout({ id });
    expect([RolloutPhase.ROLLING_BACK, RolloutPhase.ABORTED]).toContain(aborted.phase);
    for (const node of [FIRST, second]) expect(await ackNext(node)).not.toContain("violet");
    await until(id, (r) => r.phase === RolloutPhase.ABORTED, "aborted");
  });
});
