/**
 * Issue 6's speed figures: with 1,000 connected proxies and 5,000 routes stored, how long each
 * console page takes to be interactive in real Chromium, and how fast the open Nodes page follows
 * a wave of status changes (half the fleet disconnecting, then reconnecting).
 */

import { ADMIN_PASSWORD, signIn } from "@switchyard/server/testing";
import { launchBrowser } from "@switchyard/testing";
import type { Page } from "playwright-core";
import { type Figure, median } from "./config.bench.js";
import { startFleetWorld } from "./fleet-world.js";
import { machineSettled } from "./process-usage.js";

const NODES = 1_000;
const ROUTES = 5_000;
const CLUSTERS = 500;
const RUNS = 9;
/**
 * At rest: under a tenth of one CPU busy for two windows of 250 ms in a row (the connected fleet
 * and its server keep a few per cent busy), for at most 5 s.
 */
const SETTLE = { busyShare: 0.1, timeoutMs: 5_000 };

/**
 * A page and what shows that it is usable: its title and data are on screen, nothing is
 * loading, and React has hydrated it (its controls respond). `content` is a JavaScript
 * expression the page evaluates (the helpers below write it).
 */
interface PageCheck {
  readonly name: string;
  readonly path: string;
  readonly content: string;
  /**
   * How a user reaches it inside the console: from the page at `from`, a click on the link named
   * `link` (the sidebar's, or a row's); `heading` is the page's title, which shows it is there.
   */
  readonly via?: { readonly from: string; readonly link: string; readonly heading: string };
}

const sidebar = (link: string, heading = link) => ({ from: "/import", link, heading });

const text = (selector: string, value: string) =>
  `[...document.querySelectorAll(${JSON.stringify(selector)})].some((e) => e.textContent.trim() === ${JSON.stringify(value)})`;
/** A link (a table row's name) with exactly this text. */
const link = (name: string) => text("a", name);
/** A form control labelled `label` (the editors' "Name"). */
const field = (label: string) =>
  `[...document.querySelectorAll("label")].some((l) => l.control && l.textContent.trim().startsWith(${JSON.stringify(label)}))`;

export const PAGES: readonly PageCheck[] = [
  {
    name: "Overview",
    path: "/",
    via: sidebar("Overview"),
    content: text("dt, dd, p, span, div", "Connected"),
  },
  { name: "Nodes", path: "/nodes", via: sidebar("Nodes"), content: link("sotw-0000") },
  {
    name: "Node detail",
    path: "/nodes/sotw-0000",
    via: { from: "/nodes", link: "sotw-0000", heading: "sotw-0000" },
    content: text("h2, h3", "Status by type"),
  },
  { name: "Clusters", path: "/clusters", via: sidebar("Clusters"), content: link("svc-0") },
  {
    name: "Cluster editor",
    path: "/clusters/svc-0",
    via: { from: "/clusters", link: "svc-0", heading: "svc-0" },
    content: field("Name"),
  },
  {
    name: "Route configurations",
    path: "/routes",
    via: sidebar("Routes"),
    content: link("routes-0"),
  },
  {
    name: "Route configuration editor (100 routes)",
    path: "/routes/routes-0",
    via: { from: "/routes", link: "routes-0", heading: "routes-0" },
    content: field("Name"),
  },
  { name: "Listeners", path: "/listeners", via: sidebar("Listeners"), content: link("listener-0") },
  {
    name: "Topology",
    path: "/topology",
    via: sidebar("Topology"),
    content: `document.querySelector(".react-flow__node") !== null`,
  },
  { name: "Changes", path: "/changes", via: sidebar("Changes"), content: "true" },
  { name: "History", path: "/history", via: sidebar("History"), content: "true" },
  { name: "Import / export", path: "/import", content: "true" },
];

/**
 * Watches, inside the page, for the moment it becomes usable as PageCheck says, and keeps it on
 * `window.__syReady.at` (ms since the document's navigation started, or since `since`). Checked
 * on every change to the document and every 25 ms: the benchmark never polls the page with
 * animation frames, which made the browser draw frames as fast as it could while it loaded.
 */
