import { LbPolicy, ReviewState } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  artifactPath,
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apiListener,
  edsCluster,
  routeConfiguration,
  virtualHost,
} from "../src/testing/api-objects.js";
import { accessClient, bearer, signIn, USER_PASSWORD } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * Review requests in the console, driven in real Chromium: an admin makes a team that requires
 * review and a member of it; the member edits their cluster and, on Changes, requests a review
 * instead of publishing; the admin approves it on Reviews (a version authored by the member) or
 * rejects it with a comment the member then reads. The tests run in order, on one admin page and
 * one member page.
 */
describe("review requests in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let admin: Page;
  let member: Page;
  let adminProblems: string[] = [];
  let memberProblems: string[] = [];

  beforeAll(async () => {
    harness = await startHarness({ webConsole: true });
    await harness.api().createCluster(
      edsCluster("shop-backend", "127.0.0.1:50051", {
        lbPolicy: LbPolicy.ROUND_ROBIN,
        connectTimeoutMs: 1000,
      }),
    );
    await harness.api().publish({ message: "start" });
    chromium = await launchBrowser();
    ({ page: admin, problems: adminProblems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    }));
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  const config = () => harness.api();
  const toast = (page: Page, text: string) =>
    page.getByText(text).first().waitFor({ timeout: 15_000 });
  const card = (page: Page, id: number) => page.getByRole("article", { name: `Review #${id}` });

  /** The member sets their cluster's connect timeout in its editor, saving to the draft. */
  async function editTimeout(ms: number) {
    await member.goto(`${harness.baseUrl}/clusters/shop-backend`);
    await member.getByRole("button", { name: "Save to draft" }).waitFor({ timeout: 15_000 });
    await member.getByLabel("Connect timeout (ms)").fill(String(ms));
    await member.getByRole("button", { name: "Save to draft" }).click();
    await toast(member, "Cluster “shop-backend” saved to the draft");
  }

  /** The member asks for a review of the draft on Changes; answers the request's id. */
  async function requestReview(message: string): Promise<number> {
    await member.goto(`${harness.baseUrl}/changes`);
    await member
      .getByRole("article", { name: "cluster shop-backend" })
      .waitFor({ timeout: 15_000 });
    await member.getByLabel("Message").fill(message);
    await member.getByRole("button", { name: "Request review", exact: true }).click();
    const asked = member.getByText(/^Review requested \(#\d+\)$/).first();
    await asked.waitFor({ timeout: 15_000 });
    return Number(/#(\d+)/.exec(await asked.innerText())?.[1]);
  }

  it("an admin creates a team that requires review and owns a cluster, and a member of it, through the pages", async () => {
    await admin.goto(`${harness.baseUrl}/teams`);
    await admin.getByRole("heading", { name: "No teams yet" }).waitFor({ timeout: 15_000 });
    await admin.getByRole("link", { name: "Create a team" }).click();
    await admin.getByLabel("Name", { exact: true }).fill("shop");
    await admin.getByLabel("Requires review").check();
    await admin.getByRole("button", { name: "Create team" }).click();
    await admin.waitForURL(/\/teams\/shop$/);
    await admin.getByLabel("Cluster to assign").selectOption("shop-backend");
    await admin.getByRole("button", { name: "Assign cluster" }).click();
    await admin
      .getByRole("list", { name: "Clusters of shop" })
      .getByRole("link", { name: "shop-backend" })
      .waitFor({ timeout: 10_000 });

    await admin.goto(`${harness.baseUrl}/users/new`);
    await admin.getByLabel("Username").fill("sam");
    await admin.getByLabel("Password").fill(USER_PASSWORD);
    await admin.getByLabel("Role").selectOption({ label: "Member: edits what their team owns" });
    await admin.getByLabel("Team").selectOption({ label: "shop" });
    await admin.getByRole("button", { name: "Create user" }).click();
    await admin.waitForURL(/\/users\/sam$/);

    const [team] = (
      await accessClient(harness.baseUrl, [bearer(await harness.token())]).listTeams({})
    ).teams;
    expect(team).toMatchObject({ name: "shop", requireReview: true, clusters: ["shop-backend"] });

    ({ page: member, problems: memberProblems } = await openWatchedPage(chromium, {
      session: {
        url: harness.baseUrl,
        cookie: await signIn(harness.baseUrl, "sam", USER_PASSWORD),
      },
    }));
    expect(adminProblems).toEqual([]);
  }, 120_000);

  it("the member edits their cluster; Changes offers Request review instead of Publish, and the request pins the draft they reviewed", async () => {
    await editTimeout(2500);
    await member.goto(`${harness.baseUrl}/changes`);
    await member.getByRole("heading", { name: "Request review", level: 2 }).waitFor({
      timeout: 15_000,
    });
    await member.getByText("Team shop requires an admin’s review").waitFor();
    expect(await member.getByRole("button", { name: "Publish", exact: true }).count()).toBe(0);
    const reviewed = await config().diff({ bodies: { omit: true } });

    const id = await requestReview("Shop backend: 2.5 s connect timeout");
    // The toast's link opens the request: the member may withdraw it, not approve it.
    await member.getByRole("button", { name: "View request" }).click();
    await member.waitForURL(new RegExp(`/reviews\\?id=${id}$`));
    await card(member, id).getByText("Shop backend: 2.5 s connect timeout").waitFor({
      timeout: 15_000,
    });
    await card(member, id).getByRole("button", { name: "Withdraw" }).waitFor();
    expect(await card(member, id).getByRole("button", { name: "Approve" }).count()).toBe(0);

    const asked = await config().getReviewRequest({ id: BigInt(id) });
    expect(asked).toMatchObject({
      state: ReviewState.OPEN,
      requester: "sam",
      team: "shop",
      message: "Shop backend: 2.5 s connect timeout",
      baseVersion: reviewed.fromVersion,
      draftRevision: reviewed.draftRevision,
      current: true,
    });
    expect(asked.changes.map((c) => c.name)).toEqual(["shop-backend"]);

    // Back on Changes, their open request is shown, with its link.
    await member.goto(`${harness.baseUrl}/changes`);
    const own = member.getByRole("region", { name: "Your review request" });
    await own.getByText(`Your review request #${id} is waiting for an admin`).waitFor({
      timeout: 15_000,
    });
    expect(await own.getByRole("link", { name: "View request" }).getAttribute("href")).toBe(
      `/reviews?id=${id}`,
    );
    await member.getByText(`It replaces your open request #${id}.`).waitFor();
    await member.screenshot({ path: artifactPath("console-review-request.png"), fullPage: true });
    expect(memberProblems).toEqual([]);
  }, 120_000);

  it("the admin sees the request on Reviews with its diff and approves it: the published version is the member's, in History", async () => {
    await admin.goto(`${harness.baseUrl}/`);
    const nav = admin.getByRole("navigation", { name: "Main" });
    await nav.getByRole("link", { name: "Reviews (1 open)" }).click();
    await admin.waitForURL(/\/reviews$/);
    const request = card(admin, 1);
    await request.waitFor({ timeout: 15_000 });
    const text = await request.innerText();
    for (const part of ["Open", "sam", "team shop", "on version 1", "2.5 s connect timeout"])
      expect(text).toContain(part);
    await request
      .getByRole("list", { name: "Changes of review #1" })
      .getByRole("link", { name: "shop-backend" })
      .waitFor();
    await request.getByRole("button", { name: "Show the diff" }).click();
    const diff = request.getByRole("article", { name: "cluster shop-backend" });
    await diff.getByRole("table", { name: "Changes to cluster shop-backend" }).waitFor({
      timeout: 15_000,
    });
    expect(await diff.innerText()).toMatch(/2\.5(00)?s/);
    await admin.screenshot({ path: artifactPath("console-reviews.png"), fullPage: true });

    await request.getByRole("button", { name: "Approve" }).click();
    const dialog = admin.getByRole("dialog", { name: "Approve and publish review #1?" });
    await dialog.getByLabel("Comment (optional)").fill("Looks right");
    await dialog.getByRole("button", { name: "Approve and publish" }).click();
    await toast(admin, "Published version 2");
    await admin.getByRole("button", { name: "View in History" }).click();
    await admin.waitForURL(/\/history\?version=2$/);
    const version = admin.getByRole("region", { name: /^Version 2/ });
    await version.getByText("Published by sam").waitFor({ timeout: 15_000 });
    expect(await version.innerText()).toContain(
      "Shop backend: 2.5 s connect timeout (review #1, approved by admin)",
    );
    const [latest] = (await config().listSnapshots({ limit: 1 })).snapshots;
    expect(latest).toMatchObject({ version: 2n, author: "sam" });

    await admin.goto(`${harness.baseUrl}/reviews?state=approved`);
    await request.getByText("Approved by admin").waitFor({ timeout: 15_000 });
    expect(await request.innerText()).toContain("Looks right");
    await request.getByRole("link", { name: "version 2" }).waitFor();
    expect(adminProblems).toEqual([]);
  }, 120_000);

  it("a rejection needs a comment; the member reads it on Changes and on Reviews, the draft is left as it is, and History offers the member no rollback", async () => {
    await editTimeout(3000);
    const id = await requestReview("Shop backend: 3 s connect timeout");

    await admin.goto(`${harness.baseUrl}/reviews?state=open`);
    const request = card(admin, id);
    await request.getByRole("button", { name: "Reject" }).click();
    const dialog = admin.getByRole("dialog", { name: `Reject review #${id}?` });
    await dialog.getByRole("button", { name: "Reject request" }).click();
    const comment = dialog.getByLabel("Comment");
    await expect.poll(() => comment.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
    expect(await dialog.innerText()).toContain("Say why: the requester sees this comment.");
    await comment.fill("3 s is too long for checkout: keep it under 2 s");
    await dialog.getByRole("button", { name: "Reject request" }).click();
    await toast(admin, `Review #${id} rejected`);
    // Nothing is open any more: the open view says so.
    await admin.getByRole("heading", { name: "No open requests" }).waitFor({ timeout: 15_000 });

    await member.goto(`${harness.baseUrl}/changes`);
    const own = member.getByRole("region", { name: "Your review request" });
    await own.getByText(`Your review request #${id} was rejected by admin`).waitFor({
      timeout: 15_000,
    });
    expect(await own.innerText()).toContain("3 s is too long for checkout: keep it under 2 s");
    await member.screenshot({ path: artifactPath("console-review-rejected.png"), fullPage: true });

    await member.goto(`${harness.baseUrl}/reviews?state=rejected`);
    const rejected = card(member, id);
    await rejected.getByText("Rejected by admin").waitFor({ timeout: 15_000 });
    expect(await rejected.innerText()).toContain("3 s is too long for checkout");
    expect(await rejected.getByRole("button").count()).toBe(0);

    // Nor may they roll back: History says who does.
    await member.goto(`${harness.baseUrl}/history?version=1`);
    await member
      .getByText("Team shop requires an admin’s review: ask an admin to roll back")
      .waitFor({ timeout: 15_000 });
    expect(await member.getByRole("button", { name: "Roll back to this version" }).count()).toBe(0);

    expect((await config().getCluster({ name: "shop-backend" })).connectTimeoutMs).toBe(3000);
    const [latest] = (await config().listSnapshots({ limit: 1 })).snapshots;
    expect(latest?.version).toBe(2n);
    expect(memberProblems).toEqual([]);
    expect(adminProblems).toEqual([]);
  }, 120_000);

  it("a request whose draft changed since is out of date: Approve is disabled with the reason, and the member withdraws it", async () => {
    const id = await requestReview("Shop backend: 3 s after all");
    // Someone edits the draft after the request.
    await editTimeout(1500);

    await admin.goto(`${harness.baseUrl}/reviews`);
    const request = card(admin, id);
    await request.getByText("Out of date").first().waitFor({ timeout: 15_000 });
    const approve = request.getByRole("button", { name: "Approve" });
    expect(await approve.isDisabled()).toBe(true);
    const reason = await admin
      .locator(`[id="${await approve.getAttribute("aria-describedby")}"]`)
      .innerText();
    expect(reason).toContain("Ask sam to review the draft and request again, or reject it");
    expect(await request.getByRole("button", { name: "Show the diff" }).count()).toBe(0);

    await member.goto(`${harness.baseUrl}/changes`);
    const own = member.getByRole("region", { name: "Your review request" });
    await own.getByText(`Your review request #${id} is out of date`).waitFor({ timeout: 15_000 });
    await own.getByRole("button", { name: "Withdraw" }).click();
    await toast(member, `Review request #${id} withdrawn`);
    await expect.poll(() => own.count(), { timeout: 15_000 }).toBe(0);
    expect((await config().getReviewRequest({ id: BigInt(id) })).state).toBe(ReviewState.WITHDRAWN);
    expect(memberProblems).toEqual([]);
    expect(adminProblems).toEqual([]);
  }, 120_000);

  it("an approval validation predicts gRPC clients will reject is refused listing each, and approved once the admin accepts the warnings", async () => {
    // A proxyless gRPC listener reaches the member's cluster; the member asks for LEAST_REQUEST.
    await config().createRouteConfiguration(
      routeConfiguration("shop-routes", [virtualHost("shop", ["*"], "shop-backend")]),
    );
    await config().createListener(apiListener("shop", "shop-routes"));
    await config().publish({ message: "gRPC clients of the shop" });
    const cluster = await config().getCluster({ name: "shop-backend" });
    await config().updateCluster({ ...cluster, lbPolicy: LbPolicy.LEAST_REQUEST });
    const id = await requestReview("Shop backend: least request");
    const before = (await config().listSnapshots({})).snapshots.length;

    await admin.goto(`${harness.baseUrl}/reviews`);
    const request = card(admin, id);
    await request.getByRole("button", { name: "Approve" }).click();
    const dialog = admin.getByRole("dialog", { name: `Approve and publish review #${id}?` });
    await dialog.getByRole("button", { name: "Approve and publish" }).click();
    const alert = dialog.getByRole("alert");
    await alert
      .getByText("Refused: validation predicts that clients will reject this version")
      .waitFor({ timeout: 15_000 });
    expect(await alert.innerText()).toContain(
      'a proxyless gRPC client would reject cluster "shop-backend"',
    );
    expect((await config().listSnapshots({})).snapshots).toHaveLength(before);
    await admin.screenshot({ path: artifactPath("console-review-rejections.png") });

    await alert.getByRole("button", { name: "Accept the warnings and approve" }).click();
    await toast(admin, `Published version ${before + 1}`);
    expect((await config().getReviewRequest({ id: BigInt(id) })).state).toBe(ReviewState.APPROVED);
    // The refused approval is an HTTP error response, which Chromium always logs; nothing else.
    expect(
      adminProblems.filter(
        (p) => !(p.includes("status of 400") && p.includes("ConfigService/ApproveReview")),
      ),
    ).toEqual([]);
  }, 120_000);
});
