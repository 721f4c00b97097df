import type { PrismaClient } from "@switchyard/db";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ConvergenceResult } from "./convergence-reader.js";
import { FeedCache } from "./feed-cache.js";
import { StatusFeed } from "./status-feed.js";

/** A result that names the load that made it. */
const resultOf = (version: number, load: number): ConvergenceResult => ({
  version,
  publishedAt: load,
  targeted: 0,
  acked: 0,
  nacked: 0,
  pending: 0,
  durations: { count: 0 } as ConvergenceResult["durations"],
  connectedLater: 0,
  nodes: [],
});

// Only `published` is used here, which reads nothing: the feed never touches the database.
const feeds: StatusFeed[] = [];
function world(options: { idleMs?: number; fail?: number } = {}) {
  const feed = new StatusFeed({ prisma: {} as PrismaClient });
  feeds.push(feed);
  const loads: number[] = [];
  const reads = new FeedCache<number, ConvergenceResult>({
    feed,
    ...(options.idleMs === undefined ? {} : { idleMs: options.idleMs }),
    load: async (version) => {
      loads.push(version);
      if (loads.length === options.fail) throw new Error("the database went away");
      return resultOf(version, loads.length);
    },
  });
  return { feed, reads, loads };
}

afterEach(() => {
  for (const feed of feeds.splice(0)) feed.close();
  vi.useRealTimers();
});

describe("status reads shared by the watches until the feed reports a change", () => {
  it("callers asking at the same time share one load, and later ones reuse it while the feed reports nothing", async () => {
    const { reads, loads } = world();
    const [a, b] = await Promise.all([reads.read(3), reads.read(3)]);
    expect(a).toBe(b);
    expect(await reads.read(3)).toBe(a);
    expect(loads).toEqual([3]);
    reads.close();
  });

  it("any change the feed reports makes the next read load again", async () => {
    const { feed, reads, loads } = world();
    const first = await reads.read(3);
    feed.published(4);
    const second = await reads.read(3);
    expect(second).not.toBe(first);
    expect(second.publishedAt).toBe(2);
    expect(loads).toEqual([3, 3]);
    reads.close();
  });

  it("keeps each version apart", async () => {
    const { reads, loads } = world();
    expect((await reads.read(3)).version).toBe(3);
    expect((await reads.read(4)).version).toBe(4);
    expect(loads).toEqual([3, 4]);
    reads.close();
  });

  it("a failed load is not kept: the next read tries again", async () => {
    const { reads, loads } = world({ fail: 1 });
    await expect(reads.read(3)).rejects.toThrow("the database went away");
    expect((await reads.read(3)).publishedAt).toBe(2);
    expect(loads).toEqual([3, 3]);
    reads.close();
  });

  it("stops following the feed when nobody has read for idleMs, and then reads afresh", async () => {
    vi.useFakeTimers();
    const { reads, loads } = world({ idleMs: 20 });
    await reads.read(3);
    await vi.advanceTimersByTimeAsync(19);
    await reads.read(3);
    // 38 ms after the first read, 19 after the last: still followed.
    await vi.advanceTimersByTimeAsync(19);
    await reads.read(3);
    expect(loads).toEqual([3]);
    await vi.advanceTimersByTimeAsync(20);
    await reads.read(3);
    expect(loads).toEqual([3, 3]);
    reads.close();
  });
});
