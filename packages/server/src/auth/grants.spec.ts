import { REFERENCE_KINDS } from "@switchyard/snapshot";
import {
  clusterSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import {
  type Grants,
  grantsRevision,
  mayUse,
  referencesDecision,
  secretServing,
} from "./grants.js";

const SHOP = { id: "t-shop", name: "shop" };

function grants(
  overrides: Partial<Grants["owners"]> = {},
  shares: [string, string, string][] = [],
) {
  const owners: Grants["owners"] = {
    cluster: new Map([
      ["shop-web", "t-shop"],
      ["pay-api", "t-pay"],
      ["search", null],
    ]),
    secret: new Map([
      ["shop-ca", "t-shop"],
      ["edge-cert", null],
    ]),
    listener: new Map([["inner", null]]),
    routeConfiguration: new Map(),
    ...overrides,
  };
  const byKey = new Map<string, Set<string>>();
  for (const [kind, name, team] of shares) {
    const key = `${kind}\u0000${name}`;
    byKey.set(key, (byKey.get(key) ?? new Set()).add(team));
  }
  return {
    owners,
    shares: byKey,
    teamNames: new Map([
      ["t-pay", "pay"],
      ["t-shop", "shop"],
    ]),
  };
}

const routesTo = (...targets: string[]) =>
  routeConfigurationSpec("edge", "unused", {
    virtualHosts: [
      virtualHostSpec(
        "shop",
        ["www.shop.example.com"],
        targets.map((t) => routeSpec(t)),
      ),
    ],
  });

describe("what a team may name", () => {
  it("decides every kind of reference the table has: its own, or shared with it", () => {
    for (const kind of REFERENCE_KINDS) {
      const g = grants({ [kind]: new Map([["x", null]]) }, [[kind, "x", "t-shop"]]);
      expect(mayUse(g, "t-shop", kind, "x")).toBe(true);
      expect(mayUse(g, "t-pay", kind, "x")).toBe(false);
    }
  });

  it("lets a team's routes name its own clusters and those shared with it, and no other", () => {
    const write = (rc: ReturnType<typeof routesTo>) => [
      { kind: "routeConfiguration", name: "edge", before: null, after: rc },
    ];
    expect(referencesDecision(grants(), SHOP, write(routesTo("shop-web"))).t).toBe("allow");
    const admins = referencesDecision(grants(), SHOP, write(routesTo("shop-web", "search")));
    expect(admins).toEqual({
      t: "deny",
      message: expect.stringContaining(
        "names cluster search, which is an admin's and not shared with team shop",
      ),
    });
    const shared = grants({}, [["cluster", "search", "t-shop"]]);
    expect(referencesDecision(shared, SHOP, write(routesTo("search"))).t).toBe("allow");
    expect(referencesDecision(grants(), SHOP, write(routesTo("pay-api")))).toEqual({
      t: "deny",
      message: expect.stringContaining("which is team pay's"),
    });
  });

  it("counts a cluster the same writes create for the team as its own, and refuses one that does not exist", () => {
    const write = [
      { kind: "routeConfiguration", name: "edge", before: null, after: routesTo("new") },
    ];
    expect(referencesDecision(grants(), SHOP, write, new Map([["new", "t-shop"]])).t).toBe("allow");
    expect(referencesDecision(grants(), SHOP, write)).toEqual({
      t: "deny",
      message: expect.stringContaining("names cluster new, which does not exist"),
    });
  });

  it("judges only the virtual hosts a change touches: another team's unchanged one is its own affair", () => {
    const before = routeConfigurationSpec("edge", "unused", {
      virtualHosts: [
        virtualHostSpec("shop", ["www.shop.example.com"], [routeSpec("shop-web")]),
        virtualHostSpec("pay", ["www.pay.example.com"], [routeSpec("pay-api")]),
      ],
    });
    const after = {
      ...before,
      virtualHosts: [
        virtualHostSpec(
          "shop",
          ["www.shop.example.com"],
          [routeSpec("shop-web", { matchValue: "/v2" })],
        ),
        ...before.virtualHosts.slice(1),
      ],
    };
    const write = [{ kind: "routeConfiguration", name: "edge", before, after }];
    expect(referencesDecision(grants(), SHOP, write).t).toBe("allow");
  });

  it("refuses a cluster's secret and internal listener the team may not use, at the field", () => {
    const cluster = clusterSpec("shop-web", [endpointSpec("envoy://inner", 0)], {
      discoveryType: "STATIC",
      tlsSecretName: "shop-ca",
    });
    const write = [{ kind: "cluster", name: "shop-web", before: null, after: cluster }];
    expect(referencesDecision(grants(), SHOP, write)).toEqual({
      t: "deny",
      message: expect.stringContaining("names internal listener inner, which is an admin's"),
    });
    const shared = grants({}, [["listener", "inner", "t-shop"]]);
    expect(referencesDecision(shared, SHOP, write).t).toBe("allow");
    const certificate = [
      {
        kind: "cluster",
        name: "shop-web",
        before: null,
        after: clusterSpec("shop-web", [endpointSpec("10.0.0.1", 443)], {
          tlsSecretName: "edge-cert",
        }),
      },
    ];
    expect(referencesDecision(grants(), SHOP, certificate)).toEqual({
      t: "deny",
      message: expect.stringContaining(
        '(clusters["shop-web"].tlsSecretName) names secret edge-cert',
      ),
    });
  });

  it("serves a secret for an admin's object always, and for a team's cluster only when the team may use it", () => {
    const serve = secretServing(grants());
    expect(serve("edge-cert", { kind: "listener", name: "edge" })).toBe(true);
    expect(serve("edge-cert", { kind: "cluster", name: "search" })).toBe(true);
    expect(serve("edge-cert", { kind: "cluster", name: "shop-web" })).toBe(false);
    expect(serve("shop-ca", { kind: "cluster", name: "shop-web" })).toBe(true);
    expect(serve("shop-ca", { kind: "cluster", name: "pay-api" })).toBe(false);
  });
});

describe("grantsRevision", () => {
  it("is the same for the same grants read in another order", () => {
    const one = grants({}, [
      ["secret", "edge-cert", "t-shop"],
      ["secret", "edge-cert", "t-pay"],
    ]);
    const reversed = (map: ReadonlyMap<string, string | null>) => new Map([...map].reverse());
    const other = grants(
      {
        cluster: reversed(one.owners.cluster),
        secret: reversed(one.owners.secret),
      },
      [
        ["secret", "edge-cert", "t-pay"],
        ["secret", "edge-cert", "t-shop"],
      ],
    );
    expect(grantsRevision(other)).toBe(grantsRevision(one));
  });

  it("changes with a share, an owner or a team's name", () => {
    const base = grantsRevision(grants());
    expect(grantsRevision(grants({}, [["secret", "edge-cert", "t-shop"]]))).not.toBe(base);
    expect(grantsRevision(grants({ secret: new Map([["edge-cert", "t-shop"]]) }))).not.toBe(base);
    const renamed = { ...grants(), teamNames: new Map([["t-shop", "shoppe"]]) };
    expect(grantsRevision(renamed)).not.toBe(base);
  });
});
