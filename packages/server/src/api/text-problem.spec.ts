import { create } from "@bufbuild/protobuf";
import { ClusterSchema, NodeGroupSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { textProblem, valueTextProblem } from "./text-problem.js";

const NUL = "holds the character U+0000 (NUL) at position 1, which cannot be stored: remove it";

describe("textProblem", () => {
  it("a message without U+0000 has no problem", () => {
    expect(textProblem(ClusterSchema, create(ClusterSchema, { name: "payments" }))).toBeUndefined();
  });

  it("U+0000 deep in a list is named by its path, in proto field names", () => {
    const cluster = create(ClusterSchema, {
      name: "payments",
      localities: [{ endpoints: [] }, { endpoints: [{ address: "1\u0000" }] }],
    });
    expect(textProblem(ClusterSchema, cluster)).toEqual({
      path: "Cluster.localities[1].endpoints[0].address",
      reason: NUL,
    });
  });

  it("U+0000 in a map key, a map value and a Struct is found", () => {
    const key = create(NodeGroupSchema, { name: "g", nodeMetadata: { "k\u0000": "v" } });
    expect(textProblem(NodeGroupSchema, key)?.path).toBe("NodeGroup.node_metadata (a key)");
    const value = create(NodeGroupSchema, { name: "g", nodeMetadata: { k: "v\u0000" } });
    expect(textProblem(NodeGroupSchema, value)?.path).toBe('NodeGroup.node_metadata["k"]');
    const extra = create(ClusterSchema, { name: "c", extra: { tags: ["ok", "a\u0000"] } });
    expect(textProblem(ClusterSchema, extra)?.path).toMatch(/^Cluster\.extra\.fields\["tags"\]/);
  });
});

describe("valueTextProblem", () => {
  it("finds U+0000 in a plain value, keys included, with its path", () => {
    expect(valueTextProblem({ clusters: [{ name: "ok" }, { name: "a\u0000" }] }, "config")).toEqual(
      {
        path: "config.clusters[1].name",
        reason: NUL,
      },
    );
    expect(valueTextProblem({ "a\u0000": 1 }, "config")?.path).toBe("config (a key)");
    expect(valueTextProblem({ clusters: [{ name: "ok" }] }, "config")).toBeUndefined();
  });
});
