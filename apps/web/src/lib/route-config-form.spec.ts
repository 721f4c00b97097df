import { RouteActionKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { routeConfiguration } from "./config-fixtures";
import {
  matcherFormOf,
  matcherOfForm,
  newRoute,
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

  it("sends only the fields the chosen action uses", () => {
    const route = {
      ...newRoute("payments"),
      actionKind: "REDIRECT" as const,
      redirectHost: "example.com",
      timeoutMs: "100",
      weightedClusters: [{ name: "a", weight: "1" }],
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

  it("refuses a weighted split whose weights are all zero, and a path match without a leading /", () => {
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
    expect(paths).toEqual(
      expect.arrayContaining([
        "virtualHosts.0.routes.0.weightedClusters",
        "virtualHosts.0.routes.0.matchValue",
      ]),
    );
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
