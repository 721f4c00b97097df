import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupNode, groupNodes, plan } from "./fixtures.js";
import { planOf } from "./plan.js";
import {
  fillWave,
  hashOrder,
  matchesSelector,
  nodesInWaves,
  orderKey,
  rolloutOrder,
  shareSize,
} from "./waves.js";

const ids = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 60 });
const shares = plan({ waves: "2,10%,35%,100%" });

describe("the rollout order", () => {
  it("is by the SHA-256 of the node id", () => {
    const order = hashOrder(["b", "a", "c"]);
    const keys = order.map(orderKey);
    expect([...keys].sort()).toEqual(keys);
    expect(orderKey("a")).toBe("ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb");
  });

  it("does not depend on the order the nodes are listed in", () => {
    const listAndShuffle = ids.chain((list) =>
      fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length })),
    );
    fc.assert(
      fc.property(listAndShuffle, ([list, shuffled]) => {
        expect(hashOrder(shuffled)).toEqual(hashOrder(list));
      }),
    );
  });

  it("puts a node that connects later in its hash's place without moving the others", () => {
    fc.assert(
      fc.property(ids, fc.string({ minLength: 1 }), (list, late) => {
        fc.pre(!list.includes(late));
        const before = hashOrder(list);
        const after = hashOrder([...list, late]);
        expect(after.filter((id) => id !== late)).toEqual(before);
      }),
    );
  });
});

describe("wave membership", () => {
  it("puts a node of wave k in every later wave", () => {
    fc.assert(
      fc.property(ids, (list) => {
        const nodes = list.map((id) => groupNode(id));
        for (let k = 1; k < shares.waves.length; k++) {
          const now = new Set(nodesInWaves(shares, nodes, k));
          const next = new Set(nodesInWaves(shares, nodes, k + 1));
          for (const id of now) expect(next.has(id)).toBe(true);
        }
      }),
    );
  });

  it("chooses the same nodes first every time: waves are prefixes of one order", () => {
    fc.assert(
      fc.property(ids, fc.integer({ min: 1, max: 4 }), (list, k) => {
        const nodes = list.map((id) => groupNode(id));
        const wave = nodesInWaves(shares, nodes, k);
        expect(wave).toEqual(rolloutOrder(shares, nodes).slice(0, wave.length));
        expect(nodesInWaves(shares, [...nodes].reverse(), k)).toEqual(wave);
      }),
    );
  });

  it.each([
    [{ t: "percent", percent: 10 } as const, 30, 3],
    [{ t: "percent", percent: 10 } as const, 31, 4],
    [{ t: "percent", percent: 1 } as const, 10, 1],
    [{ t: "percent", percent: 33.3 } as const, 1000, 333],
    [{ t: "percent", percent: 100 } as const, 7, 7],
    [{ t: "percent", percent: 50 } as const, 0, 0],
    [{ t: "count", count: 5 } as const, 3, 3],
    [{ t: "count", count: 5 } as const, 30, 5],
  ])(
    "a share %j of %i connected nodes reaches %i (a count, or ceil of the percentage)",
    (share, connected, expected) => {
      expect(shareSize(share, connected, 0)).toBe(expected);
    },
  );

  it("reaches every node in the last wave", () => {
    const nodes = groupNodes(17);
    expect(nodesInWaves(shares, nodes, 4).sort()).toEqual(nodes.map((n) => n.id).sort());
  });

  it("never lets a later, smaller share shrink the waves before it", () => {
    const nodes = groupNodes(10);
    // 5 nodes, then 10% (1 node): wave 2 still has wave 1's 5.
    const p = plan({ waves: "5,10%,100%" });
    expect(nodesInWaves(p, nodes, 2)).toEqual(nodesInWaves(p, nodes, 1));
    expect(nodesInWaves(p, nodes, 1)).toHaveLength(5);
  });

  it("adds to a running rollout only what it takes to reach the target", () => {
    expect(fillWave(["a", "b", "c"], 1, 3)).toEqual(["a", "b"]);
    expect(fillWave(["a", "b", "c"], 4, 3)).toEqual([]);
  });
});

describe("wave 1 as a node selector", () => {
  const selectorPlan = (nodes: object) => planOf({ waves: [{ nodes }, "50%", "100%"] });

  it("matches ids by glob, the zone exactly and every metadata pair", () => {
    const selector = {
      ids: ["edge-canary-*", "edge-7"],
      zone: "eu-west-1a",
      metadata: { canary: "true" },
    };
    const canary = { zone: "eu-west-1a", metadata: { canary: "true", team: "shop" } };
    expect(matchesSelector(selector, groupNode("edge-canary-3", canary))).toBe(true);
    expect(matchesSelector(selector, groupNode("edge-7", canary))).toBe(true);
    expect(matchesSelector(selector, groupNode("edge-8", canary))).toBe(false);
    expect(
      matchesSelector(selector, groupNode("edge-canary-3", { ...canary, zone: "eu-west-1b" })),
    ).toBe(false);
    expect(
      matchesSelector(
        selector,
        groupNode("edge-canary-3", { ...canary, metadata: { canary: "false" } }),
      ),
    ).toBe(false);
  });

  it("is the matching nodes, which also come first in the later waves", () => {
    const nodes = [
      ...groupNodes(8),
      groupNode("canary-b", { metadata: { canary: "true" } }),
      groupNode("canary-a", { metadata: { canary: "true" } }),
    ];
    const p = selectorPlan({ metadata: { canary: "true" } });
    const first = nodesInWaves(p, nodes, 1);
    expect(first).toEqual(hashOrder(["canary-a", "canary-b"]));
    const second = nodesInWaves(p, nodes, 2);
    expect(second).toHaveLength(5);
    expect(second.slice(0, 2)).toEqual(first);
  });

  it("counts its matches as wave 1's share when they are more than wave 2's", () => {
    const nodes = groupNodes(10).map((n) => ({ ...n, zone: "z" }));
    const p = planOf({ waves: [{ nodes: { zone: "z" } }, "20%", "100%"] });
    expect(nodesInWaves(p, nodes, 2)).toHaveLength(10);
  });
});
