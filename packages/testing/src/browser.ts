import * as path from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); tests never download a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export interface TestBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with the flags we found to work in our test containers: no
 * sandbox (root), no GPU, no background networking (the network is closed). Playwright gives
 * each launch a fresh temporary profile.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

export interface WatchedPage {
  readonly page: Page;
  /**
   * Every error and warning the browser console showed and every uncaught page error, as
   * `<page url>: <text> (<source url>)`: a console test ends by expecting none.
   */
  readonly problems: string[];
}

/**
 * A new page at laptop width (1280 × 900) whose console errors and warnings are collected.
 * `ignore` leaves out messages a test provokes on purpose (Chromium logs every HTTP error
 * response, e.g. the 400 of a refusal the test asks for).
 */
export async function openWatchedPage(
  browser: TestBrowser,
  options: {
    readonly ignore?: (text: string, sourceUrl: string) => boolean;
    /**
     * A real session cookie ("name=value", as the server's Set-Cookie gave it) for `url`: the
     * page starts signed in, as after the login page.
     */
    readonly session?: { readonly url: string; readonly cookie: string };
  } = {},
): Promise<WatchedPage> {
  const page = await browser.browser.newPage({ viewport: { width: 1280, height: 900 } });
  if (options.session !== undefined) {
    const [name = "", value = ""] = options.session.cookie.split("=", 2);
    await page
      .context()
      .addCookies([{ name, value, url: options.session.url, httpOnly: true, sameSite: "Strict" }]);
  }
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    const source = message.location().url;
    if (options.ignore?.(message.text(), source) === true) return;
    problems.push(`${page.url()}: ${message.text()} (${source})`);
  });
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  return { page, problems };
}

/** What a page's script sees of the page, for checks run in it (these packages have no DOM types). */
interface PageGlobals {
  readonly document: { querySelector(selector: string): unknown };
}

/**
 * Waits until the page shows nothing loading (no `aria-busy="true"` element). A function run in
 * the page, not a string: the console's Content-Security-Policy forbids evaluating strings.
 */
export async function waitUntilNothingBusy(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    () =>
      (globalThis as unknown as PageGlobals).document.querySelector('[aria-busy="true"]') === null,
    null,
    { timeout },
  );
}

/** Where tests save screenshots: `<repo>/test-artifacts/` (git-ignored), kept after the run. */
export function artifactPath(name: string): string {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..");
  return path.join(root, "test-artifacts", name);
}
