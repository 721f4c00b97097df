import { artifactPath, openWatchedPage, type TestBrowser } from "@switchyard/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;
type Locator = ReturnType<Page["locator"]>;

/** What a page's script sees of the page, for checks run in it (this package has no DOM types). */
interface PageGlobals {
  readonly document: { elementFromPoint(x: number, y: number): unknown };
}

/**
 * Whether the user can see `target` (and not something drawn over it): it is inside the viewport,
 * and the element at its centre is it or inside it (a sticky bar over it would be hit instead).
 */
async function seenUncovered(page: Page, target: Locator): Promise<string | true> {
  const box = await target.boundingBox();
  if (box === null) return "not rendered";
  const viewport = page.viewportSize();
  if (viewport === null) return "no viewport";
  if (box.y < 0 || box.y + box.height > viewport.height)
    return `outside the viewport: y ${box.y}..${box.y + box.height} of ${viewport.height}`;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const hit = await target.evaluate(
    (element, [px, py]) => {
      const at = (globalThis as unknown as PageGlobals).document.elementFromPoint(
        px as number,
        py as number,
      ) as { contains(other: unknown): boolean; outerHTML: string } | null;
      return at !== null && (element as unknown as { contains(o: unknown): boolean }).contains(at)
        ? "ok"
        : `covered by ${at?.outerHTML.slice(0, 120) ?? "nothing"}`;
    },
    [x, y],
  );
  return hit === "ok" ? true : hit;
}

const HPO = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
const ENDPOINTS = (name: string) =>
  `{ cluster_name: ${name}, endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: ${name}.internal, port_value: 50051 } } } }] }] }`;

/**
 * Objects written in Envoy's other ways: HTTP/2 by the deprecated field and by auto_config, TLS
 * from certificate files, a tcp_proxy with fields the form does not edit.
 */
const WRITTEN_OTHERWISE = `
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: grpc-old
  type: STRICT_DNS
  connect_timeout: 1s
  http2_protocol_options: {}
  load_assignment: ${ENDPOINTS("grpc-old")}
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: grpc-auto
  type: STRICT_DNS
  connect_timeout: 1s
  typed_extension_protocol_options:
    ${HPO}:
      "@type": type.googleapis.com/${HPO}
      auto_config: {}
  load_assignment: ${ENDPOINTS("grpc-auto")}
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: files-tls
  address: { socket_address: { address: 0.0.0.0, port_value: 8443 } }
  filter_chains:
  - transport_socket:
      name: envoy.transport_sockets.tls
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext
        common_tls_context:
          tls_certificates:
          - certificate_chain: { filename: /etc/envoy/cert.pem }
            private_key: { filename: /etc/envoy/key.pem }
    filters:
    - name: envoy.filters.network.tcp_proxy
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
        stat_prefix: files
        cluster: grpc-old
        max_connect_attempts: 3
`;

/*
 * A new user's trips in the console (issue 46), in real Chromium: what a form does when a save
 * fails, the login page, the sidebar on a laptop screen.
 */
