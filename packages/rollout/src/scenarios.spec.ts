/**
 * The end-to-end cases (issue 45, "Done when") played on the core alone: what the
 * server, the real xDS clients and the console will be tested on, here with the events they
 * will turn into.
 */
import { describe, expect, it } from "vitest";
import { Driver, FROM, groupNodes, plan, roundTrip, TO } from "./fixtures.js";
import { step } from "./machine.js";
import { describeFailure } from "./reasons.js";
import { versionFor } from "./rollout-state.js";
import { hashOrder } from "./waves.js";

const nodes = groupNodes(20);
const order = hashOrder(nodes.map((n) => n.id));
const SECOND = 1_000;
const gated = plan({
  waves: "1,50%,100%",
  bake: "1m",
  ackTimeout: "30s",
  maxErrorIncrease: "2",
  minRequests: "100",
});

/** Every node's requests to "shop" over the last 10 s: `bad` nodes fail `ratio` of theirs. */
function traffic(d: Driver, bad: readonly string[], ratio: number) {
  d.load(
    Object.fromEntries(
      order.map((id) => [id, [200, bad.includes(id) ? Math.round(200 * ratio) : 1] as const]),
    ),
  );
}

/** The nodes any `send` of `version` named. */
function sentTo(d: Driver, version: number): Set<string> {
  return new Set(
    d.actions.flatMap((a) => (a.t === "send" && a.version === version ? a.nodeIds : [])),
  );
}

describe("issue 45, done when", () => {
  it("(1) a good change goes through three waves and every node ends on it", () => {
    const d = new Driver(gated, nodes);
    for (let wave = 1; wave <= 3; wave++) {
      d.ackAll();
      for (let s = 0; s < 6; s++) {
        d.advance(10 * SECOND);
        traffic(d, [], 0);
      }
    }
    expect(d.state.phase.t).toBe("completed");
    expect(sentTo(d, FROM).size).toBe(0);
    for (const id of order) expect(versionFor(d.state, id)).toBe(TO);
  });

  it("(2) a change to a failing backend trips the traffic gate in wave 1 and is rolled back by itself; nodes outside wave 1 never had it", () => {
    const d = new Driver(gated, nodes);
    d.ackAll();
    d.advance(10 * SECOND);
    traffic(d, d.onNew(), 0.5);
    expect(d.state.phase.t).toBe("rolling-back");
    d.ack([order[0] ?? ""], FROM);
    const { phase } = d.state;
    expect(phase.t).toBe("failed");
    if (phase.t !== "failed") return;
    expect(describeFailure(phase.reason)).toBe(
      'wave 1: cluster "shop" errors rose more than 2 points with version 8: 50.00% over 200 requests on the wave\'s nodes against 0.50% over 3800 requests on the nodes still on the previous version',
    );
    expect([...sentTo(d, TO)]).toEqual([order[0]]);
    for (const id of order.slice(1)) expect(d.state.nodes[id]?.sent).toBeUndefined();
  });

  it("(3) a change the clients NACK fails wave 1 at once and is rolled back", () => {
    const d = new Driver(gated, nodes);
    d.nack(order[0] ?? "", "cluster 'shop': unknown cluster type");
    expect(d.state.phase).toMatchObject({ t: "rolling-back", since: d.now });
    expect(d.last.actions[0]).toEqual({ t: "send", version: FROM, nodeIds: [order[0]] });
    d.ack([order[0] ?? ""], FROM);
    expect(d.state.phase).toMatchObject({
      t: "failed",
      reason: { t: "nack", nodeId: order[0], detail: "cluster 'shop': unknown cluster type" },
    });
  });

  it("(4) a server restarted mid-rollout finishes it, sending no node of a started wave anything again", () => {
    const d = new Driver(gated, nodes);
    d.ackAll();
    d.advance(60 * SECOND);
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 2 });
    // The replica stops; another reads the stored state and ticks when it takes the lease.
    const stored = JSON.stringify(d.state);
    const resumed = step(JSON.parse(stored), { t: "tick", now: d.now + 5 * SECOND });
    expect(resumed.actions).toEqual([]);
    expect(roundTrip(resumed.state)).toEqual({ ...d.state, now: d.now + 5 * SECOND });
    d.state = resumed.state;
    d.now += 5 * SECOND;
    d.ackAll();
    d.advance(60 * SECOND);
    d.ackAll();
    d.advance(60 * SECOND);
    expect(d.state.phase.t).toBe("completed");
    const sends = d.actions.flatMap((a) => (a.t === "send" ? a.nodeIds : []));
    expect(sends).toHaveLength(new Set(sends).size);
  });
});
