import { describe, expect, it } from "vitest";
import {
  type ActivityCounts,
  activityLabel,
  activityTotals,
  sparkBars,
  sparkMax,
  windowPhrase,
} from "./node-activity";

const bucket = (c: Partial<ActivityCounts> = {}): ActivityCounts => ({
  acks: 0,
  nacks: 0,
  connects: 0,
  disconnects: 0,
  ...c,
});

describe("activityLabel", () => {
  it("states the window's totals in words, kinds that did not happen left out", () => {
    const buckets = [bucket({ acks: 2, connects: 1 }), bucket(), bucket({ acks: 1, nacks: 1 })];
    expect(activityLabel(buckets, 3_600)).toBe("Last hour: 3 versions ACKed, 1 NACK, 1 connect");
  });

  it("counts in the singular and plural as English does", () => {
    expect(activityLabel([bucket({ acks: 1, nacks: 2, connects: 2, disconnects: 1 })], 3_600)).toBe(
      "Last hour: 1 version ACKed, 2 NACKs, 2 connects, 1 disconnect",
    );
    expect(activityLabel([bucket({ disconnects: 3 })], 3_600)).toBe("Last hour: 3 disconnects");
  });

  it("says no changes for a quiet node, and names the window asked for", () => {
    expect(activityLabel([bucket(), bucket()], 3_600)).toBe("Last hour: no changes");
    expect(activityLabel([], 1_800)).toBe("Last 30 minutes: no changes");
    expect(activityLabel([bucket({ nacks: 1 })], 86_400)).toBe("Last 24 hours: 1 NACK");
  });
});

describe("windowPhrase", () => {
  it("uses the largest whole unit", () => {
    expect(windowPhrase(3_600)).toBe("last hour");
    expect(windowPhrase(7_200)).toBe("last 2 hours");
    expect(windowPhrase(60)).toBe("last minute");
    expect(windowPhrase(300)).toBe("last 5 minutes");
    expect(windowPhrase(90)).toBe("last 90 seconds");
  });
});

describe("sparkBars and sparkMax", () => {
  it("one bar per bucket, oldest first, connects and disconnects as one connection bar", () => {
    expect(
      sparkBars([bucket({ acks: 1 }), bucket({ connects: 1, disconnects: 2, nacks: 1 })]),
    ).toEqual([
      { index: 0, acks: 1, connections: 0, nacks: 0 },
      { index: 1, acks: 0, connections: 3, nacks: 1 },
    ]);
  });

  it("scales to the busiest bucket, never below the floor, so one change is a short bar", () => {
    expect(sparkMax(sparkBars([bucket({ acks: 1 })]))).toBe(4);
    expect(sparkMax(sparkBars([bucket({ acks: 5, nacks: 2 }), bucket({ acks: 1 })]))).toBe(7);
  });

  it("totals add every bucket", () => {
    expect(activityTotals([bucket({ acks: 1 }), bucket({ acks: 2, nacks: 1 })])).toEqual(
      bucket({ acks: 3, nacks: 1 }),
    );
  });
});
