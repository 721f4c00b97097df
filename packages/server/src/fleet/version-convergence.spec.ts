import { describe, expect, it } from "vitest";
import { type StoredTally, sumTallies } from "./version-convergence.js";

const tally = (over: Partial<StoredTally>): StoredTally => ({
  targeted: 0,
  convergedMs: [],
  nacked: 0,
  nackedEver: 0,
  firstNackAt: null,
  updatedAt: 0,
  ...over,
});

describe("sumTallies", () => {
  it("time to a share of the targets is the converged time at that rank over every replica's targets", () => {
    const summed = sumTallies(7, 1_000, [
      tally({ targeted: 3, convergedMs: [5, 40, 90], updatedAt: 2_000 }),
      tally({ targeted: 2, convergedMs: [10, 60], updatedAt: 3_000 }),
    ]);
    expect(summed).toMatchObject({
      version: 7,
      targeted: 5,
      converged: 5,
      // Ranks 3, 5 and 5 of [5, 10, 40, 60, 90].
      msTo50: 40,
      msTo99: 90,
      msTo100: 90,
      replicas: 2,
      updatedAt: 3_000,
    });
  });

  it("a share not reached yet has no time: nodes still pending or NACKing count against it", () => {
    const summed = sumTallies(7, 0, [
      tally({ targeted: 4, convergedMs: [10, 20], nacked: 1, nackedEver: 2, firstNackAt: 500 }),
      tally({ targeted: 1, nackedEver: 1, firstNackAt: 300 }),
    ]);
    expect(summed).toMatchObject({
      converged: 2,
      msTo50: undefined,
      msTo100: undefined,
      nacked: 1,
      nackedEver: 3,
      firstNackAt: 300,
    });
    expect(sumTallies(7, 0, [tally({ targeted: 4, convergedMs: [10, 20] })]).msTo50).toBe(20);
  });

  it("targets that held the version already are counted, at 0 ms", () => {
    const summed = sumTallies(7, 0, [tally({ targeted: 3, convergedMs: [0, 0, 250] })]);
    expect(summed).toMatchObject({ alreadyHeld: 2, msTo50: 0, msTo100: 250 });
  });

  it("a version no replica targeted anything with reads as 0 targets and no times", () => {
    expect(sumTallies(7, 0, [])).toMatchObject({
      targeted: 0,
      converged: 0,
      msTo50: undefined,
      msTo100: undefined,
      replicas: 0,
      updatedAt: undefined,
    });
  });
});
