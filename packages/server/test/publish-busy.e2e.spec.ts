import { LbPolicy } from "@switchyard/proto/switchyard/v1/config_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edsCluster } from "../src/testing/api-objects.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Keeps this process's event loop busy in `chunkMs` slices, for `totalMs`: a server saturated by
 * work (1,000 proxies reconnecting at once took the API's latency to 8 s in
 * faults-load.e2e.spec.ts) runs each database round trip seconds after the last.
 */
function busyFor(totalMs: number, chunkMs: number): void {
  const until = Date.now() + totalMs;
  const burn = () => {
    const end = Math.min(until, Date.now() + chunkMs);
    while (Date.now() < end) {
      // Busy on purpose.
    }
    if (Date.now() < until) setImmediate(burn);
  };
  setImmediate(burn);
}

describe("publishing on a busy server", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.stop();
  });

  it("a publish answers with the version it made, however long the server then takes to read what changed", async () => {
    const api = harness.api();
    await api.createCluster(
      edsCluster("blue", "10.0.0.1:8080", {
        lbPolicy: LbPolicy.ROUND_ROBIN,
        connectTimeoutMs: 1000,
      }),
    );
    // The moment the version is committed and served (the cache tells its watchers at once), the
    // server gets too busy to make a round trip to the database in less than 1.5 s, for 9 s: the
    // reads that follow, to list what changed, take longer than Prisma's default 5 s transaction.
    let busy = false;
    const watch = harness.app.cache.watch({ id: "any", cluster: "", metadata: {} }, () => {
      if (busy) return;
      busy = true;
      busyFor(9_000, 1_500);
    });
    try {
      const published = await api.publish({ message: "while busy" });
      expect(busy).toBe(true);
      expect(published.snapshot?.version).toBe(1n);
      expect(published.changes.map((c) => c.name)).toEqual(["blue"]);
    } finally {
      watch.cancel();
    }
    const { snapshots } = await api.listSnapshots({});
    expect(snapshots.map((s) => s.version)).toEqual([1n]);
  });
});
