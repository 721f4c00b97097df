import {
  artifactPath,
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { eventually, GRPC_LB_NACK } from "../src/testing/shop.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

const NODE_ID = "flow-client";
const TYPES = ["CDS", "EDS", "LDS", "RDS"] as const;

/*
 * The whole loop of issue 6, by clicking, as a new user would after `npm start`: create a
 * cluster, a route configuration and a listener in the forms; publish them on Changes; watch a
 * real gRPC xDS client turn SYNCED on the Nodes page without a reload; break the cluster for that
 * client, publish, and read its NACK text on its node page; roll back on History and watch it
 * recover. One page, one browser session, one test: each step starts where the one before left
 * the console, as a user's would.
 */
describe("the console's edit → publish → converge loop, by clicking", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let backend: EchoBackend;
  let client: XdsEchoClient | undefined;
  let problems: string[] = [];

  beforeAll(async () => {
    backend = await startEchoBackend("flow-backend");
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    await page.goto(`${harness.baseUrl}/`);
  });

  afterAll(async () => {
    client?.close();
    await chromium?.close();
    await harness?.stop();
    await backend?.stop();
  });

  const nav = (name: string) =>
    page.getByRole("navigation").getByRole("link", { name, exact: true }).click();
  const button = (name: string) => page.getByRole("button", { name, exact: true }).click();
  const saved = (text: string) => page.getByText(text).first().waitFor({ timeout: 15_000 });
  const shot = (name: string) =>
    page.screenshot({ path: artifactPath(`console-flow-${name}.png`), fullPage: true });
  const route = (n: number) => page.getByRole("group", { name: `Route ${n}`, exact: true });

  /** Publishes the draft from Changes with `message`; resolves with the version's number. */
  /** Publishes from Changes; `acceptRejections`: confirm the predicted rejections it asks about. */
  async function publish(message: string, acceptRejections = false): Promise<number> {
    await nav("Changes");
    await page.getByLabel("Message").fill(message);
    await button("Publish");
    if (acceptRejections) {
      const dialog = page.getByRole("dialog", { name: "Clients will reject this version" });
      await dialog.getByRole("button", { name: "Publish anyway" }).click();
    }
    const published = page.getByText(/^Version \d+ published/).first();
    await published.waitFor({ timeout: 15_000 });
    return Number(/Version (\d+)/.exec(await published.innerText())?.[1]);
  }

  it("goes from forms to a served, SYNCED client, shows its NACK of a bad change and recovers it by a rollback, with no error in the browser console", async () => {
    // A cluster, a route configuration and a gRPC listener are created through the forms.
    await nav("Clusters");
    await page.getByRole("link", { name: "New cluster" }).first().click();
    await page.getByLabel("Name", { exact: true }).fill("flow-backend");
    await page.getByLabel("HTTP/2 to upstream").check();
    const locality = page.getByRole("group", { name: "Locality 1" });
    await locality.getByLabel("Endpoint 1 address").fill("127.0.0.1");
    await locality.getByLabel("Endpoint 1 port").fill(String(backend.port));
    await button("Create cluster");
    await saved("Cluster “flow-backend” saved to the draft");

    await nav("Routes");
    await page.getByRole("link", { name: "New route configuration" }).first().click();
    await page.getByLabel("Name", { exact: true }).fill("flow-routes");
    await page.getByLabel("Domains").fill("*");
    await route(1).getByLabel("Cluster", { exact: true }).fill("flow-backend");
    await button("Create route configuration");
    await saved("Route configuration “flow-routes” saved to the draft");

    await nav("Listeners");
    await page.getByRole("link", { name: "New listener" }).first().click();
    await page.getByLabel("Name", { exact: true }).fill("flow");
    await page.getByLabel("Route configuration", { exact: true }).fill("flow-routes");
    await button("Create listener");
    await saved("Listener “flow” saved to the draft");
    await shot("listener");

    // Publishing on Changes shows the three new objects, then serves them: a gRPC client's RPC
    // reaches the backend.
    await nav("Changes");
    for (const name of ["cluster flow-backend", "route configuration flow-routes", "listener flow"])
      await page.getByRole("article", { name }).waitFor({ timeout: 15_000 });
    await shot("changes");
    const version = await publish("First flow service");
    expect(version).toBe(1);

    await nav("Nodes");
    await page
      .getByRole("heading", { name: "No proxy connected yet" })
      .waitFor({ timeout: 15_000 });
    client = createXdsEchoClient("flow", {
      server: `127.0.0.1:${harness.app.xdsPort}`,
      nodeId: NODE_ID,
    });
    expect(await callUntilReady(client)).toBe("flow-backend");

    // The client appears on the open Nodes page and turns SYNCED on every type, without a reload.
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: NODE_ID }) });
    await row.waitFor({ timeout: 15_000 });
    await eventually("every type SYNCED", async () => {
      const chips = (
        await row
          .getByRole("list", { name: "Status by type" })
          .getByRole("listitem")
          .allTextContents()
      ).map((t) => t.replace(/\s+/g, " ").trim());
      return TYPES.every((t) => chips.includes(`${t} SYNCED`));
    });
    await shot("nodes");

    // A cluster change the client rejects, published by clicking, shows the client's NACK text on
    // its node page.
    await nav("Clusters");
    await page.getByRole("link", { name: "flow-backend", exact: true }).first().click();
    await page.getByLabel("Load balancing policy").selectOption("LEAST_REQUEST");
    await button("Save to draft");
    await saved("Cluster “flow-backend” saved to the draft");
    // The gRPC client's rejection is predicted: the console asks before publishing it.
    await publish("Least request for the flow backend", true);

    await nav("Nodes");
    await page.getByRole("link", { name: NODE_ID }).click();
    const nack = page.getByRole("figure", { name: "CDS NACK text" });
    await nack.waitFor({ timeout: 20_000 });
    expect(await nack.innerText()).toMatch(GRPC_LB_NACK);
    await shot("nacked");

    // Rolling back on History, after confirming, brings the node back to SYNCED on its page.
    await nav("History");
    await page.getByRole("link", { name: "v1", exact: true }).click();
    await page.getByRole("heading", { name: /^Version 1/ }).waitFor({ timeout: 15_000 });
    await button("Roll back to this version");
    const dialog = page.getByRole("dialog", { name: "Roll back to version 1?" });
    await dialog.getByRole("button", { name: "Roll back to version 1" }).click();
    await dialog.waitFor({ state: "detached", timeout: 15_000 });

    await nav("Nodes");
    await page.getByRole("link", { name: NODE_ID }).click();
    const types = page.getByRole("table", { name: "Status by xDS type" });
    await eventually("every type SYNCED again", async () => {
      const text = await types.innerText();
      return (text.match(/SYNCED/g) ?? []).length === TYPES.length;
    });
    await page.getByRole("figure", { name: "CDS NACK text" }).waitFor({ state: "detached" });
    await shot("recovered");
    // Still served: the client's RPCs reach the backend.
    expect(await callUntilReady(client as XdsEchoClient)).toBe("flow-backend");

    expect(problems).toEqual([]);
  }, 300_000);
});
