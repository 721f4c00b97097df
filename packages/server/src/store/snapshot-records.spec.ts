import { createTestDatabase, type TestDatabase } from "@switchyard/db/testing";
import { type CompiledConfig, type ConfigSpec, TYPE_ORDER, TypeUrl } from "@switchyard/snapshot";
import { clusterSpec, largeConfigSpec, nodeGroupSpec } from "@switchyard/snapshot/fixtures";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteObject, writeObjects } from "./draft-store.js";
import { specOfVersion } from "./publish-transaction.js";
import { SnapshotReader } from "./snapshot-records.js";
import { SnapshotStore } from "./snapshot-store.js";

let database: TestDatabase;
let store: SnapshotStore;
beforeEach(async () => {
  database = await createTestDatabase();
  store = new SnapshotStore(database.prisma);
});
afterEach(() => database.drop());

const SPEC = largeConfigSpec(10, 200);

async function publish(spec: Partial<ConfigSpec>, message: string): Promise<number> {
  await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 60_000 });
  return (await store.publishDraft({ message, author: "admin" })).record.version;
}

/** `routes-0` with its first route's path changed: one route configuration's change. */
function oneRouteChanged(path: string): Partial<ConfigSpec> {
  const [first] = SPEC.routeConfigurations;
  if (first === undefined) throw new Error("the fixture has no route configuration");
  return {
    routeConfigurations: [
      {
        ...first,
        virtualHosts: first.virtualHosts.map((vh) => ({
          ...vh,
          routes: vh.routes.map((route, i) => (i === 0 ? { ...route, matchValue: path } : route)),
        })),
      },
    ],
  };
}

/** Every resource of `config`, by group, type and name. */
function resourcesOf(config: CompiledConfig) {
  return new Map(
    config.groups.flatMap((group) =>
      TYPE_ORDER.flatMap((typeUrl) =>
        [...group.snapshot.resources(typeUrl).values()].map(
          (resource) => [`${group.name}/${typeUrl}/${resource.name}`, resource] as const,
        ),
      ),
    ),
  );
}

describe("SnapshotReader", () => {
  it("serves a node group's own response limit from the published version, and none once it is unset", async () => {
    const limited = nodeGroupSpec("default", { isDefault: true, maxResponseBytes: 8 << 20 });
    await publish({ ...SPEC, nodeGroups: [limited] }, "limited");
    const limitOf = async () =>
      (await new SnapshotReader(database.prisma).latest())?.config.groups.map((g) => [
        g.name,
        g.snapshot.maxResponseBytes,
      ]);
    expect(await limitOf()).toEqual([["default", 8 << 20]]);
    const { maxResponseBytes: _, ...unlimited } = limited;
    await publish({ nodeGroups: [unlimited] }, "unlimited");
    expect(await limitOf()).toEqual([["default", undefined]]);
  });

  it("reads each new version as a fresh read does, sharing the resources that did not change", async () => {
    const reader = new SnapshotReader(database.prisma);
    await publish(SPEC, "first");
    const first = await reader.latest();
    const version = await publish(oneRouteChanged("/changed/1"), "one route");
    const second = await reader.latest();
    const fresh = await new SnapshotReader(database.prisma).latest();
    expect(second?.record.version).toBe(version);

    const before = resourcesOf(first?.config ?? { groups: [], issues: [] });
    const after = resourcesOf(second?.config ?? { groups: [], issues: [] });
    const fromScratch = resourcesOf(fresh?.config ?? { groups: [], issues: [] });
    expect([...after.keys()].sort()).toEqual([...fromScratch.keys()].sort());
    const changed: string[] = [];
    for (const [key, resource] of after) {
      const scratch = fromScratch.get(key);
      expect({ ...resource, body: Buffer.from(resource.body) }).toEqual({
        ...scratch,
        body: Buffer.from(scratch?.body ?? []),
      });
      if (before.get(key) !== resource) changed.push(key);
    }
    // The changed route configuration is read anew; everything else is the object read before.
    expect(changed).toEqual([`default/${TypeUrl.RouteConfiguration}/routes-0`]);
  });

  it("reuses the resources of a config it was told is served, and reads what that lacks", async () => {
    await publish(SPEC, "first");
    const served = await new SnapshotReader(database.prisma).latest();
    const reader = new SnapshotReader(database.prisma);
    reader.remember(served?.config ?? { groups: [], issues: [] });
    await publish(oneRouteChanged("/changed/2"), "one route");
    const next = await reader.latest();
    const before = resourcesOf(served?.config ?? { groups: [], issues: [] });
    const after = resourcesOf(next?.config ?? { groups: [], issues: [] });
    const reread = [...after].filter(([key, resource]) => before.get(key) !== resource);
    expect(reread.map(([key]) => key)).toEqual([`default/${TypeUrl.RouteConfiguration}/routes-0`]);
  });

  it("reads a version published back to earlier content (a rollback) whole and correct", async () => {
    const reader = new SnapshotReader(database.prisma);
    await publish(SPEC, "first");
    const first = await reader.latest();
    await publish(oneRouteChanged("/changed/3"), "one route");
    await reader.latest();
    await publish({ routeConfigurations: SPEC.routeConfigurations.slice(0, 1) }, "back");
    const back = await reader.latest();
    const original = resourcesOf(first?.config ?? { groups: [], issues: [] });
    const now = resourcesOf(back?.config ?? { groups: [], issues: [] });
    for (const [key, resource] of now)
      expect(Buffer.from(resource.body).equals(Buffer.from(original.get(key)?.body ?? []))).toBe(
        true,
      );
  });

  it("a version that adds a resource then one that removes it again are each stored as exactly their resources, whatever the manifests they share with the version before", async () => {
    await publish(SPEC, "first");
    const first = await new SnapshotReader(database.prisma).latest();
    // A cluster nothing routes to: its type's map grows by one name, then shrinks back with every
    // other name unchanged (a map the publish must not take for the previous version's).
    await publish({ clusters: [clusterSpec("spare")] }, "add a cluster");
    const added = await new SnapshotReader(database.prisma).latest();
    await database.prisma.$transaction((tx) => deleteObject(tx, "cluster", "spare"));
    await store.publishDraft({ message: "remove it", author: "admin" });
    const removed = await new SnapshotReader(database.prisma).latest();
    const keys = (read: typeof first) =>
      [...resourcesOf(read?.config ?? { groups: [], issues: [] }).keys()].sort();
    const spare = [
      `default/${TypeUrl.Cluster}/spare`,
      `default/${TypeUrl.ClusterLoadAssignment}/spare`,
    ];
    expect(keys(added)).toEqual([...keys(first), ...spare].sort());
    expect(keys(removed)).toEqual(keys(first));
    // The version's sources too: the cluster manifest is the first version's again.
    const sources = await specOfVersion(database.prisma, 3);
    expect(sources.clusters.map((c) => c.name)).toEqual(SPEC.clusters.map((c) => c.name));
  });
});
