import {
  artifactPath,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bearer, statusClient } from "../src/testing/auth.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import {
  ackedShop,
  eventually,
  GRPC_LB_NACK,
  nackedPublish,
  shopCluster,
  TYPE,
  until,
} from "../src/testing/shop.js";

const NODE_ID = "history-client";

/*
 * The node page's History card in real Chromium (issue 46): a real gRPC xDS client ACKs the
 * first publish and NACKs the second; the timeline marks the ACKed version and the NACK, and
 * "What did it hold at" answers the first version for a time between the two, the NACK after.
 * Then a third publish mends it: the Overview's convergence timeline and History say how each
 * version converged.
 */
describe("the node page's history, in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let backend: EchoBackend;
  let client: XdsEchoClient | undefined;
  let page: Page;
  let problems: string[] = [];
  /** A whole second after the first version's ACK, before the second publish. */
  let between = 0;
  let firstCds = "";
  let nackedVersion = 0n;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    const shop = await ackedShop(harness, backend, NODE_ID);
    client = shop.client;
    const cds = shop.acked.types.find((t) => t.typeUrl === TYPE.CDS);
    firstCds = cds?.ackedVersion ?? "";
    const ackedAt = Number(cds?.ackedTime?.seconds ?? 0n) * 1_000 + 999;
    // The picker reads whole seconds: wait for the clock to pass the ACK's second.
    await eventually("the clock past the ACK's second", async () => Date.now() > ackedAt);
    between = Math.floor(Date.now() / 1_000) * 1_000;
    await eventually("the clock past the chosen second", async () => Date.now() >= between + 1_000);
    ({ version: nackedVersion } = await nackedPublish(harness, backend, NODE_ID));
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    client?.close();
    await chromium?.close();
    await harness?.stop();
    await backend?.stop();
  });

  /** `ms` as the browser's datetime-local input holds it (its local time, to the second). */
  const localValue = (ms: number) =>
    page.evaluate((at) => {
      const d = new Date(at);
      const p = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, ms);

  it("the History card marks the ACKed version and the NACK on the CDS lane, with the NACK's text", async () => {
    await page.goto(`${harness.baseUrl}/nodes/${encodeURIComponent(NODE_ID)}`);
    const card = page.getByRole("region", { name: "History" });
    await card.waitFor({ timeout: 15_000 });
    const chart = card.getByRole("figure", { name: `History of node ${NODE_ID}` });
    await eventually(
      "a NACK mark on the chart",
      async () => (await chart.locator('[data-mark="nack"]').count()) > 0,
    );
    expect(await chart.locator('[data-mark="ack"]').count()).toBeGreaterThan(0);
    expect(await chart.locator('[data-mark="connect"]').count()).toBe(1);
    expect(await chart.getByText("CDS").count()).toBeGreaterThan(0);
    const versions = card.getByRole("list", { name: "Versions held" });
    expect(await versions.innerText()).toMatch(new RegExp(`CDS\\s+${firstCds}\\s+from`));
    expect(await versions.innerText()).toMatch(GRPC_LB_NACK);
    await page.screenshot({ path: artifactPath("console-node-history.png"), fullPage: true });
  }, 60_000);

  it("What did it hold at: the first version, ACKED, between the publishes; NACKED with the text after", async () => {
    const card = page.getByRole("region", { name: "History" });
    const time = card.getByLabel("Time");
    await time.fill(await localValue(between));
    await card.getByRole("button", { name: "Show" }).click();
    const answer = card.getByRole("region", { name: "Held at" });
    await eventually("the answer for the time between", async () =>
      /CDS\s+ACKED/.test(await answer.innerText().catch(() => "")),
    );
    expect(await answer.innerText()).toContain(firstCds);
    expect(await answer.innerText()).toContain("connected");
    expect(await answer.innerText()).not.toMatch(GRPC_LB_NACK);

    await time.fill(await localValue(Date.now() + 1_000));
    await card.getByRole("button", { name: "Show" }).click();
    await eventually("the answer after the NACK", async () =>
      /CDS\s+NACKED/.test(await answer.innerText()),
    );
    expect(await answer.innerText()).toMatch(GRPC_LB_NACK);
    expect(await answer.innerText()).toContain(firstCds);
  }, 60_000);

  it("the convergence timeline: the mending version is 100% at once (its node, having NACKed the one between, held it already), the NACKed one says it was NACKed, on the Overview and in History", async () => {
    const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    await harness.api().updateCluster(shopCluster("blue", backend));
    const mended = (await harness.api().publish({ message: "blue mended" })).snapshot?.version;
    await until(
      async () => (await status.listVersionConvergence({ limit: 5 })).versions,
      (versions) => versions.find((v) => v.version === mended)?.msTo100 !== undefined,
      "the mending version never reached 100% of its nodes",
    );
    const nacked = (await status.listVersionConvergence({ limit: 5 })).versions.find(
      (v) => v.version === nackedVersion,
    );
    expect(nacked).toMatchObject({ targeted: 1, converged: 0, nackedEver: 1 });
    // Hostile input names the field and the bound, and reads nothing.
    await expect(status.listVersionConvergence({ limit: 5_000 })).rejects.toThrow(
      "limit 5000 is over 200 versions",
    );

    await page.goto(`${harness.baseUrl}/`);
    const timeline = page.getByRole("region", { name: "Convergence by version" });
    await timeline.waitFor({ timeout: 15_000 });
    await timeline
      .getByRole("figure", { name: /Seconds to 50%, 99% and 100% of nodes/ })
      .waitFor({ timeout: 15_000 });
    const listed = timeline.getByRole("list", { name: "Convergence of the latest versions" });
    const item = (version: bigint) =>
      listed.getByRole("listitem").filter({
        has: page.getByRole("link", { name: `v${version}`, exact: true }),
      });
    expect(await item(mended ?? 0n).innerText()).toMatch(
      /100% of 1 node in 0 ms, unchanged for all/,
    );
    expect(await item(nackedVersion).innerText()).toMatch(/0% of 1 node, 1 NACKed/);
    // The chart draws the NACK as a bar and a line per share reached.
    expect(await timeline.locator(".recharts-bar-rectangle").count()).toBeGreaterThan(0);

    await item(nackedVersion).getByRole("link").click();
    await page.waitForURL(/\/history\?version=/);
    const row = page.getByRole("row").filter({ hasText: "blue on LEAST_REQUEST" });
    await eventually("History's row of the NACKed version says so", async () =>
      /Convergence:\s+0% of 1 node, 1 NACKed/.test(await row.innerText().catch(() => "")),
    );
    const mendedRow = page.getByRole("row").filter({ hasText: "blue mended" });
    expect(await mendedRow.innerText()).toMatch(/Convergence:\s+100% of 1 node in 0 ms/);
    await page.screenshot({
      path: artifactPath("console-convergence-timeline.png"),
      fullPage: true,
    });
  }, 60_000);
});
