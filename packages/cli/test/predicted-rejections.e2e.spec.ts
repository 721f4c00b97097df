/**
 * Issue 46, point 3, through the CLI: a change validation predicts a node group's proxyless gRPC
 * clients will reject (NACK) needs --accept-warnings to publish, and `switchyard diff -f` tells
 * "would be rejected" (3) from "differs" (1), a warning under --strict (4) and a failed run (5).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { DiscoveryType, LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  apiListener,
  bearer,
  configClient,
  edsCluster,
  type Harness,
  routeConfiguration,
  startHarness,
  virtualHost,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

/** Cluster `name` as an Envoy v3 EDS cluster with `lbPolicy`, a YAML list item. */
const clusterYaml = (name: string, lbPolicy: string) =>
  [
    '- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster',
    `  name: ${name}`,
    "  type: EDS",
    "  connect_timeout: 1s",
    `  lb_policy: ${lbPolicy}`,
    "  eds_cluster_config: { eds_config: { ads: {} } }",
    "",
  ].join("\n");

describe("predicted rejections in the CLI", () => {
  let harness: Harness;
  let token: string;
  let work: string;
  const cli = (...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const api = () => configClient(harness.baseUrl, [bearer(token)]);
  const versions = async () => (await api().listSnapshots({})).snapshots.length;
  const file = (name: string, content: string) => {
    const at = path.join(work, name);
    writeFileSync(at, content);
    return at;
  };

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-rejections-"));
    await api().createCluster(
      edsCluster("echo-v2", "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
    );
    await api().createRouteConfiguration(
      routeConfiguration("echo-routes", [virtualHost("echo", ["*"], "echo-v2")]),
    );
    await api().createListener(apiListener("echo", "echo-routes"));
    await api().publish({ message: "proxyless echo" });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("diff -f exits 3 for a change gRPC clients would reject, 1 for one they take, 4 for a warning with --strict, 5 when it cannot run", async () => {
    const rejected = await cli(
      "diff",
      "-f",
      file("least.yaml", clusterYaml("echo-v2", "LEAST_REQUEST")),
    );
    expect(rejected.stderr).toBe("");
    expect(rejected.code).toBe(3);
    expect(rejected.stdout).toContain(
      'lb policy LEAST_REQUEST is not supported (use ROUND_ROBIN or RING_HASH) [predicted rejection: gRPC clients of node group "default"]',
    );
    expect(rejected.stdout).toContain(
      "least.yaml: would be rejected: validation predicts that clients of node group(s) default will reject this (a publish needs --accept-warnings)",
    );

    const taken = await cli("diff", "-f", file("ring.yaml", clusterYaml("echo-v2", "RING_HASH")));
    expect(taken.code).toBe(1);
    expect(taken.stdout).not.toContain("would be rejected");

    // An EDS cluster with no endpoints: publishable, with a warning.
    const lonely = file("lonely.yaml", clusterYaml("lonely", "ROUND_ROBIN"));
    const warned = await cli("diff", "-f", lonely);
    expect(warned.code).toBe(1);
    expect(warned.stdout).toMatch(/warning .*no endpoints/);
    const strict = await cli("diff", "-f", lonely, "--strict");
    expect(strict.code).toBe(4);
    expect(strict.stdout).toContain("lonely.yaml: --strict: warnings fail");

    // No server there: a failed run, not "differs".
    const failed = await runCli("http://127.0.0.1:9", token, "diff", "-f", lonely);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toMatch(/^switchyard: cannot reach the Switchyard server/);
    expect(await versions()).toBe(1);
  });

  it("apply of a change gRPC clients would reject is refused, naming node group, cluster and rule, and publishes with --accept-warnings", async () => {
    const least = file("least.yaml", clusterYaml("echo-v2", "LEAST_REQUEST"));
    const refused = await cli("apply", "-f", least);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'node group "default" (proxyless gRPC clients), cluster "echo-v2": a proxyless gRPC client would reject an lb policy other than ROUND_ROBIN or RING_HASH',
    );
    expect(refused.stderr).toContain("--accept-warnings");
    expect(await versions()).toBe(1);

    const applied = await cli("apply", "-f", least, "--accept-warnings");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(await versions()).toBe(2);
    // Published: the fleet lives with it, so diff -f of it again is no news.
    expect((await cli("diff", "-f", least)).code).toBe(0);
  });

  it("publish of a draft gRPC clients would newly reject is refused, and goes through with --accept-warnings, printing the warning", async () => {
    const cluster = await api().getCluster({ name: "echo-v2" });
    await api().updateCluster({ ...cluster, discoveryType: DiscoveryType.STATIC });
    const refused = await cli("publish", "-m", "static echo");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'cluster "echo-v2": a proxyless gRPC client would reject a STATIC or STRICT_DNS cluster',
    );
    // The LEAST_REQUEST rejection is already published: it is not named again.
    expect(refused.stderr).not.toContain("lb policy other than");
    expect(await versions()).toBe(2);

    const published = await cli("publish", "-m", "static echo", "--accept-warnings");
    expect(published.stderr).toBe("");
    expect(published.code).toBe(0);
    expect(published.stdout).toContain("type STATIC is not supported");
    expect(published.stdout).toMatch(
      /lb policy LEAST_REQUEST is not supported .*\[predicted rejection: gRPC clients of node group "default"; the latest version has it too\]/,
    );
    expect(published.stdout).toContain("published version 3");
  });
});
