import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  RolloutClusterFiguresSchema,
  RolloutGatesSchema,
  RolloutPhase,
  RolloutSchema,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import { describe, expect, it } from "vitest";
import {
  ackProgress,
  commandsOf,
  compareCluster,
  formatPoints,
  timeline,
  trafficChart,
} from "./rollouts";

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const at = (s: number) => timestampFromMs(T0 + s * 1000);
const figures = (cluster: string, canary: [number, number], control: [number, number]) =>
  create(RolloutClusterFiguresSchema, {
    cluster,
    canaryRequests: BigInt(canary[0]),
    canaryErrors: BigInt(canary[1]),
    controlRequests: BigInt(control[0]),
    controlErrors: BigInt(control[1]),
  });

describe("a rollout as the Rollouts page shows it", () => {
  it("lists every wave of the plan: those that ran with their times and outcome, the current one, then the planned ones", () => {
    const rollout = create(RolloutSchema, {
      phase: RolloutPhase.BAKING,
      plan: {
        waves: [
          { share: { case: "count", value: 1 }, shareText: "1 node" },
          { share: { case: "percent", value: 50 }, shareText: "50%" },
          { share: { case: "percent", value: 100 }, shareText: "100%" },
        ],
      },
      waves: [
        {
          wave: 1,
          share: "1 node",
          startTime: at(0),
          bakeStartTime: at(1),
          endTime: at(3),
          ended: "passed",
          sent: 1,
        },
        { wave: 2, share: "50%", startTime: at(3), bakeStartTime: at(4), ended: "", sent: 1 },
      ],
    });
    expect(timeline(rollout).map((w) => [w.wave, w.share, w.state, w.sent, w.ended])).toEqual([
      [1, "1 node", "done", 1, "passed"],
      [2, "50%", "current", 1, ""],
      [3, "100%", "planned", undefined, ""],
    ]);
    expect(timeline(rollout)[0]?.endedAt).toBe(T0 + 3000);
  });

  it("offers only the commands the server takes in each phase", () => {
    expect(commandsOf({ phase: RolloutPhase.BAKING })).toEqual({
      pause: true,
      resume: false,
      promote: true,
      abort: true,
    });
    expect(commandsOf({ phase: RolloutPhase.PAUSED })).toEqual({
      pause: false,
      resume: true,
      promote: true,
      abort: true,
    });
    for (const phase of [RolloutPhase.ROLLING_BACK, RolloutPhase.COMPLETED, RolloutPhase.FAILED])
      expect(Object.values(commandsOf({ phase })).some(Boolean)).toBe(false);
  });

  it("counts the ACK gate's nodes: acked, pending and nacked of the wave", () => {
    const gates = create(RolloutGatesSchema, { acked: 2, pending: 1, nacked: 1 });
    expect(ackProgress(gates)).toMatchObject({
      total: 4,
      text: "2 of 4 ACKed, 1 pending, 1 NACKed",
    });
  });

  it("compares a touched cluster's error ratios in points, and flags a rise above the allowed one only over enough requests", () => {
    const worse = compareCluster(figures("red", [100, 50], [100, 0]), 2, 50);
    expect(worse).toMatchObject({ increase: 50, enough: true, over: true });
    expect(worse.canary.text).toBe("50% of 100");
    expect(compareCluster(figures("red", [10, 5], [100, 0]), 2, 50)).toMatchObject({
      enough: false,
      over: false,
    });
    expect(compareCluster(figures("red", [0, 0], [100, 0]), 2, 0).increase).toBeUndefined();
    expect(formatPoints(1.25)).toBe("+1.3 points");
    expect(formatPoints(-1)).toBe("−1 point");
  });

  it("charts each touched cluster's windows in time order as error ratios in percent, a side without requests as a gap", () => {
    const rollout = create(RolloutSchema, {
      clusters: ["blue", "red"],
      traffic: [
        {
          startTime: at(10),
          endTime: at(20),
          wave: 1,
          clusters: [figures("red", [10, 5], [0, 0])],
        },
        { startTime: at(0), endTime: at(10), wave: 1, clusters: [figures("red", [4, 1], [20, 1])] },
      ],
    });
    expect(trafficChart(rollout)).toEqual([
      {
        cluster: "red",
        rows: [
          {
            at: T0 + 10_000,
            wave: 1,
            canary: 25,
            control: 5,
            canaryRequests: 4,
            controlRequests: 20,
          },
          {
            at: T0 + 20_000,
            wave: 1,
            canary: 50,
            control: null,
            canaryRequests: 10,
            controlRequests: 0,
          },
        ],
      },
    ]);
  });
});
