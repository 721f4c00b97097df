/**
 * Rollouts in the console (issue 45), in real Chromium against a real server: four nodes hold
 * real ADS streams (@switchyard/xds/testing) and ACK or NACK what they are sent, and the
 * Rollouts page, open without a reload, follows each rollout as it happens: its waves, the
 * current wave's gates, which node runs which version, a NACK that fails wave 1 with the node
 * and its text, a traffic gate tripped by load reported over real LRS streams (the canary's
 * errors against the control group's), and the buttons that pause, resume, promote and abort.
 * History marks the versions that went out as rollouts; the Overview shows the one running;
 * Publish on the Changes page goes out with a stored plan and can abort a running rollout. The
 * cases run in order and share one server, one page and the nodes' streams.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { type Client, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type { LoadStatsRequestSchema } from "@switchyard/proto/envoy/service/load_stats/v3/lrs_pb";
import {
  type Rollout,
  RolloutPhase,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { hashOrder } from "@switchyard/rollout";
import { artifactPath, type TestBrowser } from "@switchyard/testing";
import {
  createTestClient,
  namesOf,
  type TestClient,
  type TestStream,
} from "@switchyard/xds/testing";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { bearer } from "../src/testing/auth.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { openLrs } from "../src/testing/lrs-stream.js";
import { TYPE, until as untilRead } from "../src/testing/shop.js";

const { CDS } = TYPE;
const NODES = ["n-1", "n-2", "n-3", "n-4"];
/** The node the hash order takes first: wave 1 of a one-node first wave. */
const [FIRST, ...REST] = hashOrder(NODES) as [string, ...string[]];
/** One node first, then everyone; a bake long enough that only a person or a gate ends it. */
const HELD = `bake: 1h\nackTimeout: 5m\nwaves: [1, "100%"]\n`;
/** One node first, then everyone; short bakes; ACKs alone decide. */
const QUICK = `bake: 1s\nackTimeout: 20s\nwaves: [1, "100%"]\n`;
const NACK_TEXT = "cluster red: rejected by the test proxy";

type LoadStatsInit = MessageInitShape<typeof LoadStatsRequestSchema>;

