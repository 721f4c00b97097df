import {
  artifactPath,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { ackedShop, eventually, GRPC_LB_NACK, nackedPublish, TYPE } from "../src/testing/shop.js";

const NODE_ID = "history-client";

/*
 * The node page's History card in real Chromium (issue 46): a real gRPC xDS client ACKs the
 * first publish and NACKs the second; the timeline marks the ACKed version and the NACK, and
 * "What did it hold at" answers the first version for a time between the two, the NACK after.
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
    await nackedPublish(harness, backend, NODE_ID);
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
});
