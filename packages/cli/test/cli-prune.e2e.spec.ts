/**
 * `switchyard apply --prune` through the real CLI: the stored configuration becomes exactly the
 * files, within a selector and, for a member, within their team's objects; the deletions are
 * listed before they happen; a refused prune changes nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { Code } from "@connectrpc/connect";
import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  accessClient,
  bearer,
  clusterYaml,
  configClient,
  createAccount,
  type Harness,
  Role,
  refusal,
  routesYaml,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

const cluster = clusterYaml;
const routesTo = (target: string) => routesYaml("edge-routes", target);

describe("switchyard apply --prune", () => {
  let harness: Harness;
  let admin: string;
  let pat: string;
  let sam: string;
  let work: string;
  const cli = (token: string, ...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const file = (name: string, content: string) => {
    const at = path.join(work, name);
    mkdirSync(path.dirname(at), { recursive: true });
    writeFileSync(at, content);
    return at;
  };
  const api = () => configClient(harness.baseUrl, [bearer(admin)]);
  const stored = async () => (await api().listClusters({})).clusters.map((c) => c.name).sort();
  const latest = async () => (await api().listSnapshots({ limit: 1 })).snapshots[0]?.version;
  const pending = async () => (await api().diff({})).changes.length;

  beforeAll(async () => {
    harness = await startHarness();
    admin = await harness.token();
    work = mkdtempSync(path.join(tmpdir(), "switchyard-prune-"));
    const access = accessClient(harness.baseUrl, [bearer(admin)]);
    for (const [name, user] of [
      ["payments", "pat"],
      ["search", "sam"],
    ] as const) {
      const team = await access.createTeam({ name, domains: [`*.${name}.example.com`] });
      await createAccount(harness.baseUrl, user, Role.MEMBER, team.id);
    }
    pat = await tokenFor(harness.baseUrl, "pat", USER_PASSWORD);
    sam = await tokenFor(harness.baseUrl, "sam", USER_PASSWORD);
    // Each team applies its own directory; an admin's cluster belongs to no team.
    file("payments/a.yaml", cluster("pay-a", 9201));
    file("payments/b.yaml", cluster("pay-b", 9202));
    file("search/a.yaml", cluster("search-a", 9203));
    file("platform/edge.yaml", cluster("edge", 9204));
    for (const [token, dir] of [
      [pat, "payments"],
      [sam, "search"],
      [admin, "platform"],
    ] as const) {
      const applied = await cli(token, "apply", "-f", path.join(work, dir));
      expect(applied.stderr).toBe("");
    }
  }, 120_000);
  afterAll(async () => {
    await harness?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("a member's prune deletes their team's objects the files no longer hold, listed before it publishes, and never another team's or an admin's", async () => {
    unlinkSync(path.join(work, "payments/b.yaml"));
    const before = await latest();

    const pruned = await cli(pat, "apply", "-f", path.join(work, "payments"), "--prune");
    expect(pruned.stderr).toBe("");
    expect(pruned.code).toBe(0);
    expect(pruned.stdout).toMatch(
      /^a\.yaml: pruning 1 object the files do not hold:\n {2}removed {2}cluster pay-b\n/,
    );
    expect(pruned.stdout.indexOf("pruning")).toBeLessThan(pruned.stdout.indexOf("published"));
    expect(pruned.stdout).toMatch(new RegExp(`published version ${(before ?? 0n) + 1n}`));
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);

    // Nothing of theirs left to prune: the other team's and the admin's clusters are out of reach.
    const again = await cli(pat, "apply", "-f", path.join(work, "payments"), "--prune");
    expect(again.stdout).toMatch(/nothing to prune/);
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);
  });

  it("refuses a member's selector naming another team, changing nothing", async () => {
    const before = await latest();
    const refused = await cli(
      pat,
      "apply",
      "-f",
      path.join(work, "payments"),
      "--prune",
      "--selector",
      "team=search",
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/a member prunes only their own team's objects: team=search/);
    expect(await latest()).toBe(before);
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);
  });

  it("diff -f --prune shows what a prune would delete, within the selector, changing nothing", async () => {
    const only = file("review/only-edge.yaml", cluster("edge", 9204));
    const everything = await cli(admin, "diff", "-f", only, "--prune");
    expect(everything.code).toBe(1);
    expect(everything.stdout).toMatch(/0 added, 0 modified, 2 removed/);
    const narrowed = await cli(admin, "diff", "-f", only, "--prune", "-l", "name=search-*");
    expect(narrowed.code).toBe(1);
    expect(narrowed.stdout).toMatch(/0 added, 0 modified, 1 removed/);
    expect(narrowed.stdout).toMatch(/^--- a\/cluster\/search-a/m);
    const unknown = await cli(admin, "diff", "-f", only, "--prune", "-l", "owner=search");
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toMatch(/selector key "owner" is unknown: use kind, team or name/);
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);
    expect(await pending()).toBe(0);
  });

  it("a prune a publish would refuse (a route still sends traffic to what it deletes) changes nothing", async () => {
    const routes = file("platform/routes.yaml", routesTo("pay-a"));
    expect((await cli(admin, "apply", "-f", routes)).code).toBe(0);
    const before = await latest();
    unlinkSync(path.join(work, "payments/a.yaml"));
    file("payments/c.yaml", cluster("pay-c", 9205));

    const refused = await cli(pat, "apply", "-f", path.join(work, "payments"), "--prune");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/pay-a/);
    expect(await latest()).toBe(before);
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);
    expect(await pending()).toBe(0);
  });

  it("refuses an apply whose prune would delete what its caller did not list", async () => {
    const before = await latest();
    const error = await refusal(
      api().apply({
        content: cluster("edge", 9204),
        filename: "edge.yaml",
        prune: {
          selector: "kind=cluster",
          listed: true,
          deletions: [{ kind: ResourceKind.CLUSTER, name: "pay-a" }],
        },
      }),
    );
    expect(error.code).toBe(Code.Aborted);
    expect(error.rawMessage).toMatch(/would also delete cluster "search-a", which was not listed/);
    expect(await latest()).toBe(before);
    expect(await stored()).toEqual(["edge", "pay-a", "search-a"]);
  });

  it("an admin's prune of the whole configuration leaves exactly the files", async () => {
    const all = path.join(work, "platform");
    file("platform/routes.yaml", routesTo("edge"));
    const pruned = await cli(admin, "apply", "-f", all, "-f", path.join(work, "search"), "--prune");
    expect(pruned.stderr).toBe("");
    expect(pruned.stdout).toMatch(/removed {2}cluster pay-a/);
    expect(await stored()).toEqual(["edge", "search-a"]);
  });
});