export const READY_WATCH = `(function () {
  var probe = (window.__syReady = { at: undefined, want: undefined, since: 0 });
  function hydrated() {
    var main = document.querySelector("main");
    return !!main && Object.keys(main).some(function (k) { return k.indexOf("__reactFiber") === 0; });
  }
  function check() {
    var want = probe.want;
    if (!want || probe.at !== undefined) return;
    var h1 = document.querySelector("h1");
    if (!h1 || (want.heading && h1.textContent.trim() !== want.heading)) return;
    if (!hydrated() || document.querySelector('[aria-busy="true"]') || !want.content()) return;
    probe.at = performance.now() - probe.since;
  }
  // A click inside the console starts the clock of the page it opens.
  document.addEventListener("click", function () { probe.since = performance.now(); }, true);
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  setInterval(check, 25);
  probe.watch = function (heading, content) {
    probe.at = undefined;
    probe.want = { heading: heading, content: new Function("return (" + content + ");") };
  };
})();`;

/**
 * Watches, inside the page, for an element whose whole text matches the pattern (the Nodes page's
 * "1,000 connected"), and keeps when it first appeared on `window.__syShown`, as wall-clock ms
 * (performance.timeOrigin + now). Checked on every change to the document and every 25 ms.
 */
const SHOWN_WATCH = `(pattern) => {
  const re = new RegExp(pattern);
  window.__syShown = undefined;
  const check = () => {
    if (window.__syShown !== undefined) return;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.data.includes("connected") && re.test(n.parentElement.textContent)) {
        window.__syShown = performance.timeOrigin + performance.now();
        observer.disconnect();
        clearInterval(timer);
        return;
      }
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  const timer = setInterval(check, 25);
}`;

/** Waits until the page is usable as `check` says, and returns when that happened (ms). */
export async function readyAt(page: Page): Promise<number> {
  await page.waitForFunction("window.__syReady.at !== undefined", null, {
    timeout: 30_000,
    polling: 100,
  });
  return page.evaluate("window.__syReady.at") as Promise<number>;
}

/** The median of `runs`, with the fastest and the slowest as a note: the spread is a finding too. */
function summary(runs: readonly number[]): { readonly value: number; readonly note: string } {
  const ms = (value: number) => Math.round(value).toLocaleString("en");
  return { value: median(runs), note: `runs ${ms(Math.min(...runs))}–${ms(Math.max(...runs))} ms` };
}

