import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Driver, FROM, groupNode, groupNodes, plan, roundTrip, T0, TO } from "./fixtures.js";
import { startRollout, step, stepAll } from "./machine.js";
import { planOf } from "./plan.js";
import { describeFailure } from "./reasons.js";
import { type RolloutEvent, versionFor } from "./rollout-state.js";
import { hashOrder, nodesInWaves } from "./waves.js";

const ten = groupNodes(10);
const order = hashOrder(ten.map((n) => n.id));
const SECOND = 1_000;
const MINUTE = 60_000;

describe("waves", () => {
  it("sends wave 1 to its nodes only; every other node is served the previous version", () => {
    const d = new Driver(plan(), ten);
    expect(d.state.phase).toEqual({ t: "applying", wave: 1, since: T0 });
    expect(d.actions[0]).toEqual({ t: "send", version: TO, nodeIds: [order[0]] });
    expect(d.onNew()).toEqual([order[0]]);
    for (const id of order.slice(1)) expect(versionFor(d.state, id)).toBe(FROM);
  });

  it("bakes once every node that has the version ACKed it, and starts the next wave when the bake is over", () => {
    const d = new Driver(plan(), ten);
    d.advance(5 * SECOND);
    d.ackAll();
    expect(d.state.phase).toEqual({ t: "baking", wave: 1, since: T0 + 5 * SECOND });
    d.advance(MINUTE - SECOND);
    expect(d.state.phase.t).toBe("baking");
    d.advance(SECOND);
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 2 });
    expect(d.onNew()).toEqual([...order.slice(0, 5)].sort());
    expect(d.last.actions[1]).toEqual({ t: "send", version: TO, nodeIds: order.slice(1, 5) });
  });

  it("takes a good version through every wave to every node, then settles the group on it", () => {
    const d = new Driver(plan(), ten);
    for (let wave = 1; wave <= 3; wave++) {
      d.ackAll();
      d.advance(MINUTE);
    }
    expect(d.state.phase).toEqual({ t: "completed", at: T0 + 3 * MINUTE });
    expect(d.last.actions).toContainEqual({ t: "settle", version: TO });
    expect(d.kinds()).toEqual([
      "wave-started",
      "baking",
      "promoted",
      "wave-started",
      "baking",
      "promoted",
      "wave-started",
      "baking",
      "promoted",
      "completed",
    ]);
    for (const node of ten) expect(versionFor(d.state, node.id)).toBe(TO);
    expect(d.state.waves.map((w) => [w.wave, w.sent, w.ended])).toEqual([
      [1, 1, "passed"],
      [2, 4, "passed"],
      [3, 5, "passed"],
    ]);
  });

  it("reaches the nodes nodesInWaves names when no node comes or goes", () => {
    const p = plan({ waves: "2,10%,35%,100%" });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), (count) => {
        const nodes = groupNodes(count);
        const d = new Driver({ ...p, waves: p.waves.map((w) => ({ ...w, bakeMs: 0 })) }, nodes);
        // Waves that add no node (2 nodes, then 10% of 5) pass at once, as their bake is 0.
        for (let steps = 0; steps < 4 && d.state.phase.t === "applying"; steps++) {
          const { wave } = d.state.phase;
          expect(d.onNew()).toEqual([...nodesInWaves(p, nodes, wave)].sort());
          d.ackAll();
        }
        expect(d.state.phase.t).toBe("completed");
      }),
      { numRuns: 40 },
    );
  });
});

