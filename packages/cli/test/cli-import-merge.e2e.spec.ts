/**
 * `switchyard import` merges as the console's Import page does (--on-clash, default rename), and
 * `switchyard apply` / `diff -f` stay declarative but say which stored objects outside the files
 * use what they replace, through the real CLI process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import {
  bearer,
  clusterYaml,
  configClient,
  type Harness,
  routesYaml,
  startHarness,
} from "@switchyard/server/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

/** A listener on `port` loading the route configuration `routes` over RDS. */
const listenerYaml = (
  name: string,
  port: number,
  routes: string,
) => `- "@type": type.googleapis.com/envoy.config.listener.v3.Listener
  name: ${name}
  address: { socket_address: { address: 0.0.0.0, port_value: ${port} } }
  filter_chains:
  - filters:
    - name: envoy.filters.network.http_connection_manager
      typed_config:
        "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
        stat_prefix: ${name}
        rds: { route_config_name: ${routes}, config_source: { ads: {}, resource_api_version: V3 } }
        http_filters:
        - name: envoy.filters.http.router
          typed_config: { "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router }
`;

describe("switchyard import merges; apply and diff -f say what outside the files they change", () => {
  let harness: Harness;
  let token: string;
  let work: string;
  const cli = (...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const file = (name: string, content: string) => {
    const at = path.join(work, name);
    writeFileSync(at, content);
    return at;
  };
  const api = () => configClient(harness.baseUrl, [bearer(token)]);
  const routedTo = async (routes: string) =>
    (await api().getRouteConfiguration({ name: routes })).virtualHosts[0]?.routes[0]?.cluster;

  beforeEach(async () => {
    harness = await startHarness();
    token = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-import-merge-"));
    // The draft: a front listener sending everything to svc-a over route configuration "main".
    file(
      "front.yaml",
      [
        clusterYaml("svc-a", 8080),
        routesYaml("main", "svc-a"),
        listenerYaml("front", 8080, "main"),
      ].join(""),
    );
    expect((await cli("import", path.join(work, "front.yaml"))).code).toBe(0);
  });
  afterEach(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("import stores a clashing object under a free name by default, and the stored listener routes as before", async () => {
    const other = file(
      "other.yaml",
      [
        clusterYaml("svc-b", 8081),
        routesYaml("main", "svc-b"),
        listenerYaml("other", 8081, "main"),
      ].join(""),
    );
    const result = await cli("import", other);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "route configuration main: the draft has another by that name; stored as main-2 (listener front, not in these files, uses it, and keeps the draft's)",
    );
    expect(await routedTo("main")).toBe("svc-a");
    expect(await routedTo("main-2")).toBe("svc-b");
    const { filterChains } = await api().getListener({ name: "other" });
    expect(filterChains[0]?.rdsRouteConfigName).toBe("main-2");
  });

  it("import --on-clash replace overwrites and names the stored listener outside the files", async () => {
    const other = file(
      "other.yaml",
      [clusterYaml("svc-b", 8081), routesYaml("main", "svc-b")].join(""),
    );
    const result = await cli("import", "--on-clash", "replace", other);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "route configuration main is replaced; listener front, not in these files, uses it",
    );
    expect(await routedTo("main")).toBe("svc-b");
  });

  it("diff -f and apply replace by name, and say before and after which stored listener outside the files routes differently", async () => {
    expect((await cli("publish", "-m", "front")).code).toBe(0);
    const routes = file(
      "routes.yaml",
      [clusterYaml("svc-b", 8081), routesYaml("main", "svc-b")].join(""),
    );
    const line =
      "route configuration main is replaced; listener front, not in these files, uses it";
    const diff = await cli("diff", "-f", routes);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain(line);
    const applied = await cli("apply", "-f", routes);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(line);
    expect(await routedTo("main")).toBe("svc-b");
  });
});