describe("rollouts in the console, live in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let xds: TestClient;
  let rollouts: Client<typeof RolloutService>;
  const streams = new Map<string, TestStream>();
  /** Each rollout the cases started, by case. */
  const started: Record<string, Rollout> = {};

  /** Reads the next response of `id` and ACKs it: the names it holds then. */
  const ackNext = async (id: string, timeoutMs = 20_000) => {
    const stream = streams.get(id);
    if (!stream) throw new Error(`no stream for ${id}`);
    const response = await stream.next(timeoutMs);
    stream.ack(response, []);
    return namesOf(response);
  };

  /** ACKs what `id` is sent until it holds what `done` wants (a node may be sent a version twice). */
  const ackUntil = async (id: string, done: (names: string[]) => boolean) => {
    for (;;) {
      const names = await ackNext(id);
      if (done(names)) return names;
    }
  };

  const rolloutNow = (id: bigint) => rollouts.getRollout({ id, nodeLimit: 10 });
  const until = (id: bigint, done: (r: Rollout) => boolean, what: string) =>
    untilRead(() => rolloutNow(id), done, `rollout ${id} ${what}`, 45_000);

  /** Publishes the draft with the plan document `plan`: its one rollout. */
  const publishRollout = async (message: string, plan: string) => {
    const published = await harness.api().publish({
      message,
      rollout: { plan: { case: "planDocument", value: plan } },
    });
    const [id] = published.rolloutIds;
    if (id === undefined) throw new Error(`publish "${message}" started no rollout`);
    return rolloutNow(id);
  };

  const detail = () => page.getByRole("region", { name: /^Rollout \d+/ });
  const wave = (n: number) =>
    page.getByRole("list", { name: "Waves" }).getByRole("listitem", { name: `Wave ${n}` });
  const ackGate = () => page.getByRole("region", { name: "ACK gate" });
  /** The cells of node `id`'s row: connected, version served, wave, ACK, NACK text. */
  const nodeRow = async (id: string) =>
    page
      .getByRole("table", { name: /^Nodes of group/ })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name: id, exact: true }) })
      .getByRole("cell")
      .allInnerTexts();

  const markPage = () =>
    page.evaluate(() => {
      (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
  const notReloaded = () =>
    page.evaluate(() => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage);

  beforeAll(async () => {
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      // The refusal the publish case provokes on purpose (a rollout runs, FailedPrecondition):
      // Chromium logs its HTTP status.
      ignore: (text, source) =>
        text.includes("status of 400") && source.endsWith("/switchyard.v1.ConfigService/Publish"),
    }));
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
    await api.createCluster(edsCluster("lrs", "127.0.0.1:9100", { reportLoad: true }));
    await api.publish({ message: "blue" });
    for (const id of NODES) {
      const stream = xds.open("ads", { node: { id } });
      stream.request(CDS, []);
      stream.ack(await stream.next(), []);
      streams.set(id, stream);
    }
    await untilRead(
      () => harness.app.prisma.xdsNode.count({ where: { disconnectedAt: null } }),
      (count) => count === NODES.length,
      "every node listed connected",
    );
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    xds?.close();
    await chromium?.close();
    await harness?.stop();
  });

  it("shows a rollout as it happens: wave 1's node pending, then ACKed and baking; Promote starts wave 2, whose nodes ACK, and promoted again it completes; without a reload", async () => {
    await page.goto(`${harness.baseUrl}/rollouts`);
    await page
      .getByRole("heading", { name: "No rollout has run yet" })
      .waitFor({ timeout: 15_000 });
    await markPage();

    await harness.api().createCluster(edsCluster("green", "127.0.0.1:9002"));
    const rollout = await publishRollout("green", HELD);
    started.good = rollout;
    await detail().waitFor({ timeout: 15_000 });
    await detail()
      .getByRole("heading", { name: `Rollout ${rollout.id}` })
      .waitFor();

    // Sent to wave 1's node, not ACKed yet: the gate waits for it.
    await ackGate().getByText("0 of 1 ACKed, 1 pending, 0 NACKed").waitFor({ timeout: 15_000 });
    expect(await wave(1).innerText()).toContain("Running");
    expect(await wave(2).innerText()).toContain("Not started");
    expect((await nodeRow(FIRST))[3]).toBe("Pending");

    await ackUntil(FIRST, (names) => names.includes("green"));
    await ackGate().getByText("1 of 1 ACKed, 0 pending, 0 NACKed").waitFor({ timeout: 15_000 });
    await detail().getByText("Baking", { exact: true }).waitFor();
    await expect
      .poll(async () => (await nodeRow(FIRST)).slice(1, 4))
      .toEqual([`v${rollout.toVersion} (new)`, "1", "ACKed"]);
    for (const other of REST)
      expect((await nodeRow(other)).slice(1, 4)).toEqual([`v${rollout.fromVersion}`, "—", "—"]);
    expect(await wave(1).innerText()).toContain("Sent to\n1 node");
    await page.screenshot({ path: artifactPath("console-rollout-baking.png"), fullPage: true });

    await page.getByRole("button", { name: "Promote", exact: true }).click();
    // The gate counts every node sent the version: wave 1's, ACKed, and wave 2's.
    await ackGate().getByText("1 of 4 ACKed, 3 pending, 0 NACKed").waitFor({ timeout: 15_000 });
    expect(await wave(1).innerText()).toContain("Promoted");
    expect(await wave(2).innerText()).toContain("Sent to\n3 nodes");

    for (const other of REST) await ackUntil(other, (names) => names.includes("green"));
    await ackGate().getByText("4 of 4 ACKed, 0 pending, 0 NACKed").waitFor({ timeout: 15_000 });
    // The last wave bakes for an hour: promoted, the rollout completes.
    await page.getByRole("button", { name: "Promote", exact: true }).click();
    const done = await until(rollout.id, (r) => r.phase === RolloutPhase.COMPLETED, "completing");
    await detail().getByText("Completed", { exact: true }).waitFor({ timeout: 15_000 });
    await detail().getByText(done.summary).waitFor();
    for (const node of NODES) expect((await nodeRow(node))[1]).toBe(`v${rollout.toVersion} (new)`);
    expect(await notReloaded()).toBe(true);
  });

  it("shows a NACK failing wave 1 at once: the node, its client's text, and the rollback; the page follows the new rollout by itself", async () => {
    await harness.api().createCluster(edsCluster("red", "127.0.0.1:9003"));
    const rollout = await publishRollout("red", QUICK);
    started.nacked = rollout;
    // The page shows the completed one until it finds this one running.
    await detail()
      .getByRole("heading", { name: `Rollout ${rollout.id}` })
      .waitFor({ timeout: 15_000 });

    const canary = streams.get(FIRST);
    if (!canary) throw new Error("no canary stream");
    const response = await canary.next(20_000);
    expect(namesOf(response)).toContain("red");
    canary.nack(response, [], NACK_TEXT);

    const failed = await until(rollout.id, (r) => r.phase === RolloutPhase.FAILED, "failing");
    const why = page.getByRole("alert", { name: "Why it failed" });
    await why.waitFor({ timeout: 15_000 });
    const text = await why.innerText();
    expect(text).toContain(`Wave 1 failed: rolled back to version ${rollout.fromVersion}`);
    expect(text).toContain(failed.failure?.message ?? "(no message)");
    expect(text).toContain(NACK_TEXT);
    await why.getByRole("link", { name: FIRST }).waitFor();
    expect((await nodeRow(FIRST)).slice(3)).toEqual(["NACKed", NACK_TEXT]);
    expect(await wave(1).innerText()).toContain("Failed");
    await detail().getByText("Failed", { exact: true }).waitFor();
    // Wave 1's node is served what it had again.
    await ackUntil(FIRST, (names) => !names.includes("red"));
    await page.screenshot({ path: artifactPath("console-rollout-nacked.png"), fullPage: true });
    expect(await notReloaded()).toBe(true);
  });

  it("Pause holds the rollout and Resume goes on; the Overview shows it running and links to it; Abort asks first, then rolls back", async () => {
    const rollout = await publishRollout("red again", HELD);
    started.steered = rollout;
    await ackUntil(FIRST, (names) => names.includes("red"));
    await until(rollout.id, (r) => r.phase === RolloutPhase.BAKING, "baking");
    await detail()
      .getByRole("heading", { name: `Rollout ${rollout.id}` })
      .waitFor({ timeout: 15_000 });
    await detail().getByText("Baking", { exact: true }).waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Pause", exact: true }).click();
    await page.getByRole("button", { name: "Resume", exact: true }).waitFor({ timeout: 15_000 });
    await detail().getByText("Paused", { exact: true }).waitFor();
    expect((await rolloutNow(rollout.id)).phase).toBe(RolloutPhase.PAUSED);

    await page.getByRole("button", { name: "Resume", exact: true }).click();
    await page.getByRole("button", { name: "Pause", exact: true }).waitFor({ timeout: 15_000 });
    expect((await rolloutNow(rollout.id)).phase).not.toBe(RolloutPhase.PAUSED);

    await page.goto(`${harness.baseUrl}/`);
    const banner = page.getByRole("region", { name: "Running rollouts" });
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.innerText()).toContain(
      `Rollout ${rollout.id}: version ${rollout.toVersion} to group ${rollout.group}`,
    );
    await banner.getByRole("link", { name: "Follow the rollout →" }).click();
    await page.waitForURL(`**/rollouts?id=${rollout.id}`);
    await detail()
      .getByRole("heading", { name: `Rollout ${rollout.id}` })
      .waitFor({ timeout: 15_000 });

    await page.getByRole("button", { name: "Abort", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: `Abort rollout ${rollout.id}?` });
    await dialog.waitFor();
    // Nothing happens until it is confirmed.
    expect((await rolloutNow(rollout.id)).phase).toBe(RolloutPhase.BAKING);
    await dialog.getByRole("button", { name: "Abort and roll back" }).click();
    await ackUntil(FIRST, (names) => !names.includes("red"));
    await until(rollout.id, (r) => r.phase === RolloutPhase.ABORTED, "aborted");
    await detail().getByText("Aborted", { exact: true }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: "Resume" }).count()).toBe(0);
  });

  it("shows the traffic gate live and its rollback: the canary's errors against the control group's, reported over LRS, per window in a chart, and the cluster with both ratios", async () => {
    const api = harness.api();
    // Only the cluster that reports load changes: the gate judges it alone.
    await api.deleteCluster({ name: "red" });
    const lrs = await api.getCluster({ name: "lrs" });
    await api.updateCluster({ ...lrs, connectTimeoutMs: lrs.connectTimeoutMs + 1_000 });
    const plan = `bake: 5m\nackTimeout: 1m\ntraffic: { maxErrorIncrease: 2, minRequests: 10 }\nwaves: [1, "100%"]\n`;
    const rollout = await publishRollout("lrs moves", plan);
    started.traffic = rollout;
    expect(rollout.clusters).toEqual(["lrs"]);
    const CONTROL = REST[0] ?? "";
    // The running one (the page was left on the aborted rollout's own page).
    await page.goto(`${harness.baseUrl}/rollouts`);
    // The names do not change (lrs does): ACK what comes until the rollout has the ACK.
    await untilRead(
      async () => {
        await ackNext(FIRST, 2_000).catch(() => undefined);
        return rolloutNow(rollout.id);
      },
      (r) => r.phase === RolloutPhase.BAKING,
      "wave 1's node ACKed the change of lrs",
      45_000,
    );
    await detail()
      .getByRole("heading", { name: `Rollout ${rollout.id}` })
      .waitFor({ timeout: 15_000 });
    const gate = page.getByRole("region", { name: "Traffic gate" });
    await gate.getByText("Waiting", { exact: true }).waitFor({ timeout: 15_000 });

    // The canary answers half its requests with errors; the control group none.
    const reporters = [FIRST, CONTROL].map((id) => openLrs(harness.app.xdsPort, { node: { id } }));
    const report = (errors: number): LoadStatsInit => ({
      clusterStats: [
        {
          clusterName: "lrs",
          upstreamLocalityStats: [
            { totalSuccessfulRequests: BigInt(10 - errors), totalErrorRequests: BigInt(errors) },
          ],
        },
      ],
    });
    const reporting = setInterval(() => {
      reporters[0]?.send(report(5));
      reporters[1]?.send(report(0));
    }, 500);
    try {
      // Tripped: wave 1's node is sent the previous version back, and the page says why.
      const failing = await until(
        rollout.id,
        (r) => r.phase === RolloutPhase.ROLLING_BACK || r.phase === RolloutPhase.FAILED,
        "failing",
      );
      expect(failing.failure?.kind).toBe("traffic");
      expect(failing.failure?.clusters.map((c) => c.cluster)).toEqual(["lrs"]);
      const why = page.getByRole("alert", { name: "Why it failed" });
      await why.waitFor({ timeout: 15_000 });
      expect(await why.innerText()).toContain(failing.failure?.message ?? "(no message)");
      expect(failing.failure?.message).toMatch(/cluster "lrs".*50\.00%.*0\.00%/);
      if (failing.phase === RolloutPhase.ROLLING_BACK)
        await detail().getByText("Rolling back", { exact: true }).waitFor({ timeout: 15_000 });
      // The windows the gate counted, as a chart per touched cluster (its figures in a table).
      const chart = page.getByRole("figure", { name: /^Error ratio of cluster lrs/ });
      await chart.waitFor();
      const windows = await chart
        .getByRole("table", { name: "Traffic windows of cluster lrs" })
        .getByRole("row")
        .allInnerTexts();
      expect(windows.length).toBeGreaterThan(1);
      expect(windows.slice(1).some((row) => /50% of \d+\s+0% of \d+/.test(row))).toBe(true);
      expect(await chart.locator("svg .recharts-line").count()).toBe(2);

      // Once it ACKed the previous version, the rollout has failed.
      expect(await ackNext(FIRST)).toEqual(["blue", "green", "lrs"]);
      await until(rollout.id, (r) => r.phase === RolloutPhase.FAILED, "failed");
      await detail().getByText("Failed", { exact: true }).waitFor({ timeout: 15_000 });
      await page.screenshot({ path: artifactPath("console-rollout-traffic.png"), fullPage: true });
    } finally {
      clearInterval(reporting);
      for (const r of reporters) r.close();
    }
  });

  it("History marks each version that went out as a rollout with how it ended, linking to it", async () => {
    await page.goto(`${harness.baseUrl}/history`);
    const marks = (version: bigint) =>
      page
        .getByRole("row")
        .filter({ has: page.getByRole("link", { name: `v${version}`, exact: true }) })
        .getByRole("list", { name: "Went out as rollouts" });
    const { good, nacked } = started;
    if (!good || !nacked) throw new Error("the earlier cases did not run");
    await marks(good.toVersion).waitFor({ timeout: 15_000 });
    expect(await marks(good.toVersion).innerText()).toBe(
      `Rollout ${good.id} (group ${good.group}): completed`,
    );
    expect(await marks(nacked.toVersion).innerText()).toBe(
      `Rollout ${nacked.id} (group ${nacked.group}): failed, rolled back`,
    );
    await marks(nacked.toVersion)
      .getByRole("link", { name: `Rollout ${nacked.id}` })
      .click();
    await page.waitForURL(`**/rollouts?id=${nacked.id}`);
    await page
      .getByRole("alert", { name: "Why it failed" })
      .getByText(NACK_TEXT, { exact: true })
      .waitFor({ timeout: 15_000 });
  });

  it("Publish goes out with the admins' default plan, preselected; refused while that rollout runs, it aborts it and publishes", async () => {
    await rollouts.putRolloutPlan({ name: "canary", document: HELD });
    await rollouts.setDefaultRolloutPlan({ name: "canary" });
    await harness.api().createCluster(edsCluster("yellow", "127.0.0.1:9004"));
    await page.goto(`${harness.baseUrl}/changes`);
    const form = page.getByRole("form", { name: "Publish" });
    await form.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => form.getByLabel("As a rollout, in waves").isChecked(), { timeout: 15_000 })
      .toBe(true);
    expect(await form.getByLabel("Rollout plan").inputValue()).toBe("canary");
    await form.getByLabel("Message").fill("yellow in waves");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    const follow = page.getByRole("link", { name: /^Follow rollout \d+$/ });
    await follow.waitFor({ timeout: 15_000 });
    const id = BigInt((await follow.innerText()).replace(/\D/g, ""));
    const first = await rolloutNow(id);
    expect(first.planName).toBe("canary");
    await ackUntil(FIRST, (names) => names.includes("yellow"));

    await harness.api().createCluster(edsCluster("orange", "127.0.0.1:9005"));
    await page.reload();
    await form.getByLabel("Message").fill("orange");
    await form.getByRole("button", { name: "Publish", exact: true }).click();
    const refusal = form.getByRole("alert");
    await refusal.getByText(`Refused: rollout ${id} is under way`, { exact: false }).waitFor({
      timeout: 15_000,
    });
    await refusal.getByRole("button", { name: "Abort it and publish" }).click();
    await page.getByText(/Version \d+ published/).waitFor({ timeout: 15_000 });
    const aborted = await until(id, (r) => r.phase === RolloutPhase.ABORTED, "aborted");
    expect(aborted.supersededBy).toBeGreaterThan(first.toVersion);
  });

  it("an admin skips the plan with a reason: every wave at once, the rollout completed", async () => {
    // The superseding publish went out with the default plan too.
    const [running] = (await rollouts.listRollouts({ activeOnly: true })).rollouts;
    if (!running) throw new Error("no rollout runs");
    await page.goto(`${harness.baseUrl}/rollouts`);
    await detail()
      .getByRole("heading", { name: `Rollout ${running.id}` })
      .waitFor({ timeout: 15_000 });
    await page.getByRole("button", { name: "Skip plan" }).click();
    const dialog = page.getByRole("dialog", { name: `Skip the plan of rollout ${running.id}?` });
    await dialog.getByRole("button", { name: "Promote every wave now" }).click();
    await dialog.getByRole("alert").getByText("Give a reason").waitFor();
    expect((await rolloutNow(running.id)).phase).not.toBe(RolloutPhase.COMPLETED);
    await dialog.getByLabel("Reason").fill("incident 42: every proxy needs orange now");
    await dialog.getByRole("button", { name: "Promote every wave now" }).click();
    await until(running.id, (r) => r.phase === RolloutPhase.COMPLETED, "completed");
    await detail().getByText("Completed", { exact: true }).waitFor({ timeout: 15_000 });
  });
});
