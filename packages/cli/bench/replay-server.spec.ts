/**
 * The benchmark's own parts, so that `npm run bench` cannot quietly measure nothing: the replay
 * floor serves a simulated fleet the whole config and a pushed change reaches every node, over
 * real gRPC streams; percentiles are nearest-rank.
 */
import { TypeUrl } from "@switchyard/snapshot";
import { afterEach, describe, expect, it } from "vitest";
import { percentiles } from "./fleet.bench.js";
import { startFleet } from "./fleet.js";
import { startReplayServer } from "./replay-server.js";

describe("the replay floor", () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  it("serves SotW and Delta nodes every resource, and a push reaches every node subscribed to routes", async () => {
    const floor = await startReplayServer({ clusters: 20, routes: 300, rounds: 2 });
    cleanup.push(() => floor.close());
    const fleets = (["sotw", "delta"] as const).map((variant) =>
      startFleet({ xdsUrl: `http://127.0.0.1:${floor.port}`, count: 5, variant, countBytes: true }),
    );
    cleanup.push(() => {
      for (const fleet of fleets) fleet.close();
    });
    for (const fleet of fleets)
      await fleet.until(
        (node) =>
          node.held.get(TypeUrl.Cluster)?.size === 20 &&
          node.held.get(TypeUrl.ClusterLoadAssignment)?.size === 20 &&
          node.held.get(TypeUrl.Listener)?.size === 3 &&
          node.held.get(TypeUrl.RouteConfiguration)?.size === 3,
        "the fleet never held the whole config",
        20_000,
      );
    for (const fleet of fleets) fleet.mark();
    const before = Date.now();
    expect(floor.push(1)).toBe(10);
    for (const fleet of fleets)
      await fleet.until(
        (node) => node.ackedSinceMark.has(TypeUrl.RouteConfiguration),
        "a node never ACKed the pushed change",
        20_000,
      );
    for (const node of fleets.flatMap((f) => f.nodes)) {
      expect(node.ackedSinceMark.get(TypeUrl.RouteConfiguration)).toBeGreaterThanOrEqual(before);
      expect(node.bytes).toBeGreaterThan(0);
      // Nothing but route configurations was ACKed since the mark.
      expect([...node.ackedSinceMark.keys()]).toEqual([TypeUrl.RouteConfiguration]);
    }
  });

  it("refuses a round it has not encoded", async () => {
    const floor = await startReplayServer({ clusters: 2, routes: 10, rounds: 1 });
    cleanup.push(() => floor.close());
    expect(() => floor.push(2)).toThrow(/round 2 not encoded/);
  });
});

describe("percentiles", () => {
  it("are nearest-rank: p50 of 1..100 is 50, p99 is 99, max is 100", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentiles(values)).toEqual({ p50: 50, p99: 99, max: 100 });
  });

  it("of one value are that value", () => {
    expect(percentiles([7])).toEqual({ p50: 7, p99: 7, max: 7 });
  });
});
