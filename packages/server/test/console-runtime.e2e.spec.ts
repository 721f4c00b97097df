import { TypeUrl } from "@switchyard/snapshot";
import { artifactPath, type TestBrowser } from "@switchyard/testing";
import { createTestClient, deltaNamesOf, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The Runtime page in real Chromium: a runtime layer created through the form (typed keys,
 * errors at their row), published from Changes, and received by an RTDS subscriber. The tests run
 * in order and build on each other.
 */
describe("runtime layers in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  let xds: TestClient;

  beforeAll(async () => {
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
  });

  afterAll(async () => {
    xds?.close();
    await chromium?.close();
    await harness?.stop();
  });

  const key = (n: number, part: "name" | "type" | "value") =>
    page.getByLabel(`Key ${n} ${part}`, { exact: true });

  it("creates a runtime layer from the Runtime page, with an invalid key shown at its row until fixed", async () => {
    await page.goto(`${harness.baseUrl}/`);
    await page.getByRole("link", { name: "Runtime", exact: true }).first().click();
    await page.getByText("No runtime layers").waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: "Create a runtime layer" }).click();

    await page.getByLabel("Name", { exact: true }).fill("faults");
    await key(1, "name").fill("fault.http.abort.abort_percent");
    await key(1, "value").fill("10");
    await page.getByRole("button", { name: "Add key" }).click();
    await key(2, "name").fill("envoy.reloadable_features.example");
    await key(2, "type").selectOption("boolean");
    await key(2, "value").selectOption("true");
    await page.getByRole("button", { name: "Add key" }).click();
    await key(3, "name").fill("tracing..label");
    await key(3, "type").selectOption("string");
    await key(3, "value").fill("edge");
    await page.getByRole("button", { name: "Create runtime layer", exact: true }).click();

    const bad = key(3, "name");
    // Checked in the browser before anything is sent: the error sits at the row's key.
    await expect.poll(() => bad.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
    const errorId = await bad.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toContain(
      "Dots separate non-empty parts",
    );
    await page.screenshot({ path: artifactPath("console-runtime-validation.png"), fullPage: true });

    await bad.fill("tracing.label");
    await page.getByRole("button", { name: "Create runtime layer", exact: true }).click();
    await page.getByText("Runtime layer “faults” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    await page.waitForURL("**/runtime/faults");

    const stored = await harness.api().getRuntimeLayer({ name: "faults" });
    expect(stored.entries.map((e) => [e.key, e.value.case, e.value.value])).toEqual([
      ["envoy.reloadable_features.example", "boolValue", true],
      ["fault.http.abort.abort_percent", "numberValue", 10],
      ["tracing.label", "stringValue", "edge"],
    ]);

    await page.getByRole("link", { name: "Runtime", exact: true }).first().click();
    await page.getByRole("link", { name: "faults" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("table", { name: "Runtime layers" }).innerText()).toContain(
      "fault.http.abort.abort_percent: 10",
    );
    await page.screenshot({ path: artifactPath("console-runtime.png"), fullPage: true });
  }, 90_000);

  it("shows the layer on Changes as its Envoy Runtime and publishes it to a proxy subscribed by name", async () => {
    const stream = xds.openDelta("ads", { node: { id: "console-rtds", cluster: "edge" } });
    stream.request(TypeUrl.Runtime, ["faults"]);
    const missing = await stream.next(5000);
    expect(missing.removedResources).toEqual(["faults"]);
    stream.ack(missing);

    await page.goto(`${harness.baseUrl}/changes`);
    const card = page.getByRole("article", { name: "runtime layer faults" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain("fault.http.abort.abort_percent");
    await page.getByLabel("Message").fill("Abort 10% of requests");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 1 published").waitFor({ timeout: 15_000 });
    await page.screenshot({ path: artifactPath("console-runtime-published.png"), fullPage: true });

    const arrived = await stream.next(5000);
    expect(deltaNamesOf(arrived)).toEqual(["faults"]);
    stream.ack(arrived);
    stream.close();
  }, 90_000);

  it("no page logged an error or warning in the browser console", () => {
    expect(problems).toEqual([]);
  });
});
