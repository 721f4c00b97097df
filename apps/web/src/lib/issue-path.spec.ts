import { describe, expect, it } from "vitest";
import { clusterFieldMap } from "./cluster-form";
import { fieldForIssue, parseIssuePath, placeIssues } from "./issue-path";
import { listenerFieldMap } from "./listener-form";
import { routeConfigFieldMap } from "./route-config-form";

const routeValues = {
  name: "ingress",
  virtualHosts: [
    { name: "web", routes: [{}] },
    { name: "api", routes: [{}, {}, {}] },
  ],
};

describe("parseIssuePath", () => {
  it("splits fields, indexes and quoted names", () => {
    expect(parseIssuePath('clusters["a \\"b\\""].localities[0].port')).toEqual([
      { t: "field", name: "clusters" },
      { t: "key", key: 'a "b"' },
      { t: "field", name: "localities" },
      { t: "index", index: 0 },
      { t: "field", name: "port" },
    ]);
  });

  it("refuses text that is not a model path", () => {
    expect(parseIssuePath("resources[1].lb_policy oops")).toBeUndefined();
    expect(parseIssuePath('clusters["unterminated].x')).toBeUndefined();
  });
});

describe("fieldForIssue", () => {
  it.each([
    ['clusters["x"].localities[0].endpoints[1].port', "localities.0.endpoints.1.port"],
    ['clusters["x"].localities[2].endpoints[0].address', "localities.2.endpoints.0.address"],
    ['clusters["x"].connectTimeoutMs', "connectTimeoutMs"],
    ['clusters["x"].name', "name"],
    ['clusters["x"]', "name"],
    ['clusters["x"].healthChecks[0].timeout', "healthChecks"],
    ['clusters["x"].outlierDetection.interval', "ejectionIntervalMs"],
    ['clusters["x"].localities', "localities"],
  ])("puts the cluster issue at %s on field %s", (path, field) => {
    expect(fieldForIssue(path, {}, clusterFieldMap)).toBe(field);
  });

  it("leaves issues inside fields the form does not edit for the summary", () => {
    expect(
      fieldForIssue('clusters["x"].extra.perConnectionBufferLimitBytes', {}, clusterFieldMap),
    ).toBeUndefined();
    expect(fieldForIssue("resources[1].lb_policy", {}, clusterFieldMap)).toBeUndefined();
  });

  it("finds a virtual host named in the path by its position among the submitted rows", () => {
    expect(
      fieldForIssue(
        'routeConfigurations["ingress"].virtualHosts["api"].routes[2].cluster',
        routeValues,
        routeConfigFieldMap,
      ),
    ).toBe("virtualHosts.1.routes.2.cluster");
    expect(
      fieldForIssue(
        'routeConfigurations["ingress"].virtualHosts["api"].domains[1]',
        routeValues,
        routeConfigFieldMap,
      ),
    ).toBe("virtualHosts.1.domains");
  });

  it("maps action fields the form splits up", () => {
    const at = (tail: string) =>
      fieldForIssue(
        `routeConfigurations["ingress"].virtualHosts["web"].routes[0]${tail}`,
        routeValues,
        routeConfigFieldMap,
      );
    expect(at(".directResponse.status")).toBe("virtualHosts.0.routes.0.directStatus");
    expect(at(".weightedClusters[1].weight")).toBe(
      "virtualHosts.0.routes.0.weightedClusters.1.weight",
    );
    expect(at(".weightedClusters")).toBe("virtualHosts.0.routes.0.weightedClusters");
    expect(at(".headers[0].stringMatch")).toBe("virtualHosts.0.routes.0.headers");
  });

  it("returns nothing for a virtual host that is not in the form", () => {
    expect(
      fieldForIssue(
        'routeConfigurations["ingress"].virtualHosts["gone"].domains',
        routeValues,
        routeConfigFieldMap,
      ),
    ).toBeUndefined();
  });

  it("puts either route specifier of a filter chain at the one route configuration field", () => {
    expect(
      fieldForIssue('listeners["l"].filterChains[0].rdsRouteConfigName', {}, listenerFieldMap),
    ).toBe("filterChains.0.routeConfigName");
    expect(
      fieldForIssue('listeners["l"].filterChains[0].inlineRouteConfigName', {}, listenerFieldMap),
    ).toBe("filterChains.0.routeConfigName");
  });
});

describe("placeIssues", () => {
  it("groups issues by field and keeps the rest for the summary", () => {
    const issue = (path: string) => ({ path, code: "c", message: path, hint: "" });
    const placed = placeIssues(
      [
        issue('clusters["x"].localities[0].endpoints[0].port'),
        issue('clusters["x"].localities[0].endpoints[0].port'),
        issue('clusters["x"].extra.foo'),
        issue(""),
      ],
      {},
      clusterFieldMap,
    );
    expect([...placed.byField.keys()]).toEqual(["localities.0.endpoints.0.port"]);
    expect(placed.byField.get("localities.0.endpoints.0.port")).toHaveLength(2);
    expect(placed.unplaced.map((i) => i.path)).toEqual(['clusters["x"].extra.foo', ""]);
  });
});
