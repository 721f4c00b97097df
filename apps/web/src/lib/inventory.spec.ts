import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { describe, expect, it } from "vitest";
import { summary } from "./fixtures";
import { buildInventory, knownKinds, otherKind } from "./inventory";

describe("buildInventory", () => {
  it("lists every known kind, in API order, even when nothing of that kind is stored", () => {
    const inv = buildInventory([]);
    expect(inv.groups.map((g) => g.kind.title)).toEqual([
      "Clusters",
      "Listeners",
      "Route configurations",
      "Node groups",
      "Runtime layers",
      "Secrets",
    ]);
    expect(inv.total).toBe(0);
  });

  it("groups objects by kind, keeping the API's order within a kind", () => {
    const inv = buildInventory([
      summary({ kind: ResourceKind.CLUSTER, name: "a" }),
      summary({ kind: ResourceKind.CLUSTER, name: "b" }),
      summary({ kind: ResourceKind.LISTENER, name: "http" }),
    ]);
    expect(inv.groups[0]?.rows.map((r) => r.name)).toEqual(["a", "b"]);
    expect(inv.groups[1]?.rows.map((r) => r.name)).toEqual(["http"]);
    expect(inv.total).toBe(3);
  });

  it("shows objects of an unknown or unspecified kind under Other instead of dropping them", () => {
    const inv = buildInventory([
      summary({ kind: ResourceKind.UNSPECIFIED, name: "x" }),
      summary({ kind: 99 as ResourceKind, name: "y" }),
    ]);
    expect(inv.groups).toHaveLength(knownKinds.length + 1);
    expect(inv.groups.at(-1)?.kind).toBe(otherKind);
    expect(inv.groups.at(-1)?.rows.map((r) => r.name)).toEqual(["x", "y"]);
  });

  it("resolves a reference to the stored object of that name, preferring another kind", () => {
    const inv = buildInventory([
      summary({ kind: ResourceKind.CLUSTER, name: "web" }),
      summary({ kind: ResourceKind.LISTENER, name: "web", references: ["web"] }),
    ]);
    const ref = inv.groups[1]?.rows[0]?.references[0];
    expect(ref).toMatchObject({ t: "stored", name: "web", anchor: "cluster-web" });
  });

  it("reports a reference to a name nothing is stored under as missing", () => {
    const inv = buildInventory([
      summary({ kind: ResourceKind.LISTENER, name: "http", references: ["routes"] }),
    ]);
    expect(inv.groups[1]?.rows[0]?.references).toEqual([{ t: "missing", name: "routes" }]);
  });

  it("lists a name referenced twice once", () => {
    const inv = buildInventory([
      summary({ kind: ResourceKind.ROUTE_CONFIGURATION, name: "r", references: ["c", "c"] }),
    ]);
    expect(inv.groups[2]?.rows[0]?.references.map((r) => r.name)).toEqual(["c"]);
  });

  it("converts the update time, and leaves it undefined when the API sent none", () => {
    const at = new Date("2026-01-02T03:04:05Z");
    const inv = buildInventory([summary({ name: "a", updated: at }), summary({ name: "b" })]);
    expect(inv.groups[0]?.rows.map((r) => r.updated)).toEqual([at, undefined]);
  });
});
