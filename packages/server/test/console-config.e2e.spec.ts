import { RouteActionKind, RouteMatchKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { artifactPath, type TestBrowser } from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/*
 * The configuration pages of the console, driven in real Chromium the way a user edits the draft:
 * clusters, route configurations and listeners created, edited and deleted through the forms, and
 * checked through the API. The tests run in order and build on each other's objects.
 */
describe("editing configuration in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  const expectedRefusals = [
    "/switchyard.v1.ConfigService/CreateCluster",
    "/switchyard.v1.ConfigService/CreateNodeGroup",
  ];

  beforeAll(async () => {
    // The browser logs every HTTP error response; the refusals this file provokes on purpose
    // (a Connect InvalidArgument is HTTP 400) are expected, anything else is a problem.
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      ignore: (text, from) =>
        text.includes("status of 400") && expectedRefusals.some((path) => from.endsWith(path)),
    }));
    await harness.api().createCluster({
      name: "legacy-backend",
      localities: [{ weight: 1, endpoints: [{ address: "10.9.9.9", port: 80 }] }],
    });
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  const submit = (name: string) => page.getByRole("button", { name, exact: true }).click();
  const toast = (text: string) => page.getByText(text).first().waitFor({ timeout: 10_000 });
  const locality = (n: number) => page.getByRole("group", { name: `Locality ${n}` });
  const route = (n: number) => page.getByRole("group", { name: `Route ${n}`, exact: true });

  it("shows the server's refusal of a cluster at the field it concerns, and saves the cluster once fixed", async () => {
    await page.goto(`${harness.baseUrl}/clusters`);
    await page.getByRole("link", { name: "legacy-backend" }).waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: "New cluster" }).click();
    await page.getByLabel("Name", { exact: true }).fill("payments-backend");
    await page.getByLabel("HTTP/2 to upstream").check();
    await locality(1).getByLabel("Endpoint 1 address").fill("10.0.0.1");
    await locality(1).getByLabel("Endpoint 1 port").fill("50051");
    await locality(1).getByRole("button", { name: "Add endpoint" }).click();
    // An EDS cluster takes IP addresses only: the server refuses a host name (endpoint-not-ip).
    await locality(1).getByLabel("Endpoint 2 address").fill("backend.internal");
    await locality(1).getByLabel("Endpoint 2 port").fill("50052");
    await submit("Create cluster");

    const address = locality(1).getByLabel("Endpoint 2 address");
    await page.getByText("The server refused this cluster").waitFor({ timeout: 10_000 });
    expect(await address.getAttribute("aria-invalid")).toBe("true");
    const errorId = await address.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toContain(
      "takes IP addresses only",
    );
    await page.screenshot({ path: artifactPath("console-cluster-validation.png"), fullPage: true });

    await address.fill("10.0.0.2");
    await submit("Create cluster");
    await toast("Cluster “payments-backend” saved to the draft");
    await page.waitForURL("**/clusters/payments-backend");
    await page.screenshot({ path: artifactPath("console-cluster-edit.png"), fullPage: true });

    const stored = await harness.api().getCluster({ name: "payments-backend" });
    expect(stored.http2).toBe(true);
    expect(stored.localities[0]?.endpoints.map((e) => `${e.address}:${e.port}`)).toEqual([
      "10.0.0.1:50051",
      "10.0.0.2:50052",
    ]);
  }, 90_000);

  it("a second cluster created from the form appears in the searchable list", async () => {
    await page.goto(`${harness.baseUrl}/clusters/new`);
    await page.getByLabel("Name", { exact: true }).fill("payments-canary");
    await locality(1).getByLabel("Endpoint 1 address").fill("10.0.1.1");
    await locality(1).getByLabel("Endpoint 1 port").fill("50051");
    await submit("Create cluster");
    await page.waitForURL("**/clusters/payments-canary");

    await page.getByRole("link", { name: "Clusters", exact: true }).first().click();
    await page.getByRole("link", { name: "payments-canary" }).waitFor();
    await page.getByLabel("Search clusters").fill("10.0.0.2");
    await page.getByRole("link", { name: "payments-canary" }).waitFor({ state: "detached" });
    expect(await page.getByRole("link", { name: "payments-backend" }).isVisible()).toBe(true);
    await page.getByLabel("Search clusters").fill("");
    await page.screenshot({ path: artifactPath("console-clusters.png"), fullPage: true });
  }, 60_000);

  it("a route configuration with a weighted split shows each cluster's share and is stored as entered", async () => {
    await page.goto(`${harness.baseUrl}/routes`);
    await page.getByText("No route configurations yet").waitFor({ timeout: 15_000 });
    await page.screenshot({ path: artifactPath("console-routes-empty.png"), fullPage: true });
    await page.getByRole("link", { name: "Create a route configuration" }).click();
    await page.getByLabel("Name", { exact: true }).fill("payments-routes");
    await page.getByLabel("Domains").fill("payments.example.com, *");
    await route(1).getByLabel("Action", { exact: true }).selectOption("WEIGHTED_CLUSTERS");
    await route(1).getByRole("button", { name: "Add cluster to split" }).click();
    await route(1).getByRole("button", { name: "Add cluster to split" }).click();
    await route(1).getByLabel("Split 1 cluster").fill("payments-backend");
    await route(1).getByLabel("Split 1 weight").fill("90");
    await route(1).getByLabel("Split 2 cluster").fill("payments-canary");
    await route(1).getByLabel("Split 2 weight").fill("10");
    await route(1)
      .getByRole("img", { name: "Traffic split: payments-backend 90%, payments-canary 10%" })
      .waitFor();
    await route(1).getByLabel("Timeout (ms)", { exact: true }).fill("2500");
    await submit("Create route configuration");
    await toast("Route configuration “payments-routes” saved to the draft");
    await page.waitForURL("**/routes/payments-routes");

    const stored = await harness.api().getRouteConfiguration({ name: "payments-routes" });
    const [host] = stored.virtualHosts;
    expect(host?.domains).toEqual(["payments.example.com", "*"]);
    expect(host?.routes[0]?.actionKind).toBe(RouteActionKind.WEIGHTED_CLUSTERS);
    expect(host?.routes[0]?.weightedClusters.map((w) => `${w.name}=${w.weight}`)).toEqual([
      "payments-backend=90",
      "payments-canary=10",
    ]);
    expect(host?.routes[0]?.timeoutMs).toBe(2500);
  }, 60_000);

  it("routes are reordered with the keyboard and saved in their new order", async () => {
    await page.getByRole("button", { name: "Add route" }).click();
    await route(2).getByLabel("Path", { exact: true }).fill("/admin");
    await route(2).getByLabel("Cluster", { exact: true }).fill("payments-backend");
    await route(2).getByRole("button", { name: "Move route 2 up" }).focus();
    await page.keyboard.press("Enter");
    expect(await route(1).getByLabel("Path", { exact: true }).inputValue()).toBe("/admin");
    await page.screenshot({ path: artifactPath("console-route-edit.png"), fullPage: true });
    await submit("Save to draft");
    await toast("saved to the draft");
    await page.getByText("All changes saved to the draft").waitFor();

    const stored = await harness.api().getRouteConfiguration({ name: "payments-routes" });
    expect(stored.virtualHosts[0]?.routes.map((r) => r.matchValue)).toEqual(["/admin", "/"]);
    expect(stored.virtualHosts[0]?.routes[0]?.cluster).toBe("payments-backend");
  }, 60_000);

  it("a gRPC api listener is created for a route configuration and links to it", async () => {
    await page.goto(`${harness.baseUrl}/listeners/new`);
    await page.getByLabel("Name", { exact: true }).fill("payments");
    expect(await page.getByLabel("Listener type").inputValue()).toBe("api");
    await page.getByLabel("Route configuration", { exact: true }).fill("payments-routes");
    await page.getByRole("link", { name: "Open “payments-routes” →" }).waitFor();
    await submit("Create listener");
    await toast("Listener “payments” saved to the draft");
    await page.waitForURL("**/listeners/payments");
    await page.screenshot({ path: artifactPath("console-listener-edit.png"), fullPage: true });

    const stored = await harness.api().getListener({ name: "payments" });
    expect(stored.apiListener).toBe(true);
    expect(stored.address).toBeUndefined();
    expect(stored.filterChains.map((c) => c.rdsRouteConfigName)).toEqual(["payments-routes"]);

    await page.goto(`${harness.baseUrl}/listeners`);
    await page.getByRole("link", { name: "payments-routes" }).click();
    await page.waitForURL("**/routes/payments-routes");
    await page.goto(`${harness.baseUrl}/listeners`);
    await page.getByRole("link", { name: "payments", exact: true }).waitFor();
    await page.screenshot({ path: artifactPath("console-listeners.png"), fullPage: true });
    await page.goto(`${harness.baseUrl}/routes`);
    await page.getByRole("link", { name: "payments-routes" }).waitFor();
    await page.screenshot({ path: artifactPath("console-routes.png"), fullPage: true });
  }, 60_000);

  it("leaving a form with unsaved edits asks first, and saving over someone else's change is a conflict", async () => {
    await page.goto(`${harness.baseUrl}/clusters/payments-backend`);
    const timeout = page.getByLabel("Connect timeout (ms)");
    await timeout.fill("750");
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Listeners" })
      .click();
    await page.getByRole("dialog", { name: "Discard unsaved changes?" }).waitFor();
    await page.getByRole("button", { name: "Keep editing" }).click();
    expect(page.url()).toContain("/clusters/payments-backend");

    // Someone else saves the cluster meanwhile, through the API.
    const theirs = await harness.api().getCluster({ name: "payments-backend" });
    theirs.connectTimeoutMs = 9000;
    await harness.api("someone-else").updateCluster(theirs);
    await submit("Save to draft");
    await page.getByRole("dialog", { name: "Changed by someone else" }).waitFor();
    await page.screenshot({ path: artifactPath("console-cluster-conflict.png"), fullPage: true });
    await page.getByRole("button", { name: "Overwrite their change" }).click();
    await page.getByText("All changes saved to the draft").waitFor();
    expect((await harness.api().getCluster({ name: "payments-backend" })).connectTimeoutMs).toBe(
      750,
    );
  }, 60_000);

  it("a cluster deleted from the list is gone from the draft; a cancelled Delete deletes nothing and gives focus back", async () => {
    await page.goto(`${harness.baseUrl}/clusters`);
    // The rows share one dialog: cancelled on one row, it asks about the next row clicked.
    const canary = page.getByRole("button", { name: "Delete cluster payments-canary" });
    await canary.click();
    await page.getByRole("dialog", { name: "Delete cluster “payments-canary”?" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "hidden" });
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe(
      "Delete cluster payments-canary",
    );
    await page.getByRole("button", { name: "Delete cluster legacy-backend" }).click();
    await page.getByRole("dialog", { name: "Delete cluster “legacy-backend”?" }).waitFor();
    await page.getByRole("button", { name: "Delete cluster", exact: true }).click();
    await toast("Cluster “legacy-backend” deleted from the draft");
    await page.getByRole("link", { name: "legacy-backend" }).waitFor({ state: "detached" });
    const { clusters } = await harness.api().listClusters({});
    expect(clusters.map((c) => c.name).sort()).toEqual(["payments-backend", "payments-canary"]);
  }, 60_000);

  it("a long list shows 50 rows a page: a cluster on page 2 is reached with the page controls and by search", async () => {
    const api = harness.api();
    for (let i = 0; i < 60; i++)
      await api.createCluster({
        name: `bulk-${String(i).padStart(2, "0")}`,
        localities: [{ weight: 1, endpoints: [{ address: "10.1.0.1", port: 8000 + i }] }],
      });
    await page.goto(`${harness.baseUrl}/clusters`);
    const pages = page.getByRole("navigation", { name: "Clusters, pages" });
    await pages.getByText("Rows 1–50 of 62").waitFor({ timeout: 15_000 });
    const onPage2 = page.getByRole("link", { name: "payments-canary", exact: true });
    expect(await onPage2.count()).toBe(0);
    // By keyboard: the page buttons are ordinary buttons.
    await pages.getByRole("button", { name: "Next page" }).focus();
    await page.keyboard.press("Enter");
    await onPage2.waitFor();
    await pages.getByText("Page 2 of 2").waitFor();
    await pages.getByRole("button", { name: "First page" }).click();
    await onPage2.waitFor({ state: "detached" });
    // Search covers every row, whatever the page.
    await page.getByLabel("Search clusters").fill("canary");
    await onPage2.waitFor();
    expect(await pages.count()).toBe(0);
  }, 60_000);

  it("a route configuration of many routes opens as compact rows; a route's editor opens on demand and its edit is saved", async () => {
    await harness.api().createRouteConfiguration({
      name: "many-routes",
      virtualHosts: [
        {
          name: "many",
          domains: ["many.example.com"],
          routes: Array.from({ length: 30 }, (_, i) => ({
            matchKind: RouteMatchKind.PREFIX,
            matchValue: `/r${i + 1}`,
            actionKind: RouteActionKind.CLUSTER,
            cluster: "payments-backend",
          })),
        },
      ],
    });
    await page.goto(`${harness.baseUrl}/routes/many-routes`);
    await route(25).waitFor({ timeout: 15_000 });
    expect(await route(25).innerText()).toContain("/r25");
    expect(await route(25).getByLabel("Path", { exact: true }).count()).toBe(0);
    await route(25).getByRole("button", { name: "Edit route 25" }).click();
    await route(25).getByLabel("Path", { exact: true }).fill("/renamed");
    await route(25).getByRole("button", { name: "Move route 25 up" }).click();
    // The open editor follows its route to its new place.
    expect(await route(24).getByLabel("Path", { exact: true }).inputValue()).toBe("/renamed");
    await submit("Save to draft");
    await toast("saved to the draft");
    const stored = await harness.api().getRouteConfiguration({ name: "many-routes" });
    expect(stored.virtualHosts[0]?.routes.map((r) => r.matchValue).slice(22, 26)).toEqual([
      "/r23",
      "/renamed",
      "/r24",
      "/r26",
    ]);
  }, 60_000);

  it("a node group whose clients accept larger messages is saved with its max response bytes; one no gRPC client takes is refused at that field", async () => {
    await page.goto(`${harness.baseUrl}/node-groups/new`);
    await page.getByLabel("Name", { exact: true }).fill("big-clients");
    await page.getByLabel("Node clusters").fill("big");
    const limit = page.getByLabel("Max response bytes");
    await limit.fill("1000");
    await submit("Create node group");
    await page.getByText("The server refused this node group").waitFor({ timeout: 10_000 });
    expect(await limit.getAttribute("aria-invalid")).toBe("true");
    const errorId = await limit.getAttribute("aria-describedby");
    expect(await page.locator(`[id="${errorId}"]`).innerText()).toContain("16384 (16 KiB)");

    await limit.fill("8388608");
    await submit("Create node group");
    await page.waitForURL("**/node-groups/big-clients");
    expect((await harness.api().getNodeGroup({ name: "big-clients" })).maxResponseBytes).toBe(
      8388608,
    );
    // Emptied: the server's limit again.
    await page.getByLabel("Max response bytes").fill("");
    // Enter submits the form (the earlier tests' toasts may cover the button).
    await page.getByLabel("Max response bytes").press("Enter");
    await toast("All changes saved to the draft");
    expect(
      (await harness.api().getNodeGroup({ name: "big-clients" })).maxResponseBytes,
    ).toBeUndefined();
  }, 60_000);

  it("no page logged an error or warning in the browser console", () => {
    expect(problems).toEqual([]);
  });
});
