import type { TestBrowser } from "@switchyard/testing";
import { artifactPath } from "@switchyard/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The console says what a save's answer says of the object saved (Listener.warnings): a listener
 * naming a route configuration that does not exist is saved, and its toast says so, and that a
 * publish refuses it, at once rather than on the Changes page.
 */
describe("the console's save of an object says its issues", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    ({ harness, chromium, page } = await startConsoleWorld());
  });
  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("a listener naming a route configuration that does not exist is saved, and the save's toast says it does not exist and blocks a publish", async () => {
    await page.goto(`${harness.baseUrl}/listeners/new`);
    await page.getByLabel("Name", { exact: true }).fill("grpc");
    await page.getByLabel("Route configuration", { exact: true }).fill("not-yet-routes");
    await page.getByRole("button", { name: "Create listener", exact: true }).click();
    await page.getByText("Listener “grpc” saved to the draft").first().waitFor({ timeout: 10_000 });
    await page
      .getByText("Publishing it is refused until this is fixed:")
      .first()
      .waitFor({ timeout: 10_000 });
    await page
      .getByText(/loads route configuration "not-yet-routes", which does not exist/)
      .first()
      .waitFor({ timeout: 10_000 });
    await page.screenshot({ path: artifactPath("console-save-issues.png"), fullPage: true });
  }, 60_000);
});
