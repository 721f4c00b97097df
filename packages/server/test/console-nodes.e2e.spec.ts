import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  artifactPath,
  callUntilReady,
  createXdsEchoClient,
  type EchoBackend,
  startEchoBackend,
  type TestBrowser,
  type XdsEchoClient,
} from "@switchyard/testing";
import { createTestClient } from "@switchyard/xds/testing";
import type { Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";
import { eventually, GRPC_LB_NACK, openShop, shopCluster, TYPE } from "../src/testing/shop.js";

/** An id with characters that need encoding in a URL path. */
const NODE_ID = "shop/client 1";
const TYPES = ["CDS", "EDS", "LDS", "RDS"];

/*
 * The fleet pages of the console in real Chromium, fed by the server-streaming Watch calls: a
 * real gRPC xDS client connects, is NACKing a publish, and recovers after a rollback, while the
 * pages stay open (a marker set on `window` proves no reload happened). The cases run in order
 * and share one server and one page.
 */
describe("the console's fleet pages, live in a real browser", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let backend: EchoBackend;
  let client: XdsEchoClient | undefined;
  let page: Page;
  let problems: string[] = [];
  let goodVersion = 0n;

  beforeAll(async () => {
    backend = await startEchoBackend("blue");
    ({ harness, chromium, page, problems } = await startConsoleWorld());
  });

  // No test leaves an error or warning in the browser console: each is charged with its own
  // (taken out, so the next starts clean).
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    client?.close();
    await chromium?.close();
    await harness?.stop();
    await backend?.stop();
  });

  const markPage = () =>
    page.evaluate(() => {
      (globalThis as unknown as { stillTheSamePage: boolean }).stillTheSamePage = true;
    });
  const notReloaded = () =>
    page.evaluate(() => (globalThis as unknown as { stillTheSamePage?: boolean }).stillTheSamePage);

  /** The per-type chips of a node's row; each reads e.g. "CDS SYNCED". */
  const chips = (row: Locator) =>
    row.getByRole("list", { name: "Status by type" }).getByRole("listitem");

  async function chipTexts(row: Locator): Promise<string[]> {
    return (await chips(row).allTextContents()).map((t) => t.replace(/\s+/g, " ").trim());
  }

  /** The verdict column of a held-vs-intended table, one text per resource. */
  /** Each row's verdict (the first line of its last cell; a held-back note may follow). */
  const verdicts = async (table: Locator) =>
    (await table.locator("tbody tr td:last-child").allInnerTexts()).map(
      (text) => text.split("\n")[0] ?? "",
    );

  it("before any publish or proxy, the Overview teaches the next steps: the bootstrap command and the first publish", async () => {
    const overview = await chromium.browser.newPage({ viewport: { width: 1280, height: 900 } });
    overview.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`${overview.url()}: ${message.text()}`);
    });
    // Signed in like the main page: a session of its own, as the console's login gives one.
    const [name = "", value = ""] = (await harness.sessionCookie()).split("=", 2);
    await overview.context().addCookies([{ name, value, url: harness.baseUrl }]);
    await overview.goto(`${harness.baseUrl}/`);
    await overview
      .getByRole("heading", { name: "No proxy connected yet" })
      .waitFor({ timeout: 15_000 });
    await overview.getByText("Nothing published yet").waitFor();
    expect(await overview.getByText("npx switchyard bootstrap --node-id edge-1").count()).toBe(1);
    await overview.screenshot({ path: artifactPath("console-overview-empty.png"), fullPage: true });
    await overview.close();
  }, 30_000);

  it("a proxy appears on the open Nodes page as it connects and turns SYNCED on every type, without a reload", async () => {
    await page.goto(`${harness.baseUrl}/nodes`);
    // The live list arrived, empty: the page teaches how to connect a proxy.
    await page
      .getByRole("heading", { name: "No proxy connected yet" })
      .waitFor({ timeout: 15_000 });
    await page.getByText("Live", { exact: true }).waitFor();
    await markPage();

    client = await openShop(harness, backend, NODE_ID);
    goodVersion = (await harness.api().listSnapshots({ limit: 1 })).snapshots[0]?.version ?? 0n;

    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: NODE_ID }) });
    await row.waitFor({ timeout: 15_000 });
    await eventually("every type SYNCED", async () => {
      const texts = await chipTexts(row);
      return TYPES.every((t) => texts.includes(`${t} SYNCED`));
    });
    const text = await row.innerText();
    expect(text).toContain("Synced");
    expect(text).toContain("ads-sotw");
    expect(text).toContain("gRPC Node");
    expect(await notReloaded()).toBe(true);

    // Filtering by status hides it; "Synced" brings it back.
    await page.getByLabel("Search nodes").fill("no-such-node");
    await page.getByText("No node matches these filters.").waitFor();
    await page.getByLabel("Search nodes").fill("");
    await page.getByRole("checkbox", { name: /NACKed/ }).check({ force: true });
    await page.getByText("No node matches these filters.").waitFor();
    // The filters are in the URL: the same view comes back from a reload (or a shared link).
    await eventually(
      "the status filter in the URL",
      async () => new URL(page.url()).searchParams.get("status") === "nacked",
    );
    await page.reload();
    await page.getByText("No node matches these filters.").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("checkbox", { name: /NACKed/ }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Clear the filters" }).click();
    await row.waitFor();
    await eventually("no filter left in the URL", async () => new URL(page.url()).search === "");
    await page.screenshot({ path: artifactPath("console-nodes.png"), fullPage: true });
  }, 60_000);

  it("a node's open page shows the full NACK text when the proxy rejects a publish, and its recovery after a rollback, without a reload", async () => {
    await page.getByRole("link", { name: NODE_ID }).click();
    await page.waitForURL(`**/nodes/${encodeURIComponent(NODE_ID)}`);
    await page.getByRole("heading", { name: "Status by type" }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(NODE_ID);
    expect(await page.getByText(`--node-id '${NODE_ID}' --grpc`).count()).toBe(1);
    await markPage();

    const api = harness.api();
    await api.updateCluster(shopCluster("blue", backend, { lbPolicy: LbPolicy.LEAST_REQUEST }));
    await api.publish({ message: "blue on LEAST_REQUEST", acceptWarnings: true });

    const nack = page.getByRole("figure", { name: "CDS NACK text" });
    await nack.waitFor({ timeout: 20_000 });
    expect(await nack.innerText()).toMatch(GRPC_LB_NACK);
    await page.getByRole("heading", { name: "The node rejected CDS" }).waitFor();
    // What the NACK rejected, and that only it is held back.
    await page.getByText("rejected blue", { exact: false }).waitFor();
    const heldBack = page.getByRole("table", { name: "Held back" });
    await eventually("blue held back as rejected", async () =>
      /CDS\s+blue\s+rejected by the node/.test(await heldBack.innerText()),
    );
    // Held vs the rejected version: the node still holds the cluster the publish modified at its
    // previous version.
    const heldCds = page.getByRole("table", {
      name: "CDS resources held against the latest version",
    });
    await eventually("the held cluster at a different version", async () =>
      (await verdicts(heldCds)).includes("different version"),
    );
    // At the resource: blue is the one the node rejected.
    await eventually("blue marked as rejected where it is held", async () =>
      /blue[\s\S]*different version\s*rejected by the node/.test(await heldCds.innerText()),
    );
    await page.screenshot({ path: artifactPath("console-node-nacked.png"), fullPage: true });

    await api.rollback({ version: goodVersion, message: "back to ROUND_ROBIN" });
    await nack.waitFor({ state: "detached", timeout: 20_000 });
    const types = page.getByRole("table", { name: "Status by xDS type" });
    await eventually("every type SYNCED again", async () => {
      const text = await types.innerText();
      return (text.match(/SYNCED/g) ?? []).length === TYPES.length;
    });
    // The NACK stays visible as history: in the timeline, and as the type's last NACK.
    await page.getByText("Recovered", { exact: true }).first().waitFor();
    expect(await types.innerText()).toContain("recovered since");
    // Held vs the rollback's version: every resource of every type held at the intended version.
    const rollback = goodVersion + 2n;
    const held = page.getByRole("region", { name: "Held vs latest version" });
    await eventually("held compared with the rollback's version", async () =>
      (await held.innerText()).includes(`version ${rollback}`),
    );
    for (const type of TYPES) {
      const table = page.getByRole("table", {
        name: `${type} resources held against the latest version`,
      });
      await eventually(`every ${type} resource in sync`, async () => {
        const texts = await verdicts(table);
        return texts.length > 0 && texts.every((t) => t === "in sync");
      });
    }
    expect(await notReloaded()).toBe(true);
    await page.screenshot({ path: artifactPath("console-node.png"), fullPage: true });
  }, 60_000);

  it("the Overview counts the nodes by status and shows the last publish converging, and the recent NACK with a link to its node", async () => {
    await page.getByRole("link", { name: "Overview" }).click();
    await page.waitForURL(`${harness.baseUrl}/`);
    const fleet = page.getByRole("region", { name: "Nodes by status" });
    await fleet.waitFor({ timeout: 15_000 });
    const count = (label: string) =>
      fleet
        .locator("div")
        .filter({ has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) })
        .locator("dd");
    await eventually("1 connected and synced", async () => {
      return (
        (await count("Connected").innerText()) === "1" &&
        (await count("Synced").innerText()) === "1"
      );
    });
    expect(await count("NACKed").innerText()).toBe("0");

    const publish = page.getByRole("region", { name: "Last publish" });
    const rollback = goodVersion + 2n;
    await eventually("the rollback converged", async () =>
      (await publish.innerText()).includes(`All 1 node run version ${rollback}`),
    );
    const text = await publish.innerText();
    expect(text).toContain("back to ROUND_ROBIN");
    expect(text).toMatch(/Converged\s+1 of 1/);
    expect(text).toMatch(/p50 to ACK\s+\d/);

    const nacks = page.getByRole("region", { name: "Recent NACKs" });
    expect(await nacks.innerText()).toMatch(GRPC_LB_NACK);
    expect(await nacks.getByRole("link", { name: NODE_ID }).getAttribute("href")).toBe(
      `/nodes/${encodeURIComponent(NODE_ID)}`,
    );
    await page.screenshot({ path: artifactPath("console-overview.png"), fullPage: true });
  }, 60_000);

  it("a node id no replica has seen gets a page that says so and how to connect it", async () => {
    await page.goto(`${harness.baseUrl}/nodes/${encodeURIComponent("nobody/here")}`);
    await page.getByRole("heading", { name: "No node with this id" }).waitFor({ timeout: 15_000 });
    expect(await page.getByText("--node-id nobody/here").count()).toBe(1);
  }, 30_000);

  it("a fleet larger than a page is paged and searched by the server: 50 rows, page 2 by the controls, one node by its id", async () => {
    const fleet = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    try {
      const streams = Array.from({ length: 60 }, (_, i) => {
        const stream = fleet.open("ads", { node: { id: `fleet-${String(i).padStart(2, "0")}` } });
        stream.request(TYPE.CDS, []);
        return stream;
      });
      await Promise.all(streams.map((stream) => stream.next(10_000)));
      await page.goto(`${harness.baseUrl}/nodes`);
      const table = page.getByRole("table", { name: "Nodes" });
      const pages = page.getByRole("navigation", { name: "Nodes, pages" });
      // 60 proxies and the shop client; status reaches the database in batches.
      await pages.getByText("Rows 1–50 of 61").waitFor({ timeout: 15_000 });
      expect(await table.getByRole("row").count()).toBe(51);
      await pages.getByRole("button", { name: "Next page" }).click();
      await pages.getByText("Rows 51–61 of 61").waitFor({ timeout: 15_000 });
      await table.getByRole("link", { name: "fleet-59", exact: true }).waitFor();

      await page.getByLabel("Search nodes").fill("fleet-42");
      await table.getByRole("link", { name: "fleet-42", exact: true }).waitFor({ timeout: 15_000 });
      await page.getByText("1 of 61 nodes", { exact: true }).waitFor({ timeout: 15_000 });
      expect(await table.getByRole("row").count()).toBe(2);
      expect(new URL(page.url()).search).toBe("?q=fleet-42");
    } finally {
      fleet.close();
    }
  }, 60_000);

  it("a federated gRPC client's page lists what it holds by xdstp:// names, each in sync, and its bootstrap command keeps the authority", async () => {
    const server = `127.0.0.1:${harness.app.xdsPort}`;
    const id = "federated-shop";
    // Federated under "switchyard", the default authority of a server started without
    // SWITCHYARD_XDS_AUTHORITY.
    const federated = createXdsEchoClient("shop", {
      server,
      nodeId: id,
      xdstpAuthority: "switchyard",
    });
    try {
      expect(await callUntilReady(federated)).toBe("blue");
      await page.goto(`${harness.baseUrl}/nodes/${id}`);
      await page.getByRole("heading", { name: "Status by type" }).waitFor({ timeout: 15_000 });
      await page
        .getByText("xdstp://switchyard/envoy.config.listener.v3.Listener/shop", { exact: true })
        .waitFor({ timeout: 15_000 });
      for (const type of TYPES) {
        const table = page.getByRole("table", {
          name: `${type} resources held against the latest version`,
        });
        await eventually(`every ${type} resource in sync under its xdstp:// name`, async () => {
          const texts = await verdicts(table);
          return texts.length > 0 && texts.every((t) => t === "in sync");
        });
      }
      expect(
        await page.getByText(`--node-id ${id} --grpc --xdstp-authority switchyard`).count(),
      ).toBe(1);
      await page.screenshot({ path: artifactPath("console-node-xdstp.png"), fullPage: true });
    } finally {
      federated.close();
    }
  }, 60_000);

  it("an unknown node's open page turns into the node's page when a proxy with that id connects, without a reload", async () => {
    await page.goto(`${harness.baseUrl}/nodes/late-comer`);
    await page.getByRole("heading", { name: "No node with this id" }).waitFor({ timeout: 15_000 });
    const fleet = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
    try {
      const stream = fleet.open("ads", { node: { id: "late-comer" } });
      stream.request(TYPE.CDS, []);
      await stream.next(10_000);
      await page.getByRole("heading", { name: "Status by type" }).waitFor({ timeout: 15_000 });
      expect(await page.getByRole("heading", { name: "No node with this id" }).count()).toBe(0);
    } finally {
      fleet.close();
    }
  }, 60_000);
});
