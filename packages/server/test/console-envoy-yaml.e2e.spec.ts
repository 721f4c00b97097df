import { artifactPath, type TestBrowser } from "@switchyard/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startConsoleWorld } from "../src/testing/console-world.js";
import type { Harness } from "../src/testing/harness.js";

type Page = Awaited<ReturnType<TestBrowser["browser"]["newPage"]>>;

/** A TLS passthrough listener: SNI routing to a tcp_proxy, nothing the form models as HTTP. */
const PASSTHROUGH = `
- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: passthrough
  address: { socket_address: { address: 0.0.0.0, port_value: 8443 } }
  listener_filters:
  - name: envoy.filters.listener.tls_inspector
    typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.listener.tls_inspector.v3.TlsInspector }
  filter_chains:
  - filter_chain_match: { server_names: [db.example.com] }
    filters:
    - name: envoy.filters.network.tcp_proxy
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
        stat_prefix: db_passthrough
        cluster: db
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: db
  type: STRICT_DNS
  connect_timeout: 1s
  load_assignment: { cluster_name: db, endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: db.internal, port_value: 5432 } } } }] }] }
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: db-replica
  type: STRICT_DNS
  connect_timeout: 1s
  load_assignment: { cluster_name: db-replica, endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: replica.internal, port_value: 5432 } } } }] }] }
`;

/*
 * A listener Switchyard keeps mostly as Envoy JSON (a tcp_proxy chain), edited as Envoy YAML in
 * real Chromium: a value Envoy's rules refuse is shown with its path, line and rule and saves
 * nothing; a valid edit is saved to the draft; a rename is refused. The tests build on each other.
 */
describe("editing an object as Envoy YAML in the console", () => {
  let harness: Harness;
  let chromium: TestBrowser;
  let page: Page;
  let problems: string[] = [];
  const refusals = "/switchyard.v1.ConfigService/Import";

  beforeAll(async () => {
    // Each refusal this file provokes (a Connect InvalidArgument is HTTP 400) is expected.
    ({ harness, chromium, page, problems } = await startConsoleWorld({
      ignore: (text, from) => text.includes("status of 400") && from.endsWith(refusals),
    }));
    await harness.api().import({ content: PASSTHROUGH, filename: "passthrough.yaml" });
  });

  // No test leaves an error or warning in the browser console: each is charged with its own
  // (taken out, so the next starts clean).
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  afterAll(async () => {
    await chromium?.close();
    await harness?.stop();
  });

  const editor = () => page.getByLabel("Envoy YAML of listener passthrough");
  const click = (name: string) => page.getByRole("button", { name, exact: true }).click();

  it("shows a network-only chain ending in a tcp_proxy as the TCP proxy form: its cluster and stat prefix", async () => {
    await page.goto(`${harness.baseUrl}/listeners/passthrough`);
    const chain = page.getByLabel("Chain", { exact: true });
    await chain.waitFor({ timeout: 15_000 });
    expect(await chain.inputValue()).toBe("tcp");
    const tcp = page.getByRole("group", { name: "TCP proxy" });
    expect(await tcp.getByLabel("Cluster", { exact: true }).inputValue()).toBe("db");
    expect(await tcp.getByLabel("TCP stat prefix").inputValue()).toBe("db_passthrough");
  });

  it("opens the Envoy YAML view with every field, the tcp_proxy's included, under Envoy's field names", async () => {
    await page.getByRole("link", { name: "Envoy YAML", exact: true }).click();
    await page.waitForURL("**/listeners/passthrough?view=yaml");
    await expect.poll(() => editor().inputValue(), { timeout: 15_000 }).toContain("tcp_proxy");
    const text = await editor().inputValue();
    // Envoy's own names (snake_case), as its docs and config_dump write them, not protobuf's JSON names.
    expect(text).toContain("stat_prefix: db_passthrough");
    expect(text).toContain("filter_chains:");
    expect(text).not.toContain("statPrefix");
    expect(text).not.toContain("filterChains");
    expect(text).toContain("envoy.filters.listener.tls_inspector");
  });

  it("refuses a value Envoy's rules forbid, with its path, line and rule, and saves nothing", async () => {
    const text = await editor().inputValue();
    await editor().fill(text.replace("stat_prefix: db_passthrough", 'stat_prefix: ""'));
    await click("Save to draft");
    const alert = page.getByRole("alert").filter({ hasText: "Not saved: nothing changed" });
    await alert.waitFor({ timeout: 10_000 });
    const shown = await alert.innerText();
    expect(shown).toContain("string.min_len = 1");
    expect(shown).toContain("[0].filter_chains[0].filters[0].typed_config.stat_prefix");
    expect(shown).toMatch(/line \d+/);
    await page.screenshot({ path: artifactPath("console-envoy-yaml-refused.png"), fullPage: true });
    const stored = await harness.api().getListener({ name: "passthrough" });
    expect(stored.filterChains[0]?.networkFilters[0]?.typedConfig).toMatchObject({
      statPrefix: "db_passthrough",
    });
  });

  it("saves a valid edit to the draft: the tcp_proxy now sends connections to the replica", async () => {
    const text = await editor().inputValue();
    await editor().fill(
      text
        .replace('stat_prefix: ""', "stat_prefix: db_replica")
        .replace("cluster: db\n", "cluster: db-replica\n"),
    );
    await click("Check");
    await page.getByText("Valid: saving changes the draft.").waitFor({ timeout: 10_000 });
    await click("Save to draft");
    await page.getByText("Listener “passthrough” saved to the draft").first().waitFor({
      timeout: 10_000,
    });
    const stored = await harness.api().getListener({ name: "passthrough" });
    expect(stored.filterChains[0]?.networkFilters[0]?.typedConfig).toMatchObject({
      statPrefix: "db_replica",
      cluster: "db-replica",
    });
  });

  it("refuses a rename: the YAML of one object saves that object only", async () => {
    const text = await editor().inputValue();
    await editor().fill(text.replace("name: passthrough", "name: passthrough-2"));
    await click("Save to draft");
    await page
      .getByRole("alert")
      .filter({ hasText: "an object's name cannot change here" })
      .waitFor({ timeout: 10_000 });
    const listeners = await harness.api().listListeners({});
    expect(listeners.listeners.map((l) => l.name)).toEqual(["passthrough"]);
  });

  it("draws the TCP path on Topology: the listener straight to the cluster its tcp_proxy uses", async () => {
    await page.goto(`${harness.baseUrl}/topology?focus=listener:passthrough`);
    await page.getByRole("link", { name: /Listener\s*passthrough/ }).waitFor({ timeout: 15_000 });
    await page.getByRole("link", { name: /Cluster\s*db-replica/ }).waitFor();
    expect(await page.getByText("tcp_proxy").count()).toBeGreaterThan(0);
    await page.screenshot({ path: artifactPath("console-topology-tcp.png"), fullPage: true });
  });
});
