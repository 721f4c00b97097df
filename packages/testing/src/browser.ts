import * as path from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`); tests never download a browser. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export interface TestBrowser {
  readonly browser: Browser;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with the flags that work on these machines (shared/FACTS.md): no
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

/** Where tests save screenshots: `<repo>/test-artifacts/` (git-ignored), kept after the run. */
export function artifactPath(name: string): string {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..", "..");
  return path.join(root, "test-artifacts", name);
}
