import { RouteActionKind, RouteMatchKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { routeConfiguration } from "./config-fixtures";
import {
  matcherFormOf,
  matcherOfForm,
  newRoute,
  newVirtualHost,
  placeOwnershipRefusal,
  routeConfigFormOf,
  routeConfigFormSchema,
  routeConfigOfForm,
  routeOfForm,
  splitPercentages,
} from "./route-config-form";

describe("the route configuration form", () => {
  it("gives back the stored route configuration unchanged when nothing was edited", () => {
    const stored = routeConfiguration();
    expect(routeConfigOfForm(routeConfigFormOf(stored), stored)).toEqual(stored);
  });

  it("keeps on-demand virtual hosts (vhds) on and off through the form", () => {
    const stored = { ...routeConfiguration(), vhds: true };
    const form = routeConfigFormOf(stored);
    expect(form.vhds).toBe(true);
    expect(routeConfigOfForm(form, stored).vhds).toBe(true);
    expect(routeConfigOfForm({ ...form, vhds: false }, stored).vhds).toBe(false);
  });

  it('refuses a virtual host name with "/" only when on-demand virtual hosts are on, at that name', () => {
    const form = routeConfigFormOf(routeConfiguration());
    const named = {
      ...form,
      virtualHosts: form.virtualHosts.map((vh) => ({ ...vh, name: "shop/eu" })),
    };
    expect(routeConfigFormSchema.safeParse(named).success).toBe(true);
    const refused = routeConfigFormSchema.safeParse({ ...named, vhds: true });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => i.path.join("."))).toContain("virtualHosts.0.name");
  });

  it("gives back routes whose matcher or action is kept as Envoy JSON unchanged, and a weighted cluster's other fields", () => {
    const stored = routeConfiguration({
      virtualHosts: [
        {
          name: "api",
          domains: ["*"],
          routes: [
            {
              matchKind: RouteMatchKind.CONNECT,
              caseSensitive: true,
              actionKind: RouteActionKind.CLUSTER_HEADER,
              extra: { match: { connectMatcher: {} }, route: { clusterHeader: "x-cluster" } },
            },
            {
              matchKind: RouteMatchKind.PREFIX,
              matchValue: "/",
              caseSensitive: true,
              actionKind: RouteActionKind.WEIGHTED_CLUSTERS,
              weightedClusters: [
                { name: "a", weight: 1, extra: { hostRewriteLiteral: "a.internal" } },
                { name: "b", weight: 1 },
              ],
            },
          ],
        },
      ],
    });
    expect(routeConfigOfForm(routeConfigFormOf(stored), stored)).toEqual(stored);
  });

  it("writes the header of a cluster-header route where Envoy reads it, and drops it when the route goes to a cluster", () => {
    const route = { ...newRoute(""), actionKind: "CLUSTER_HEADER" as const, clusterHeader: "x-c" };
    expect(routeOfForm(route).extra).toEqual({ route: { clusterHeader: "x-c" } });
    const moved = {
      ...route,
      actionKind: "CLUSTER" as const,
      cluster: "a",
      extra: { route: { clusterHeader: "x-c" } },
    };
    expect(routeOfForm(moved).extra).toBeUndefined();
  });

  it("sends only the fields the chosen action uses", () => {
    const route = {
      ...newRoute("payments"),
      actionKind: "REDIRECT" as const,
      redirectHost: "example.com",
      timeoutMs: "100",
      weightedClusters: [{ name: "a", weight: "1", extra: undefined }],
    };
    const message = routeOfForm(route);
    expect(message.actionKind).toBe(RouteActionKind.REDIRECT);
    expect(message.cluster).toBeUndefined();
    expect(message.weightedClusters).toEqual([]);
    expect(message.timeoutMs).toBeUndefined();
    expect(message.redirect).toEqual({ hostRedirect: "example.com" });
  });

  it("keeps the parts of a redirect the form does not show", () => {
    const route = {
      ...newRoute(),
      actionKind: "REDIRECT" as const,
      redirectPath: "/new",
      redirectCode: "FOUND" as const,
      redirectBase: { stripQuery: true, pathRedirect: "/old" },
    };
    expect(routeOfForm(route).redirect).toEqual({
      stripQuery: true,
      pathRedirect: "/new",
      responseCode: "FOUND",
    });
  });

  it("writes a direct response as status and inline body", () => {
    const route = {
      ...newRoute(),
      actionKind: "DIRECT_RESPONSE" as const,
      directStatus: "503",
      directBody: "down",
    };
    expect(routeOfForm(route).directResponse).toEqual({
      status: 503,
      body: { inlineString: "down" },
    });
  });

  it("writes retries with a per-try timeout as a Duration", () => {
    const route = { ...newRoute("a"), retryOn: "5xx", numRetries: "2", perTryTimeoutMs: "1500" };
    expect(routeOfForm(route).retryPolicy).toEqual({
      retryOn: "5xx",
      numRetries: 2,
      perTryTimeout: "1.500s",
    });
  });

  it("reads header matchers old and new, and writes them back in stringMatch form", () => {
    expect(matcherFormOf({ name: "x-env", exactMatch: "canary" })).toMatchObject({
      kind: "exact",
      value: "canary",
    });
    const form = matcherFormOf({
      name: "x-env",
      stringMatch: { prefix: "can", ignoreCase: true },
      invertMatch: true,
    });
    expect(form).toMatchObject({ kind: "prefix", value: "can", invert: true });
    expect(matcherOfForm(form, true)).toEqual({
      name: "x-env",
      stringMatch: { ignoreCase: true, prefix: "can" },
      invertMatch: true,
    });
    expect(matcherOfForm({ ...form, kind: "present", value: "" }, true)).toEqual({
      name: "x-env",
      presentMatch: true,
      invertMatch: true,
    });
  });

  it("refuses a weighted split whose weights are all zero, and leaves a path without a leading / to the server, which warns", () => {
    const form = routeConfigFormOf(routeConfiguration());
    const route = form.virtualHosts[0]?.routes[0];
    if (!route) throw new Error("fixture has a route");
    Object.assign(route, {
      actionKind: "WEIGHTED_CLUSTERS",
      weightedClusters: [{ name: "a", weight: "0" }],
      matchKind: "PATH",
      matchValue: "v1",
    });
    const paths = routeConfigFormSchema.safeParse(form).error?.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(["virtualHosts.0.routes.0.weightedClusters"]);
    for (const matchValue of ["*", "v1"]) {
      Object.assign(route, { weightedClusters: [{ name: "a", weight: "1" }], matchValue });
      expect(routeConfigFormSchema.safeParse(form).success).toBe(true);
    }
  });
});

