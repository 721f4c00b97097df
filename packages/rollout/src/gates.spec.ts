import { describe, expect, it } from "vitest";
import {
  type AckMember,
  ackGate,
  type Counts,
  splitLoad,
  type TrafficGateInput,
  trafficGate,
} from "./gates.js";
import { describeFailure } from "./reasons.js";

const member = (
  nodeId: string,
  ack: AckMember["ack"],
  sentAt = 0,
  connected = true,
): AckMember => ({
  nodeId,
  sentAt,
  ack,
  connected,
});
const acked = (at = 1) => ({ t: "acked", at }) as const;
const pending = { t: "pending" } as const;
const ack = (members: AckMember[], now: number) =>
  ackGate({ members, timeoutMs: 30_000, now, wave: 1, version: 8 });

describe("the ACK gate", () => {
  it("passes when every node that has the version ACKed it", () => {
    expect(ack([member("a", acked()), member("b", acked())], 5_000)).toEqual({
      t: "pass",
      acked: 2,
    });
  });

  it("passes a wave without nodes", () => {
    expect(ack([], 0)).toEqual({ t: "pass", acked: 0 });
  });

  it("waits for pending nodes until the earliest deadline", () => {
    const verdict = ack(
      [member("a", acked()), member("b", pending, 1_000), member("c", pending, 4_000)],
      20_000,
    );
    expect(verdict).toEqual({ t: "waiting", acked: 1, pending: 2, deadline: 31_000 });
  });

  it("fails at once on a NACK, before any timeout, with the client's text", () => {
    const verdict = ack(
      [
        member("a", pending),
        member("b", { t: "nacked", at: 10, detail: "cluster shop: bad lb policy" }),
      ],
      11,
    );
    expect(verdict).toEqual({
      t: "fail",
      reason: {
        t: "nack",
        wave: 1,
        version: 8,
        nodeId: "b",
        detail: "cluster shop: bad lb policy",
      },
    });
    if (verdict.t === "fail")
      expect(describeFailure(verdict.reason)).toBe(
        'wave 1: node "b" NACKed version 8: cluster shop: bad lb policy',
      );
  });

  it("reports the first NACK, by time then node id", () => {
    const verdict = ack(
      [
        member("c", { t: "nacked", at: 20, detail: "late" }),
        member("b", { t: "nacked", at: 10, detail: "second" }),
        member("a", { t: "nacked", at: 10, detail: "first" }),
      ],
      30,
    );
    expect(verdict.t === "fail" && verdict.reason.t === "nack" && verdict.reason.nodeId).toBe("a");
  });

  it("fails when a node is still pending at its deadline, naming it, connected or not", () => {
    const verdict = ack(
      [
        member("a", acked()),
        member("b", pending, 0, false),
        member("c", pending, 0),
        member("d", pending, 5_000),
      ],
      30_000,
    );
    expect(verdict).toEqual({
      t: "fail",
      reason: {
        t: "ack-timeout",
        wave: 1,
        version: 8,
        timeoutMs: 30_000,
        nodeIds: ["b", "c"],
        disconnected: ["b"],
      },
    });
    if (verdict.t === "fail")
      expect(describeFailure(verdict.reason)).toBe(
        "wave 1: 2 node(s) did not ACK version 8 within 30 s: b, c (1 of them disconnected: b)",
      );
  });

  it("counts an ACK after a NACK as the node's answer", () => {
    // The state machine keeps one status per node: the latest. A node that ACKs is acked.
    expect(ack([member("a", acked(50))], 60).t).toBe("pass");
  });
});

const c = (requests: number, errored: number): Counts => ({ requests, errored });
const gate = (overrides: Partial<TrafficGateInput> = {}) =>
  trafficGate({
    clusters: ["shop"],
    sides: {},
    baseline: {},
    maxErrorIncrease: 2,
    minRequests: 100,
    wave: 1,
    version: 8,
    ...overrides,
  });