describe("the ACK gate in a rollout", () => {
  it("fails the wave at once on a NACK and rolls back every node that had the version, naming node and text", () => {
    const d = new Driver(plan(), ten);
    d.ackAll();
    d.advance(MINUTE);
    const wave2 = d.pending();
    const bad = wave2[0] ?? "";
    d.nack(bad, "Proto constraint validation failed: lb_policy");
    expect(d.state.phase).toMatchObject({
      t: "rolling-back",
      waiting: [...order.slice(0, 5)].sort(),
    });
    expect(d.last.actions[0]).toEqual({
      t: "send",
      version: FROM,
      nodeIds: [...order.slice(0, 5)].sort(),
    });
    for (const node of ten) expect(versionFor(d.state, node.id)).toBe(FROM);
    d.ack(order.slice(0, 5), FROM);
    expect(d.state.phase).toEqual({
      t: "failed",
      at: d.now,
      reason: {
        t: "nack",
        wave: 2,
        version: TO,
        nodeId: bad,
        detail: "Proto constraint validation failed: lb_policy",
      },
      unconfirmed: [],
    });
    expect(d.last.actions).toContainEqual({ t: "settle", version: FROM });
  });

  it("ends a rollback that some nodes never confirm at the ACK timeout, naming them", () => {
    const d = new Driver(plan(), ten);
    d.nack(order[0] ?? "", "bad");
    expect(d.state.phase.t).toBe("rolling-back");
    d.advance(29 * SECOND);
    expect(d.state.phase.t).toBe("rolling-back");
    d.advance(SECOND);
    expect(d.state.phase).toMatchObject({ t: "failed", unconfirmed: [order[0]] });
  });

  it("stops waiting for a node's rollback ACK once it disconnects: it gets the previous version when it is back", () => {
    const d = new Driver(plan(), ten);
    d.nack(order[0] ?? "", "bad");
    d.send({ t: "disconnect", now: d.now, nodeId: order[0] ?? "" });
    expect(d.state.phase).toMatchObject({ t: "failed", unconfirmed: [] });
    expect(versionFor(d.state, order[0] ?? "")).toBe(FROM);
  });

  it("fails the wave when a node has not ACKed by its deadline, even one that disconnected", () => {
    const d = new Driver(plan(), ten);
    d.send({ t: "disconnect", now: d.now, nodeId: order[0] ?? "" });
    d.advance(29 * SECOND);
    expect(d.state.phase.t).toBe("applying");
    d.advance(SECOND);
    expect(d.state.phase).toMatchObject({
      t: "failed",
      reason: { t: "ack-timeout", nodeIds: [order[0]], disconnected: [order[0]] },
    });
  });

  it("ignores ACKs of other versions and of nodes that were not sent the version", () => {
    const d = new Driver(plan(), ten);
    d.ack([order[0] ?? ""], FROM);
    d.ack([order[1] ?? ""]);
    expect(d.state.phase.t).toBe("applying");
    expect(d.state.nodes[order[1] ?? ""]?.sent).toBeUndefined();
  });
});

