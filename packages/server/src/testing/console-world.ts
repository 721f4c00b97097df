import {
  launchBrowser,
  openWatchedPage,
  type TestBrowser,
  type WatchedPage,
} from "@switchyard/testing";
import { type Harness, type HarnessOptions, startHarness } from "./harness.js";

/**
 * The setting of a console browser test: a Switchyard serving its console on a fresh database,
 * real Chromium, and a page signed in as the admin (a real login's cookie) that has not been
 * navigated yet. `ignore` drops console messages a test provokes on purpose (openWatchedPage).
 */
export interface ConsoleWorld extends WatchedPage {
  readonly harness: Harness;
  readonly chromium: TestBrowser;
}

export async function startConsoleWorld(
  options: {
    readonly app?: HarnessOptions["app"];
    readonly ignore?: (text: string, sourceUrl: string) => boolean;
  } = {},
): Promise<ConsoleWorld> {
  const harness = await startHarness({
    webConsole: true,
    ...(options.app === undefined ? {} : { app: options.app }),
  });
  try {
    const chromium = await launchBrowser();
    const watched = await openWatchedPage(chromium, {
      session: { url: harness.baseUrl, cookie: await harness.sessionCookie() },
      ...(options.ignore === undefined ? {} : { ignore: options.ignore }),
    });
    return { ...watched, harness, chromium };
  } catch (error) {
    await harness.stop();
    throw error;
  }
}
