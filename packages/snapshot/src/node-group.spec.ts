import { describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import { configSpec, nodeGroupSpec } from "./fixtures.js";
import { selectNodeGroup } from "./node-group.js";

const groups = compile(
  configSpec({
    nodeGroups: [
      nodeGroupSpec("by-id", { priority: 1, nodeIds: ["envoy-1"] }),
      nodeGroupSpec("by-cluster", { priority: 2, nodeClusters: ["edge"] }),
      nodeGroupSpec("by-metadata", {
        priority: 3,
        nodeMetadata: { team: "payments", env: "prod" },
      }),
    ],
  }),
).groups;

const node = (id: string, cluster = "", metadata: Record<string, string> = {}) => ({
  id,
  cluster,
  metadata,
});

describe("selectNodeGroup", () => {
  it("selects a group by node id, node cluster or node metadata", () => {
    expect(selectNodeGroup(groups, node("envoy-1")).name).toBe("by-id");
    expect(selectNodeGroup(groups, node("envoy-2", "edge")).name).toBe("by-cluster");
    expect(
      selectNodeGroup(groups, node("envoy-3", "", { team: "payments", env: "prod" })).name,
    ).toBe("by-metadata");
  });

  it("requires every metadata key of a selector to match", () => {
    expect(selectNodeGroup(groups, node("envoy-3", "", { team: "payments" })).name).toBe("default");
  });

  it("prefers the group with the lower priority number when several match", () => {
    expect(selectNodeGroup(groups, node("envoy-1", "edge")).name).toBe("by-id");
  });

  it("puts a node no group claims into the default group", () => {
    expect(selectNodeGroup(groups, node("stranger")).name).toBe("default");
  });
});
