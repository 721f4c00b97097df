import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Driver, FROM, groupNode, groupNodes, plan, T0, TO } from "./fixtures.js";
import { gateStatus, wakeAt } from "./gate-status.js";
import { startRollout, step } from "./machine.js";
import type { RolloutEvent } from "./rollout-state.js";
import { hashOrder } from "./waves.js";

const ten = groupNodes(10);
const order = hashOrder(ten.map((n) => n.id));
const SECOND = 1_000;
const MINUTE = 60_000;

describe("gate status", () => {
  it("shows ACK progress while applying", () => {
    const d = new Driver(plan({ waves: "50%,100%" }), ten);
    d.ack(order.slice(0, 2));
    expect(gateStatus(d.state)).toEqual({
      wave: 1,
      ack: { t: "waiting", acked: 2, pending: 3, deadline: T0 + 30 * SECOND },
    });
  });

  it("shows both sides' figures per touched cluster while baking, and when the bake ends", () => {
    const d = new Driver(plan({ maxErrorIncrease: "2", minRequests: "10" }), ten);
    d.ackAll();
    d.advance(10 * SECOND);
    d.load({ [order[0] ?? ""]: [100, 1], [order[1] ?? ""]: [30, 0] });
    expect(gateStatus(d.state)).toEqual({
      wave: 1,
      ack: { t: "pass", acked: 1 },
      traffic: {
        t: "pass",
        clusters: [
          {
            cluster: "shop",
            canary: { requests: 100, errored: 1 },
            control: { requests: 30, errored: 0 },
            controlFrom: "live",
            increase: 1,
          },
        ],
      },
      bakeEndsAt: T0 + MINUTE,
    });
  });

  it("has no gates to show once rolling back", () => {
    const d = new Driver(plan(), ten);
    d.nack(order[0] ?? "", "bad");
    expect(gateStatus(d.state)).toBeUndefined();
  });
});

describe("when to tick", () => {
  it("wakes at the earliest pending ACK deadline while applying", () => {
    const d = new Driver(plan(), ten);
    expect(wakeAt(d.state)).toBe(T0 + 30 * SECOND);
  });

  it("wakes at the bake's end while baking", () => {
    const d = new Driver(plan(), ten);
    d.advance(5 * SECOND);
    d.ackAll();
    expect(wakeAt(d.state)).toBe(T0 + 5 * SECOND + MINUTE);
  });

  it("wakes at a newcomer's ACK deadline first, as the bake cannot end before it ACKs", () => {
    const d = new Driver(plan({ waves: "100%", bake: "10s" }), ten);
    d.ackAll();
    d.advance(5 * SECOND);
    d.send({ t: "connect", now: d.now, node: groupNode("late") });
    expect(wakeAt(d.state)).toBe(T0 + 35 * SECOND);
  });

  it("wakes at the rollback's deadline while rolling back", () => {
    const d = new Driver(plan(), ten);
    d.nack(order[0] ?? "", "bad");
    expect(wakeAt(d.state)).toBe(T0 + 30 * SECOND);
  });

  it("does not wake while paused or once ended", () => {
    const d = new Driver(plan(), ten);
    d.send({ t: "pause", now: d.now, by: "alice" });
    expect(wakeAt(d.state)).toBeUndefined();
    d.send({ t: "abort", now: d.now, by: "alice" });
    d.ack([order[0] ?? ""], FROM);
    expect(d.state.phase.t).toBe("aborted");
    expect(wakeAt(d.state)).toBeUndefined();
  });

  it("is the first time a tick changes the phase, whatever happened before", () => {
    const p = plan({ maxErrorIncrease: "2", minRequests: "10" });
    const ids = [...ten.map((n) => n.id), "late"];
    const nodeId = fc.constantFrom(...ids);
    const event = (now: number): fc.Arbitrary<RolloutEvent> =>
      fc.oneof(
        nodeId.map((id) => ({ t: "ack", now, nodeId: id, version: TO }) as const),
        nodeId.map((id) => ({ t: "ack", now, nodeId: id, version: FROM }) as const),
        nodeId.map((id) => ({ t: "nack", now, nodeId: id, version: TO, detail: "x" }) as const),
        nodeId.map((id) => ({ t: "connect", now, node: groupNode(id) }) as const),
        nodeId.map((id) => ({ t: "disconnect", now, nodeId: id }) as const),
        fc.constant({ t: "tick", now } as const),
      );
    const events = fc
      .array(fc.nat(20_000), { maxLength: 30 })
      .chain((gaps) =>
        fc.tuple(
          ...gaps.map((_, i) => event(T0 + gaps.slice(0, i + 1).reduce((a, b) => a + b, 0))),
        ),
      );
    fc.assert(
      fc.property(events, (list) => {
        let state = startRollout({
          id: "r",
          group: "edge",
          plan: p,
          fromVersion: FROM,
          toVersion: TO,
          clusters: ["shop"],
          nodes: ten,
          now: T0,
        }).state;
        for (const e of list) state = step(state, e).state;
        const at = wakeAt(state);
        if (at === undefined) return;
        expect(at).toBeGreaterThan(state.now);
        expect(step(state, { t: "tick", now: at - 1 }).state.phase).toEqual(state.phase);
        expect(step(state, { t: "tick", now: at }).state.phase).not.toEqual(state.phase);
      }),
      { numRuns: 200 },
    );
  });
});
