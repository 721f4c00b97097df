import { describe, expect, it } from "vitest";
import {
  routeConfigDeleteAccess,
  virtualHostAccess,
  type Writer,
  writeAccess,
} from "./write-access";

const shop: Writer = { role: "member", team: { name: "shop", clusters: ["shop-backend"] } };

describe("what the console offers to change", () => {
  it("an admin is offered everything", () => {
    for (const kind of ["cluster", "route configuration", "listener", "node group"] as const)
      expect(writeAccess({ role: "admin" }, kind, "x").t).toBe("allowed");
  });

  it("a viewer is offered nothing, and told why", () => {
    const access = writeAccess({ role: "viewer" }, "cluster");
    expect(access).toEqual({
      t: "denied",
      reason: "You have read-only access (viewer): an admin or a team member changes this.",
    });
  });

  it("until the role is known the answer is unknown, neither allowed nor denied", () => {
    expect(writeAccess({ role: undefined }, "cluster").t).toBe("unknown");
  });

  it("a member is offered their team's clusters and new ones, not another team's", () => {
    expect(writeAccess(shop, "cluster", "shop-backend").t).toBe("allowed");
    expect(writeAccess(shop, "cluster").t).toBe("allowed");
    expect(writeAccess(shop, "cluster", "payments")).toEqual({
      t: "denied",
      reason: "Cluster “payments” is not owned by team shop: an admin assigns clusters to teams.",
    });
  });

  it("a member is never offered listeners, node groups or runtime layers", () => {
    expect(writeAccess(shop, "listener").t).toBe("denied");
    expect(writeAccess(shop, "node group", "edge").t).toBe("denied");
    expect(writeAccess(shop, "runtime layer", "faults").t).toBe("denied");
    expect(writeAccess(shop, "secret", "edge-cert").t).toBe("denied");
  });

  it("a member is offered route configurations (the server decides per virtual host), unless in no team", () => {
    expect(writeAccess(shop, "route configuration", "edge-routes").t).toBe("allowed");
    expect(writeAccess({ role: "member" }, "route configuration").t).toBe("denied");
  });

  it("a member changes their team's virtual hosts and new ones; another team's, or one no team owns, is read-only with the reason", () => {
    expect(virtualHostAccess(shop, "www", "shop").t).toBe("allowed");
    expect(virtualHostAccess(shop, "host-2", undefined).t).toBe("allowed");
    expect(virtualHostAccess(shop, "pay", "payments")).toEqual({
      t: "denied",
      reason: "Virtual host “pay” is owned by team payments: its members or an admin change it.",
    });
    expect(virtualHostAccess(shop, "any", "")).toEqual({
      t: "denied",
      reason:
        "Virtual host “any” is owned by no team (no one team’s domain patterns cover all its domains): an admin assigns domains.",
    });
  });

  it("an admin changes every virtual host, a viewer none, and until the role is known nothing is decided", () => {
    for (const owner of ["shop", "payments", "", undefined])
      expect(virtualHostAccess({ role: "admin" }, "vh", owner).t).toBe("allowed");
    expect(virtualHostAccess({ role: "viewer" }, "vh", "").t).toBe("denied");
    expect(virtualHostAccess({ role: undefined }, "vh", "payments").t).toBe("unknown");
  });

  it("a member deletes a route configuration only when every virtual host in it is their team's", () => {
    const hosts = (...owners: string[]) =>
      owners.map((ownerTeam, i) => ({ name: `vh${i}`, ownerTeam }));
    expect(routeConfigDeleteAccess(shop, hosts("shop", "shop")).t).toBe("allowed");
    expect(routeConfigDeleteAccess(shop, hosts("shop", "payments"))).toEqual(
      virtualHostAccess(shop, "vh1", "payments"),
    );
    expect(routeConfigDeleteAccess({ role: "admin" }, hosts("payments", "")).t).toBe("allowed");
  });
});
