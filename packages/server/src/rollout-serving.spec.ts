import { type CompiledConfig, compile, type ResourceSnapshot } from "@switchyard/snapshot";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  nodeGroupSpec,
} from "@switchyard/snapshot/fixtures";
import { SnapshotCache } from "@switchyard/xds";
import { describe, expect, it } from "vitest";
import { RolloutServing } from "./rollout-serving.js";

/** Group "edge" (nodes of Envoy cluster "edge") gets cluster e, on `port`: one config a version. */
const versionConfig = (port: number): CompiledConfig =>
  compile(
    configSpec({
      clusters: [clusterSpec("e", [endpointSpec("10.0.0.1", port)])],
      nodeGroups: [nodeGroupSpec("edge", { nodeClusters: ["edge"], clusters: ["e"] })],
    }),
  );

const node = (id: string) => ({ id, cluster: "edge", metadata: {} });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const quiet = async (cache: SnapshotCache) => {
  await nextTurn();
  while (cache.fanningOut) await nextTurn();
};

/** A cache serving version 1, its RolloutServing reading versions from `stored`. */
function serving() {
  const stored = new Map([1, 2, 3].map((v) => [v, versionConfig(v)]));
  const reads: number[] = [];
  const cache = new SnapshotCache();
  cache.setConfig(stored.get(1) ?? versionConfig(0), 1);
  const rollouts = new RolloutServing({
    cache,
    readVersion: async (version) => {
      reads.push(version);
      return stored.get(version);
    },
  });
  const watch = (id: string) => {
    const told: ResourceSnapshot[] = [];
    cache.watch(node(id), (snapshot) => told.push(snapshot));
    return told;
  };
  return { cache, rollouts, stored, reads, watch };
}

const HOLD = { t: "hold", group: "edge", fromVersion: 1, toVersion: 2, promoted: [] } as const;

describe("RolloutServing", () => {
  it("a hold given before its version is installed makes the install held: no node of the group is told it", async () => {
    const { cache, rollouts, stored, reads, watch } = serving();
    const told = watch("edge-a");
    await rollouts.command(HOLD);
    await rollouts.install(stored.get(2) ?? versionConfig(0), 2);
    await quiet(cache);
    expect(told).toEqual([]);
    expect(cache.servedTo(node("edge-a"))?.version).toBe(1);
    // The previous config was the one served: nothing was read.
    expect(reads).toEqual([]);
  });

  it("promotions given while a hold waits are kept, and served once the version is installed", async () => {
    const { cache, rollouts, stored } = serving();
    await rollouts.command(HOLD);
    await rollouts.command({ t: "promote", group: "edge", nodeIds: ["edge-a"] });
    await rollouts.install(stored.get(2) ?? versionConfig(0), 2);
    expect(cache.servedTo(node("edge-a"))?.version).toBe(2);
    expect(cache.servedTo(node("edge-b"))?.version).toBe(1);
  });

  it("a process that starts mid-rollout reads the previous version and holds the group on it", async () => {
    const { cache, rollouts, stored, reads } = serving();
    cache.setConfig(stored.get(2) ?? versionConfig(0), 2);
    await rollouts.command({ ...HOLD, promoted: ["edge-a"] });
    expect(reads).toEqual([1]);
    expect(cache.servedTo(node("edge-a"))?.version).toBe(2);
    expect(cache.servedTo(node("edge-b"))?.version).toBe(1);
    expect(rollouts.replay()).toEqual([{ ...HOLD, promoted: ["edge-a"] }]);
  });

  it("settle on the new version after a later publish ends the hold on the version installed", async () => {
    const { cache, rollouts, stored } = serving();
    await rollouts.command(HOLD);
    await rollouts.install(stored.get(2) ?? versionConfig(0), 2);
    await rollouts.install(stored.get(3) ?? versionConfig(0), 3);
    await rollouts.command({ t: "settle", group: "edge", version: 2 });
    expect(cache.heldGroups).toEqual([]);
    expect(cache.servedTo(node("edge-b"))?.version).toBe(3);
    expect(rollouts.replay()).toEqual([]);
  });

  it("settled back before its version is installed, the group is installed held and settled back at once", async () => {
    const { cache, rollouts, stored, watch } = serving();
    const told = watch("edge-a");
    await rollouts.command({ ...HOLD, promoted: ["edge-a"] });
    await rollouts.command({ t: "settle", group: "edge", version: 1 });
    await rollouts.install(stored.get(2) ?? versionConfig(0), 2);
    await quiet(cache);
    expect(told).toEqual([]);
    expect(cache.servedTo(node("edge-a"))?.version).toBe(1);
    expect(cache.heldGroups).toEqual([]);
  });

  it("a version the hold waits for is not installed while the previous one cannot be read, and is once it can", async () => {
    const { cache, stored } = serving();
    cache.setConfig(stored.get(3) ?? versionConfig(0), 3);
    let failing = true;
    const flaky = new RolloutServing({
      cache,
      readVersion: async (version) => {
        if (failing) throw new Error("the database is away");
        return stored.get(version);
      },
    });
    await expect(flaky.command({ ...HOLD, fromVersion: 1, toVersion: 4 })).rejects.toThrow(
      /database is away/,
    );
    await expect(flaky.install(versionConfig(4), 4)).rejects.toThrow(/database is away/);
    expect(cache.version).toBe(3);
    failing = false;
    await flaky.install(versionConfig(4), 4);
    expect(cache.version).toBe(4);
    expect(cache.servedTo(node("edge-a"))?.version).toBe(1);
  });

  it("a step for a group not held, or a settle on another version, is refused naming it", async () => {
    const { rollouts } = serving();
    await expect(rollouts.command({ t: "promote", group: "edge", nodeIds: ["x"] })).rejects.toThrow(
      /node group "edge" is not held/,
    );
    await rollouts.command(HOLD);
    await expect(rollouts.command({ t: "settle", group: "edge", version: 7 })).rejects.toThrow(
      /cannot settle on version 7: it rolls out 1 → 2/,
    );
  });
});
