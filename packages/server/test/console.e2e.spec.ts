import {
  artifactPath,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.js";
import { seedGrpcService } from "./seed.js";

describe("the console in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;

  beforeAll(async () => {
    harness = await startHarness({
      webConsole: true,
      seed: (database) => seedGrpcService(database.prisma, "payments", [50051, 50052]),
    });
    chromium = await launchBrowser();
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("lists what is stored on the configuration page, by kind, without errors in the browser console", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    });

    await page.goto(`${harness.baseUrl}/inventory`);
    const row = (table: string, name: string) =>
      page
        .getByRole("table", { name: table })
        .getByRole("row")
        .filter({ has: page.getByRole("rowheader", { name, exact: true }) });
    await row("Clusters", "payments-backend").waitFor({ timeout: 15_000 });
    expect(await row("Clusters", "payments-backend").innerText()).toContain("2 endpoints");
    expect(await row("Listeners", "payments").innerText()).toContain("payments-routes");
    expect(await row("Route configurations", "payments-routes").innerText()).toContain(
      "payments-backend",
    );
    await page.screenshot({ path: artifactPath("console-home.png"), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
