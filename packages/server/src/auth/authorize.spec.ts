/**
 * The cases of `authorize`, one rule set: a role matrix (role × action × owned or not), then
 * route configuration ownership, members and review, and API token scopes. Long because every
 * suite decides on the same principals, clusters, route changes and drafts defined at the top.
 */
import { describe, expect, it } from "vitest";
import {
  type Action,
  authorize,
  type DraftChange,
  freshAuthentication,
  REAUTH_WINDOW_MS,
  type Resource,
} from "./authorize.js";
import {
  edgeRoutes,
  ORDERS,
  OWNERSHIP,
  PAYMENTS,
  principal,
  T0,
  vhost,
  viaToken,
} from "./fixtures.js";
import type { Role } from "./principal.js";

const admin = principal("ADMIN");
const member = principal("MEMBER", { username: "alice" });
const viewer = principal("VIEWER");

const ownCluster: Resource = {
  kind: "cluster",
  name: "payments-api",
  change: "modified",
  ownerTeamId: PAYMENTS.id,
};
const otherCluster: Resource = {
  kind: "cluster",
  name: "orders-api",
  change: "modified",
  ownerTeamId: ORDERS.id,
};
const unownedCluster: Resource = {
  kind: "cluster",
  name: "legacy",
  change: "modified",
  ownerTeamId: null,
};

/** edge-routes with payments' virtual host given another route. */
const ownRouteChange: Resource = {
  kind: "routeConfiguration",
  name: "edge-routes",
  before: edgeRoutes(),
  after: edgeRoutes([
    vhost("api.shop.example.com", undefined, "payments-v2"),
    vhost("orders.shop.example.com"),
  ]),
  ownership: OWNERSHIP,
};
/** edge-routes with orders' virtual host given another route. */
const otherRouteChange: Resource = {
  ...ownRouteChange,
  after: edgeRoutes([
    vhost("api.shop.example.com"),
    vhost("orders.shop.example.com", undefined, "x"),
  ]),
};
const draft = (changes: readonly DraftChange[]): Resource => ({
  kind: "draft",
  changes,
  ownership: OWNERSHIP,
});
const ownDraft = draft([ownCluster as DraftChange, ownRouteChange as DraftChange]);
const mixedDraft = draft([ownCluster as DraftChange, otherCluster as DraftChange]);

type Expect = "allow" | "deny" | "review";
interface Case {
  readonly rule: string;
  readonly action: Action;
  readonly resource: Resource;
  readonly admin: Expect;
  readonly member: Expect;
  readonly viewer: Expect;
}

