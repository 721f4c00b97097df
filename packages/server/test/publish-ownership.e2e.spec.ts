import { Code, type Interceptor } from "@connectrpc/connect";
import { ChangeType } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  configClient,
  createAccount,
  privilegedAccess,
  Role,
  refusal,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 22, point 5: publishing and rolling back read who owns each cluster from the draft row,
 * or from the version that recorded it once the row is gone; a cluster the change adds used to be
 * taken as the caller's, which let one team publish another team's unreviewed cluster.
 */
describe("who may publish a cluster", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let memberA: Interceptor[];
  let memberB: Interceptor[];
  let teamA: string;
  const api = (interceptors: Interceptor[]) => configClient(harness.baseUrl, interceptors);
  const cluster = (name: string) => edsCluster(name, "127.0.0.1:50051");
  const latestVersion = async () =>
    (await api(admin).listSnapshots({ limit: 1 })).snapshots[0]?.version ?? 0n;
  const clustersOfTeamA = async () =>
    (await accessClient(harness.baseUrl, admin).listTeams({})).teams.find((t) => t.id === teamA)
      ?.clusters;

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    admin = [bearer(token)];
    const access = accessClient(harness.baseUrl, admin);
    teamA = (await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] })).id;
    const teamB = await access.createTeam({ name: "team-b", domains: ["*.b.example.com"] });
    await (await privilegedAccess(harness.baseUrl)).updateTeam({
      id: teamB.id,
      requireReview: true,
    });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, teamA);
    await createAccount(harness.baseUrl, "member-b", Role.MEMBER, teamB.id);
    memberA = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
    memberB = [bearer(await tokenFor(harness.baseUrl, "member-b", USER_PASSWORD))];
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses a member publishing a cluster another team added, whose team requires review", async () => {
    await api(memberB).createCluster(cluster("b-unreviewed"));
    const before = await latestVersion();

    const error = await refusal(api(memberA).publish({ message: "not mine" }));

    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain(
      "cluster b-unreviewed was added by another team, not team team-a",
    );
    expect(await latestVersion()).toBe(before);
    await api(memberB).deleteCluster({ name: "b-unreviewed" });
  });

  it("refuses a member publishing a cluster an admin added and has not published", async () => {
    await api(admin).createCluster(cluster("admin-unpublished"));

    const error = await refusal(api(memberA).publish({ message: "not mine either" }));

    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain("cluster admin-unpublished was added by an admin");
    await api(admin).publish({ message: "the admin's cluster" });
  });

  it("lets a member publish their own new cluster, and then its deletion", async () => {
    await api(memberA).createCluster(cluster("a-own"));
    await api(memberA).publish({ message: "a-own" });

    await api(memberA).deleteCluster({ name: "a-own" });
    const deletion = await api(memberA).publish({ message: "a-own goes" });

    expect(deletion.snapshot?.author).toBe("member-a");
    expect(deletion.changes.map((c) => [c.name, c.change])).toEqual([
      ["a-own", ChangeType.REMOVED],
    ]);
  });

  it("refuses a member publishing the deletion of a cluster they do not own", async () => {
    await api(admin).deleteCluster({ name: "admin-unpublished" });

    const error = await refusal(api(memberA).publish({ message: "delete theirs" }));

    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain("team team-a does not own cluster admin-unpublished");
    await api(admin).publish({ message: "admin deletes its cluster" });
  });

  it("lets a member roll back to a version with their deleted cluster, which is their team's again", async () => {
    const history = await api(admin).listSnapshots({ limit: 10 });
    const withOwnCluster = history.snapshots.find((s) => s.message === "a-own")?.version;
    expect(withOwnCluster).toBeDefined();
    // That version also had the admin's cluster, since deleted: rolling back brings both back.
    const error = await refusal(
      api(memberA).rollback({ version: withOwnCluster ?? 0n, message: "bring a-own back" }),
    );
    expect(error.code).toBe(Code.PermissionDenied);
    expect(error.rawMessage).toContain("cluster admin-unpublished was added by an admin");
    expect(await clustersOfTeamA()).not.toContain("a-own");

    await api(admin).createCluster(cluster("admin-unpublished"));
    await api(admin).publish({ message: "the admin's cluster again" });
    const rolledBack = await api(memberA).rollback({
      version: withOwnCluster ?? 0n,
      message: "bring a-own back",
    });

    expect(rolledBack.snapshot?.author).toBe("member-a");
    expect(await clustersOfTeamA()).toContain("a-own");
  });
});
