import { create } from "@bufbuild/protobuf";
import {
  ChangeType,
  ObjectChangeSchema,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  HeldResourcesSchema,
  NodeConvergenceSchema,
  TypeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import { compareHeld } from "./held-vs-intended";
import { TYPE } from "./node-fixtures";

const held = (typeUrl: string, resources: Record<string, string>) =>
  create(HeldResourcesSchema, { typeUrl, resources, versionsKnown: true });
const node = (states: Record<string, TypeConvergenceState>) =>
  create(NodeConvergenceSchema, {
    nodeId: "n",
    types: Object.entries(states).map(([typeUrl, state]) => ({ typeUrl, state })),
  });
const change = (kind: ResourceKind, name: string, c: ChangeType) =>
  create(ObjectChangeSchema, { kind, name, change: c });

const rows = (result: ReturnType<typeof compareHeld>, typeUrl: string) =>
  result.find((t) => t.typeUrl === typeUrl)?.rows.map((r) => [r.name, r.verdict]);

describe("compareHeld", () => {
  it("marks every held resource current when the type is in sync with the latest version", () => {
    const result = compareHeld(
      [held(TYPE.CDS, { blue: "v1", green: "v1" })],
      node({ [TYPE.CDS]: TypeConvergenceState.IN_SYNC }),
      [change(ResourceKind.CLUSTER, "blue", ChangeType.MODIFIED)],
    );
    expect(result[0]?.state).toBe("in-sync");
    expect(rows(result, TYPE.CDS)).toEqual([
      ["blue", "current"],
      ["green", "current"],
    ]);
  });

  it("while a type is NACKED or behind: a modified resource held is outdated, an added one missing, a removed one still held is to be removed", () => {
    const result = compareHeld(
      [held(TYPE.CDS, { blue: "v1", green: "v1", old: "v1" })],
      node({ [TYPE.CDS]: TypeConvergenceState.NACKED }),
      [
        change(ResourceKind.CLUSTER, "blue", ChangeType.MODIFIED),
        change(ResourceKind.CLUSTER, "red", ChangeType.ADDED),
        change(ResourceKind.CLUSTER, "old", ChangeType.REMOVED),
      ],
    );
    expect(result[0]?.state).toBe("nacked");
    expect(rows(result, TYPE.CDS)).toEqual([
      ["blue", "outdated"],
      ["green", "current"],
      ["old", "to-remove"],
      ["red", "missing"],
    ]);
  });

  it("maps a cluster change to both its Cluster and its ClusterLoadAssignment", () => {
    const result = compareHeld(
      [held(TYPE.CDS, { blue: "1" }), held(TYPE.EDS, { blue: "1" }), held(TYPE.LDS, { shop: "1" })],
      node({
        [TYPE.CDS]: TypeConvergenceState.BEHIND,
        [TYPE.EDS]: TypeConvergenceState.BEHIND,
        [TYPE.LDS]: TypeConvergenceState.IN_SYNC,
      }),
      [change(ResourceKind.CLUSTER, "blue", ChangeType.MODIFIED)],
    );
    expect(rows(result, TYPE.EDS)).toEqual([["blue", "outdated"]]);
    expect(rows(result, TYPE.LDS)).toEqual([["shop", "current"]]);
  });

  it("says an added resource the node does not hold, once in sync, is not for this node", () => {
    const result = compareHeld(
      [held(TYPE.CDS, { blue: "1" })],
      node({ [TYPE.CDS]: TypeConvergenceState.IN_SYNC }),
      [change(ResourceKind.CLUSTER, "other-team", ChangeType.ADDED)],
    );
    expect(rows(result, TYPE.CDS)).toEqual([
      ["blue", "current"],
      ["other-team", "not-for-node"],
    ]);
  });

  it("cannot judge changed resources without the node's convergence, and leaves out removals it never held", () => {
    const result = compareHeld([held(TYPE.CDS, { blue: "1", green: "1" })], undefined, [
      change(ResourceKind.CLUSTER, "blue", ChangeType.MODIFIED),
      change(ResourceKind.CLUSTER, "gone", ChangeType.REMOVED),
    ]);
    expect(result[0]?.state).toBeUndefined();
    expect(rows(result, TYPE.CDS)).toEqual([
      ["blue", "unknown"],
      ["green", "current"],
    ]);
  });
});