/** Role × action × owned / not owned. */
const MATRIX: readonly Case[] = [
  {
    rule: "everyone reads the configuration",
    action: "read",
    resource: { kind: "config" },
    admin: "allow",
    member: "allow",
    viewer: "allow",
  },
  {
    rule: "everyone reads node status",
    action: "read",
    resource: { kind: "status" },
    admin: "allow",
    member: "allow",
    viewer: "allow",
  },
  {
    rule: "everyone reads teams and their domains",
    action: "read",
    resource: { kind: "team" },
    admin: "allow",
    member: "allow",
    viewer: "allow",
  },
  {
    rule: "only admins read the audit log",
    action: "read",
    resource: { kind: "audit" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "only admins list accounts",
    action: "read",
    resource: { kind: "user", userId: null },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a cluster their team owns is written by admins and its members",
    action: "write",
    resource: ownCluster,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "another team's cluster is written by admins only",
    action: "write",
    resource: otherCluster,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a cluster no team owns is written by admins only",
    action: "write",
    resource: unownedCluster,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a member creates a cluster owned by their team",
    action: "write",
    resource: { ...ownCluster, change: "added" } as Resource,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "a member cannot create a cluster owned by nobody",
    action: "write",
    resource: { ...unownedCluster, change: "added" } as Resource,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a member deletes a cluster their team owns",
    action: "write",
    resource: { ...ownCluster, change: "removed" } as Resource,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "changing only their team's virtual host is allowed to its members",
    action: "write",
    resource: ownRouteChange,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "changing another team's virtual host in a shared route configuration is admins' only",
    action: "write",
    resource: otherRouteChange,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "listeners are written by admins only",
    action: "write",
    resource: { kind: "listener", name: "public", change: "modified" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "node groups are written by admins only",
    action: "write",
    resource: { kind: "nodeGroup", name: "edge", change: "added" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "runtime layers reach every node group, so are written by admins only",
    action: "write",
    resource: { kind: "runtimeLayer", name: "faults", change: "modified" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "secrets hold private keys, so are written by admins only",
    action: "write",
    resource: { kind: "secret", name: "edge-cert", change: "modified" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a draft of only their team's changes is published by its members",
    action: "publish",
    resource: ownDraft,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "a draft holding another team's change is published by admins only",
    action: "publish",
    resource: mixedDraft,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "a rollback touching only their team's objects is allowed to its members",
    action: "rollback",
    resource: ownDraft,
    admin: "allow",
    member: "allow",
    viewer: "deny",
  },
  {
    rule: "a rollback touching another team's objects is admins' only",
    action: "rollback",
    resource: mixedDraft,
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "teams are managed by admins only",
    action: "manage",
    resource: { kind: "team" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "ownership is assigned by admins only",
    action: "manage",
    resource: { kind: "ownership" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "accounts are created by admins only",
    action: "manage",
    resource: { kind: "user", userId: null },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
  {
    rule: "another user's tokens are revoked by admins only",
    action: "manage",
    resource: { kind: "token", ownerUserId: "user-someone" },
    admin: "allow",
    member: "deny",
    viewer: "deny",
  },
];

describe("authorize: the role matrix", () => {
  const roles: readonly [Role, (c: Case) => Expect][] = [
    ["ADMIN", (c) => c.admin],
    ["MEMBER", (c) => c.member],
    ["VIEWER", (c) => c.viewer],
  ];
  const who = { ADMIN: admin, MEMBER: member, VIEWER: viewer };
  for (const c of MATRIX)
    for (const [role, expected] of roles)
      it(`${c.rule}: ${role.toLowerCase()} ${c.action} ${c.resource.kind} → ${expected(c)}`, () => {
        const decision = authorize(who[role], c.action, c.resource);
        expect(decision.t).toBe(expected(c));
        if (decision.t !== "allow") expect(decision.message).not.toBe("");
      });
});

describe("authorize: route configuration ownership", () => {
  const change = (
    before: ReturnType<typeof edgeRoutes> | null,
    after: ReturnType<typeof edgeRoutes> | null,
  ): Resource => ({
    kind: "routeConfiguration",
    name: "edge-routes",
    before,
    after,
    ownership: OWNERSHIP,
  });

  it("the denial names the team, the virtual host, its domain, the route configuration and the owner", () => {
    const decision = authorize(principal("MEMBER", { team: ORDERS }), "write", ownRouteChange);
    expect(decision).toEqual({
      t: "deny",
      message:
        "team orders does not own virtual host api.shop.example.com (domain api.shop.example.com) " +
        "in route configuration edge-routes; team payments does (pattern api.shop.example.com)",
    });
  });

  it("an exact pattern beats a wildcard of another team: payments owns api.shop.example.com under orders' *.shop.example.com", () => {
    expect(authorize(member, "write", ownRouteChange).t).toBe("allow");
    expect(authorize(principal("MEMBER", { team: ORDERS }), "write", otherRouteChange).t).toBe(
      "allow",
    );
  });

  it("adding a virtual host is allowed only when the team owns every one of its domains", () => {
    const base = edgeRoutes();
    const add = (domains: string[]) =>
      change(base, edgeRoutes([...base.virtualHosts, vhost("new", domains)]));
    expect(authorize(member, "write", add(["checkout.pay.example.com"])).t).toBe("allow");
    expect(
      authorize(member, "write", add(["checkout.pay.example.com:443", "*.eu.pay.example.com"])).t,
    ).toBe("allow");
    expect(
      authorize(member, "write", add(["checkout.pay.example.com", "cart.shop.example.com"])).t,
    ).toBe("deny");
    expect(authorize(member, "write", add(["*"])).t).toBe("deny");
    expect(authorize(member, "write", add(["pay.example.com"])).t).toBe("deny");
    expect(authorize(member, "write", add([])).t).toBe("deny");
  });

  it("moving their virtual host onto another team's domain is denied (the new version must be theirs too)", () => {
    const after = edgeRoutes([
      vhost("api.shop.example.com", ["api.shop.example.com", "cart.shop.example.com"]),
      vhost("orders.shop.example.com"),
    ]);
    const decision = authorize(member, "write", change(edgeRoutes(), after));
    expect(decision.t).toBe("deny");
    expect(decision.t === "deny" && decision.message).toContain("(domain cart.shop.example.com)");
  });

  it("taking over another team's virtual host by giving it their own domain is denied (the old version must be theirs too)", () => {
    const after = edgeRoutes([
      vhost("api.shop.example.com"),
      vhost("orders.shop.example.com", ["x.pay.example.com"]),
    ]);
    expect(authorize(member, "write", change(edgeRoutes(), after)).t).toBe("deny");
  });

  it("removing another team's virtual host is denied; removing their own is allowed", () => {
    const ours = vhost("api.shop.example.com");
    const theirs = vhost("orders.shop.example.com");
    expect(authorize(member, "write", change(edgeRoutes(), edgeRoutes([theirs]))).t).toBe("allow");
    expect(authorize(member, "write", change(edgeRoutes(), edgeRoutes([ours]))).t).toBe("deny");
  });

  it("reordering virtual hosts is not a change", () => {
    const ours = vhost("api.shop.example.com");
    const theirs = vhost("orders.shop.example.com");
    expect(authorize(member, "write", change(edgeRoutes(), edgeRoutes([theirs, ours]))).t).toBe(
      "allow",
    );
  });

  it("the route configuration's own fields apply to every virtual host: a member changes them only when owning all", () => {
    const shared = change(edgeRoutes(), edgeRoutes(undefined, { validateClusters: true }));
    expect(authorize(member, "write", shared).t).toBe("deny");
    const solo = edgeRoutes([vhost("api.shop.example.com")]);
    expect(
      authorize(member, "write", change(solo, { ...solo, extra: { validateClusters: true } })).t,
    ).toBe("allow");
  });

  it("creating or deleting a whole route configuration is allowed when every virtual host in it is theirs", () => {
    const solo = edgeRoutes([vhost("api.shop.example.com"), vhost("www", ["www.pay.example.com"])]);
    expect(authorize(member, "write", change(null, solo)).t).toBe("allow");
    expect(authorize(member, "write", change(solo, null)).t).toBe("allow");
    expect(authorize(member, "write", change(null, edgeRoutes())).t).toBe("deny");
    expect(authorize(member, "write", change(edgeRoutes(), null)).t).toBe("deny");
  });
});

describe("authorize: members, teams and review", () => {
  it("a member of no team changes nothing", () => {
    const decision = authorize(principal("MEMBER", { team: null }), "write", ownCluster);
    expect(decision.t).toBe("deny");
    expect(decision.t === "deny" && decision.message).toContain("belongs to no team");
  });

  it("a member whose team requires review gets a review decision for publish and rollback", () => {
    const reviewed = principal("MEMBER", { team: { ...PAYMENTS, requireReview: true } });
    expect(authorize(reviewed, "publish", ownDraft)).toEqual({
      t: "review",
      message:
        "team payments requires an admin's review before changes go out: request one (switchyard review request, or Request review on the Changes page)",
    });
    expect(authorize(reviewed, "rollback", ownDraft)).toEqual({
      t: "review",
      message:
        "team payments requires an admin's review before changes go out: ask an admin to roll back",
    });
    expect(authorize(reviewed, "publish", mixedDraft).t).toBe("deny");
  });

  it("a draft holding a listener change is published by admins only", () => {
    const decision = authorize(
      member,
      "publish",
      draft([{ kind: "listener", name: "public", change: "modified" }]),
    );
    expect(decision).toEqual({
      t: "deny",
      message:
        "the draft includes a change that is not yours: listener public can only be changed by an admin",
    });
  });

  it("an empty draft is published by a member", () => {
    expect(authorize(member, "publish", draft([])).t).toBe("allow");
  });

  it("everyone reads their own account and manages it in the console", () => {
    for (const who of [admin, member, viewer]) {
      expect(authorize(who, "read", { kind: "user", userId: who.userId }).t).toBe("allow");
      expect(authorize(who, "manage", { kind: "user", userId: who.userId }).t).toBe("allow");
      expect(authorize(who, "manage", { kind: "token", ownerUserId: who.userId }).t).toBe("allow");
    }
  });
});

describe("authorize: API token scopes narrow the user", () => {
  it("a token with config:read reads but does not write, even for an admin", () => {
    const token = viaToken(admin, ["config:read"]);
    expect(authorize(token, "read", { kind: "config" }).t).toBe("allow");
    expect(authorize(token, "write", ownCluster)).toEqual({
      t: "deny",
      message:
        "API token ci of admin lacks scope config:write (it has config:read); create a token with it",
    });
  });

  it("a token never exceeds its user: a viewer's config:write token still cannot write", () => {
    expect(authorize(viaToken(viewer, ["config:write"]), "write", ownCluster).t).toBe("deny");
  });

  it("publish needs the publish scope; status needs status:read; the audit log needs admin", () => {
    expect(authorize(viaToken(member, ["config:write"]), "publish", ownDraft).t).toBe("deny");
    expect(authorize(viaToken(member, ["publish"]), "publish", ownDraft).t).toBe("allow");
    expect(authorize(viaToken(member, ["config:read"]), "read", { kind: "status" }).t).toBe("deny");
    expect(authorize(viaToken(member, ["status:read"]), "read", { kind: "status" }).t).toBe(
      "allow",
    );
    expect(authorize(viaToken(admin, ["config:read"]), "read", { kind: "audit" }).t).toBe("deny");
    expect(authorize(viaToken(admin, ["admin"]), "read", { kind: "audit" }).t).toBe("allow");
  });

  it("a token cannot create or revoke tokens, or change its user's account, whatever its scopes", () => {
    const token = viaToken(admin, [
      "admin",
      "config:read",
      "config:write",
      "publish",
      "status:read",
    ]);
    expect(authorize(token, "manage", { kind: "token", ownerUserId: admin.userId }).t).toBe("deny");
    expect(authorize(token, "manage", { kind: "user", userId: admin.userId }).t).toBe("deny");
    expect(authorize(token, "manage", { kind: "team" }).t).toBe("allow");
  });

  it("any token reads its own user and tokens (whoami)", () => {
    const token = viaToken(member, ["status:read"]);
    expect(authorize(token, "read", { kind: "user", userId: member.userId }).t).toBe("allow");
    expect(authorize(token, "read", { kind: "token", ownerUserId: member.userId }).t).toBe("allow");
  });
});

describe("freshAuthentication: privileged actions need a password entered within the window", () => {
  // `admin` signed in (entered the password) at T0.
  const after = (ms: number) => new Date(T0 + ms);

  it("a session whose password was entered less than 5 minutes ago may", () => {
    expect(REAUTH_WINDOW_MS).toBe(5 * 60_000);
    expect(freshAuthentication(admin, "create accounts", after(0)).t).toBe("allow");
    expect(freshAuthentication(admin, "create accounts", after(REAUTH_WINDOW_MS - 1)).t).toBe(
      "allow",
    );
  });

  it("from 5 minutes on, the session is asked to re-enter the password, saying how", () => {
    const decision = freshAuthentication(admin, "create accounts", after(REAUTH_WINDOW_MS));
    expect(decision).toEqual({
      t: "reauthenticate",
      message:
        "re-enter your password: to create accounts, it must have been entered in the last 5 " +
        "minutes (it was 5 minutes ago); the console asks for it, the switchyard command asks " +
        "(or reads SWITCHYARD_PASSWORD), and the API takes it with AccessService.Reauthenticate",
    });
    expect(freshAuthentication(admin, "create accounts", after(11 * 3_600_000)).t).toBe(
      "reauthenticate",
    );
  });

  it("the window is the one given", () => {
    expect(freshAuthentication(admin, "create accounts", after(60_000), 30_000).t).toBe(
      "reauthenticate",
    );
    expect(freshAuthentication(admin, "create accounts", after(20_000), 30_000).t).toBe("allow");
  });

  it("an API token never may, whatever its scopes and however recent its user's sign-in", () => {
    const token = viaToken(admin, ["admin", "config:read", "config:write", "publish"]);
    const decision = freshAuthentication(token, "create accounts", after(0));
    expect(decision.t).toBe("deny");
    expect(decision.t === "deny" && decision.message).toMatch(
      /^an API token cannot create accounts: that needs a person's password/,
    );
  });
});