describe("the traffic gate in a rollout", () => {
  const gated = plan({ maxErrorIncrease: "2", minRequests: "100" });

  /** Wave 1 baking, its node `canary`, the other nine the control group. */
  function baking() {
    const d = new Driver(gated, ten);
    d.ackAll();
    const [canary = "", ...control] = order;
    return { d, canary, control };
  }

  it("rolls back when the wave's error ratio rises more than N points over the control group's", () => {
    const { d, canary, control } = baking();
    d.advance(10 * SECOND);
    d.load({
      [canary]: [200, 30],
      ...Object.fromEntries(control.map((id) => [id, [200, 1] as const])),
    });
    expect(d.state.phase).toMatchObject({
      t: "rolling-back",
      outcome: {
        t: "failed",
        reason: {
          t: "traffic",
          cluster: "shop",
          canary: { requests: 200, errored: 30 },
          control: { requests: 1_800, errored: 9 },
        },
      },
    });
    const audit = d.last.actions.find((a) => a.t === "audit");
    expect(audit?.t === "audit" && audit.message).toContain(
      'cluster "shop" errors rose more than 2 points with version 8: 15.00% over 200 requests',
    );
  });

  it("passes when the wave's errors stay within N points, over windows added up", () => {
    const { d, canary, control } = baking();
    const window = {
      [canary]: [60, 1] as const,
      ...Object.fromEntries(control.map((id) => [id, [60, 0] as const])),
    };
    d.advance(30 * SECOND);
    d.load(window);
    d.advance(20 * SECOND);
    d.load(window);
    expect(d.state.traffic).toEqual({
      shop: { canary: { requests: 120, errored: 2 }, control: { requests: 1_080, errored: 0 } },
    });
    expect(d.state.phase.t).toBe("baking");
    d.advance(10 * SECOND);
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 2 });
  });

  it("does not count a load window that began before the wave was baking", () => {
    const { d, canary } = baking();
    d.advance(10 * SECOND);
    d.load({ [canary]: [500, 500] }, { from: T0 - SECOND });
    expect(d.state.traffic).toEqual({});
    expect(d.state.phase.t).toBe("baking");
  });

  it("passes a bake that ended without enough traffic when the plan says pass, naming the clusters", () => {
    const { d } = baking();
    d.advance(MINUTE);
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 2 });
    const promoted = d.actions.find((a) => a.t === "audit" && a.kind === "promoted");
    expect(promoted?.t === "audit" && promoted.message).toBe(
      "wave 1 passed its gates (without enough traffic to judge: shop)",
    );
  });

  it("fails a bake that ended without enough traffic when the plan says fail", () => {
    const strict = planOf({
      waves: [1, "100%"],
      traffic: { maxErrorIncrease: 2, withoutTraffic: "fail" },
    });
    const d = new Driver(strict, ten);
    d.ackAll();
    d.load({ [order[0] ?? ""]: [10, 0] }, { from: d.now });
    d.advance(2 * MINUTE);
    expect(d.state.phase).toMatchObject({
      t: "rolling-back",
      outcome: { reason: { t: "no-traffic" } },
    });
    d.ack([order[0] ?? ""], FROM);
    expect(d.state.phase).toMatchObject({
      t: "failed",
      reason: { t: "no-traffic", wave: 1, minRequests: 100 },
    });
    const phase = d.state.phase;
    if (phase.t === "failed")
      expect(describeFailure(phase.reason)).toBe(
        'wave 1: the bake ended before "shop" (10 on the wave\'s nodes, 0 on the others) had 100 requests on each side to compare, and the plan fails without traffic',
      );
  });

  it("judges the last wave, which has no control group left, against the previous wave's control group", () => {
    const p = plan({ waves: "1,100%", maxErrorIncrease: "2" });
    const d = new Driver(p, ten);
    d.ackAll();
    const [canary = "", ...control] = order;
    d.load(
      { [canary]: [100, 0], ...Object.fromEntries(control.map((id) => [id, [100, 1] as const])) },
      { from: d.now },
    );
    d.advance(MINUTE);
    expect(d.state.baseline).toEqual({ shop: { requests: 900, errored: 9 } });
    d.ackAll();
    d.advance(10 * SECOND);
    d.load(Object.fromEntries(order.map((id) => [id, [100, 10] as const])));
    expect(d.state.phase).toMatchObject({
      t: "rolling-back",
      outcome: {
        reason: { t: "traffic", controlFrom: "baseline", control: { requests: 900, errored: 9 } },
      },
    });
  });
});

describe("failure modes", () => {
  it("pauses instead of rolling back under onFailure: pause, keeping every node where it is", () => {
    const d = new Driver(plan({ onFailure: "pause" }), ten);
    d.nack(order[0] ?? "", "bad");
    expect(d.state.phase).toMatchObject({ t: "paused", wave: 1, failure: { t: "nack" } });
    expect(d.onNew()).toEqual([order[0]]);
    d.advance(10 * MINUTE);
    expect(d.state.phase.t).toBe("paused");
    d.send({ t: "abort", now: d.now, by: "alice" });
    d.ack([order[0] ?? ""], FROM);
    expect(d.state.phase).toMatchObject({
      t: "aborted",
      by: "alice",
      after: { t: "nack" },
      unconfirmed: [],
    });
  });

  it("fails a rollout whose wave 1 selector matches no connected node", () => {
    const p = planOf({ waves: [{ nodes: { ids: ["canary-*"] } }, "100%"] });
    const d = new Driver(p, ten);
    expect(d.state.phase).toMatchObject({
      t: "failed",
      reason: { t: "empty-selector", group: "edge" },
    });
    expect(d.actions.filter((a) => a.t === "send")).toEqual([]);
  });

  it("sends wave 1 to the selector's nodes", () => {
    const p = planOf({ waves: [{ nodes: { ids: ["edge-1*"] } }, "100%"] });
    const d = new Driver(p, groupNodes(12));
    expect(d.onNew()).toEqual(["edge-1", "edge-10", "edge-11"]);
  });
});

