import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { inlinePlan, parsePlanDocument, planOf, type RolloutPlan, type WavePlan } from "./plan.js";
import { describePlan, planDocument } from "./plan-document.js";

const gate = fc.option(
  fc.record({
    maxErrorIncrease: fc.constantFrom(0, 0.5, 2, 10),
    minRequests: fc.integer({ min: 1, max: 10_000 }),
    withoutTraffic: fc.constantFrom("pass" as const, "fail" as const),
  }),
  { nil: undefined },
);

const wave = (share: WavePlan["share"]) =>
  fc
    .record({
      bakeMs: fc.constantFrom(0, 500, 30_000, 120_000, 3_600_000),
      ackTimeoutMs: fc.constantFrom(1_000, 1_500, 30_000, 600_000),
      traffic: gate,
    })
    .map(({ traffic, ...rest }): WavePlan => ({ share, ...rest, ...(traffic ? { traffic } : {}) }));

/** Valid plans: maybe a selector, then growing counts, then growing percentages up to 100%. */
const plans: fc.Arbitrary<RolloutPlan> = fc
  .record({
    selector: fc.option(
      fc.record({
        ids: fc.array(fc.constantFrom("edge-*", "canary-1"), { maxLength: 2 }),
        zone: fc.constantFrom("eu-west-1a"),
        metadata: fc.constantFrom({}, { canary: "true" }),
      }),
      { nil: undefined },
    ),
    counts: fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 3 }),
    percents: fc.uniqueArray(fc.integer({ min: 1, max: 99 }), { maxLength: 3 }),
    name: fc.option(fc.constantFrom("careful", "fast.v2"), { nil: undefined }),
    onFailure: fc.constantFrom("rollback" as const, "pause" as const),
  })
  .chain(({ selector, counts, percents, name, onFailure }) => {
    const shares: WavePlan["share"][] = [
      ...(selector ? [{ t: "selector", selector } as const] : []),
      ...[...counts].sort((a, b) => a - b).map((count) => ({ t: "count", count }) as const),
      ...[...percents, 100]
        .sort((a, b) => a - b)
        .map((percent) => ({ t: "percent", percent }) as const),
    ];
    return fc
      .tuple(...shares.map(wave))
      .map((waves) => ({ ...(name ? { name } : {}), onFailure, waves }));
  });

describe("plan documents written back", () => {
  it("read back as the same plan, as data and as YAML", () => {
    fc.assert(
      fc.property(plans, (plan) => {
        expect(planOf(planDocument(plan))).toEqual(plan);
        expect(parsePlanDocument(stringify(planDocument(plan)))).toEqual(plan);
      }),
      { numRuns: 200 },
    );
  });

  it("say per wave only what differs from wave 1, and `traffic: false` for a wave judged by ACKs alone", () => {
    const plan = planOf({
      bake: "2m",
      traffic: { maxErrorIncrease: 2 },
      waves: [{ share: 1, traffic: false }, "10%", { share: "100%", bake: "10m" }],
    });
    expect(planDocument(plan)).toEqual({
      onFailure: "rollback",
      bake: "2m",
      ackTimeout: "30s",
      waves: [
        1,
        {
          share: "10%",
          traffic: { maxErrorIncrease: 2, minRequests: 100, withoutTraffic: "pass" },
        },
        {
          share: "100%",
          bake: "10m",
          traffic: { maxErrorIncrease: 2, minRequests: 100, withoutTraffic: "pass" },
        },
      ],
    });
  });
});

describe("a plan in one line", () => {
  it("says the waves, the bake, the gates and what a failure does", () => {
    const plan = inlinePlan({
      waves: "1,10%,50%,100%",
      bake: "2m",
      ackTimeout: "30s",
      maxErrorIncrease: "2",
    });
    expect(describePlan(plan)).toBe(
      "waves 1, 10%, 50%, 100%; bake 2m, ACKs within 30s, errors at most 2 points above the previous version's over 100 requests (passes without them); on failure roll back",
    );
  });

  it("adds each wave that differs", () => {
    const plan = planOf({
      waves: [{ nodes: { zone: "z" } }, { share: "100%", bake: "10m", traffic: false }],
    });
    expect(describePlan(plan)).toBe(
      "waves selected nodes, 100%; bake 2m, ACKs within 30s, ACKs only; on failure roll back; wave 2: bake 10m",
    );
  });
});
