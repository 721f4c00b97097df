import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { launchBrowser, openWatchedPage, type TestBrowser } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster, routeConfiguration, virtualHost } from "../src/testing/api-objects.js";
import {
  ADMIN_PASSWORD,
  createAccount,
  privilegedAccess,
  Role,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

describe("the console with accounts (issue 7, done when)", () => {
  let harness: Harness;
  let chromium: TestBrowser;

  beforeAll(async () => {
    harness = await startHarness({ webConsole: true });
    chromium = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("an admin creates a team owning a domain and its member; the member signs in on /login, is sent back where they were, and publishes their own route; a viewer sees no Publish; the audit log shows it all", async () => {
    const access = await privilegedAccess(harness.baseUrl);
    const team = await access.createTeam({ name: "shop", domains: ["*.shop.example.com"] });
    await createAccount(harness.baseUrl, "sam", Role.MEMBER, team.id);
    await createAccount(harness.baseUrl, "vic", Role.VIEWER);
    const api = harness.api();
    await api.createCluster(
      edsCluster("shop-backend", "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
    );
    // The team's own cluster, so its member's route may name it (references are authorized).
    await access.setClusterOwner({ cluster: "shop-backend", teamId: team.id });
    await api.createRouteConfiguration(
      routeConfiguration("shop-routes", [
        virtualHost("shop", ["www.shop.example.com"], "shop-backend"),
      ]),
    );
    await api.publish({ message: "shop" });

    // The member, signed out, opens Changes: the console sends them to /login and back.
    const { page, problems } = await openWatchedPage(chromium, {
      // The sign-in attempts before a session exist answer 401, which Chromium logs.
      ignore: (text) => text.includes("401"),
    });
    await page.goto(`${harness.baseUrl}/changes`);
    await page.waitForURL(/\/login\?next=%2Fchanges/);
    await page.getByLabel("Username").fill("sam");
    await page.getByLabel("Password").fill("wrong password!");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Wrong username or password" }).waitFor();
    await page.getByLabel("Password").fill(USER_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/changes$/);
    await page.getByText("sam", { exact: true }).waitFor();

    // Their route, changed with the browser's own session (the console's route editor is covered
    // by console-config.e2e), then published on this page.
    const cookies = await page.context().cookies();
    const session = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const asSam = await fetch(
      `${harness.baseUrl}/switchyard.v1.ConfigService/UpdateRouteConfiguration`,
      {
        method: "POST",
        headers: { "content-type": "application/json", cookie: session, origin: harness.baseUrl },
        body: JSON.stringify({
          name: "shop-routes",
          virtualHosts: [
            {
              name: "shop",
              domains: ["www.shop.example.com"],
              routes: [
                {
                  matchValue: "/shop",
                  actionKind: "ROUTE_ACTION_KIND_CLUSTER",
                  cluster: "shop-backend",
                },
              ],
            },
          ],
        }),
      },
    );
    expect(asSam.status).toBe(200);
    await page.reload();
    await page.getByLabel("Message").fill("Shop under /shop");
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByText("Version 2 published").waitFor({ timeout: 15_000 });
    const [latest] = (await api.listSnapshots({})).snapshots;
    expect(latest).toMatchObject({ version: 2n, author: "sam" });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login$/);

    // A pending change, so Changes would offer to publish it; the viewer gets no Publish button.
    const backend = await api.getCluster({ name: "shop-backend" });
    await api.updateCluster({ ...backend, connectTimeoutMs: 3000, updateTime: undefined });
    await page.getByLabel("Username").fill("vic");
    await page.getByLabel("Password").fill(USER_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${harness.baseUrl}/`);
    await page.goto(`${harness.baseUrl}/changes`);
    await page.getByText("You have read-only access").waitFor();
    expect(await page.getByRole("button", { name: "Publish", exact: true }).count()).toBe(0);

    const events = (await access.listAuditEvents({ pageSize: 1000 })).events;
    const summary = events.map((e) => `${e.actor} ${e.action}`);
    for (const line of [
      "admin team.create",
      "admin user.create",
      "sam login.failed",
      "sam login",
      "sam routeConfiguration.update",
      "sam publish",
      "sam logout",
      "vic login",
    ])
      expect(summary).toContain(line);
    expect(problems).toEqual([]);
  }, 120_000);

  it.each([
    "/.//evil.example/owned",
    "/x/..//evil.example/owned",
    "/%2e%2e//evil.example/owned",
    "/./\\evil.example/owned",
    "/.\t//evil.example/owned",
    "/x/.%2e/\\/evil.example/owned",
  ])(
    "after signing in with ?next=%j, Chromium stays on the console's overview and never asks another site",
    async (next) => {
      const { page, problems } = await openWatchedPage(chromium);
      // Were the console to follow `next` off its origin, the request would show up here.
      const offsite: string[] = [];
      await page.context().route("http://evil.example/**", (route) => {
        offsite.push(route.request().url());
        return route.fulfill({ status: 200, contentType: "text/plain", body: "owned" });
      });
      await page.goto(`${harness.baseUrl}/login?next=${encodeURIComponent(next)}`);
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill(ADMIN_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL((url) => url.pathname !== "/login");

      expect(page.url()).toBe(`${harness.baseUrl}/`);
      expect(offsite).toEqual([]);
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      expect(problems).toEqual([]);
      await page.close();
    },
    60_000,
  );
});