describe("people", () => {
  it("pause stops every decision; resume starts the wave again with fresh ACK timeouts", () => {
    const d = new Driver(plan(), ten);
    d.send({ t: "pause", now: d.now, by: "alice" });
    expect(d.state.phase).toEqual({ t: "paused", wave: 1, since: T0, by: "alice" });
    d.advance(5 * MINUTE);
    expect(d.state.phase.t).toBe("paused");
    d.send({ t: "resume", now: d.now, by: "alice" });
    expect(d.state.phase).toEqual({ t: "applying", wave: 1, since: T0 + 5 * MINUTE });
    d.advance(29 * SECOND);
    expect(d.state.phase.t).toBe("applying");
    d.ackAll();
    expect(d.state.phase.t).toBe("baking");
    expect(d.kinds()).toEqual(["wave-started", "paused", "resumed", "wave-started", "baking"]);
  });

  it("promote now ends the wave as promoted before its gates and bake", () => {
    const d = new Driver(plan(), ten);
    d.send({ t: "promote", now: d.now, by: "bob" });
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 2 });
    expect(d.state.waves[0]).toMatchObject({ wave: 1, ended: "promoted" });
    expect(d.actions).toContainEqual(
      expect.objectContaining({ t: "audit", kind: "promoted", by: "bob" }),
    );
  });

  it("promote now on the last wave completes the rollout", () => {
    const d = new Driver(plan({ waves: "100%" }), ten);
    d.send({ t: "promote", now: d.now, by: "bob" });
    expect(d.state.phase.t).toBe("completed");
  });

  it("abort rolls back every node that had the version and ends as aborted", () => {
    const d = new Driver(plan(), ten);
    d.ackAll();
    d.advance(MINUTE);
    d.send({ t: "abort", now: d.now, by: "carol" });
    expect(d.last.actions[0]).toEqual({
      t: "send",
      version: FROM,
      nodeIds: [...order.slice(0, 5)].sort(),
    });
    d.ack(order.slice(0, 5), FROM);
    expect(d.state.phase).toEqual({ t: "aborted", at: d.now, by: "carol", unconfirmed: [] });
  });

  it.each([
    ["pause while paused", [{ t: "pause" }, { t: "pause" }], "the rollout is paused already"],
    ["resume while running", [{ t: "resume" }], "the rollout is not paused"],
    [
      "promote while rolling back",
      [{ t: "abort" }, { t: "promote" }],
      "the rollout is rolling back",
    ],
    [
      "abort once ended",
      [{ t: "promote" }, { t: "promote" }, { t: "promote" }, { t: "abort" }],
      "the rollout has ended (completed)",
    ],
  ] as const)("refuses %s, and changes nothing", (_, commands, why) => {
    const d = new Driver(plan(), ten);
    for (const command of commands.slice(0, -1)) d.send({ ...command, now: d.now, by: "dan" });
    const before = d.state;
    const last = commands.at(-1) ?? { t: "pause" };
    const result = step(before, { ...last, now: d.now + MINUTE, by: "dan" });
    expect(result).toEqual({ state: before, actions: [], refused: why });
  });
});

