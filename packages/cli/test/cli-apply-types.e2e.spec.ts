/**
 * `switchyard apply -f` with the configuration Envoy users already have: per-type lists without
 * "@type" (`--type`, or a file named `listeners.yaml`, `NAME.clusters.yaml`, ... as Envoy
 * Gateway's translator writes them), and an Envoy admin config dump (`/config_dump`, what
 * `istioctl proxy-config all -o json` prints), whose notes say what it left out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { bearer, configClient, type Harness, startHarness } from "@switchyard/server/testing";
import { configDump, redactedTlsSecret } from "@switchyard/testing/config-dump";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

/** An EDS cluster as Envoy Gateway's clusters.yaml lists it: camelCase, no "@type". */
const edsClusters = (...names: string[]) =>
  names
    .map(
      (name) => `- name: ${name}
  type: EDS
  connectTimeout: 10s
  edsClusterConfig: { edsConfig: { ads: {}, resourceApiVersion: V3 }, serviceName: ${name} }
`,
    )
    .join("");

const endpoints = (name: string, port: number) => `- clusterName: ${name}
  endpoints:
  - locality: {}
    loadBalancingWeight: 1
    lbEndpoints:
    - endpoint: { address: { socketAddress: { address: 10.0.0.1, portValue: ${port} } } }
`;

const tcpListeners = (name: string, cluster: string) => `- name: ${name}
  address: { socketAddress: { address: 0.0.0.0, portValue: 10080 } }
  filterChains:
  - filters:
    - name: envoy.filters.network.tcp_proxy
      typedConfig:
        "@type": type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy
        statPrefix: tcp
        cluster: ${cluster}
`;

describe("switchyard apply with per-type lists and Envoy config dumps", () => {
  let harness: Harness;
  let token: string;
  let work: string;
  const cli = (...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const file = (name: string, content: string) => {
    const at = path.join(work, name);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, content);
    return at;
  };
  const stored = async () => {
    const api = configClient(harness.baseUrl, [bearer(token)]);
    const [clusters, listeners] = await Promise.all([api.listClusters({}), api.listListeners({})]);
    return {
      clusters: clusters.clusters.map((c) => c.name).sort(),
      listeners: listeners.listeners.map((l) => l.name).sort(),
    };
  };

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-types-"));
  });
  afterAll(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("refuses a list without @type given without --type, saying to pass --type and which types it takes", async () => {
    const refused = await cli("apply", "-f", file("gw/out.yaml", edsClusters("gw-a")));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('these resources have no "@type": name their type');
    expect(refused.stderr).toContain("listeners, clusters, routes, endpoints or secrets");
    expect((await stored()).clusters).toEqual([]);
  });

  it("reads a list without @type as the --type given, and publishes it", async () => {
    const applied = await cli(
      "apply",
      "-f",
      file("gw/out.yaml", edsClusters("gw-a")),
      "--type",
      "clusters",
    );
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/published version/);
    expect((await stored()).clusters).toEqual(["gw-a"]);
  });

  it("reads each file of a directory named as Envoy Gateway names them (NAME.clusters.yaml, ...) as its type", async () => {
    const dir = path.join(work, "eg");
    file("eg/tcp-route.clusters.yaml", edsClusters("gw-tcp"));
    file("eg/tcp-route.endpoints.yaml", endpoints("gw-tcp", 3000));
    file("eg/tcp-route.listeners.yaml", tcpListeners("gw-listener", "gw-tcp"));
    const applied = await cli("apply", "-f", dir);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(await stored()).toEqual({
      clusters: ["gw-a", "gw-tcp"],
      listeners: ["gw-listener"],
    });
    const cluster = await configClient(harness.baseUrl, [bearer(token)]).getCluster({
      name: "gw-tcp",
    });
    expect(cluster.localities[0]?.endpoints.map((e) => e.port)).toEqual([3000]);
  });

  it("refuses --type contradicting a file's name, and a --type it does not know", async () => {
    const named = await cli(
      "diff",
      "-f",
      file("named/listeners.yaml", tcpListeners("x", "gw-a")),
      "--type",
      "clusters",
    );
    expect(named.code).not.toBe(0);
    expect(named.stderr).toContain(
      "listeners.yaml: its name says it holds listeners, but --type says clusters: rename the file or leave out --type",
    );
    const unknown = await cli("diff", "-f", file("any.yaml", edsClusters("x")), "--type", "pods");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain(
      '--type "pods": use listeners, clusters, routes, endpoints or secrets',
    );
  });

  it("applies an Envoy admin config dump's active resources, printing what it left out and why", async () => {
    const cluster = (name: string) => ({
      "@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
      name,
      type: "STATIC",
      connect_timeout: "1s",
      load_assignment: { cluster_name: name, endpoints: [] },
    });
    const dump = configDump({
      staticClusters: [cluster("dumped-static")],
      activeClusters: [cluster("dumped-active")],
      warmingClusters: [cluster("dumped-warming")],
      secrets: { active: [redactedTlsSecret("edge-cert", "-----BEGIN CERTIFICATE-----")] },
    });
    const dumped = file("config_dump.json", JSON.stringify(dump, null, 2));
    const applied = await cli("apply", "-f", dumped, "--draft");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain("not imported: a warming cluster is not serving traffic yet");
    expect(applied.stdout).toContain(
      'secret "edge-cert" is a TLS certificate, not imported: a config dump shows it redacted. Upload it: switchyard secret create tls edge-cert --cert FILE --key FILE',
    );
    expect(applied.stdout).toContain(`[${dumped}:`);
    expect((await stored()).clusters).toEqual(["dumped-active", "dumped-static", "gw-a", "gw-tcp"]);
  });
  it("switchyard import reads a file into the draft, publishing nothing; --dry-run says what it would change and changes nothing", async () => {
    const api = configClient(harness.baseUrl, [bearer(token)]);
    const versions = async () => (await api.listSnapshots({})).snapshots.length;
    const before = await versions();
    const listed = file("gw/imported.yaml", edsClusters("gw-imported"));
    const dry = await cli("import", listed, "--type", "clusters", "--dry-run");
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain("gw-imported");
    expect((await stored()).clusters).not.toContain("gw-imported");
    const imported = await cli("import", listed, "--type", "clusters");
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/added\s+cluster gw-imported/);
    expect((await stored()).clusters).toContain("gw-imported");
    expect(await versions()).toBe(before);
  });
});
