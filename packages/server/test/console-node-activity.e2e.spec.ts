import { fromBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { GetNodeActivityRequestSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  artifactPath,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient } from "@switchyard/xds/testing";
import type { Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bearer, statusClient } from "../src/testing/auth.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { ackedShop, eventually, nackedPublish, TYPE } from "../src/testing/shop.js";

const NODE_ID = "activity-client";
const ACTIVITY_PATH = "/switchyard.v1.StatusService/GetNodeActivity";

/*
 * The Nodes table's "Last hour" sparklines in real Chromium (issue 46): a real gRPC xDS client
 * connects and ACKs a publish, then NACKs the next while the page stays open; its row's
 * sparkline states both in words, drawing the NACK in red. The sparklines of a page of rows
 * are read in one request naming the rows shown, and no others.
 */
describe("the Nodes table's sparklines of recent changes, in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let backend: EchoBackend;
  let client: XdsEchoClient | undefined;
  let page: Page;
  let problems: string[] = [];
  /** The node ids each GetNodeActivity request from the page named. */
  const requested: string[][] = [];

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    page.on("request", (request) => {
      const body = request.postDataBuffer();
      if (new URL(request.url()).pathname === ACTIVITY_PATH && body !== null)
        requested.push(fromBinary(GetNodeActivityRequestSchema, body).nodeIds);
    });
    ({ client } = await ackedShop(harness, backend, NODE_ID));
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

  /** The node's history of the last hour, counted as the sparkline's words count it. */
  async function historyWords() {
    const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const { entries } = await status.getNodeHistory({
      nodeId: NODE_ID,
      since: timestampFromMs(Date.now() - 60 * 60_000),
    });
    const count = (kind: string) => entries.filter((e) => e.kind === kind).length;
    return { acks: count("ack"), nacks: count("nack"), connects: count("connect") };
  }

  const sparkline = (): Locator =>
    page
      .getByRole("table", { name: "Nodes" })
      .getByRole("row")
      .filter({ hasText: NODE_ID })
      .getByRole("img", { name: /^Last hour:/ });

  it("a node that connected and ACKed a publish: its sparkline says how many versions it ACKed, and that it connected", async () => {
    const { acks, connects } = await historyWords();
    // LDS, RDS, CDS and EDS: one version of each taken.
    expect(acks).toBeGreaterThanOrEqual(4);
    expect(connects).toBe(1);
    await page.goto(`${harness.baseUrl}/nodes`);
    await sparkline().waitFor({ timeout: 15_000 });
    expect(await sparkline().getAttribute("aria-label")).toBe(
      `Last hour: ${acks} versions ACKed, 1 connect`,
    );
    expect(await sparkline().getAttribute("data-nacks")).toBe("no");
    expect(await page.getByRole("columnheader", { name: "Last hour" }).count()).toBe(1);
  }, 60_000);

  it("a NACK while the page is open shows in the sparkline's words and as a red bar, without a reload", async () => {
    await page.evaluate(() => {
      (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
    await nackedPublish(harness, backend, NODE_ID);
    const { acks, nacks } = await historyWords();
    expect(nacks).toBe(1);
    await eventually("the sparkline states the NACK", async () =>
      /1 NACK/.test((await sparkline().getAttribute("aria-label")) ?? ""),
    );
    expect(await sparkline().getAttribute("aria-label")).toBe(
      `Last hour: ${acks} versions ACKed, 1 NACK, 1 connect`,
    );
    expect(await sparkline().getAttribute("data-nacks")).toBe("yes");
    const red = sparkline().locator(".sparkline-nack path");
    expect(await red.count()).toBeGreaterThan(0);
    expect(await red.first().getAttribute("fill")).toBe("#dc2626");
    expect(
      await page.evaluate(
        () => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage,
      ),
    ).toBe(true);
    await page.screenshot({ path: artifactPath("console-node-activity.png"), fullPage: true });
  }, 60_000);

  it("with more nodes than a page, one request reads the sparklines of the 50 rows shown, and only theirs", async () => {
    const fleet = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    try {
      const streams = Array.from({ length: 60 }, (_, i) => {
        const stream = fleet.open("ads", { node: { id: `fleet-${String(i).padStart(2, "0")}` } });
        stream.request(TYPE.CDS, []);
        return stream;
      });
      await Promise.all(streams.map((stream) => stream.next(10_000)));
      // Every node stored before the page opens (status reaches the database in batches).
      const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
      await eventually(
        "61 nodes stored",
        async () => (await status.listNodes({ pageSize: 100 })).nodes.length === 61,
      );
      requested.length = 0;
      await page.goto(`${harness.baseUrl}/nodes`);
      await page
        .getByRole("navigation", { name: "Nodes, pages" })
        .getByText("Rows 1–50 of 61")
        .waitFor({ timeout: 15_000 });
      const table = page.getByRole("table", { name: "Nodes" });
      const lines = table.getByRole("img", { name: /^Last hour:/ });
      await eventually("a sparkline on every row", async () => (await lines.count()) === 50);
      const shown = await table.locator("tbody tr th a").allInnerTexts();
      expect(shown).toHaveLength(50);
      const last = requested.at(-1) ?? [];
      expect([...last].sort()).toEqual([...shown].sort());
      // Every read of this page named the rows shown then: never one request per row.
      expect(requested.every((ids) => ids.length === 50)).toBe(true);
      expect(await table.getByRole("img", { name: "Last hour: 1 connect" }).count()).toBe(
        shown.filter((id) => id.startsWith("fleet-")).length,
      );
    } finally {
      fleet.close();
    }
  }, 60_000);
});