describe("nodes that come and go", () => {
  it("serves a node that first connects mid-rollout the previous version until a wave reaches it", () => {
    const d = new Driver(plan(), ten);
    const late = groupNode("late-node");
    d.send({ t: "connect", now: d.now, node: late });
    expect(versionFor(d.state, late.id)).toBe(FROM);
    d.ackAll();
    d.advance(MINUTE);
    d.ackAll();
    d.advance(MINUTE);
    // Wave 3 is 100%: every node, the late one too.
    expect(versionFor(d.state, late.id)).toBe(TO);
  });

  it("sends the version at once to a node that connects during the last wave", () => {
    const d = new Driver(plan({ waves: "100%" }), ten);
    d.ackAll();
    const late = groupNode("late-node");
    d.send({ t: "connect", now: d.now, node: late });
    expect(d.last.actions).toEqual([{ t: "send", version: TO, nodeIds: [late.id] }]);
    d.advance(20 * SECOND);
    expect(d.state.phase.t).toBe("baking");
    d.ack([late.id]);
    d.advance(40 * SECOND);
    expect(d.state.phase.t).toBe("completed");
  });

  it("waits for a first node when none was connected at the publish, and bakes only once it ACKed", () => {
    const d = new Driver(plan({ waves: "1,100%" }), []);
    expect(d.state.phase).toEqual({ t: "baking", wave: 1, since: T0 });
    d.advance(30 * SECOND);
    d.send({ t: "connect", now: d.now, node: groupNode("first") });
    expect(d.last.actions).toEqual([{ t: "send", version: TO, nodeIds: ["first"] }]);
    expect(d.state.phase).toEqual({ t: "applying", wave: 1, since: T0 + 30 * SECOND });
    d.advance(10 * SECOND);
    d.ack(["first"]);
    d.advance(MINUTE - SECOND);
    expect(d.state.phase).toMatchObject({ t: "baking", wave: 1 });
    d.advance(SECOND);
    // Wave 2 has no node that wave 1 did not: it bakes at once.
    expect(d.state.phase).toMatchObject({ t: "baking", wave: 2 });
  });

  it("lets a wave whose node left take the next node that connects", () => {
    const d = new Driver(plan(), ten);
    const canary = order[0] ?? "";
    d.ackAll();
    d.send({ t: "disconnect", now: d.now, nodeId: canary });
    d.send({ t: "connect", now: d.now, node: groupNode("late") });
    expect(d.last.actions).toEqual([{ t: "send", version: TO, nodeIds: ["late"] }]);
    expect(d.state.phase).toMatchObject({ t: "applying", wave: 1 });
  });

  it("grows a percentage wave with the group, by the nodes that connect while it is short", () => {
    const d = new Driver(plan({ waves: "50%,100%" }), groupNodes(2));
    d.send({ t: "connect", now: d.now, node: groupNode("late-1") });
    expect(versionFor(d.state, "late-1")).toBe(TO);
    d.send({ t: "connect", now: d.now, node: groupNode("late-2") });
    expect(versionFor(d.state, "late-2")).toBe(FROM);
    expect(d.state.waves[0]?.sent).toBe(2);
  });

  it("takes a node matching wave 1's selector when it connects during wave 1", () => {
    const p = planOf({ waves: [{ nodes: { metadata: { canary: "true" } } }, "100%"] });
    const canary = groupNode("canary-1", { metadata: { canary: "true" } });
    const d = new Driver(p, [...ten, canary]);
    d.send({
      t: "connect",
      now: d.now,
      node: groupNode("canary-2", { metadata: { canary: "true" } }),
    });
    d.send({ t: "connect", now: d.now, node: groupNode("plain") });
    expect(d.onNew()).toEqual(["canary-1", "canary-2"]);
  });

  it("keeps a reconnecting node on its wave's version, and it must ACK it again", () => {
    const d = new Driver(plan(), ten);
    const first = order[0] ?? "";
    d.ackAll();
    d.send({ t: "disconnect", now: d.now, nodeId: first });
    d.advance(10 * SECOND);
    d.send({ t: "connect", now: d.now, node: groupNode(first) });
    expect(versionFor(d.state, first)).toBe(TO);
    expect(d.state.nodes[first]?.sent?.ack).toEqual({ t: "pending" });
    d.advance(MINUTE);
    expect(d.state.phase).toMatchObject({
      t: "rolling-back",
      outcome: { reason: { t: "ack-timeout", nodeIds: [first], disconnected: [] } },
    });
  });

  it("fills a wave from the nodes connected when it starts, by hash order", () => {
    const d = new Driver(plan(), ten);
    d.ackAll();
    const gone = order.slice(1, 3);
    for (const nodeId of gone) d.send({ t: "disconnect", now: d.now, nodeId });
    d.advance(MINUTE);
    // 50% of the 8 connected = 4: the first node and the next three connected ones in order.
    const connected = order.filter((id) => !gone.includes(id));
    expect(d.onNew()).toEqual([...connected.slice(0, 4)].sort());
  });
});

