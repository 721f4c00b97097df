import { type CompiledConfig, compile, type ResourceSnapshot } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  nodeGroupSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { SnapshotCache } from "./snapshot-cache.js";

function configOf(port: number): CompiledConfig {
  return compile(configSpec({ clusters: [clusterSpec("c", [endpointSpec("10.0.0.1", port)])] }));
}

const snapshotOf = (config: CompiledConfig): ResourceSnapshot | undefined =>
  config.groups[0]?.snapshot;

/** One turn of the event loop: what runs between two turns of the fan-out (I/O, timers). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` watches, each recording the snapshots it is told. */
function watchers(cache: SnapshotCache, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const told: ResourceSnapshot[] = [];
    const watch = cache.watch({ id: `node-${i}`, cluster: "", metadata: {} }, (snapshot) =>
      told.push(snapshot),
    );
    return { told, watch };
  });
}

describe("SnapshotCache", () => {
  it("installs a config at once, and tells the watches over the next turns, a turn's worth at a time", async () => {
    const cache = new SnapshotCache({ watchesPerTurn: 2 });
    const nodes = watchers(cache, 5);
    const config = configOf(1);
    cache.setConfig(config, 1);
    // The publish that installed it answers before any stream is told.
    expect(cache.version).toBe(1);
    expect(cache.watch({ id: "new", cluster: "", metadata: {} }, () => undefined).current).toBe(
      snapshotOf(config),
    );
    const toldCounts = () => nodes.map(({ told }) => told.length);
    expect(toldCounts()).toEqual([0, 0, 0, 0, 0]);
    await nextTurn();
    expect(toldCounts()).toEqual([1, 1, 0, 0, 0]);
    await nextTurn();
    expect(toldCounts()).toEqual([1, 1, 1, 1, 0]);
    await nextTurn();
    expect(toldCounts()).toEqual([1, 1, 1, 1, 1]);
    expect(cache.fanningOut).toBe(false);
    for (const { told } of nodes) expect(told).toEqual([snapshotOf(config)]);
  });

  it("a config installed during a fan-out restarts it: each watch is told the latest snapshot, once", async () => {
    const cache = new SnapshotCache({ watchesPerTurn: 2 });
    const nodes = watchers(cache, 4);
    const first = configOf(1);
    const second = configOf(2);
    cache.setConfig(first, 1);
    await nextTurn();
    cache.setConfig(second, 2);
    while (cache.fanningOut) await nextTurn();
    expect(nodes.map(({ told }) => told)).toEqual([
      [snapshotOf(first), snapshotOf(second)],
      [snapshotOf(first), snapshotOf(second)],
      [snapshotOf(second)],
      [snapshotOf(second)],
    ]);
  });

  it("a watch cancelled before its turn is not told", async () => {
    const cache = new SnapshotCache({ watchesPerTurn: 1 });
    cache.setConfig(configOf(1), 1);
    while (cache.fanningOut) await nextTurn();
    const [kept, cancelled] = watchers(cache, 2);
    cache.setConfig(configOf(2), 2);
    cancelled?.watch.cancel();
    while (cache.fanningOut) await nextTurn();
    expect(kept?.told).toHaveLength(1);
    expect(cancelled?.told).toEqual([]);
  });

  it("a publish that changes nothing for a group keeps its snapshot, and tells its watches nothing", async () => {
    const cache = new SnapshotCache();
    cache.setConfig(configOf(1), 1);
    while (cache.fanningOut) await nextTurn();
    const [node] = watchers(cache, 1);
    const before = node?.watch.current;
    cache.setConfig(configOf(1), 2);
    while (cache.fanningOut) await nextTurn();
    expect(cache.version).toBe(2);
    expect(snapshotOf(cache.config ?? configOf(0))).toBe(before);
    expect(node?.told).toEqual([]);
  });
});

/**
 * Node group "edge" (nodes of Envoy cluster "edge") gets cluster e; every other node gets e and
 * d. Each port changes one cluster's endpoints, so a test can change one group and not the other.
 */
function groupedConfig(edgePort: number, defaultPort = 9000): CompiledConfig {
  return compile(
    configSpec({
      clusters: [
        clusterSpec("e", [endpointSpec("10.0.0.1", edgePort)]),
        clusterSpec("d", [endpointSpec("10.0.0.2", defaultPort)]),
      ],
      nodeGroups: [nodeGroupSpec("edge", { nodeClusters: ["edge"], clusters: ["e"] })],
    }),
  );
}

