/**
 * `switchyard endpoints` as deploy scripts use it, through the real CLI process: one cluster's
 * endpoints set, added and removed, each published alone on top of the latest version; runs of
 * several at once all land; a script may run twice; a member reaches only their team's clusters.
 */

import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  edsCluster,
  type Harness,
  Role,
  startHarness,
  tokenFor,
  USER_PASSWORD,
} from "@switchyard/server/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";

describe("switchyard endpoints", () => {
  let harness: Harness;
  let admin: string;
  let member: string;
  const cli = (token: string, ...args: string[]) => runCli(harness.baseUrl, token, ...args);
  const api = () => configClient(harness.baseUrl, [bearer(admin)]);
  const latest = async () => (await api().listSnapshots({ limit: 1 })).snapshots[0]?.version;
  const endpointsOf = async (name: string) =>
    (await api().getCluster({ name })).localities.flatMap((l) =>
      l.endpoints.map((e) => `${l.zone || "-"} ${e.address}:${e.port}`),
    );
  const cluster = (name: string) => edsCluster(name, "10.0.0.1:8080", { connectTimeoutMs: 1000 });

  beforeAll(async () => {
    harness = await startHarness();
    admin = await harness.token();
    const team = await accessClient(harness.baseUrl, [bearer(admin)]).createTeam({
      name: "payments",
      domains: ["*.payments.example.com"],
    });
    await createAccount(harness.baseUrl, "pat", Role.MEMBER, team.id);
    member = await tokenFor(harness.baseUrl, "pat", USER_PASSWORD);
    for (let i = 1; i <= 5; i++) await api().createCluster(cluster(`svc-${i}`));
    await api().publish({ message: "five clusters" });
    // A cluster the member's team owns: created by the member.
    await configClient(harness.baseUrl, [bearer(member)]).createCluster(cluster("payments-api"));
    await configClient(harness.baseUrl, [bearer(member)]).publish({ message: "payments-api" });
  }, 60_000);
  afterAll(async () => {
    await harness?.stop();
  });

  it("sets, adds and removes one cluster's endpoints, each publishing that cluster alone", async () => {
    const before = (await latest()) ?? 0n;
    const set = await cli(admin, "endpoints", "set", "svc-1", "10.0.0.2:8080", "[fd00::1]:8080");
    expect(set.stderr).toBe("");
    expect(set.stdout).toBe(
      `0 added, 1 modified, 0 removed\n  modified cluster svc-1\npublished version ${before + 1n}\n`,
    );
    expect(await endpointsOf("svc-1")).toEqual(["- 10.0.0.2:8080", "- fd00::1:8080"]);

    const add = await cli(
      admin,
      ...["endpoints", "add", "svc-1", "10.0.1.1:8080", "--zone", "b", "--weight", "3"],
      ...["--health", "draining"],
    );
    expect(add.stderr).toBe("");
    expect(await endpointsOf("svc-1")).toEqual([
      "- 10.0.0.2:8080",
      "- fd00::1:8080",
      "b 10.0.1.1:8080",
    ]);
    const listed = await cli(admin, "endpoints", "get", "svc-1");
    expect(listed.stdout).toMatch(/^\s*10\.0\.1\.1:8080\s+b\s+0\s+3\s+draining\s*$/m);
    expect(listed.stdout).toMatch(/^\s*\[fd00::1\]:8080\s+-\s+0\s+-\s+unknown\s*$/m);

    const removed = await cli(admin, "endpoints", "remove", "svc-1", "10.0.0.2:8080");
    expect(removed.stderr).toBe("");
    expect(await endpointsOf("svc-1")).toEqual(["- fd00::1:8080", "b 10.0.1.1:8080"]);
    const version = await api().getSnapshot({ version: before + 3n });
    expect(version.snapshot?.message).toBe("endpoints remove svc-1");
    expect(version.changes.map((c) => c.name)).toEqual(["svc-1"]);
  });

  it("gives every locality it creates a load_balancing_weight, so gRPC sends it traffic: its siblings' weight, else 1", async () => {
    await api().createCluster(cluster("bare-1"));
    await api().updateCluster({ ...(await api().getCluster({ name: "bare-1" })), localities: [] });
    await api().publish({ message: "bare-1 without endpoints" });
    const weights = async () =>
      (await api().getCluster({ name: "bare-1" })).localities.map((l) => [l.zone, l.weight]);

    expect((await cli(admin, "endpoints", "add", "bare-1", "127.0.0.1:50052")).stderr).toBe("");
    expect(await weights()).toEqual([["", 1]]);
    const zoned = await cli(admin, "endpoints", "add", "bare-1", "127.0.0.1:50053", "--zone", "z1");
    expect(zoned.stderr).toBe("");
    expect(await weights()).toEqual([
      ["", 1],
      ["z1", 1],
    ]);
  });

  it("a script run twice changes nothing the second time, and says so", async () => {
    const before = await latest();
    const again = await cli(admin, "endpoints", "remove", "svc-1", "10.0.0.2:8080");
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("cluster svc-1: no changes (its endpoints were already so)\n");
    expect(await latest()).toBe(before);
  });

  it("registrations of different clusters at once all land, one version each", async () => {
    const before = (await latest()) ?? 0n;
    const runs = await Promise.all(
      [2, 3, 4, 5].map((i) => cli(admin, "endpoints", "set", `svc-${i}`, `10.0.${i}.9:9000`)),
    );
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(Array(4).fill([0, ""]));
    expect(await latest()).toBe(before + 4n);
    for (const i of [2, 3, 4, 5])
      expect(await endpointsOf(`svc-${i}`)).toEqual([`- 10.0.${i}.9:9000`]);
  });

  it("a member registers endpoints of their team's cluster, and is refused another's, changing nothing", async () => {
    const own = await cli(member, "endpoints", "add", "payments-api", "10.1.0.1:8080");
    expect(own.stderr).toBe("");
    const before = await latest();
    const refused = await cli(member, "endpoints", "add", "svc-2", "10.1.0.2:8080");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/team payments does not own cluster svc-2/);
    expect(await latest()).toBe(before);
    expect(await endpointsOf("svc-2")).toEqual(["- 10.0.2.9:9000"]);
  });

  it("refuses what it cannot do, saying what and where: a malformed endpoint, an unknown cluster, one changed in the pending draft", async () => {
    const before = await latest();
    const malformed = await cli(admin, "endpoints", "add", "svc-2", "10.0.0.1");
    expect(malformed.stderr).toMatch(/"10\.0\.0\.1" is not ADDRESS:PORT/);
    const unknown = await cli(admin, "endpoints", "add", "nowhere", "10.0.0.1:80");
    expect(unknown.stderr).toMatch(/cluster "nowhere" is not in the latest version/);
    const twice = await cli(admin, "endpoints", "set", "svc-2", "10.0.0.1:80", "10.0.0.1:80");
    expect(twice.stderr).toMatch(/endpoints\[1\] \(10\.0\.0\.1:80\) is named twice/);

    await api().updateCluster({ ...cluster("svc-3"), connectTimeoutMs: 2000 });
    const pending = await cli(admin, "endpoints", "add", "svc-3", "10.0.0.1:80");
    expect(pending.stderr).toMatch(/unpublished changes to cluster "svc-3"/);
    expect(await latest()).toBe(before);
    await cli(admin, "discard");
  });
});
