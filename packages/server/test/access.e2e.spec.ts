/**
 * Access beyond the gate, on one server: team ownership of virtual hosts and clusters, review
 * before publish, sessions (CSRF, logout, expiry), API tokens (revocation), last sign-in times and
 * the audit log with its export. The gate of every method is access-matrix.e2e.spec.ts.
 */
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import {
  ConfigService,
  LbPolicy,
  type RouteConfiguration,
  RouteConfigurationSchema,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster, routeConfiguration, virtualHost } from "../src/testing/api-objects.js";
import {
  ADMIN_PASSWORD,
  accessClient,
  bearer,
  createAccount,
  privilegedAccess,
  Role,
  sessionOf,
  signIn,
  tokenFor,
  USER_PASSWORD,
} from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

describe("ownership, sessions, tokens and the audit log", () => {
  let harness: Harness;
  let admin: Interceptor[];
  let member: Interceptor[];
  let memberToken: string;
  let teamA: string;
  const api = (interceptors: Interceptor[]) =>
    createClient(
      ConfigService,
      createConnectTransport({ baseUrl: harness.baseUrl, httpVersion: "1.1", interceptors }),
    );
  const code = async (work: Promise<unknown>) => {
    try {
      await work;
      return "ok";
    } catch (error) {
      return Code[ConnectError.from(error).code];
    }
  };
  const routes = (aPath: string, bPath: string, bDomains = ["api.b.example.com"]) =>
    routeConfiguration("shared-routes", [
      virtualHost("a", ["api.a.example.com"], "a-web", { matchValue: aPath }),
      virtualHost("b", bDomains, "b-web", { matchValue: bPath }),
    ]);

  beforeAll(async () => {
    harness = await startHarness();
    const token = await harness.token();
    admin = [bearer(token)];
    const access = accessClient(harness.baseUrl, admin);
    teamA = (await access.createTeam({ name: "team-a", domains: ["*.a.example.com"] })).id;
    await access.createTeam({ name: "team-b", domains: ["*.b.example.com"] });
    await createAccount(harness.baseUrl, "member-a", Role.MEMBER, teamA);
    memberToken = await tokenFor(harness.baseUrl, "member-a", USER_PASSWORD);
    member = [bearer(memberToken)];
  }, 60_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("a member changes their team's virtual host, and a crafted request touching another team's virtual host is refused and changes nothing", async () => {
    // Each virtual host sends traffic to a cluster of its own team (grants.ts).
    await api(member).createCluster(edsCluster("a-web", "127.0.0.1:50051"));
    await api(admin).createCluster(edsCluster("b-web", "127.0.0.1:50051"));
    await api(admin).createRouteConfiguration(routes("/a", "/b"));
    const stored = await api(member).getRouteConfiguration({ name: "shared-routes" });
    expect(await code(api(member).updateRouteConfiguration(routes("/a2", "/b")))).toBe("ok");

    const attempts: RouteConfiguration[] = [
      routes("/a2", "/b-changed"), // edits team B's route
      create(RouteConfigurationSchema, {
        ...routes("/a2", "/b"),
        virtualHosts: routes("/a2", "/b").virtualHosts.slice(0, 1),
      }), // deletes it
      routes("/a2", "/b", ["api.a.example.com.evil"]), // moves it to a domain nobody owns
    ];
    for (const attempt of attempts) {
      const refusal = await api(member)
        .updateRouteConfiguration(attempt)
        .catch((e) => ConnectError.from(e));
      expect(refusal).toBeInstanceOf(ConnectError);
      expect((refusal as ConnectError).code).toBe(Code.PermissionDenied);
      expect((refusal as ConnectError).rawMessage).toContain("virtual host b");
    }
    const after = await api(member).getRouteConfiguration({ name: "shared-routes" });
    expect(after.virtualHosts[1]?.routes[0]?.matchValue).toBe("/b");
    expect(stored.name).toBe("shared-routes");
  });

  it("a cluster a member creates is their team's; they cannot change a cluster no team owns, nor publish a draft holding someone else's change", async () => {
    const cluster = (name: string) =>
      edsCluster(name, "127.0.0.1:50051", { lbPolicy: LbPolicy.ROUND_ROBIN });
    await api(member).createCluster(cluster("a-backend"));
    const teams = await accessClient(harness.baseUrl, admin).listTeams({});
    expect(teams.teams.find((t) => t.id === teamA)?.clusters).toContain("a-backend");
    await api(admin).createCluster(cluster("b-backend"));
    expect(
      await code(api(member).updateCluster({ ...cluster("b-backend"), connectTimeoutMs: 9 })),
    ).toBe("PermissionDenied");
    // The draft now holds the admin's b-backend: not all of it is the member's.
    const refused = await api(member)
      .publish({ message: "mine" })
      .catch((e) => ConnectError.from(e));
    expect((refused as ConnectError).code).toBe(Code.PermissionDenied);
    expect((refused as ConnectError).rawMessage).toContain("not yours");
    await api(admin).publish({ message: "admin publishes everything" });
    // Now only the member's own change is pending: they publish it, as themselves.
    await api(member).updateCluster({ ...cluster("a-backend"), connectTimeoutMs: 2000 });
    const published = await api(member).publish({ message: "a-backend timeout" });
    expect(published.snapshot?.author).toBe("member-a");
  });

  it("a team that requires review cannot publish: the refusal says an admin must review it", async () => {
    const privileged = await privilegedAccess(harness.baseUrl);
    await privileged.updateTeam({ id: teamA, requireReview: true });
    await api(member).updateCluster(
      edsCluster("a-backend", "127.0.0.1:50052", { lbPolicy: LbPolicy.ROUND_ROBIN }),
    );
    const refused = await api(member)
      .publish({ message: "x" })
      .catch((e) => ConnectError.from(e));
    expect((refused as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((refused as ConnectError).rawMessage).toContain("requires an admin's review");
    await privileged.updateTeam({ id: teamA, requireReview: false });
  });

  it("a cookie-authenticated change needs the console's own Origin (CSRF), and logout ends the session at once", async () => {
    const cookie = await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD);
    const withCookie =
      (origin: string | null): Interceptor =>
      (next) =>
      (request) => {
        request.header.set("cookie", cookie);
        if (origin !== null) request.header.set("origin", origin);
        return next(request);
      };
    const create = (origin: string | null) =>
      code(
        accessClient(harness.baseUrl, [withCookie(origin)]).createTeam({
          name: `t-${origin?.length ?? 0}`,
        }),
      );
    expect(await create(null)).toBe("PermissionDenied");
    expect(await create("https://evil.example")).toBe("PermissionDenied");
    expect(await create(harness.baseUrl)).toBe("ok");
    // Reads carry no CSRF risk: no Origin needed.
    expect(await code(api([withCookie(null)]).listClusters({}))).toBe("ok");

    await accessClient(harness.baseUrl, [withCookie(harness.baseUrl)]).logout({});
    expect(await code(api([withCookie(null)]).listClusters({}))).toBe("Unauthenticated");
  });

  it("an expired session no longer authenticates", async () => {
    const cookie = await signIn(harness.baseUrl, "member-a", USER_PASSWORD);
    // The clock cannot be moved in another process: the stored expiry is.
    await harness.app.prisma.session.updateMany({
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await code(api([sessionOf(cookie, harness.baseUrl)]).listClusters({}))).toBe(
      "Unauthenticated",
    );
  });

  it("a revoked API token stops working on the very next call", async () => {
    const cookie = await signIn(harness.baseUrl, "admin", ADMIN_PASSWORD);
    const session = accessClient(harness.baseUrl, [sessionOf(cookie, harness.baseUrl)]);
    const { token, secret } = await session.createToken({
      name: "ci",
      scopes: ["config:read"],
      password: ADMIN_PASSWORD,
    });
    expect(await code(api([bearer(secret)]).listClusters({}))).toBe("ok");
    await session.revokeToken({ id: token?.id ?? "" });
    const refused = await api([bearer(secret)])
      .listClusters({})
      .catch((e) => ConnectError.from(e));
    expect((refused as ConnectError).code).toBe(Code.Unauthenticated);
    expect((refused as ConnectError).rawMessage).toContain("revoked");
  });

  it("ListUsers gives each account's latest successful sign-in, from the audit log, and none for an account that never signed in", async () => {
    const access = accessClient(harness.baseUrl, admin);
    await createAccount(harness.baseUrl, "never-in", Role.VIEWER);
    const before = Date.now();
    await signIn(harness.baseUrl, "member-a", USER_PASSWORD);
    const lastLogin = async (username: string) => {
      const user = (await access.listUsers({})).users.find((u) => u.username === username);
      return user?.lastLoginTime === undefined ? undefined : timestampDate(user.lastLoginTime);
    };
    const signedIn = await lastLogin("member-a");
    // The database's clock and this process's are the same machine's; allow a second of rounding.
    expect(signedIn?.getTime()).toBeGreaterThanOrEqual(before - 1_000);
    expect(await lastLogin("never-in")).toBeUndefined();
    // A failed attempt is not a sign-in.
    await expect(signIn(harness.baseUrl, "member-a", "not the password")).rejects.toThrow();
    expect(await lastLogin("member-a")).toEqual(signedIn);
  });

  it("the audit log records logins, logouts, config writes, publishes, rollbacks, token create/revoke/use, user and team changes, with the actor, address and diff; export needs an admin", async () => {
    await api(admin).rollback({ version: 1n });
    const events = (await accessClient(harness.baseUrl, admin).listAuditEvents({ pageSize: 1000 }))
      .events;
    const actions = new Set(events.map((e) => e.action));
    for (const action of [
      "login",
      "logout",
      "cluster.create",
      "cluster.update",
      "routeConfiguration.create",
      "routeConfiguration.update",
      "publish",
      "rollback",
      "token.create",
      "token.revoke",
      "token.use",
      "user.create",
      "team.create",
      "team.update",
    ])
      expect(actions, action).toContain(action);
    // Refused changes leave no trace of a change: only what committed is recorded.
    expect(
      events
        .filter((e) => e.action === "publish")
        .map((e) => e.actor)
        .sort(),
    ).toEqual(["admin", "member-a"]);
    const update = events.find((e) => e.action === "routeConfiguration.update");
    expect(update).toMatchObject({
      actor: "member-a",
      actorKind: "token",
      target: "routeConfiguration/shared-routes",
    });
    expect(update?.ip).toMatch(/127\.0\.0\.1/);
    expect(JSON.stringify(update?.detail)).toContain("/a2");

    const filtered = await accessClient(harness.baseUrl, admin).listAuditEvents({
      actor: "member-a",
      action: "publish",
    });
    expect(filtered.events).toHaveLength(1);

    const csv = await fetch(`${harness.baseUrl}/api/audit/export?format=csv&action=publish`, {
      headers: { authorization: `Bearer ${await harness.token()}` },
    });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split("\n")[0]).toBe("id,at,actor,actorKind,action,target,ip,detail");
    const asMember = await fetch(`${harness.baseUrl}/api/audit/export`, {
      headers: { authorization: `Bearer ${memberToken}` },
    });
    expect(asMember.status).toBe(403);
    expect((await fetch(`${harness.baseUrl}/api/audit/export`)).status).toBe(401);
  });
});