describe("the state", () => {
  it("survives a JSON round trip unchanged", () => {
    const d = new Driver(plan({ maxErrorIncrease: "2" }), ten);
    d.ackAll();
    d.load({ [order[0] ?? ""]: [10, 1] }, { from: d.now });
    d.nack(order[0] ?? "", "bad");
    expect(roundTrip(d.state)).toEqual(d.state);
  });

  it("never lets time go back", () => {
    const d = new Driver(plan(), ten);
    d.advance(10 * SECOND);
    d.send({ t: "tick", now: T0 });
    expect(d.state.now).toBe(T0 + 10 * SECOND);
  });

  it("is the same after the same events, and stepAll is step folded", () => {
    const gated = plan({ maxErrorIncrease: "2", minRequests: "10" });
    const ids = [...ten.map((n) => n.id), "late-a", "late-b"];
    const nodeId = fc.constantFrom(...ids);
    const event = (now: number): fc.Arbitrary<RolloutEvent> =>
      fc.oneof(
        fc.constant({ t: "tick", now } as const),
        nodeId.map((id) => ({ t: "ack", now, nodeId: id, version: TO }) as const),
        nodeId.map((id) => ({ t: "ack", now, nodeId: id, version: FROM }) as const),
        nodeId.map((id) => ({ t: "nack", now, nodeId: id, version: TO, detail: "bad" }) as const),
        nodeId.map((id) => ({ t: "connect", now, node: groupNode(id) }) as const),
        nodeId.map((id) => ({ t: "disconnect", now, nodeId: id }) as const),
        fc.array(fc.tuple(nodeId, fc.nat(50), fc.nat(50)), { maxLength: 5 }).map(
          (rows) =>
            ({
              t: "load",
              now,
              from: now - 10_000,
              to: now,
              samples: rows.map(([id, ok, bad]) => ({
                nodeId: id,
                cluster: "shop",
                successful: ok,
                errored: bad,
              })),
            }) as const,
        ),
        fc
          .constantFrom("pause" as const, "resume" as const, "promote" as const, "abort" as const)
          .map((t) => ({ t, now, by: "eve" })),
      );
    const events = fc.array(fc.nat(40_000), { maxLength: 40 }).chain((gaps) => {
      const times = gaps.map((_, i) => T0 + gaps.slice(0, i + 1).reduce((a, b) => a + b, 0));
      return fc.tuple(...times.map(event));
    });
    fc.assert(
      fc.property(events, (list) => {
        const start = () =>
          startRollout({
            id: "r",
            group: "edge",
            plan: gated,
            fromVersion: FROM,
            toVersion: TO,
            clusters: ["shop"],
            nodes: ten,
            now: T0,
          });
        let folded = start().state;
        let again = start().state;
        for (const e of list) {
          folded = step(roundTrip(folded), e).state;
          again = step(again, e).state;
        }
        expect(again).toEqual(folded);
        expect(stepAll(start().state, list).state).toEqual(folded);
        // Monotone: a node that had the version keeps it until the rollout is rolled back.
        if (
          folded.phase.t !== "rolling-back" &&
          folded.phase.t !== "failed" &&
          folded.phase.t !== "aborted"
        )
          for (const [id, entry] of Object.entries(folded.nodes))
            if (entry.sent) expect(versionFor(folded, id)).toBe(TO);
      }),
      { numRuns: 200 },
    );
  });
});
