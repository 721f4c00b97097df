import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { artifactPath, launchBrowser, type TestBrowser } from "@switchyard/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Switchyard, startSwitchyard } from "../src/app.js";
import { seedGrpcService } from "./seed.js";

describe("the console in a real browser", () => {
  let database: TestDatabase;
  let app: Switchyard;
  let chromium: TestBrowser;

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedGrpcService(database.prisma, "payments", [50051, 50052]);
    app = await startSwitchyard({
      httpPort: 0,
      xdsPort: 0,
      host: "127.0.0.1",
      databaseUrl: database.url,
      dataDir: "unused-with-a-database-url",
      webConsole: true,
      logger: pino({ level: "silent" }),
    });
    chromium = await launchBrowser();
  });

  afterAll(async () => {
    await chromium?.close();
    await app?.stop();
    await database?.drop();
  });

  it("lists what is stored on the home page, by kind, without errors in the browser console", async () => {
    const page = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));

    await page.goto(`http://127.0.0.1:${app.httpPort}/`);
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
