import { readFile } from "node:fs/promises";
import { Code, ConnectError } from "@connectrpc/connect";
import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  artifactPath,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
  waitUntilNothingBusy,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  createAccount,
  Role,
  signIn,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The console's access pages (Users, Teams, API tokens, Audit log), driven in real Chromium. The
 * tests run in order: the admin's team and member are the ones the member, the viewer and the
 * audit log then meet.
 */
describe("the console's access pages", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let admin: Page;
  let adminProblems: string[] = [];

  beforeAll(async () => {
    harness = await startHarness({ webConsole: true });
    const api = harness.api();
    await api.createCluster(
      edsCluster("shop-backend", "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
    );
    await api.createCluster(
      edsCluster("payments-backend", "127.0.0.1:50052", { lbPolicy: LbPolicy.ROUND_ROBIN }),
    );
    chromium = await launchBrowser();
    ({ page: admin, problems: adminProblems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
      // The refusals this file provokes on purpose (a bad domain pattern, a short password) are
      // Connect InvalidArgument, HTTP 400; anything else is a problem.
      ignore: (text, from) =>
        text.includes("status of 400") &&
        (from.endsWith("AccessService/AddTeamDomain") || from.endsWith("AccessService/CreateUser")),
    }));
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  const access = async () => accessClient(harness.baseUrl, [bearer(await harness.token())]);

  /** The error shown for the input labelled `label`, through its aria-describedby. */
  async function fieldError(page: Page, label: string): Promise<string> {
    const input = page.getByLabel(label, { exact: true });
    await expect.poll(() => input.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
    const id = await input.getAttribute("aria-describedby");
    return page.locator(`[id="${id}"]`).innerText();
  }

  it("an admin creates a team with a domain and a cluster, then a member of it, through the pages; a bad pattern and a short password are refused at their fields", async () => {
    await admin.goto(`${harness.baseUrl}/teams`);
    await admin.getByRole("heading", { name: "No teams yet" }).waitFor({ timeout: 15_000 });
    await admin.getByRole("link", { name: "Create a team" }).click();
    await admin.getByLabel("Name", { exact: true }).fill("shop");
    await admin.getByLabel("Domain patterns").fill("*.shop.example.com");
    await admin.getByRole("button", { name: "Create team" }).click();
    await admin.waitForURL(/\/teams\/shop$/);

    await admin.getByLabel("Domain pattern", { exact: true }).fill("not a domain!");
    await admin.getByRole("button", { name: "Add domain" }).click();
    expect(await fieldError(admin, "Domain pattern")).toContain("is neither a host name");
    await admin.getByLabel("Domain pattern", { exact: true }).fill("api.shop.example.com");
    await admin.getByRole("button", { name: "Add domain" }).click();
    const domains = admin.getByRole("list", { name: "Domains of shop" });
    await domains.getByText("api.shop.example.com").waitFor({ timeout: 10_000 });

    await admin.getByLabel("Cluster to assign").selectOption("shop-backend");
    await admin.getByRole("button", { name: "Assign cluster" }).click();
    await admin
      .getByRole("list", { name: "Clusters of shop" })
      .getByRole("link", { name: "shop-backend" })
      .waitFor({ timeout: 10_000 });
    await admin.screenshot({ path: artifactPath("console-team.png"), fullPage: true });

    await admin.goto(`${harness.baseUrl}/users`);
    await admin.getByRole("link", { name: "New user" }).click();
    await admin.getByLabel("Username").fill("sam");
    await admin.getByLabel("Password").fill("too short");
    await admin.getByLabel("Role").selectOption({ label: "Member: edits what their team owns" });
    await admin.getByLabel("Team").selectOption({ label: "shop" });
    await admin.getByRole("button", { name: "Create user" }).click();
    expect(await fieldError(admin, "Password")).toBe(
      "the password is 9 characters long; use at least 12",
    );
    await admin.getByLabel("Password").fill("passwordpassword");
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.getByText(/^the password is too easy to guess/).waitFor();
    expect(await fieldError(admin, "Password")).toContain("Avoid repeated words and characters.");
    await admin.getByLabel("Password").fill("Sam-Sam-Sam-Sam!");
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.getByText(/^the password contains the username "sam"/).waitFor();
    await admin.getByLabel("Password").fill(USER_PASSWORD);
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.waitForURL(/\/users\/sam$/);
    await admin.getByText("member in team shop").waitFor();
    await admin.screenshot({ path: artifactPath("console-user.png"), fullPage: true });

    await admin.goto(`${harness.baseUrl}/users`);
    const row = admin.getByRole("row").filter({ has: admin.getByRole("link", { name: "sam" }) });
    // Member of shop, and never signed in yet (Last sign-in).
    expect(await row.innerText()).toMatch(/shop[\s\S]*never/);
    await admin.screenshot({ path: artifactPath("console-users.png"), fullPage: true });

    const api = await access();
    const [team] = (await api.listTeams({})).teams;
    expect(team).toMatchObject({
      name: "shop",
      domains: ["*.shop.example.com", "api.shop.example.com"],
      clusters: ["shop-backend"],
      memberCount: 1,
    });
    const sam = (await api.listUsers({})).users.find((u) => u.username === "sam");
    expect(sam).toMatchObject({ role: Role.MEMBER, teamName: "shop" });
    expect(adminProblems).toEqual([]);
  }, 120_000);

  it("the member signs in on /login, creates a token and sees its secret once; once revoked, a call with it is refused", async () => {
    const { page, problems } = await openWatchedPage(chromium);
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: harness.baseUrl,
    });
    await page.goto(`${harness.baseUrl}/login`);
    await page.getByLabel("Username").fill("sam");
    await page.getByLabel("Password").fill(USER_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${harness.baseUrl}/`);

    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("heading", { name: "No API tokens yet" }).waitFor({ timeout: 15_000 });
    expect(await nav.getByRole("link", { name: "Users" }).count()).toBe(0);
    await page.getByRole("button", { name: "Create a token" }).click();
    await page.getByLabel("Name", { exact: true }).fill("ci");
    await page.getByLabel("publish").check();
    // No password asked: it was entered at sign-in, moments ago (console-reauth.e2e.spec.ts).
    await page.getByRole("button", { name: "Create token" }).click();

    const panel = page.getByRole("region", { name: "Token “ci” created: copy it now" });
    await panel.getByText("You will not see it again").waitFor({ timeout: 10_000 });
    const memberSecret = await panel.getByLabel("Token secret").inputValue();
    expect(memberSecret).toMatch(/^sy_/);
    await panel.getByRole("button", { name: "Copy token" }).click();
    const clipboard = await page.evaluate(() =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText(),
    );
    expect(clipboard).toBe(memberSecret);
    await page.screenshot({ path: artifactPath("console-token-secret.png"), fullPage: true });

    const asToken = accessClient(harness.baseUrl, [bearer(memberSecret)]);
    const who = await asToken.whoAmI({});
    expect(who).toMatchObject({ via: "token", user: { username: "sam" } });
    expect([...who.scopes].sort()).toEqual(["config:read", "publish", "status:read"]);

    // Once dismissed, and after a reload, the secret is nowhere on the page.
    await panel.getByRole("button", { name: "I have copied it" }).click();
    await page.reload();
    const tokenRow = page.getByRole("row").filter({ hasText: "ci" });
    await tokenRow.getByText("active").waitFor({ timeout: 15_000 });
    expect(await page.content()).not.toContain(memberSecret);
    // Used once just above; expires in 90 days (the form's default).
    expect(await tokenRow.innerText()).toMatch(/just now[\s\S]*in 3 months/);

    await page.getByRole("button", { name: "Revoke token ci" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();
    await page.getByText("Token “ci” revoked").waitFor({ timeout: 10_000 });
    await tokenRow.getByText("revoked").waitFor({ timeout: 10_000 });
    await page.screenshot({ path: artifactPath("console-tokens.png"), fullPage: true });

    const refused = await asToken.whoAmI({}).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(refused?.code).toBe(Code.Unauthenticated);
    expect(problems).toEqual([]);
  }, 120_000);

  it("a viewer sees no admin page in the sidebar, an admin page's address explains itself without any control, and configuration offers no New, Delete or Save", async () => {
    await createAccount(harness.baseUrl, "vic", Role.VIEWER);
    const { page, problems } = await openWatchedPage(chromium, {
      session: {
        url: harness.baseUrl,
        cookie: await signIn(harness.baseUrl, "vic", USER_PASSWORD),
      },
    });
    await page.goto(`${harness.baseUrl}/`);
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "API tokens" }).waitFor({ timeout: 15_000 });
    for (const name of ["Users", "Teams", "Audit log"])
      expect(await nav.getByRole("link", { name }).count()).toBe(0);

    for (const [path, title] of [
      ["/users", "Users"],
      ["/users/sam", "sam"],
      ["/teams", "Teams"],
      ["/teams/shop", "shop"],
      ["/audit", "Audit log"],
    ] as const) {
      await page.goto(`${harness.baseUrl}${path}`);
      await page.getByRole("heading", { name: "Admins only" }).waitFor({ timeout: 15_000 });
      expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(title);
      const main = page.locator("main");
      expect(await main.getByRole("button").count()).toBe(0);
      expect(await main.getByRole("textbox").count()).toBe(0);
      expect(await main.getByRole("link").allInnerTexts()).toEqual(["Your API tokens"]);
    }
    await page.screenshot({ path: artifactPath("console-admins-only.png"), fullPage: true });

    // Configuration: readable, with no control to change it, and the reason on the editor.
    await page.goto(`${harness.baseUrl}/clusters`);
    await page.getByRole("link", { name: "shop-backend" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("link", { name: "New cluster" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Delete/ }).count()).toBe(0);
    await page.getByRole("link", { name: "shop-backend" }).click();
    await page
      .getByRole("note")
      .filter({ hasText: "Read-only: You have read-only access (viewer)" })
      .waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: /Save|Delete/ }).count()).toBe(0);
    expect(await page.getByLabel("Name", { exact: true }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  }, 120_000);

  it("a member is offered changes to their team's cluster only: another team's cluster and the listeners are read-only, with the reason", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      session: {
        url: harness.baseUrl,
        cookie: await signIn(harness.baseUrl, "sam", USER_PASSWORD),
      },
    });
    await page.goto(`${harness.baseUrl}/clusters`);
    await page.getByRole("link", { name: "New cluster" }).waitFor({ timeout: 15_000 });
    await page.getByRole("button", { name: "Delete cluster shop-backend" }).waitFor();
    expect(
      await page.getByRole("button", { name: "Delete cluster payments-backend" }).count(),
    ).toBe(0);

    await page.goto(`${harness.baseUrl}/clusters/shop-backend`);
    await page.getByRole("button", { name: "Save to draft" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("note").count()).toBe(0);

    await page.goto(`${harness.baseUrl}/clusters/payments-backend`);
    await page
      .getByRole("note")
      .filter({
        hasText:
          "Read-only: Cluster “payments-backend” is not owned by team shop: an admin assigns clusters to teams.",
      })
      .waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: /Save|Delete/ }).count()).toBe(0);
    await page.screenshot({ path: artifactPath("console-member-read-only.png"), fullPage: true });

    await page.goto(`${harness.baseUrl}/listeners`);
    await page.getByRole("heading", { name: "Listeners", level: 1 }).waitFor({ timeout: 15_000 });
    await waitUntilNothingBusy(page);
    expect(await page.getByRole("link", { name: /New listener|Create a listener/ }).count()).toBe(
      0,
    );
    expect(problems).toEqual([]);
  }, 120_000);

  it("the audit log lists those actions newest first, filters them by actor in the URL, shows a change's diff, and exports the filtered events as CSV", async () => {
    await admin.goto(`${harness.baseUrl}/audit`);
    const table = admin.getByRole("table", { name: "Audit events, newest first" });
    await table.waitFor({ timeout: 15_000 });
    const actions = async () =>
      (await table.locator("tbody tr td:nth-child(4)").allInnerTexts()).map((t) => t.trim());
    const all = await actions();
    for (const action of [
      "team.create",
      "team.domain.add",
      "cluster.owner",
      "user.create",
      "login",
      "token.create",
      "token.revoke",
    ])
      expect(all).toContain(action);
    // Newest first: the viewer's account came after the member's token was revoked.
    expect(all.indexOf("token.revoke")).toBeGreaterThan(all.indexOf("user.create"));

    await admin.getByRole("button", { name: "Show detail of team.create by admin" }).click();
    const diff = admin.getByRole("table", { name: "Changes to team/shop" });
    await diff.getByText('"*.shop.example.com"').first().waitFor({ timeout: 10_000 });
    await admin.screenshot({ path: artifactPath("console-audit.png"), fullPage: true });

    await admin.getByLabel("Actor").fill("sam");
    await admin.getByRole("button", { name: "Apply" }).click();
    await admin.waitForURL(/\/audit\?actor=sam$/);
    const actors = table.locator("tbody tr td:nth-child(2) > span:first-child");
    await expect
      .poll(
        async () => {
          const shown = await actors.allInnerTexts();
          return shown.length > 0 && shown.every((actor) => actor === "sam");
        },
        { timeout: 10_000 },
      )
      .toBe(true);
    const sams = await actions();
    expect(sams).toEqual(expect.arrayContaining(["login", "token.create", "token.revoke"]));
    expect(sams).not.toContain("team.create");

    // The filter is the URL's: a reload keeps it.
    await admin.reload();
    await table.waitFor({ timeout: 15_000 });
    expect(await admin.getByLabel("Actor").inputValue()).toBe("sam");

    const [download] = await Promise.all([
      admin.waitForEvent("download"),
      admin.getByRole("link", { name: "Export CSV" }).click(),
    ]);
    const csv = await readFile(await download.path(), "utf8");
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe("id,at,actor,actorKind,action,target,ip,detail");
    expect(lines.slice(1).every((line) => line.split(",")[2] === "sam")).toBe(true);
    expect(csv).toContain("token.create");
    expect(csv).toContain("token.revoke");
    expect(lines.length - 1).toBe(sams.length);
    expect(adminProblems).toEqual([]);
  }, 120_000);
});
