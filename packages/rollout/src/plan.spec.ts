import { describe, expect, it } from "vitest";
import { ALIAS_BOMB_PLAN } from "./fixtures.js";
import { durationMs, inlinePlan, PlanError, parsePlanDocument, planOf } from "./plan.js";

/** The issues a plan is refused with, as "path: message". */
function issues(read: () => unknown): string[] {
  try {
    read();
  } catch (error: unknown) {
    if (error instanceof PlanError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  throw new Error("the plan was accepted");
}

const doc = (waves: unknown[], extra: object = {}) => ({ waves, ...extra });

describe("inline plans (publish --waves ...)", () => {
  it("reads 1,10%,50%,100% with its bake, ACK timeout and traffic gate, durations in ms", () => {
    const plan = inlinePlan({
      waves: "1,10%,50%,100%",
      bake: "2m",
      ackTimeout: "30s",
      maxErrorIncrease: "2",
      minRequests: "100",
      onFailure: "pause",
    });
    const traffic = { maxErrorIncrease: 2, minRequests: 100, withoutTraffic: "pass" };
    expect(plan).toEqual({
      onFailure: "pause",
      waves: [
        { share: { t: "count", count: 1 }, bakeMs: 120_000, ackTimeoutMs: 30_000, traffic },
        { share: { t: "percent", percent: 10 }, bakeMs: 120_000, ackTimeoutMs: 30_000, traffic },
        { share: { t: "percent", percent: 50 }, bakeMs: 120_000, ackTimeoutMs: 30_000, traffic },
        { share: { t: "percent", percent: 100 }, bakeMs: 120_000, ackTimeoutMs: 30_000, traffic },
      ],
    });
  });

  it("defaults to a 2 min bake, 30 s ACK timeout, rollback, and no traffic gate without --max-error-increase", () => {
    expect(inlinePlan({ waves: "100%" })).toEqual({
      onFailure: "rollback",
      waves: [{ share: { t: "percent", percent: 100 }, bakeMs: 120_000, ackTimeoutMs: 30_000 }],
    });
  });

  it.each([
    [
      "a wave that is not a share",
      { waves: "1,10x%,100%" },
      '--waves item 2 ("10x%"): "10x%" is not a wave share',
    ],
    [
      "a bake that is not a duration",
      { waves: "100%", bake: "soon" },
      '--bake: "soon" is not a duration',
    ],
    [
      "an ACK timeout out of bounds",
      { waves: "100%", ackTimeout: "1h" },
      "--ack-timeout: ackTimeout 1h is out of bounds",
    ],
    [
      "a negative increase",
      { waves: "100%", maxErrorIncrease: "-1" },
      "--max-error-increase: maxErrorIncrease may not be negative",
    ],
    [
      "a fractional request count",
      { waves: "100%", maxErrorIncrease: "2", minRequests: "1.5" },
      "--min-requests: minRequests is a whole number",
    ],
    ["an unknown failure mode", { waves: "100%", onFailure: "retry" }, "--on-failure: "],
    [
      "--min-requests without a traffic gate",
      { waves: "100%", minRequests: "10" },
      "--min-requests: needs --max-error-increase",
    ],
    [
      "a last wave short of 100%",
      { waves: "1,50%" },
      '--waves item 2 ("50%"): the last wave must be 100%',
    ],
  ])("names the flag of %s", (_, flags, expected) => {
    expect(issues(() => inlinePlan(flags)).join("\n")).toContain(expected);
  });
});

describe("plan documents", () => {
  it("reads YAML with a selector wave, per-wave overrides and plan-wide defaults", () => {
    const plan = parsePlanDocument(`
name: careful
onFailure: pause
bake: 5m
ackTimeout: 20s
traffic: { maxErrorIncrease: 1.5 }
waves:
  - nodes: { ids: ["edge-canary-*"], zone: eu-west-1a, metadata: { canary: "true" } }
  - 10%
  - { share: 50%, bake: 10m, traffic: { maxErrorIncrease: 3, minRequests: 500, withoutTraffic: fail } }
  - 100%
`);
    expect(plan.name).toBe("careful");
    expect(plan.onFailure).toBe("pause");
    expect(plan.waves.map((w) => w.share)).toEqual([
      {
        t: "selector",
        selector: { ids: ["edge-canary-*"], zone: "eu-west-1a", metadata: { canary: "true" } },
      },
      { t: "percent", percent: 10 },
      { t: "percent", percent: 50 },
      { t: "percent", percent: 100 },
    ]);
    expect(plan.waves.map((w) => [w.bakeMs, w.ackTimeoutMs])).toEqual([
      [300_000, 20_000],
      [300_000, 20_000],
      [600_000, 20_000],
      [300_000, 20_000],
    ]);
    expect(plan.waves[1]?.traffic).toEqual({
      maxErrorIncrease: 1.5,
      minRequests: 100,
      withoutTraffic: "pass",
    });
    expect(plan.waves[2]?.traffic).toEqual({
      maxErrorIncrease: 3,
      minRequests: 500,
      withoutTraffic: "fail",
    });
  });

  it("refuses a YAML alias bomb as a PlanError of the document, not a crash", () => {
    expect(issues(() => parsePlanDocument(ALIAS_BOMB_PLAN))).toEqual([
      ": Excessive alias count indicates a resource exhaustion attack",
    ]);
  });

  it("reads JSON as the same plan as YAML", () => {
    const yaml = parsePlanDocument("waves: [1, 25%, 100%]\nbake: 90s\n");
    const json = parsePlanDocument('{"waves": [1, "25%", "100%"], "bake": "90s"}');
    expect(json).toEqual(yaml);
  });

  it("reads a bare number as seconds, as every other duration does", () => {
    expect(planOf(doc(["100%"], { bake: 90 })).waves[0]?.bakeMs).toBe(90_000);
  });

  it("names the line of a YAML syntax error", () => {
    expect(issues(() => parsePlanDocument("waves: [1, 100%\nbake: 2m\n"))[0]).toMatch(
      /^line \d+, column \d+: /,
    );
  });

  it.each([
    ["the last wave is 100%", doc([1, "50%"]), "waves[1]: the last wave must be 100%"],
    [
      "counts grow strictly",
      doc([5, 5, "100%"]),
      "waves[1].share: waves must grow: 5 is not more than 5",
    ],
    [
      "percentages grow strictly",
      doc(["50%", "20%", "100%"]),
      "waves[1].share: waves must grow: 20% is not more than 50%",
    ],
    [
      "a count does not follow a percentage",
      doc(["10%", 50, "100%"]),
      "waves[1].share: a count (50) may not follow a percentage (10%)",
    ],
    [
      "a percentage is above 0",
      doc(["0%", "100%"]),
      "waves[0].share: 0%: a percentage must be above 0 and at most 100",
    ],
    [
      "a percentage is at most 100",
      doc(["150%"]),
      "waves[0].share: 150%: a percentage must be above 0 and at most 100",
    ],
    [
      "a count is at least 1",
      doc([0, "100%"]),
      "waves[0].share: 0: a count of nodes must be from 1",
    ],
    [
      "a selector chooses wave 1 only",
      doc([1, { nodes: { zone: "a" } }, "100%"]),
      "waves[1].nodes: only wave 1 may be a node selector",
    ],
    [
      "a wave is a share or a selector, not both",
      doc([{ share: 1, nodes: { zone: "a" } }, "100%"]),
      "waves[0]: a wave is a share or a node selector (nodes), not both",
    ],
    ["a wave has a share", doc([{ bake: "1m" }, "100%"]), "waves[0]: a wave needs a share"],
    [
      "a selector selects something",
      doc([{ nodes: {} }, "100%"]),
      "waves[0].nodes: a node selector needs ids, a zone or metadata",
    ],
    [
      "the bake is at most 24 h",
      doc(["100%"], { bake: "25h" }),
      "bake: bake 25h is out of bounds: from 0s to 24h",
    ],
    [
      "the ACK timeout is at least 1 s",
      doc(["100%"], { ackTimeout: "500ms" }),
      "ackTimeout: ackTimeout 500ms is out of bounds: from 1s to 10m",
    ],
    [
      "a wave's own bake is bounded too",
      doc([{ share: "100%", bake: "2d" }]),
      "waves[0].bake: bake 48h is out of bounds",
    ],
    [
      "the increase is in points, at most 100",
      doc(["100%"], { traffic: { maxErrorIncrease: 150 } }),
      "traffic.maxErrorIncrease: maxErrorIncrease is in percentage points: at most 100",
    ],
    [
      "min requests is at least 1",
      doc(["100%"], { traffic: { maxErrorIncrease: 2, minRequests: 0 } }),
      "traffic.minRequests: minRequests must be at least 1",
    ],
    ["unknown fields are refused by name", doc(["100%"], { bak: "2m" }), 'Unrecognized key: "bak"'],
    ["a plan has a wave", doc([]), "waves: a plan needs at least one wave"],
    [
      "a name is a plain word",
      doc(["100%"], { name: "my plan" }),
      "name: a plan's name is 1-100 letters",
    ],
  ])("refuses a plan unless %s, saying where", (_, value, expected) => {
    expect(issues(() => planOf(value)).join("\n")).toContain(expected);
  });

  it("reports every problem, not only the first", () => {
    expect(issues(() => planOf(doc([3, 2, { nodes: { zone: "a" } }, "50%"])))).toEqual([
      "waves[1].share: waves must grow: 2 is not more than 3",
      "waves[2].nodes: only wave 1 may be a node selector; later waves are shares of the group",
      "waves[3]: the last wave must be 100%: a rollout that completes has reached every node",
    ]);
    expect(issues(() => planOf(doc(["0%", "150%"], { bake: "-" })))).toEqual([
      'bake: "-" is not a duration: use e.g. 500ms, 30s, 2m or 1h',
      "waves[0].share: 0%: a percentage must be above 0 and at most 100",
      "waves[1].share: 150%: a percentage must be above 0 and at most 100",
    ]);
  });
});

describe("durations", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["2m", 120_000],
    ["1.5h", 5_400_000],
    ["1d", 86_400_000],
    ["90", 90_000],
    ["2 m", undefined],
    ["-1s", undefined],
    ["soon", undefined],
  ])("reads %s as %s ms, as packages/server/src/duration.ts does", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });
});
