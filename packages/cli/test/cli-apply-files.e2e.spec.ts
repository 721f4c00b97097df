/**
 * `switchyard apply` as a Git repository uses it, through the real CLI process: many files and
 * directories (-R), standard input of several documents, errors at their file and line, and a
 * refused apply that leaves the draft as it found it (so the next apply goes through).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./processes.js";
import { runCli } from "./run-cli.js";

const cluster = clusterYaml;
const routes = routesYaml;

describe("switchyard apply with files, directories and standard input", () => {
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
  const stored = async () =>
    (await configClient(harness.baseUrl, [bearer(token)]).listClusters({})).clusters
      .map((c) => c.name)
      .sort();
  const pending = async () =>
    (await configClient(harness.baseUrl, [bearer(token)]).diff({})).changes.length;

  beforeAll(async () => {
    harness = await startHarness();
    token = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-apply-"));
  });
  afterAll(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("applies a directory as one set, its subdirectories with -R: a route in one file names a cluster in another", async () => {
    const dir = path.join(work, "repo");
    file("repo/clusters/a.yaml", cluster("svc-a", 8080));
    file(
      "repo/clusters/b.json",
      JSON.stringify([
        {
          "@type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
          name: "svc-b",
          connect_timeout: "1s",
          type: "STATIC",
          load_assignment: {
            cluster_name: "svc-b",
            endpoints: [
              {
                lb_endpoints: [
                  {
                    endpoint: {
                      address: { socket_address: { address: "127.0.0.1", port_value: 8081 } },
                    },
                  },
                ],
              },
            ],
          },
        },
      ]),
    );
    file("repo/routes.yaml", routes("shop-routes", "svc-a"));
    file("repo/README.md", "not configuration");

    // Without -R only the directory's own files: the route names a cluster no file holds.
    const shallow = await cli("apply", "-f", dir);
    expect(shallow.code).not.toBe(0);
    expect(await pending()).toBe(0);

    const applied = await cli("apply", "-f", dir, "-R");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^3 files: 3 added/m);
    expect(applied.stdout).toMatch(/published version 1/);
    expect(await stored()).toEqual(["svc-a", "svc-b"]);
  });

  it("takes several -f and standard input holding several YAML documents", async () => {
    const input = `${cluster("svc-c", 8082)}---\n${cluster("svc-d", 8083)}`;
    const applied = await run(
      [
        "--server",
        harness.baseUrl,
        "apply",
        "-f",
        file("one.yaml", cluster("svc-e", 8084)),
        "-f",
        "-",
      ],
      { SWITCHYARD_TOKEN: token },
      input,
    );
    expect(await applied.exited, applied.output()).toBe(0);
    expect(applied.output()).toMatch(/2 files: 3 added/);
    expect(await stored()).toEqual(["svc-a", "svc-b", "svc-c", "svc-d", "svc-e"]);
  });

  it("names the file and line of an error in one of several files, and changes nothing", async () => {
    const good = file("errors/good.yaml", cluster("svc-f", 8085));
    const bad = file("errors/bad.yaml", `${cluster("svc-g", 8086)}  lb_policy: ROUND_ROBBIN\n`);
    const refused = await cli("apply", "-f", good, "-f", bad);

    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/ROUND_ROBBIN/);
    expect(refused.stderr).toContain(`${bad}:10`);
    expect(await pending()).toBe(0);
    expect(await stored()).not.toContain("svc-f");
  });

  it("a publish refused by validation leaves the draft as it found it: the next apply goes through", async () => {
    const dangling = file("dangling.yaml", routes("dangling-routes", "no-such-cluster"));
    const refused = await cli("apply", "-f", dangling);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/no-such-cluster/);
    expect(await pending()).toBe(0);

    const good = await cli("apply", "-f", file("good.yaml", cluster("svc-h", 8087)));
    expect(good.stderr).toBe("");
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/published version/);
  });

  it("prints history and diff as JSON for scripts, and waits for the latest version when none is named", async () => {
    const history = await cli("history", "-o", "json");
    expect(history.code).toBe(0);
    const listed = JSON.parse(history.stdout) as {
      snapshots: Array<{ version: string; message: string }>;
    };
    const latest = listed.snapshots[0];
    expect(latest?.message).toMatch(/^apply /);

    await configClient(harness.baseUrl, [bearer(token)]).deleteCluster({ name: "svc-h" });
    const diff = await cli("diff", "-o", "json");
    expect(diff.code).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({
      fromVersion: latest?.version,
      changes: [{ kind: "RESOURCE_KIND_CLUSTER", name: "svc-h", change: "CHANGE_TYPE_REMOVED" }],
    });
    await cli("discard");

    const wait = await cli("wait", "--timeout", "5s");
    expect(wait.stderr).toBe("");
    expect(wait.code).toBe(0);
    expect(wait.stdout).toBe(
      `version ${latest?.version}: no connected nodes are targeted; nothing to wait for\n`,
    );
  });

  it("diff -f shows what applying would change, changing nothing: exit 1 with changes, 0 once applied, 2 with errors", async () => {
    const next = file("dry/next.yaml", cluster("svc-i", 8088));
    const changes = await cli("diff", "-f", next);
    expect(changes.stderr).toBe("");
    expect(changes.code).toBe(1);
    expect(changes.stdout).toMatch(/next\.yaml: 1 added, 0 modified, 0 removed/);
    expect(changes.stdout).toMatch(/^\+\+\+ b\/cluster\/svc-i/m);
    expect(await pending()).toBe(0);
    // The switchyard process exits with the code the command chose, too.
    const spawned = await run(["--server", harness.baseUrl, "diff", "-f", next], {
      SWITCHYARD_TOKEN: token,
    });
    expect(await spawned.exited, spawned.output()).toBe(1);

    expect((await cli("apply", "-f", next)).code).toBe(0);
    const nothing = await cli("diff", "-f", next);
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toMatch(/no changes/);

    // Imports fine, but a publish of the result would be refused: exit 2, with the error.
    const dangling = file("dry/dangling.yaml", routes("more-routes", "no-such-cluster"));
    const refused = await cli("diff", "-f", dangling);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/error .*no-such-cluster/);
    // An import error: exit 2, at its file and line.
    const typo = file("dry/typo.yaml", `${cluster("svc-j", 8089)}  lb_policy: ROUND_ROBBIN\n`);
    const unreadable = await cli("diff", "-f", typo);
    expect(unreadable.code).toBe(2);
    expect(unreadable.stdout).toContain(`${typo}:10`);
    expect(await pending()).toBe(0);
  });

  it("CDS and EDS are separate: an assignment alone updates a stored cluster's endpoints, a cluster alone keeps them", async () => {
    const edsCluster = (timeout: string) =>
      [
        '- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster',
        "  name: eds-a",
        "  type: EDS",
        `  connect_timeout: ${timeout}`,
        "  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: V3 } }",
        "",
      ].join("\n");
    const assignment = (cluster: string, port: number) =>
      [
        '- "@type": type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
        `  cluster_name: ${cluster}`,
        "  endpoints:",
        "  - lb_endpoints:",
        `    - endpoint: { address: { socket_address: { address: 127.0.0.1, port_value: ${port} } } }`,
        "",
      ].join("\n");
    const api = configClient(harness.baseUrl, [bearer(token)]);
    const endpointsOf = async () =>
      (await api.getCluster({ name: "eds-a" })).localities.flatMap((l) =>
        l.endpoints.map((e) => e.port),
      );
    expect(
      (
        await cli(
          "apply",
          "-f",
          file("eds/both.yaml", edsCluster("1s") + assignment("eds-a", 9001)),
        )
      ).code,
    ).toBe(0);

    const endpoints = await cli(
      "apply",
      "-f",
      file("eds/endpoints.yaml", assignment("eds-a", 9002)),
    );
    expect(endpoints.stderr).toBe("");
    expect(endpoints.stdout).toMatch(/0 added, 1 modified, 0 removed/);
    expect(await endpointsOf()).toEqual([9002]);
    expect((await api.getCluster({ name: "eds-a" })).connectTimeoutMs).toBe(1000);

    const timeout = await cli("apply", "-f", file("eds/cluster.yaml", edsCluster("2s")));
    expect(timeout.stderr).toBe("");
    expect((await api.getCluster({ name: "eds-a" })).connectTimeoutMs).toBe(2000);
    expect(await endpointsOf()).toEqual([9002]);

    const orphan = file("eds/orphan.yaml", assignment("nobody", 9003));
    const refused = await cli("apply", "-f", orphan);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /no EDS cluster is named "nobody"[^\n]*in the document or stored/,
    );
    expect(refused.stderr).toContain(`${orphan}:2`);
    expect(await pending()).toBe(0);
  });

  it("applies on top of the latest version, in one transaction: someone's pending draft is neither published nor disturbed, unless it touches the same object", async () => {
    const api = configClient(harness.baseUrl, [bearer(token)]);
    // Someone's unpublished edit.
    await api.createCluster({
      name: "pending-edit",
      localities: [{ weight: 1, endpoints: [{ address: "127.0.0.1", port: 9100 }] }],
    });
    const before = (await api.listSnapshots({ limit: 1 })).snapshots[0]?.version ?? 0n;

    const applied = await cli(
      "apply",
      "-f",
      file("atomic/k.yaml", cluster("svc-k", 9101)),
      "-m",
      "add svc-k",
    );
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toMatch(new RegExp(`published version ${before + 1n}`));
    const version = await api.getSnapshot({ version: before + 1n });
    expect(version.snapshot?.message).toBe("add svc-k");
    expect(version.changes.map((c) => c.name)).toEqual(["svc-k"]);
    // The pending edit is still pending, and svc-k is in the draft too.
    expect((await api.diff({})).changes.map((c) => c.name)).toEqual(["pending-edit"]);
    expect(await stored()).toContain("svc-k");

    // An apply touching the pending object is refused, naming it, and changes nothing.
    const clash = await cli(
      "apply",
      "-f",
      file("atomic/clash.yaml", cluster("pending-edit", 9102)),
    );
    expect(clash.code).not.toBe(0);
    expect(clash.stderr).toMatch(/unpublished changes to cluster "pending-edit"/);
    expect((await api.listSnapshots({ limit: 1 })).snapshots[0]?.version).toBe(before + 1n);
    expect((await api.getCluster({ name: "pending-edit" })).localities[0]?.endpoints[0]?.port).toBe(
      9100,
    );
    await cli("discard");
  });

  it("two CI jobs applying different directories at once both land", async () => {
    const first = file("jobs/one/l.yaml", cluster("svc-l", 9103));
    const second = file("jobs/two/m.yaml", cluster("svc-m", 9104));
    const [a, b] = await Promise.all([
      cli("apply", "-f", path.dirname(first)),
      cli("apply", "-f", path.dirname(second)),
    ]);
    expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, "", ""]);
    expect(await stored()).toEqual(expect.arrayContaining(["svc-l", "svc-m"]));
    const versions = [a.stdout, b.stdout].map((out) =>
      Number(/published version (\d+)/.exec(out)?.[1]),
    );
    expect(Math.abs((versions[0] ?? 0) - (versions[1] ?? 0))).toBe(1);
  });

  it("says what is wrong with a path: missing, or a directory with no configuration file", async () => {
    const missing = await cli("apply", "-f", path.join(work, "nowhere"));
    expect(missing.stderr).toMatch(/cannot read .*nowhere/);
    mkdirSync(path.join(work, "empty"));
    const empty = await cli("apply", "-f", path.join(work, "empty"));
    expect(empty.stderr).toMatch(/no \.yaml, \.yml or \.json file in .*empty \(-R reads/);
  });
});
