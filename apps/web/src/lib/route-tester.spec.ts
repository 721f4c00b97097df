import { create } from "@bufbuild/protobuf";
import { DomainMatch, TestRouteResponseSchema } from "@switchyard/proto/switchyard/v1/routing_pb";
import { describe, expect, it } from "vitest";
import { answerSteps, routeTesterSchema, testRouteRequest, topologyPathHref } from "./route-tester";

const valid = {
  through: "listener:edge",
  host: "api.example.com",
  path: "/v2/orders",
  method: "GET",
  headers: "x-canary: 1\n\nx-user:alice",
  version: "0",
  nodeGroup: "",
};

describe("the Route tester's form and answer", () => {
  it("turns the form into the API's request: what it goes through, its headers one per line", () => {
    const values = routeTesterSchema.parse(valid);
    expect(testRouteRequest(values)).toEqual({
      listener: "edge",
      authority: "api.example.com",
      path: "/v2/orders",
      method: "GET",
      headers: [
        { name: "x-canary", value: "1" },
        { name: "x-user", value: "alice" },
      ],
      version: 0n,
      nodeGroup: "",
    });
    expect(
      testRouteRequest(routeTesterSchema.parse({ ...valid, through: "route-configuration:a:b" })),
    ).toMatchObject({ routeConfiguration: "a:b" });
  });

  it("says what is wrong with a request before asking: no target, no host, a path without /, a header line without a colon", () => {
    const result = routeTesterSchema.safeParse({
      ...valid,
      through: "",
      host: " ",
      path: "orders",
      headers: "x-canary 1",
    });
    expect(result.success).toBe(false);
    const messages = Object.fromEntries(
      (result.error?.issues ?? []).map((i) => [String(i.path[0]), i.message]),
    );
    expect(messages).toEqual({
      through: "Choose a listener or a route configuration.",
      host: "A host is required.",
      path: "A path starts with /.",
      headers: "Line 1: write a header as name: value.",
    });
  });

  it("lists Envoy's steps, and marks a 404 and a cluster the node group lacks as errors", () => {
    const routed = create(TestRouteResponseSchema, {
      routeConfiguration: "edge-routes",
      listener: "edge",
      matchedHost: "api.example.com",
      virtualHost: { index: 0, name: "api", domain: "api.example.com", how: DomainMatch.EXACT },
      verdict: {
        case: "routed",
        value: {
          route: {
            index: 1,
            name: "canary",
            matchKind: "prefix",
            matchValue: "/",
            caseSensitive: true,
            conditions: ['header x-canary exact "1"'],
          },
          outcome: { kind: { case: "cluster", value: "canary" } },
          forwarding: {
            pathRewrite: "none",
            hostRewrite: "none",
            timeoutMs: 15000,
            timeoutSource: "default",
          },
        },
      },
      clustersNotInGroup: ["canary"],
    });
    expect(answerSteps(routed).map((s) => [s.label, s.text, s.tone])).toEqual([
      ["Route configuration", "edge-routes (listener edge)", undefined],
      ["Virtual host", "api: host api.example.com matched exact domain api.example.com", undefined],
      ["Route", '#2 canary: prefix /, header x-canary exact "1"', undefined],
      ["Outcome", "Cluster canary", "accent"],
      ["Timeout", "15000 ms (Envoy's default)", undefined],
      ["Node group", "Its nodes do not receive cluster canary: Envoy answers 503", "danger"],
    ]);
    const lost = create(TestRouteResponseSchema, {
      routeConfiguration: "edge-routes",
      matchedHost: "nowhere.test",
      verdict: { case: "noVirtualHost", value: true },
    });
    expect(answerSteps(lost)[1]).toEqual({
      label: "Virtual host",
      text: "None serves host nowhere.test: Envoy answers 404",
      tone: "danger",
    });
  });

  it("links the Topology to the path taken: listener, route configuration, virtual host and every cluster of a split", () => {
    const split = create(TestRouteResponseSchema, {
      routeConfiguration: "edge-routes",
      listener: "edge",
      virtualHost: { index: 0, name: "api", domain: "*", how: DomainMatch.ANY },
      verdict: {
        case: "routed",
        value: {
          outcome: {
            kind: {
              case: "weightedClusters",
              value: { clusters: [{ name: "blue" }, { name: "green" }] },
            },
          },
        },
      },
    });
    expect(topologyPathHref(split)).toBe(
      "/topology?focus=listener:edge&path=listener:edge,route-configuration:edge-routes,virtual-host:edge-routes%2Fapi,cluster:blue,cluster:green",
    );
    const lost = create(TestRouteResponseSchema, { routeConfiguration: "edge-routes" });
    expect(topologyPathHref(lost)).toBeUndefined();
  });
});
