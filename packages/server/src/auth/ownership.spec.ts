import { describe, expect, it } from "vitest";
import { edgeRoutes, ORDERS, OWNERSHIP, PAYMENTS, vhost } from "./fixtures.js";
import {
  domainOwner,
  normalizeDomainPattern,
  routeConfigurationChanges,
  unownedDomain,
  virtualHostOwner,
} from "./ownership.js";

const ownerOf = (domain: string) => domainOwner(domain, OWNERSHIP)?.teamName ?? null;

describe("domain ownership", () => {
  it("an exact pattern owns its host, case-insensitively and whatever the port", () => {
    expect(ownerOf("api.shop.example.com")).toBe("payments");
    expect(ownerOf("API.Shop.Example.com:8443")).toBe("payments");
  });

  it("the most specific pattern wins: exact over wildcard, longer wildcard over shorter", () => {
    expect(ownerOf("cart.shop.example.com")).toBe("orders");
    expect(ownerOf("api.shop.example.com")).toBe("payments");
    expect(ownerOf("a.b.shop.example.com")).toBe("orders");
  });

  it("a wildcard domain in a virtual host is owned by a wildcard pattern at or above it", () => {
    expect(ownerOf("*.shop.example.com")).toBe("orders");
    expect(ownerOf("*.eu.pay.example.com")).toBe("payments");
    expect(ownerOf("*-api.pay.example.com")).toBe("payments");
  });

  it("a wildcard pattern does not own its own apex, '*', prefix wildcards or broader wildcards", () => {
    expect(ownerOf("shop.example.com")).toBeNull();
    expect(ownerOf("*")).toBeNull();
    expect(ownerOf("shop.*")).toBeNull();
    expect(ownerOf("*.example.com")).toBeNull();
    expect(ownerOf("*example.com")).toBeNull();
  });

  it("patterns are an exact host or '*.' and a host, stored lower-case", () => {
    expect(normalizeDomainPattern(" API.Example.com ")).toBe("api.example.com");
    expect(normalizeDomainPattern("*.Example.com")).toBe("*.example.com");
    for (const bad of ["*", "example.*", "a.*.b", "", "-x.com", "*example.com", "a b.com"])
      expect(() => normalizeDomainPattern(bad), bad).toThrow(/neither a host name/);
  });
});

describe("virtualHostOwner", () => {
  const ownerOfHost = (domains: readonly string[]) =>
    virtualHostOwner({ domains }, OWNERSHIP)?.teamName ?? null;

  it("a virtual host belongs to the team owning every one of its domains", () => {
    expect(ownerOfHost(["api.shop.example.com", "eu.pay.example.com:443"])).toBe("payments");
    expect(ownerOfHost(["cart.shop.example.com"])).toBe("orders");
  });

  it("a virtual host with no domains, an unowned domain or domains of two teams belongs to none", () => {
    expect(ownerOfHost([])).toBeNull();
    expect(ownerOfHost(["api.shop.example.com", "*"])).toBeNull();
    expect(ownerOfHost(["api.shop.example.com", "cart.shop.example.com"])).toBeNull();
  });

  it("agrees with the write rule: a team owns the virtual host exactly when no domain is unowned by it", () => {
    for (const domains of [
      ["api.shop.example.com"],
      ["api.shop.example.com", "x.pay.example.com"],
      ["cart.shop.example.com", "api.shop.example.com"],
      ["other.example.com"],
    ])
      for (const teamId of [PAYMENTS.id, ORDERS.id]) {
        const owner = virtualHostOwner({ domains }, OWNERSHIP);
        expect(owner?.teamId === teamId, `${domains} / ${teamId}`).toBe(
          unownedDomain({ domains }, teamId, OWNERSHIP) === null,
        );
      }
  });
});

describe("routeConfigurationChanges", () => {
  it("lists virtual hosts added, removed and modified, by name, ignoring order", () => {
    const before = edgeRoutes([vhost("a"), vhost("b"), vhost("c")]);
    const after = edgeRoutes([vhost("d"), vhost("c", ["c", "c2"]), vhost("a")]);
    expect(routeConfigurationChanges(before, after)).toEqual({
      virtualHosts: [
        { name: "b", change: "removed", before: vhost("b"), after: null },
        { name: "c", change: "modified", before: vhost("c"), after: vhost("c", ["c", "c2"]) },
        { name: "d", change: "added", before: null, after: vhost("d") },
      ],
      ownFieldsChanged: false,
    });
  });

  it("a change of the route configuration's own fields is reported apart", () => {
    expect(
      routeConfigurationChanges(edgeRoutes(), edgeRoutes(undefined, { validateClusters: true })),
    ).toEqual({
      virtualHosts: [],
      ownFieldsChanged: true,
    });
  });

  it("turning on-demand virtual hosts (vhds) on or off is a change of the route configuration's own fields", () => {
    expect(routeConfigurationChanges(edgeRoutes(), { ...edgeRoutes(), vhds: true })).toEqual({
      virtualHosts: [],
      ownFieldsChanged: true,
    });
  });

  it("creation adds every virtual host; deletion removes every one", () => {
    expect(routeConfigurationChanges(null, edgeRoutes()).virtualHosts.map((c) => c.change)).toEqual(
      ["added", "added"],
    );
    expect(routeConfigurationChanges(edgeRoutes(), null).virtualHosts.map((c) => c.change)).toEqual(
      ["removed", "removed"],
    );
  });
});
