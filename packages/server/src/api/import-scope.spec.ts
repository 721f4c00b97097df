import {
  clusterSpec,
  endpointSpec,
  filterChainSpec,
  routeConfigurationSpec,
  socketListenerSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { importScopeProblem } from "./import-scope.js";

const empty = {
  clusters: [],
  listeners: [],
  routeConfigurations: [],
  runtimeLayers: [],
  secrets: [],
};
const cluster = clusterSpec("api", [endpointSpec("10.0.0.1", 80)]);
const inline = socketListenerSpec("edge", 80, "", {
  filterChains: [filterChainSpec({ inlineRouteConfigName: "edge-routes" })],
});

describe("an import scoped to one object", () => {
  it("takes exactly that object", () => {
    expect(importScopeProblem({ ...empty, clusters: [cluster] }, "cluster", "api")).toBeUndefined();
  });

  it("takes a listener with the route configurations it embeds", () => {
    const fragment = {
      ...empty,
      listeners: [inline],
      routeConfigurations: [routeConfigurationSpec("edge-routes", "api")],
    };
    expect(importScopeProblem(fragment, "listener", "edge")).toBeUndefined();
  });

  it.each([
    [
      "a renamed object",
      { ...empty, clusters: [clusterSpec("api2", [])] },
      'the document holds cluster "api2", not cluster "api": an object\'s name cannot change here',
    ],
    [
      "another object besides it",
      { ...empty, clusters: [cluster], routeConfigurations: [routeConfigurationSpec("r", "api")] },
      'the document holds route configuration "r" besides cluster "api": this edits cluster "api" only',
    ],
    ["nothing", empty, 'the document holds no cluster "api"'],
  ])("refuses %s, saying what it holds", (_, fragment, problem) => {
    expect(importScopeProblem(fragment, "cluster", "api")).toBe(problem);
  });
});
