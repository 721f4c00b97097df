/**
 * Renders the console's home page in headless Chromium in each of its states and saves a
 * screenshot of each, failing if the page logs an unexpected error.
 *
 *   tsx scripts/render-states.ts [baseUrl=http://localhost:3005] [outDir=/tmp]
 *
 * Every state but `live` answers the ListResources call from the browser (page.route), so this
 * runs against `next start` alone; `live` leaves the call to whatever serves `baseUrl`.
 * Uses the system Chromium (apt-get install chromium); it never downloads a browser.
 */
import { join } from "node:path";
import { fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { type BrowserContext, chromium, type Page, type Route } from "playwright-core";

const baseUrl = process.argv[2] ?? "http://localhost:3005";
const outDir = process.argv[3] ?? "/tmp";
const rpc = "**/switchyard.v1.ConfigService/ListResources";

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

/** A plausible small fleet, in proto3 JSON (sent as the binary protobuf the console asks for). */
const fleet = {
  resources: [
    ["CLUSTER", "auth", "EDS, ROUND_ROBIN, 2 endpoints", [], 3],
    ["CLUSTER", "checkout", "EDS, LEAST_REQUEST, 4 endpoints", [], 42],
    [
      "CLUSTER",
      "outbound|8080||reviews.default.svc.cluster.local",
      "EDS, RING_HASH, 6 endpoints",
      [],
      60 * 5,
    ],
    ["CLUSTER", "payments", "EDS, ROUND_ROBIN, 3 endpoints", [], 60 * 26],
    ["LISTENER", "admin", "127.0.0.1:9000, HTTP connection manager", ["admin-routes"], 60 * 24 * 9],
    [
      "LISTENER",
      "ingress-http",
      "0.0.0.0:8080, HTTP connection manager, RDS",
      ["ingress-routes"],
      12,
    ],
    [
      "LISTENER",
      "ingress-https",
      "0.0.0.0:8443, TLS, HTTP connection manager, RDS",
      ["ingress-routes"],
      12,
    ],
    [
      "ROUTE_CONFIGURATION",
      "ingress-routes",
      "2 virtual hosts, 7 routes",
      ["auth", "checkout", "payments", "outbound|8080||reviews.default.svc.cluster.local"],
      0.2,
    ],
    ["NODE_GROUP", "edge", "node.cluster = edge", ["ingress-http", "ingress-https"], 60 * 3],
  ].map(([kind, name, description, references, age]) => ({
    kind: `RESOURCE_KIND_${kind}`,
    name,
    description,
    references,
    updateTime: minutesAgo(age as number),
  })),
};

/** A ListResources answer: binary protobuf, as the console's transport asks for. */
const listed = (route: Route, body: object) =>
  route.fulfill({
    status: 200,
    contentType: "application/proto",
    body: Buffer.from(
      toBinary(
        ConfigService.method.listResources.output,
        fromJson(ConfigService.method.listResources.output, body as JsonValue),
      ),
    ),
  });

/** A Connect error: JSON whatever the request's format (the Connect protocol's error body). */
const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });

interface State {
  name: string;
  colorScheme?: "light" | "dark";
  /** undefined: leave the API call alone. */
  api?: (route: Route) => Promise<void>;
  /** Wait for an element matching this CSS selector before the screenshot. */
  waitFor: string;
  /** Drives the page into the state once `waitFor` matched; then waits for `waitForAfter`. */
  act?: (page: Page) => Promise<void>;
  waitForAfter?: string;
  /** The page is expected to log failed network requests in this state. */
  failsRequests?: boolean;
}

/** Whichever way the call went: an error, nothing stored, or the tables. */
const settled = "#inventory-error-title, #inventory-empty-title, #clusters";

const states: State[] = [
  { name: "live", waitFor: settled, failsRequests: true },
  { name: "loading", api: () => new Promise(() => {}), waitFor: "[aria-busy=true]" },
  { name: "loaded", api: (r) => listed(r, fleet), waitFor: "#clusters" },
  {
    name: "loaded-dark",
    colorScheme: "dark",
    api: (r) => listed(r, fleet),
    waitFor: "#clusters",
  },
  { name: "empty", api: (r) => listed(r, {}), waitFor: "#inventory-empty-title" },
  {
    // Loaded once, then a refresh fails: the tables stay, under a banner.
    name: "stale",
    api: (() => {
      let calls = 0;
      return (r: Route) => (calls++ === 0 ? listed(r, fleet) : r.abort("connectionrefused"));
    })(),
    waitFor: "#clusters",
    act: (page) => page.getByRole("button", { name: "Refresh" }).click(),
    waitForAfter: "text=Couldn’t refresh",
    failsRequests: true,
  },
  {
    name: "unreachable",
    api: (r) => r.abort("connectionrefused"),
    waitFor: "#inventory-error-title",
    failsRequests: true,
  },
  {
    name: "server-error",
    api: (r) =>
      json(r, 500, {
        code: "internal",
        message: "database unavailable: connect ECONNREFUSED 127.0.0.1:5432",
      }),
    waitFor: "#inventory-error-title",
    failsRequests: true,
  },
];

// launch() always starts Chromium on a fresh, temporary profile (it refuses --user-data-dir).
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

let unexpected = 0;
try {
  for (const state of states) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      colorScheme: state.colorScheme ?? "light",
    });
    const page = await context.newPage();
    const messages: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") messages.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => messages.push(`pageerror: ${e.message}`));
    if (state.api) await page.route(rpc, state.api);

    await page.goto(baseUrl, { waitUntil: "networkidle" }).catch(() => {});
    await page.locator(state.waitFor).first().waitFor({ timeout: 15_000 });
    if (state.act) {
      await state.act(page);
      await page
        .locator(state.waitForAfter ?? state.waitFor)
        .first()
        .waitFor({ timeout: 15_000 });
    }
    await page.waitForTimeout(300);
    const file = join(
      outDir,
      state.name === "live" ? "web-home.png" : `web-home-${state.name}.png`,
    );
    await page.screenshot({ path: file, fullPage: true });

    const bad = messages.filter(
      (m) => !(state.failsRequests && m.startsWith("error: Failed to load resource")),
    );
    unexpected += bad.length;
    console.log(`${state.name.padEnd(13)} ${file}`);
    for (const m of messages) console.log(`  ${bad.includes(m) ? "UNEXPECTED" : "expected"} ${m}`);
    await context.close();
  }
} finally {
  await browser.close();
}
if (unexpected > 0) {
  console.error(`${unexpected} unexpected console message(s)`);
  process.exitCode = 1;
}
