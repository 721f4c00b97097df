import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  ConfigService,
  LbPolicy,
  RouteActionKind,
  type RouteConfiguration,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import {
  accessClient,
  bearer,
  createAccount,
  privilegedAccess,
  Role,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * VirtualHost.owner_team: output only, by the rule writes are checked by (auth/ownership.ts), and
 * ignored on writes (proto/switchyard/v1/config.proto).
 */
describe("a virtual host's owner team", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let member: Interceptor[];
  const api = (interceptors: Interceptor[]) =>
    createClient(
      ConfigService,
      createConnectTransport({ baseUrl: harness.baseUrl, httpVersion: "1.1", interceptors }),
    );
  /** One virtual host per case: team-a's, team-b's, nobody's ("*") and one split between teams. */
  const shared = (aPath = "/a", owners: Record<string, string> = {}) =>
    create(RouteConfigurationSchema, {
      name: "shared-routes",
      virtualHosts: (
        [
          ["a", ["api.a.example.com", "*.eu.a.example.com"], aPath],
          ["b", ["api.b.example.com"], "/b"],
          ["anyone", ["*"], "/"],
          ["split", ["x.a.example.com", "x.b.example.com"], "/x"],
        ] as const
      ).map(([name, domains, path]) => ({
        name,
        domains: [...domains],
        ownerTeam: owners[name] ?? "",
        routes: [
          {
            matchValue: path,
            actionKind: RouteActionKind.CLUSTER,
            cluster: name === "b" ? "b-backend" : "a-backend",
          },
        ],
      })),
    });
  const ownersOf = (rc: RouteConfiguration | undefined) =>
    Object.fromEntries((rc?.virtualHosts ?? []).map((vh) => [vh.name, vh.ownerTeam]));
  const BY_DOMAINS = { a: "team-a", b: "team-b", anyone: "", split: "" };

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    admin = [bearer(token)];
    const access = await privilegedAccess(harness.baseUrl);
    const teamA = await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] });
    await access.createTeam({ name: "team-b", domains: ["*.b.example.com"] });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, teamA.id);
    member = [bearer(await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD))];
    for (const name of ["a-backend", "b-backend"])
      await api(admin).createCluster(
        edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN }),
      );
    // Team a's routes send traffic to its own cluster (grants.ts).
    await access.setClusterOwner({ cluster: "a-backend", teamId: teamA.id });
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("Get, List, Create and Update report each virtual host's owner by its domains, empty when no single team owns them all", async () => {
    const created = await api(admin).createRouteConfiguration(shared());
    expect(ownersOf(created)).toEqual(BY_DOMAINS);
    expect(ownersOf(await api(member).getRouteConfiguration({ name: "shared-routes" }))).toEqual(
      BY_DOMAINS,
    );
    const listed = await api(member).listRouteConfigurations({});
    expect(ownersOf(listed.routeConfigurations.find((rc) => rc.name === "shared-routes"))).toEqual(
      BY_DOMAINS,
    );
    const updated = await api(member).updateRouteConfiguration(shared("/a2"));
    expect(ownersOf(updated)).toEqual(BY_DOMAINS);

    // The owner follows the teams' patterns, not the stored object.
    const access = accessClient(harness.baseUrl, admin);
    const teamB = (await access.listTeams({})).teams.find((t) => t.name === "team-b");
    await (await privilegedAccess(harness.baseUrl)).addTeamDomain({
      teamId: teamB?.id ?? "",
      pattern: "x.a.example.com",
    });
    const now = await api(admin).getRouteConfiguration({ name: "shared-routes" });
    expect(ownersOf(now)).toEqual({ ...BY_DOMAINS, split: "team-b" });
    await (await privilegedAccess(harness.baseUrl)).removeTeamDomain({
      teamId: teamB?.id ?? "",
      pattern: "x.a.example.com",
    });
  });

  it("an owner_team echoed back, even a wrong one, changes nothing: not what is stored, exported or diffed, nor what a member may change", async () => {
    await api(admin).updateRouteConfiguration(shared("/a"));
    await api(admin).publish({ message: "shared routes" });
    const exported = (await api(admin).export({})).content;

    const lies = { a: "team-b", b: "team-a", anyone: "team-a", split: "team-a" };
    const echoed = await api(admin).updateRouteConfiguration(shared("/a", lies));
    expect(ownersOf(echoed)).toEqual(BY_DOMAINS);
    expect((await api(admin).diff({})).changes).toEqual([]);
    expect((await api(admin).export({})).content).toBe(exported);
    expect(exported).not.toMatch(/owner/i);

    // Claiming team-b's virtual host does not let team-a's member change it.
    const claimed = shared("/a", lies);
    const b = claimed.virtualHosts.find((vh) => vh.name === "b");
    if (b?.routes[0] !== undefined) b.routes[0].matchValue = "/b-changed";
    const refusal = await api(member)
      .updateRouteConfiguration(claimed)
      .catch((e) => ConnectError.from(e));
    expect(refusal).toBeInstanceOf(ConnectError);
    expect((refusal as ConnectError).code).toBe(Code.PermissionDenied);
    expect((refusal as ConnectError).rawMessage).toContain("virtual host b");

    // Their own virtual host, sent with every owner wrong, is saved as if none were sent.
    const mine = await api(member).updateRouteConfiguration(shared("/a3", lies));
    expect(ownersOf(mine)).toEqual(BY_DOMAINS);
    const diff = await api(admin).diff({});
    expect(diff.changes.map((c) => c.name)).toEqual(["shared-routes"]);
    expect((await api(admin).export({})).content).toBe(
      exported.replace("prefix: /a\n", "prefix: /a3\n"),
    );
  });
});
