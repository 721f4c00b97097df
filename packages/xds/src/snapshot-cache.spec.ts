import { type CompiledConfig, compile, type ResourceSnapshot } from "@switchyard/snapshot";
import { clusterSpec, configSpec, endpointSpec } from "@switchyard/snapshot/fixtures";
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