describe("a new user's trips in the console (issue 46)", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    ({ harness, chromium, page, problems } = await startConsoleWorld());
    await harness.api().import({ content: WRITTEN_OTHERWISE, filename: "otherwise.yaml" });
  });

  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  it("a failed save shows the first invalid field's error in view, above the sticky Save bar, with a summary by the Save bar", async () => {
    await page.setViewportSize({ width: 1024, height: 560 });
    await page.goto(`${harness.baseUrl}/listeners/new`);
    await page.getByLabel("Name", { exact: true }).fill("edge");
    await page.getByLabel("Listener type").selectOption("socket");
    await page.getByLabel("Address", { exact: true }).fill("0.0.0.0");
    const port = page.getByLabel("Port", { exact: true });
    await port.fill("70000");
    await page.getByLabel("Route configuration", { exact: true }).fill("edge-routes");
    // The user is at the bottom of the form, by the Save bar, when they save.
    await page.getByLabel("Access log (JSON)").scrollIntoViewIfNeeded();
    await page.getByRole("button", { name: "Create listener", exact: true }).click();

    await expect.poll(() => port.getAttribute("aria-invalid")).toBe("true");
    const error = page.locator(`[id="${await port.getAttribute("aria-describedby")}"]`);
    expect(await error.innerText()).toContain("65535");
    await expect.poll(() => seenUncovered(page, error)).toBe(true);
    await expect.poll(() => seenUncovered(page, port)).toBe(true);
    const summary = page.getByRole("alert").filter({ hasText: "Not saved" });
    expect(await summary.innerText()).toContain("65535");
    expect(await seenUncovered(page, summary)).toBe(true);
    await page.screenshot({ path: artifactPath("console-form-error-in-view.png") });
    const { listeners } = await harness.api().listListeners({});
    expect(listeners.map((l) => l.name)).not.toContain("edge");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("the login page, signed out, has no sidebar, no API status badge, and calls no API that needs a session", async () => {
    const signedOut = await openWatchedPage(chromium);
    const refused: string[] = [];
    signedOut.page.on("response", (response) => {
      if (response.status() === 401) refused.push(response.url());
    });
    await signedOut.page.goto(`${harness.baseUrl}/login`);
    await signedOut.page.getByRole("heading", { name: "Sign in to Switchyard" }).waitFor();
    await signedOut.page.waitForLoadState("networkidle");
    expect(await signedOut.page.getByRole("navigation", { name: "Main" }).count()).toBe(0);
    expect(await signedOut.page.getByText("Connecting").count()).toBe(0);
    expect(await signedOut.page.getByRole("status").count()).toBe(0);
    await signedOut.page.screenshot({ path: artifactPath("console-login.png") });
    expect(refused).toEqual([]);
    expect(signedOut.problems).toEqual([]);
    await signedOut.page.close();
  });

  for (const viewport of [
    { width: 1280, height: 720 },
    { width: 1024, height: 480 },
  ]) {
    it(`the sidebar at ${viewport.width}×${viewport.height} shows the page's own item on load, and scrolls to its last item, which can be clicked`, async () => {
      await page.setViewportSize(viewport);
      const nav = page.getByRole("navigation", { name: "Main" });
      // A page opened directly (a link, a reload) whose item is far down the list: it is shown.
      await page.goto(`${harness.baseUrl}/history`);
      const history = nav.getByRole("link", { name: "History" });
      await nav.getByRole("link", { name: "Audit log" }).waitFor({ state: "attached" });
      expect(await history.getAttribute("aria-current")).toBe("page");
      await expect.poll(() => seenUncovered(page, history)).toBe(true);
      await page.screenshot({ path: artifactPath(`console-sidebar-${viewport.height}.png`) });

      // From the top of the list, the wheel over the sidebar reaches its last item.
      await page.goto(`${harness.baseUrl}/`);
      const last = nav.getByRole("link", { name: "Audit log" });
      await last.waitFor({ state: "attached" });
      expect(await nav.getByRole("link").last().innerText()).toContain("Audit log");
      const box = await nav.boundingBox();
      await page.mouse.move((box?.x ?? 0) + 40, (box?.y ?? 0) + 120);
      await page.mouse.wheel(0, 2000);
      await expect.poll(() => seenUncovered(page, last)).toBe(true);
      await last.click();
      await page.waitForURL("**/audit");
      await page.setViewportSize({ width: 1280, height: 900 });
    });
  }

  it("the cluster form shows HTTP/2 to upstream checked however Envoy's fields say it, and where it is set", async () => {
    for (const [name, source] of [
      ["grpc-old", "http2_protocol_options"],
      ["grpc-auto", "auto_config"],
    ]) {
      await page.goto(`${harness.baseUrl}/clusters/${name}`);
      const http2 = page.getByLabel("HTTP/2 to upstream");
      await http2.waitFor({ timeout: 15_000 });
      expect(await http2.isChecked()).toBe(true);
      const hint = page.locator(`[id="${await http2.getAttribute("aria-describedby")}"]`);
      expect(await hint.innerText()).toContain(source);
    }
    await page.getByRole("link", { name: "Clusters", exact: true }).first().click();
    const row = page.getByRole("row").filter({ hasText: "grpc-old" });
    expect(await row.innerText()).toContain("HTTP/2");
  });

  it("a listener with file certificates says TLS is on and from which file, and a save of another field keeps them", async () => {
    await page.goto(`${harness.baseUrl}/listeners/files-tls`);
    const secret = page.getByLabel("TLS secret");
    await secret.waitFor({ timeout: 15_000 });
    const hint = page.locator(`[id="${await secret.getAttribute("aria-describedby")}"]`);
    expect(await hint.innerText()).toContain(
      "TLS is on: certificate from file /etc/envoy/cert.pem",
    );
    expect(await hint.innerText()).not.toContain("plaintext");
    await page.screenshot({ path: artifactPath("console-listener-file-tls.png"), fullPage: true });

    // The tcp_proxy's own form: connections split across two clusters, an idle timeout.
    expect(await page.getByLabel("Chain", { exact: true }).inputValue()).toBe("tcp");
    const tcp = page.getByRole("group", { name: "TCP proxy" });
    expect(await tcp.getByLabel("Cluster", { exact: true }).inputValue()).toBe("grpc-old");
    expect(await tcp.getByLabel("TCP stat prefix").inputValue()).toBe("files");
    await tcp.getByLabel("Connections go to").selectOption("weighted");
    await tcp.getByRole("button", { name: "Add cluster to the TCP split" }).click();
    await tcp.getByRole("button", { name: "Add cluster to the TCP split" }).click();
    await tcp.getByLabel("TCP split 1 cluster").fill("grpc-old");
    await tcp.getByLabel("TCP split 1 weight").fill("80");
    await tcp.getByLabel("TCP split 2 cluster").fill("grpc-auto");
    await tcp.getByLabel("TCP split 2 weight").fill("20");
    await tcp.getByLabel("Idle timeout (ms)").fill("30000");
    await page.getByRole("button", { name: "Save to draft", exact: true }).click();
    await page.getByText("All changes saved to the draft").waitFor({ timeout: 10_000 });

    const stored = await harness.api().getListener({ name: "files-tls" });
    const chain = stored.filterChains[0];
    expect(chain?.networkFilters.at(-1)?.typedConfig).toMatchObject({
      statPrefix: "files",
      weightedClusters: {
        clusters: [
          { name: "grpc-old", weight: 80 },
          { name: "grpc-auto", weight: 20 },
        ],
      },
      idleTimeout: "30s",
      maxConnectAttempts: 3,
    });
    expect(chain?.networkFilters.at(-1)?.typedConfig).not.toHaveProperty("cluster");
    expect(JSON.stringify(chain?.extra)).toContain("/etc/envoy/cert.pem");
  });
});
