import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  artifactPath,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster, routeConfiguration, virtualHost } from "../src/testing/api-objects.js";
import {
  createAccount,
  privilegedAccess,
  Role,
  signIn,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/*
 * A route configuration shared by teams, in the console: each virtual host shows its owner (the
 * API's VirtualHost.owner_team); a member edits their team's and reads the others with the reason.
 */
describe("virtual hosts owned by teams, in the route editor", () => {
  let harness: Harness;
  let chromium: TestBrowser;

  beforeAll(async () => {
    harness = await startHarness({ webConsole: true });
    chromium = await launchBrowser();
    const access = await privilegedAccess(harness.baseUrl);
    const shop = await access.createTeam({ name: "shop", domains: ["*.shop.example.com"] });
    await access.createTeam({ name: "payments", domains: ["*.pay.example.com"] });
    await createAccount(harness.baseUrl, "sam", Role.MEMBER, shop.id);
    const api = harness.api();
    for (const name of ["shop-backend", "pay-backend"])
      await api.createCluster(
        edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
      );
    // The team's own cluster, so its member's routes may name it (references are authorized).
    await access.setClusterOwner({ cluster: "shop-backend", teamId: shop.id });
    await api.createRouteConfiguration(
      routeConfiguration("shared-routes", [
        virtualHost("shop", ["www.shop.example.com"], "shop-backend"),
        virtualHost("pay", ["api.pay.example.com"], "pay-backend"),
        virtualHost("fallback", ["*"], "shop-backend"),
      ]),
    );
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("a member edits and saves their team's virtual host, reads another team's and an unowned one with the reason, and a new one on a domain not theirs is refused at its domains", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      session: {
        url: harness.baseUrl,
        cookie: await signIn(harness.baseUrl, "sam", USER_PASSWORD),
      },
      // The one refusal provoked on purpose: a virtual host on payments' domain (HTTP 403).
      ignore: (text, from) =>
        text.includes("status of 403") && from.endsWith("/UpdateRouteConfiguration"),
    });
    const host = (n: number, name: string) =>
      page.getByRole("region", { name: `Virtual host ${n}: ${name}`, exact: true });
    await page.goto(`${harness.baseUrl}/routes/shared-routes`);

    const pay = host(2, "pay");
    await pay
      .getByText(
        "Read-only: Virtual host “pay” is owned by team payments: its members or an admin change it.",
      )
      .waitFor({ timeout: 15_000 });
    await pay.getByText("Owned by payments", { exact: true }).waitFor();
    expect(await pay.getByLabel("Domains").isDisabled()).toBe(true);
    expect(await pay.getByLabel("Path", { exact: true }).isDisabled()).toBe(true);
    expect(await pay.getByRole("button", { name: /Remove/ }).count()).toBe(0);
    const fallback = host(3, "fallback");
    await fallback.getByText("Owned by no team", { exact: true }).waitFor();
    await fallback.getByText(/is owned by no team .*: an admin assigns domains\./).waitFor();
    // Not every virtual host is theirs: the whole configuration is not theirs to delete.
    expect(await page.getByRole("button", { name: "Delete…" }).count()).toBe(0);

    const shop = host(1, "shop");
    await shop.getByText("Owned by shop", { exact: true }).waitFor();
    expect(await shop.getByText("Read-only:").count()).toBe(0);
    await shop.getByText("Team shop owns *.shop.example.com.").waitFor();
    await shop.getByLabel("Path", { exact: true }).fill("/shop");
    await page.screenshot({ path: artifactPath("console-vhost-ownership.png"), fullPage: true });
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await page.getByText("All changes saved to the draft").waitFor({ timeout: 15_000 });
    const saved = await harness.api().getRouteConfiguration({ name: "shared-routes" });
    expect(saved.virtualHosts.map((vh) => `${vh.name} ${vh.routes[0]?.matchValue}`)).toEqual([
      "shop /shop",
      "pay /",
      "fallback /",
    ]);

    // A new virtual host starts on the team's own domain; moved to payments' it is refused there.
    await page.getByRole("button", { name: "Add virtual host" }).click();
    const added = host(4, "host-4");
    expect(await added.getByLabel("Domains").inputValue()).toBe("*.shop.example.com");
    await added.getByLabel("Domains").fill("checkout.pay.example.com");
    await added.getByLabel("Cluster", { exact: true }).fill("shop-backend");
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await added
      .getByText(
        /team shop does not own virtual host host-4 \(domain checkout\.pay\.example\.com\)/,
      )
      .waitFor({ timeout: 15_000 });
    expect(await added.getByLabel("Domains").getAttribute("aria-invalid")).toBe("true");
    await added.getByLabel("Domains").fill("checkout.shop.example.com");
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await page.getByText("All changes saved to the draft").waitFor({ timeout: 15_000 });
    await host(4, "host-4").getByText("Owned by shop", { exact: true }).waitFor();
    const after = await harness.api().getRouteConfiguration({ name: "shared-routes" });
    expect(after.virtualHosts.map((vh) => `${vh.name} ${vh.ownerTeam}`)).toEqual([
      "shop shop",
      "pay payments",
      "fallback ",
      "host-4 shop",
    ]);
    expect(problems).toEqual([]);
  }, 120_000);

  it("an admin sees every owner and may change every virtual host", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    });
    await page.goto(`${harness.baseUrl}/routes/shared-routes`);
    const pay = page.getByRole("region", { name: "Virtual host 2: pay", exact: true });
    await pay.getByText("Owned by payments", { exact: true }).waitFor({ timeout: 15_000 });
    await page.getByRole("button", { name: "Delete…" }).waitFor();
    expect(await page.getByText("Read-only:").count()).toBe(0);
    expect(await pay.getByLabel("Domains").isDisabled()).toBe(false);
    expect(problems).toEqual([]);
  }, 60_000);
});
