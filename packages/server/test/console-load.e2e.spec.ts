/**
 * Traffic in the console, in real Chromium: a real @grpc/grpc-js-xds client sends RPCs through a
 * cluster that reports load, and the cluster page (by locality, endpoint and node), the node's
 * page and the Overview show the requests the backends answered, live, without a reload.
 */
import {
  artifactPath,
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { loadReportingCluster, shopListener, shopRoutes } from "../src/testing/shop.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

describe("traffic reported over LRS, in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let blue1: EchoBackend;
  let blue2: EchoBackend;
  let client: XdsEchoClient;
  let answered = 0;

  /** The row of `table` whose heading is `name`: its cells' texts. */
  const rowOf = async (table: string, name: string) =>
    page
      .getByRole("table", { name: table })
      .getByRole("row")
      .filter({ has: page.getByRole("rowheader", { name, exact: true }) })
      .getByRole("cell")
      .allInnerTexts();

  beforeAll(async () => {
    [blue1, blue2] = await Promise.all([startEchoBackend("blue-1"), startEchoBackend("blue-2")]);
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      app: { loadReportIntervalMs: 1_000 },
    }));
    const api = harness.api();
    await api.createCluster(loadReportingCluster("blue", [blue1, blue2]));
    await api.createRouteConfiguration(shopRoutes("blue"));
    await api.createListener(shopListener());
    await api.publish({ message: "blue reports load" });
    client = createXdsEchoClient("shop", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: "traffic-client",
    });
    await callUntilReady(client);
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    client?.close();
    await chromium?.close();
    await harness?.stop();
    await Promise.all([blue1?.stop(), blue2?.stop()]);
  });

  it("the cluster page shows each locality's requests as the backends answered them, live, and the cluster's report-load switch on; by endpoint, that gRPC clients report per locality only", async () => {
    await page.goto(`${harness.baseUrl}/clusters/blue`);
    expect(await page.getByLabel("Report load").isChecked()).toBe(true);
    // Sent with the page open: the panel reads the load again by itself.
    for (let i = 0; i < 20; i++) await client.call();
    answered = blue1.served + blue2.served;
    const table = "Traffic by locality, last 5 minutes";
    await expect
      .poll(async () => (await rowOf(table, "eu/eu-1/"))[0], { timeout: 20_000 })
      .toBe(String(blue1.served));
    expect((await rowOf(table, "eu/eu-2/"))[0]).toBe(String(blue2.served));
    expect((await rowOf(table, "eu/eu-1/"))[3]).toBe("0%");
    await page.getByRole("figure", { name: "Traffic: requests per second by locality" }).waitFor();
    await page.screenshot({ path: artifactPath("console-cluster-traffic.png"), fullPage: true });

    // gRPC clients report per locality, not per endpoint (Envoy does both): the panel says so.
    await page.getByLabel("Traffic by", { exact: true }).selectOption({ label: "endpoint" });
    await page
      .getByText("No load reported by endpoint in the last 5 minutes", { exact: false })
      .waitFor({ timeout: 10_000 });
  });

  it("the node's page shows what that node sent, by cluster; the Overview the fleet's total", async () => {
    await page.goto(`${harness.baseUrl}/nodes/traffic-client`);
    await expect
      .poll(async () => (await rowOf("Traffic by cluster, last 5 minutes", "blue"))[0], {
        timeout: 20_000,
      })
      .toBe(String(answered));
    await page.goto(`${harness.baseUrl}/`);
    await expect
      .poll(async () => (await rowOf("Traffic by cluster, last 5 minutes", "All clusters"))[0], {
        timeout: 20_000,
      })
      .toBe(String(answered));
    expect((await rowOf("Traffic by cluster, last 5 minutes", "blue"))[0]).toBe(String(answered));
    await page.screenshot({ path: artifactPath("console-overview-traffic.png"), fullPage: true });
  });
});
