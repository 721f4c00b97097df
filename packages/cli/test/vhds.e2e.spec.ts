/**
 * On-demand virtual hosts (VHDS) end to end: a route configuration's `vhds` set through
 * ConfigService and through the CLI's apply form (Envoy YAML with `vhds` and `virtual_hosts`),
 * validated, published, and served to a Delta ADS client that asks by host.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Code } from "@connectrpc/connect";
import {
  ResourceKind,
  type RouteConfiguration,
  ValidationErrorsSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { NodeTypeStatus } from "@switchyard/proto/switchyard/v1/status_pb";
import {
  bearer,
  edsCluster,
  type Harness,
  portListener,
  refusal,
  routeConfiguration,
  startHarness,
  statusClient,
  typeStatusOf,
  until,
  virtualHost,
} from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { createTestClient, type TestClient } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "./run-cli.js";

const VHDS = TypeUrl.VirtualHost;

function routes(name: string, vhds: boolean, host = "shop"): RouteConfiguration {
  const domains = ["shop.example.com", "*.shop.example.com"];
  return routeConfiguration(name, [virtualHost(host, domains, "shop")], { vhds });
}

describe("on-demand virtual hosts through the API, the CLI and VHDS", () => {
  let harness: Harness;
  let xds: TestClient;
  const work = mkdtempSync(path.join(os.tmpdir(), "switchyard-vhds-"));

  const cli = async (...args: string[]) => runCli(harness.baseUrl, await harness.token(), ...args);

  beforeAll(async () => {
    harness = await startHarness();
    xds = createTestClient(`http://127.0.0.1:${harness.app.xdsPort}`);
  });

  afterAll(async () => {
    xds?.close();
    await harness?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("stores a route configuration's vhds through ConfigService and reads it back", async () => {
    const api = harness.api();
    await api.createCluster(edsCluster("shop", "10.0.0.1:8080", { connectTimeoutMs: 1000 }));
    await api.createRouteConfiguration(routes("edge-routes", true));
    await api.createListener(portListener("edge", 8080, "edge-routes", { statPrefix: "edge" }));
    const read = await api.getRouteConfiguration({ name: "edge-routes" });
    expect(read.vhds).toBe(true);
    expect(read.virtualHosts.map((v) => v.name)).toEqual(["shop"]);
    const { resources } = await api.listResources({ kind: ResourceKind.ROUTE_CONFIGURATION });
    expect(resources.map((r) => [r.name, r.description])).toEqual([
      ["edge-routes", "1 on-demand virtual host, 1 route"],
    ]);
  });

  it('refuses a VHDS virtual host whose name holds "/" with InvalidArgument, at its name', async () => {
    const error = await refusal(
      harness.api().createRouteConfiguration(routes("bad-routes", true, "shop/eu")),
    );
    expect(error.code).toBe(Code.InvalidArgument);
    const [details] = error.findDetails(ValidationErrorsSchema);
    expect(details?.issues.map((i) => [i.code, i.path])).toEqual([
      ["vhds-virtual-host-name", 'routeConfigurations["bad-routes"].virtualHosts["shop/eu"].name'],
    ]);
  });

  it("once published, a Delta ADS client asking for a host gets the virtual host serving it, aliased by the host", async () => {
    await harness.api().publish({ message: "edge on demand" });
    const stream = xds.openDelta("ads", { node: { id: "vhds-e2e", cluster: "edge" } });
    stream.request(VHDS, ["edge-routes/cart.shop.example.com"]);
    const response = await stream.next(5000);
    expect(response.resources.map((r) => [r.name, [...r.aliases], r.resource?.typeUrl])).toEqual([
      ["edge-routes/shop", ["edge-routes/cart.shop.example.com"], VHDS],
    ]);
    stream.ack(response);

    // Node status: the node holds the virtual host it asked for, and is in sync for VHDS (it holds
    // what it asked for, not every virtual host of its group). The CLI names the type VHDS.
    const status = statusClient(harness.baseUrl, [bearer(await harness.token())]);
    const summary = await until(
      async () => (await status.listNodes({})).nodes.find((n) => n.id === "vhds-e2e"),
      (n) => typeStatusOf(n, VHDS) === NodeTypeStatus.SYNCED,
      "the node never showed SYNCED for VHDS",
    );
    expect(summary?.connected).toBe(true);
    const detail = await status.getNode({ id: "vhds-e2e" });
    const held = detail.held.find((h) => h.typeUrl === VHDS);
    expect(Object.keys(held?.resources ?? {})).toEqual(["edge-routes/shop"]);
    const shown = await cli("node", "vhds-e2e");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/VHDS \(1\)\n\s+edge-routes\/shop/);

    // Turned off: the virtual host goes (it is now inline in the route configuration).
    const api = harness.api();
    const current = await api.getRouteConfiguration({ name: "edge-routes" });
    await api.updateRouteConfiguration({ ...current, vhds: false });
    await api.publish({ message: "edge inline" });
    const removal = await stream.next(5000);
    expect(removal.removedResources).toEqual(["edge-routes/shop"]);
    stream.ack(removal);
    stream.close();
  });

  it("the CLI applies Envoy YAML with vhds and virtual_hosts, and get route -o yaml shows both", async () => {
    const file = path.join(work, "routes.yaml");
    writeFileSync(
      file,
      `- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: edge-routes
  vhds: { config_source: { ads: {}, resource_api_version: V3 } }
  virtual_hosts:
    - name: shop
      domains: [shop.example.com]
      routes: [{ match: { prefix: / }, route: { cluster: shop } }]
`,
    );
    const applied = await cli("apply", "-f", file, "--draft");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect((await harness.api().getRouteConfiguration({ name: "edge-routes" })).vhds).toBe(true);

    const shown = await cli("get", "route", "edge-routes", "-o", "yaml");
    expect(shown.code).toBe(0);
    const form = parseYaml(shown.stdout) as Record<string, unknown>;
    // Envoy's field names, as its docs and config_dump write them.
    expect(form.vhds).toEqual({ config_source: { ads: {}, resource_api_version: "V3" } });
    expect((form.virtual_hosts as { name: string }[]).map((v) => v.name)).toEqual(["shop"]);
  });
});