const groupSnapshot = (cache: SnapshotCache, name: string): ResourceSnapshot | undefined =>
  cache.config?.groups.find((g) => g.name === name)?.snapshot;

const nodeOf = (id: string, cluster = "edge") => ({ id, cluster, metadata: {} });

/** A watch of node `id` (of Envoy cluster `cluster`), recording the snapshots it is told. */
function watcher(cache: SnapshotCache, id: string, cluster = "edge") {
  const told: ResourceSnapshot[] = [];
  const watch = cache.watch(nodeOf(id, cluster), (snapshot) => told.push(snapshot));
  return { told, watch };
}

const settled = async (cache: SnapshotCache) => {
  await nextTurn();
  while (cache.fanningOut) await nextTurn();
};

/** v1 installed and told; v2 installed with group "edge" held on v1. */
async function heldOnV1(options: { readonly watchesPerTurn?: number } = {}) {
  const cache = new SnapshotCache(options);
  const v1 = groupedConfig(1);
  cache.setConfig(v1, 1);
  await settled(cache);
  const previous = groupSnapshot(cache, "edge");
  const nodes = {
    a: watcher(cache, "edge-a"),
    b: watcher(cache, "edge-b"),
    other: watcher(cache, "other", "web"),
  };
  const v2 = groupedConfig(2, 9001);
  cache.setConfig(v2, 2, { hold: { edge: { config: v1, version: 1 } } });
  await settled(cache);
  return { cache, v1, v2, previous, next: groupSnapshot(cache, "edge"), nodes };
}