export async function consoleBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const world = await startFleetWorld({
    clusters: CLUSTERS,
    routes: ROUTES,
    nodes: NODES,
    variant: "sotw",
    webConsole: true,
  });
  const chromium = await launchBrowser();
  try {
    // Node status reaches the database in batches: wait until every node is listed.
    for (;;) {
      const listed = await world.app.prisma.xdsNode.count({ where: { disconnectedAt: null } });
      if (listed >= NODES) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The readiness watch evaluates strings in the page, which the console's CSP forbids: the
    // bench measures speed, and the console tests check the policy.
    const context = await chromium.browser.newContext({
      viewport: { width: 1280, height: 900 },
      bypassCSP: true,
    });
    // Signed in as the first admin, as a user of the console is.
    const [name = "", value = ""] = (await signIn(world.baseUrl, "admin", ADMIN_PASSWORD)).split(
      "=",
      2,
    );
    await context.addCookies([
      { name, value, url: world.baseUrl, httpOnly: true, sameSite: "Strict" },
    ]);
    /**
     * ms from the start of navigation to usable, in a new tab; undefined when the page was not
     * usable within 30 s. The clock starts once the machine is at rest: headless Chromium builds
     * a whole browser window for each tab (its toolbar, its omnibox popup, in the browser process
     * and a renderer of their own), about half a second of CPU, and tears the last tab's down
     * after it closes. On two cores that work, which a user's browser does not do on every page
     * load, ran alongside the load measured and added a third to half of its time.
     */
    const visit = async (check: PageCheck): Promise<number | undefined> => {
      const page = await context.newPage();
      try {
        await page.addInitScript(
          `${READY_WATCH}\nwindow.__syReady.watch(undefined, ${JSON.stringify(check.content)});`,
        );
        await machineSettled(SETTLE);
        await page.goto(`${world.baseUrl}${check.path}`, { waitUntil: "commit" });
        return await readyAt(page);
      } catch {
        return undefined;
      } finally {
        await page.close();
      }
    };
    for (const check of PAGES) {
      // Warm-up: the first request of a route loads its code.
      if ((await visit(check)) === undefined) {
        figures.push({
          name: `console: ${check.name} interactive (${NODES} nodes, ${ROUTES} routes)`,
          value: 30_000,
          unit: "ms (not interactive within)",
          target: "< 1000 ms",
        });
        continue;
      }
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push((await visit(check)) ?? 30_000);
      figures.push({
        name: `console: ${check.name} interactive (${NODES} nodes, ${ROUTES} routes), median of ${RUNS}`,
        ...summary(runs),
        unit: "ms",
        target: "< 1000 ms",
      });
    }

    // Inside the console: a click on a link, as a user moves between pages (no document load:
    // the console's code is already running, only the page's data is fetched).
    const tab = await context.newPage();
    await tab.addInitScript(READY_WATCH);
    for (const check of PAGES) {
      const via = check.via;
      if (via === undefined) continue;
      const runs: number[] = [];
      // The first click warms up the route's code.
      for (let i = 0; i <= RUNS; i++) {
        await tab.goto(`${world.baseUrl}${via.from}`);
        await tab.evaluate("window.__syReady.watch(undefined, 'true')");
        await readyAt(tab);
        const target = tab.getByRole("link", { name: via.link, exact: true }).first();
        await target.waitFor({ timeout: 30_000 });
        // From the click (in the page) to the new page usable.
        await tab.evaluate(
          `window.__syReady.watch(${JSON.stringify(via.heading)}, ${JSON.stringify(check.content)})`,
        );
        await target.click();
        const elapsed = await readyAt(tab);
        if (i > 0) runs.push(elapsed);
      }
      figures.push({
        name: `console: ${check.name} interactive after a click in the console (${NODES} nodes, ${ROUTES} routes), median of ${RUNS}`,
        ...summary(runs),
        unit: "ms",
        target: "< 1000 ms",
      });
    }
    await tab.close();

    // Live: the open Nodes page follows half the fleet leaving, then coming back.
    const page = await context.newPage();
    await page.addInitScript(
      `${READY_WATCH}\nwindow.__syReady.watch(undefined, ${JSON.stringify(PAGES[1]?.content)});`,
    );
    await page.goto(`${world.baseUrl}/nodes`);
    await readyAt(page);
    const half = NODES / 2;
    const connectedInDb = () => world.app.prisma.xdsNode.count({ where: { disconnectedAt: null } });
    /**
     * Does `act`, then times how long until the database lists `expected` connected nodes (the
     * fleet's side: xDS streams, status writes) and how far behind that the page shows it.
     */
    const follow = async (label: string, act: () => Promise<void>, expected: number) => {
      // The page notes when it first shows the count, as wall-clock time (the page's and this
      // process's clocks are the machine's): polling the page from here added up to half a
      // second of the poll's own to what was measured.
      // "1000" or "1,000".
      const pattern = `^\\s*${expected.toLocaleString("en").replace(",", ",?")}\\s+connected`;
      await page.evaluate(`(${SHOWN_WATCH})(${JSON.stringify(pattern)})`);
      const start = performance.now();
      await act();
      let written = Number.NaN;
      const database = (async () => {
        while ((await connectedInDb()) !== expected)
          await new Promise((resolve) => setTimeout(resolve, 20));
        written = performance.now();
      })();
      await page.waitForFunction("window.__syShown !== undefined", null, {
        timeout: 120_000,
        polling: 100,
      });
      const shown = ((await page.evaluate("window.__syShown")) as number) - performance.timeOrigin;
      await database;
      figures.push({
        name: `fleet: ${label}, until the database lists it`,
        value: written - start,
        unit: "ms",
      });
      figures.push({
        name: `console: the open Nodes page shows it, after the database`,
        value: Math.max(0, shown - written),
        unit: "ms",
        target: "keeps up (< 1000 ms)",
      });
    };
    await follow(`${half} proxies disconnect`, () => world.fleet.closeSome(half), NODES - half);
    await follow(`${half} proxies reconnect`, () => world.fleet.reconnect(), NODES);
    await context.close();
  } finally {
    await chromium.close();
    await world.stop();
  }
  return figures;
}