describe("splitPercentages", () => {
  it.each([
    [
      [1, 1, 1],
      [34, 33, 33],
    ],
    [
      [90, 10],
      [90, 10],
    ],
    [
      [0, 0],
      [0, 0],
    ],
    [
      [1, 2],
      [33, 67],
    ],
  ])("shares %j as %j, always summing to 100 (or all 0)", (weights, expected) => {
    expect(splitPercentages(weights)).toEqual(expected);
  });
});

describe("virtual host ownership in the form", () => {
  it("keeps each stored virtual host's owner team, marks new ones as not saved yet, and never sends it back", () => {
    const stored = routeConfiguration();
    const [api] = stored.virtualHosts;
    if (api) api.ownerTeam = "payments";
    const form = routeConfigFormOf(stored);
    expect(form.virtualHosts.map((vh) => vh.ownerTeam)).toEqual(["payments"]);
    expect(newVirtualHost("host-2", "*.shop.example.com")).toMatchObject({
      ownerTeam: undefined,
      domains: "*.shop.example.com",
    });
    const sent = routeConfigOfForm(form, stored);
    expect(sent.virtualHosts.map((vh) => vh.ownerTeam)).toEqual([""]);
  });

  // The server's wording: packages/server/src/auth/authorize.ts, routeConfigurationDecision.
  it("puts the server's refusal of a virtual host that is not the caller's at that virtual host's domains", () => {
    const form = routeConfigFormOf(routeConfiguration());
    form.virtualHosts.push(newVirtualHost("extra"));
    const refusal =
      "team shop does not own virtual host extra (domain *) in route configuration ingress; no team owns that domain (an admin assigns domains)";
    expect(placeOwnershipRefusal(refusal, form)).toEqual({
      field: "virtualHosts.1.domains",
      message: refusal,
    });
    const empty =
      "virtual host api in route configuration ingress has no domains, so no team owns it";
    expect(placeOwnershipRefusal(empty, form)?.field).toBe("virtualHosts.0.domains");
  });

  it("leaves a refusal for the whole form when it names no virtual host of the form, or the configuration's own fields", () => {
    const form = routeConfigFormOf(routeConfiguration());
    for (const message of [
      "team shop does not own virtual host gone (domain a.example.com) in route configuration ingress; team pay does (pattern *.example.com)",
      "the fields of route configuration ingress apply to all its virtual hosts, and team shop does not own virtual host api (domain api.example.com); no team owns that domain (an admin assigns domains)",
      "viewer vic has read-only access",
    ])
      expect(placeOwnershipRefusal(message, form), message).toBeUndefined();
  });
});
