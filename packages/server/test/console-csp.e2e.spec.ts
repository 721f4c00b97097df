/**
 * Issue 44, point 8: the console's Content-Security-Policy allowed 'unsafe-inline' scripts, so
 * markup injected into a page could run code as the console. Now each response has a nonce of its
 * own, on the scripts Next.js, React and the root layout write, and no inline script or event
 * handler without it runs (content-security-policy.ts). In real Chromium with the policy enforced:
 * the console works, and an injected script does not.
 */
import { launchBrowser, openWatchedPage, type TestBrowser } from "@switchyard/testing";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { seedGrpcService } from "./seed.js";

/** What the page's scripts see, for checks run in it (these packages have no DOM types). */
interface Violation {
  readonly directive: string;
  readonly blocked: string;
  readonly source: string;
}
type Watched = typeof globalThis & {
  __cspViolations?: Violation[];
  __injected?: string[];
  document: {
    addEventListener(
      type: string,
      listener: (event: {
        effectiveDirective: string;
        blockedURI: string;
        sourceFile: string;
        lineNumber: number;
        columnNumber: number;
      }) => void,
    ): void;
  };
};

/** Every `securitypolicyviolation` of every document the page opens, from its first script on. */
async function watchViolations(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const watched = globalThis as Watched;
    watched.__cspViolations = [];
    watched.document.addEventListener("securitypolicyviolation", (event) => {
      watched.__cspViolations?.push({
        directive: event.effectiveDirective,
        blocked: event.blockedURI,
        source: `${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
      });
    });
  });
}

const violations = (page: Page) =>
  page.evaluate(() => (globalThis as Watched).__cspViolations ?? []);

/** The nonce of a Content-Security-Policy's script-src. */
const nonceOf = (policy: string | undefined) =>
  /script-src [^;]*'nonce-([A-Za-z0-9+/]+={0,2})'/.exec(policy ?? "")?.[1];

/** The opening tag of every <script> in an HTML document. */
const scriptTags = (html: string) => html.match(/<script\b[^>]*>/g) ?? [];

describe("the console under a Content-Security-Policy with no 'unsafe-inline' scripts", () => {
  let harness: Harness;
  let chromium: TestBrowser;

  beforeAll(async () => {
    harness = await startHarness({
      webConsole: true,
      seed: (database) => seedGrpcService(database.prisma, "payments", [50051, 50052]),
    });
    chromium = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("each page's policy allows scripts from the console's origin and this response's nonce only, and every script of the page carries that nonce", async () => {
    const cookie = await harness.sessionCookie();
    const nonces = new Set<string>();
    for (const path of ["/", "/login", "/clusters/payments-backend", "/no-such-page"]) {
      const answer = await fetch(`${harness.baseUrl}${path}`, { headers: { cookie } });
      const policy = answer.headers.get("content-security-policy") ?? "";
      const nonce = nonceOf(policy);
      const html = await answer.text();

      expect(policy, path).toMatch(/(^|; )script-src 'self' 'nonce-[A-Za-z0-9+/]{22}=='(;|$)/);
      expect(policy).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(policy).not.toMatch(/default-src[^;]*'unsafe-/);
      expect(answer.headers.get("cache-control"), path).toContain("no-store");
      const tags = scriptTags(html);
      expect(tags.length, path).toBeGreaterThan(3);
      for (const tag of tags) expect(tag, path).toContain(` nonce="${nonce}"`);
      nonces.add(String(nonce));
    }
    // A nonce is never used twice.
    expect(nonces.size).toBe(4);
  });

  it("a nonce the client names in its own Content-Security-Policy request header is not the one used", async () => {
    const answer = await fetch(`${harness.baseUrl}/login`, {
      headers: {
        "content-security-policy": "script-src 'nonce-chosenByTheClient'",
        "content-security-policy-report-only": "script-src 'nonce-chosenByTheClient'",
        "x-nonce": "chosenByTheClient",
      },
    });
    const html = await answer.text();

    expect(answer.headers.get("content-security-policy")).not.toContain("chosenByTheClient");
    expect(html).not.toContain("chosenByTheClient");
    for (const tag of scriptTags(html))
      expect(tag).toContain(
        `nonce="${nonceOf(answer.headers.get("content-security-policy") ?? "")}"`,
      );
  });

  it("in Chromium, signing in and opening the console's pages, by address and by its links, reports no violation of the policy", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      // The WhoAmI of the signed-out login page answers 401, which Chromium logs.
      ignore: (text) => text.includes("401"),
    });
    await watchViolations(page);
    await page.goto(`${harness.baseUrl}/clusters`);
    await page.waitForURL(/\/login\?next=%2Fclusters/);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/clusters$/);
    await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });
    // A client-side navigation, then a full load of each page type: lists, an object, the graph,
    // the fleet, a form and the not-found page.
    await page.getByRole("link", { name: "payments-backend" }).first().click();
    await page.waitForURL(/\/clusters\/payments-backend$/);
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(await violations(page)).toEqual([]);
    for (const path of [
      "/",
      "/clusters/payments-backend",
      "/listeners/payments",
      "/topology",
      "/nodes",
      "/inventory",
      "/changes",
      "/routes/new",
      "/listeners/new",
      "/history",
      "/reviews",
      "/users",
      "/tokens",
      "/audit",
      "/no-such-page",
    ]) {
      await page.goto(`${harness.baseUrl}${path}`);
      await page.getByRole("heading", { level: 1 }).first().waitFor({ timeout: 15_000 });
      // Hydrated: the user menu is React's, not the server's HTML.
      await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });

      expect(await violations(page), path).toEqual([]);
    }
    expect(problems.filter((problem) => !problem.includes("404"))).toEqual([]);
    await page.close();
  }, 120_000);

  it("in Chromium, a script injected into a page, inline, as an event handler or with a guessed nonce, does not run and is reported; the console's own scripts still run", async () => {
    const { page, problems } = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
    });
    await watchViolations(page);
    // Markup injected into the document as the server sent it, the policy header left as it was.
    await page.route(`${harness.baseUrl}/inventory`, async (route) => {
      const answer = await route.fetch();
      const injected = [
        `<script>(globalThis.__injected ??= []).push("inline")</script>`,
        `<script nonce="AAAAAAAAAAAAAAAAAAAAAA==">(globalThis.__injected ??= []).push("guessed nonce")</script>`,
        `<img src="data:," alt="" onerror="(globalThis.__injected ??= []).push('handler')">`,
        `<a id="injected-link" href="javascript:(globalThis.__injected ??= []).push('javascript: URL')">x</a>`,
      ].join("");
      await route.fulfill({
        response: answer,
        body: (await answer.text()).replace("<body>", `<body>${injected}`),
      });
    });
    await page.goto(`${harness.baseUrl}/inventory`);
    await page.getByRole("button", { name: "Sign out" }).waitFor({ timeout: 15_000 });
    await page.getByRole("table", { name: "Clusters" }).waitFor({ timeout: 15_000 });
    await page.locator("#injected-link").click();

    expect(await page.evaluate(() => (globalThis as Watched).__injected ?? [])).toEqual([]);
    const reported = await violations(page);
    expect(reported.map((v) => `${v.directive} ${v.blocked}`).sort()).toEqual([
      "script-src-attr inline",
      "script-src-elem inline",
      "script-src-elem inline",
      "script-src-elem inline",
    ]);
    // Chromium says so in the console, once for each; nothing else went wrong.
    expect(problems.filter((problem) => !problem.includes("Content Security Policy"))).toEqual([]);
    expect(problems.length).toBeGreaterThanOrEqual(4);
    await page.close();
  }, 60_000);
});