describe("the traffic gate", () => {
  it("passes when the wave's error ratio is within N points of the control group's", () => {
    const verdict = gate({ sides: { shop: { canary: c(1_000, 25), control: c(9_000, 90) } } });
    expect(verdict.t).toBe("pass");
    expect(verdict.clusters[0]?.increase).toBeCloseTo(1.5);
  });

  it("passes a wave exactly N points above the control group", () => {
    expect(gate({ sides: { shop: { canary: c(100, 3), control: c(100, 1) } } }).t).toBe("pass");
  });

  it("fails more than N points above, naming the cluster with both ratios and request counts", () => {
    const verdict = gate({ sides: { shop: { canary: c(1_600, 200), control: c(9_800, 39) } } });
    expect(verdict.t).toBe("fail");
    if (verdict.t !== "fail") return;
    expect(verdict.reason).toEqual({
      t: "traffic",
      wave: 1,
      version: 8,
      cluster: "shop",
      canary: c(1_600, 200),
      control: c(9_800, 39),
      controlFrom: "live",
      maxErrorIncrease: 2,
    });
    expect(describeFailure(verdict.reason)).toBe(
      'wave 1: cluster "shop" errors rose more than 2 points with version 8: 12.50% over 1600 requests on the wave\'s nodes against 0.40% over 9800 requests on the nodes still on the previous version',
    );
  });

  it("fails on the cluster with the largest increase", () => {
    const verdict = gate({
      clusters: ["a", "b", "c"],
      sides: {
        a: { canary: c(100, 10), control: c(100, 0) },
        b: { canary: c(100, 40), control: c(100, 0) },
        c: { canary: c(100, 0), control: c(100, 0) },
      },
    });
    expect(verdict.t === "fail" && verdict.reason.cluster).toBe("b");
  });

  it.each([
    ["the wave", { canary: c(99, 50), control: c(5_000, 0) }],
    ["the control group", { canary: c(5_000, 0), control: c(99, 0) }],
  ])("waits while %s has fewer than min requests of a cluster", (_, sides) => {
    expect(gate({ sides: { shop: sides } })).toMatchObject({ t: "waiting", short: ["shop"] });
  });

  it("waits for a touched cluster nobody reported", () => {
    expect(
      gate({
        clusters: ["shop", "cart"],
        sides: { shop: { canary: c(100, 0), control: c(100, 0) } },
      }),
    ).toMatchObject({
      t: "waiting",
      short: ["cart"],
    });
  });

  it("compares with the baseline when no live control group is left", () => {
    const verdict = gate({
      sides: { shop: { canary: c(1_000, 100), control: c(0, 0) } },
      baseline: { shop: c(2_000, 20) },
    });
    expect(verdict.t).toBe("fail");
    if (verdict.t === "fail") {
      expect(verdict.reason.controlFrom).toBe("baseline");
      expect(verdict.reason.control).toEqual(c(2_000, 20));
    }
  });

  it("passes a version that touched no cluster", () => {
    expect(gate({ clusters: [] })).toEqual({ t: "pass", clusters: [] });
  });
});

describe("splitting load reports", () => {
  it("adds up the touched clusters by side and leaves out other clusters and unknown nodes", () => {
    const side = (nodeId: string) =>
      ({ a: "canary", b: "control", c: "control" })[nodeId] as "canary" | "control" | undefined;
    const sides = splitLoad(
      [
        { nodeId: "a", cluster: "shop", successful: 90, errored: 10 },
        { nodeId: "a", cluster: "shop", successful: 50, errored: 0 },
        { nodeId: "b", cluster: "shop", successful: 100, errored: 1 },
        { nodeId: "c", cluster: "shop", successful: 10, errored: 1 },
        { nodeId: "b", cluster: "other", successful: 100, errored: 100 },
        { nodeId: "zz", cluster: "shop", successful: 100, errored: 100 },
      ],
      ["shop"],
      side,
    );
    expect(sides).toEqual({ shop: { canary: c(150, 10), control: c(112, 2) } });
  });
});
