import { TypeUrl } from "@switchyard/snapshot";
import { artifactPath, type TestBrowser } from "@switchyard/testing";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  edsCluster,
  portListener,
  routeConfiguration,
  virtualHost,
} from "../src/testing/api-objects.js";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The route editor's "On-demand virtual hosts (VHDS)" toggle in real Chromium: turned on (a
 * virtual host name with "/" refused at that name until fixed), stored, published and served to a
 * Delta ADS client asking by host; turned off again. The tests run in order and build on each other.
 */
describe("on-demand virtual hosts in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let xds: TestClient;

  beforeAll(async () => {
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    const api = harness.api();
    await api.createCluster(edsCluster("shop", "10.0.0.1:8080", { connectTimeoutMs: 1000 }));
    await api.createRouteConfiguration(
      routeConfiguration("edge-routes", [virtualHost("shop", ["shop.example.com"], "shop")]),
    );
    await api.createListener(portListener("edge", 8080, "edge-routes", { statPrefix: "edge" }));
    await api.publish({ message: "edge" });
  });

  afterAll(async () => {
    xds?.close();
    await chromium?.close();
    await harness?.stop();
  });

  const toggle = () => page.getByLabel("On-demand virtual hosts (VHDS)", { exact: true });
  const save = () => page.getByRole("button", { name: "Save to draft", exact: true }).click();

  it("turns on on-demand virtual hosts from the route editor, refusing a virtual host name with / at that name until fixed", async () => {
    await page.goto(`${harness.baseUrl}/routes/edge-routes`);
    await toggle().waitFor({ timeout: 15_000 });
    expect(await toggle().isChecked()).toBe(false);
    await toggle().check();
    const name = page.getByLabel("Virtual host name", { exact: true });
    await name.fill("shop/eu");
    await save();
    await expect.poll(() => name.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
    const errorId = await name.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toContain('cannot hold "/"');
    await page.screenshot({ path: artifactPath("console-vhds-validation.png"), fullPage: true });

    await name.fill("shop");
    await save();
    await page.getByText("Route configuration “edge-routes” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    const stored = await harness.api().getRouteConfiguration({ name: "edge-routes" });
    expect(stored.vhds).toBe(true);
    expect(stored.virtualHosts.map((v) => v.name)).toEqual(["shop"]);
    await page.reload();
    await toggle().waitFor({ timeout: 15_000 });
    expect(await toggle().isChecked()).toBe(true);
    await page.screenshot({ path: artifactPath("console-vhds.png"), fullPage: true });
  }, 90_000);

  it("once published, a Delta ADS client asking for the host gets the virtual host; turned off, it is removed", async () => {
    await harness.api().publish({ message: "edge on demand" });
    const stream = xds.openDelta("ads", { node: { id: "console-vhds", cluster: "edge" } });
    stream.request(TypeUrl.VirtualHost, ["edge-routes/shop.example.com"]);
    const response = await stream.next(5000);
    expect(response.resources.map((r) => [r.name, [...r.aliases]])).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com"]],
    ]);
    stream.ack(response);

    await page.goto(`${harness.baseUrl}/routes/edge-routes`);
    await toggle().waitFor({ timeout: 15_000 });
    await toggle().uncheck();
    await save();
    await page.getByText("Route configuration “edge-routes” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    expect((await harness.api().getRouteConfiguration({ name: "edge-routes" })).vhds).toBe(false);
    await harness.api().publish({ message: "edge inline" });
    const removal = await stream.next(5000);
    expect(removal.removedResources).toEqual(["edge-routes/shop"]);
    stream.ack(removal);
    stream.close();
  }, 90_000);

  it("no page logged an error or warning in the browser console", () => {
    expect(problems).toEqual([]);
  });
});