describe("SnapshotCache, a node group held on its previous config", () => {
  it("a held group's nodes keep the previous snapshot and are told nothing, while other groups get the new config", async () => {
    const { cache, previous, next, nodes } = await heldOnV1();
    expect(next).not.toBe(previous);
    expect(nodes.a.told).toEqual([]);
    expect(nodes.b.told).toEqual([]);
    expect(nodes.other.told).toEqual([groupSnapshot(cache, "default")]);
    expect(cache.version).toBe(2);
    expect(cache.servedTo(nodeOf("edge-a"))).toEqual({
      snapshot: previous,
      group: "edge",
      version: 1,
    });
    expect(cache.servedTo(nodeOf("other", "web"))?.version).toBe(2);
  });

  it("promote tells only the promoted nodes' watches, the installed config's snapshot", async () => {
    const { cache, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a"]);
    await settled(cache);
    expect(nodes.a.told).toEqual([next]);
    expect(nodes.b.told).toEqual([]);
    expect(nodes.other.told).toHaveLength(1);
    expect(cache.servedTo(nodeOf("edge-a"))).toEqual({ snapshot: next, group: "edge", version: 2 });
    expect(cache.servedTo(nodeOf("edge-b"))?.version).toBe(1);
  });

  it("a watch opened during the hold starts from its node's assignment: a promoted node the new snapshot, any other the previous one", async () => {
    const { cache, previous, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a"]);
    await settled(cache);
    nodes.a.watch.cancel();
    expect(cache.watch(nodeOf("edge-a"), () => undefined).current).toBe(next);
    expect(cache.watch(nodeOf("edge-new"), () => undefined).current).toBe(previous);
    expect(cache.watch(nodeOf("edge-new"), () => undefined).group).toBe("edge");
  });

  it("demote tells the demoted nodes the previous snapshot again, and only them", async () => {
    const { cache, previous, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a", "edge-b"]);
    await settled(cache);
    cache.demote("edge", ["edge-a"]);
    await settled(cache);
    expect(nodes.a.told).toEqual([next, previous]);
    expect(nodes.b.told).toEqual([next]);
    expect(cache.servedTo(nodeOf("edge-a"))?.version).toBe(1);
  });

  it("settle on the installed version serves it to every node of the group, telling those not promoted", async () => {
    const { cache, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a"]);
    await settled(cache);
    cache.settle("edge", 2);
    await settled(cache);
    expect(nodes.a.told).toEqual([next]);
    expect(nodes.b.told).toEqual([next]);
    expect(cache.heldGroups).toEqual([]);
    expect(cache.servedTo(nodeOf("edge-b"))?.version).toBe(2);
    expect(cache.watch(nodeOf("edge-new"), () => undefined).current).toBe(next);
  });

  it("settle on the held version serves every node of the group the previous snapshot, until the next config", async () => {
    const { cache, previous, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a"]);
    await settled(cache);
    cache.settle("edge", 1);
    await settled(cache);
    expect(nodes.a.told).toEqual([next, previous]);
    expect(nodes.b.told).toEqual([]);
    expect(groupSnapshot(cache, "edge")).toBe(previous);
    expect(cache.servedTo(nodeOf("edge-b"))).toEqual({
      snapshot: previous,
      group: "edge",
      version: 1,
    });
    expect(cache.watch(nodeOf("edge-new"), () => undefined).current).toBe(previous);
    // A rollback publishes the previous content again: the group is told nothing.
    cache.setConfig(groupedConfig(1, 9002), 3);
    await settled(cache);
    expect(nodes.a.told).toEqual([next, previous]);
    expect(nodes.b.told).toEqual([]);
    expect(cache.servedTo(nodeOf("edge-b"))?.version).toBe(3);
  });

  it("a config installed during the hold keeps it: promoted nodes get its group's snapshot, the others nothing", async () => {
    const { cache, previous, next, nodes } = await heldOnV1();
    cache.promote("edge", ["edge-a"]);
    await settled(cache);
    // A publish to another group: the held group's content is the same, and so its snapshot.
    cache.setConfig(groupedConfig(2, 9003), 3);
    await settled(cache);
    expect(groupSnapshot(cache, "edge")).toBe(next);
    expect(nodes.a.told).toEqual([next]);
    expect(nodes.b.told).toEqual([]);
    expect(cache.servedTo(nodeOf("edge-a"))?.version).toBe(3);
    expect(cache.servedTo(nodeOf("edge-b"))).toEqual({
      snapshot: previous,
      group: "edge",
      version: 1,
    });
    expect(nodes.other.told).toHaveLength(2);
  });

  it("a hold given with promoted nodes (a rollout resumed after a restart) serves them the installed config from their first watch", () => {
    const cache = new SnapshotCache();
    const v1 = groupedConfig(1);
    cache.setConfig(groupedConfig(2), 2, {
      hold: { edge: { config: v1, version: 1, promoted: ["edge-a"] } },
    });
    expect(cache.watch(nodeOf("edge-a"), () => undefined).current).toBe(
      groupSnapshot(cache, "edge"),
    );
    expect(cache.watch(nodeOf("edge-b"), () => undefined).current).toBe(
      v1.groups.find((g) => g.name === "edge")?.snapshot,
    );
  });

  it("a promotion is told before the rest of a fan-out under way", async () => {
    const cache = new SnapshotCache({ watchesPerTurn: 1 });
    const v1 = groupedConfig(1);
    cache.setConfig(v1, 1);
    await settled(cache);
    const others = ["w1", "w2", "w3"].map((id) => watcher(cache, id, "web"));
    const canary = watcher(cache, "edge-a");
    cache.setConfig(groupedConfig(2, 9001), 2, { hold: { edge: { config: v1, version: 1 } } });
    cache.promote("edge", ["edge-a"]);
    await nextTurn();
    expect(canary.told).toHaveLength(1);
    expect(others.map(({ told }) => told.length)).toEqual([0, 0, 0]);
    await settled(cache);
    expect(others.map(({ told }) => told.length)).toEqual([1, 1, 1]);
    expect(canary.told).toHaveLength(1);
  });

  it("a hold of a group missing from either config is refused, and nothing is installed", () => {
    const cache = new SnapshotCache();
    const v1 = groupedConfig(1);
    cache.setConfig(v1, 1);
    const withoutEdge = configOf(1);
    expect(() =>
      cache.setConfig(groupedConfig(2), 2, { hold: { edge: { config: withoutEdge, version: 1 } } }),
    ).toThrow(/node group "edge" is not in version 1/);
    expect(() =>
      cache.setConfig(withoutEdge, 2, { hold: { edge: { config: v1, version: 1 } } }),
    ).toThrow(/node group "edge" is not in the config to install/);
    expect(cache.version).toBe(1);
    expect(cache.heldGroups).toEqual([]);
  });

  it("promote, demote and settle of a group not held are refused, naming it", async () => {
    const { cache } = await heldOnV1();
    expect(() => cache.promote("default", ["x"])).toThrow(/node group "default": it is not held/);
    expect(() => cache.demote("nope", ["x"])).toThrow(/node group "nope": it is not held/);
    expect(() => cache.settle("edge", 7)).toThrow(/cannot settle on version 7/);
    cache.settle("edge", 2);
    expect(() => cache.settle("edge", 2)).toThrow(/it is not held/);
  });
});
