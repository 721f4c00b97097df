import { describe, expect, it } from "vitest";
import { issuesAbout } from "./issue-objects.js";

const issue = (path: string, message = "") => ({ path, message });

describe("issuesAbout", () => {
  it("keeps the issues in an object or naming it, and those about the whole configuration, and no other", () => {
    const issues = [
      issue('listeners["edge"].filterChains[0].rdsRouteConfigName', "dangling"),
      issue(
        'listeners["edge-2"].port',
        'listener "edge-2" listens on 0.0.0.0:80, as listener "edge" does',
      ),
      issue('listeners["pg"].filterChains[0].networkFilters[0].typedConfig', "no schema"),
      issue(
        'routeConfigurations["r"].virtualHosts["v"].routes[0].cluster',
        'route 1 sends traffic to cluster "gone"',
      ),
      issue("", "the whole configuration"),
    ];
    expect(issuesAbout(issues, [{ kind: "listener", name: "edge" }]).map((i) => i.path)).toEqual([
      'listeners["edge"].filterChains[0].rdsRouteConfigName',
      'listeners["edge-2"].port',
      "",
    ]);
    expect(issuesAbout(issues, [{ kind: "cluster", name: "gone" }]).map((i) => i.path)).toEqual([
      'routeConfigurations["r"].virtualHosts["v"].routes[0].cluster',
      "",
    ]);
    expect(issuesAbout(issues, [])).toEqual([issue("", "the whole configuration")]);
  });
});
