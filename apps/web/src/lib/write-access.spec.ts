import { describe, expect, it } from "vitest";
import { type Writer, writeAccess } from "./write-access";

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
  });

  it("a member is offered route configurations (the server decides per virtual host), unless in no team", () => {
    expect(writeAccess(shop, "route configuration", "edge-routes").t).toBe("allowed");
    expect(writeAccess({ role: "member" }, "route configuration").t).toBe("denied");
  });
});
