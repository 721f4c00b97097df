import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ConvergenceSchema,
  NodeConvergenceState,
  RolloutTrafficSchema,
  TouchReason,
  TypeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl } from "@switchyard/proto/type-url";
import { describe, expect, it } from "vitest";
import { parseErrorRatio } from "./rollout-traffic.js";
import {
  parseDuration,
  type StatusClient,
  type WaitOptions,
  waitForVersion,
} from "./status-commands.js";

const PUBLISHED = 1_000_000;
const { ACKED, NACKED, PENDING } = NodeConvergenceState;
const { IN_SYNC, BEHIND } = TypeConvergenceState;

type NodeInit = NonNullable<MessageInitShape<typeof ConvergenceSchema>["nodes"]>[number];

/** GetConvergence's answer for version 7, published at PUBLISHED, with these nodes. */
function convergence(nodes: NodeInit[], p99Ms?: number, connectedLater = 0) {
  const count = (state: NodeConvergenceState) => nodes.filter((n) => n.state === state).length;
  return create(ConvergenceSchema, {
    version: 7n,
    publishTime: timestampFromMs(PUBLISHED),
    summary: {
      targeted: nodes.length,
      acked: count(ACKED),
      nacked: count(NACKED),
      pending: count(PENDING),
      ...(p99Ms === undefined ? {} : { p99Ms }),
      connectedLater,
    },
    nodes,
  });
}

type TrafficInit = MessageInitShape<typeof RolloutTrafficSchema>;
type SideInit = NonNullable<TrafficInit["totalBefore"]>;

/** A side of the publish with `requests` completed, `errors` of them errors. */
const side = (requests: number, errors: number, seconds = 300): SideInit => ({
  successful: BigInt(requests - errors),
  errored: BigInt(errors),
  seconds,
  ...(requests > 0 ? { errorRatio: errors / requests } : {}),
});

/** GetRolloutTraffic's answer for version 7: a route moved from blue to red. */
function traffic(blue: [SideInit, SideInit], red: [SideInit, SideInit]) {
  const cluster = (name: string, [before, after]: [SideInit, SideInit]) => ({
    cluster: name,
    reasons: [TouchReason.ROUTE_CHANGED],
    touchedBy: ["route_configuration/shop"],
    reportsLoad: true,
    before,
    after,
  });
  const sum = (a: SideInit, b: SideInit) =>
    side(
      Number((a.successful ?? 0n) + (a.errored ?? 0n) + (b.successful ?? 0n) + (b.errored ?? 0n)),
      Number((a.errored ?? 0n) + (b.errored ?? 0n)),
      a.seconds,
    );
  return create(RolloutTrafficSchema, {
    version: 7n,
    clusters: [
      cluster("blue", blue),
      cluster("red", red),
      { cluster: "legacy", reasons: [TouchReason.CLUSTER_CHANGED], reportsLoad: false },
    ],
    totalBefore: sum(blue[0], red[0]),
    totalAfter: sum(blue[1], red[1]),
  });
}

/**
 * A StatusService whose GetConvergence answers these in turn, then the last one forever, and
 * GetRolloutTraffic likewise its own.
 */
function statusAnswering(
  answers: ReturnType<typeof convergence>[],
  trafficAnswers: ReturnType<typeof traffic>[] = [],
): StatusClient {
  let i = 0;
  let j = 0;
  return {
    getConvergence: async () => answers[Math.min(i++, answers.length - 1)],
    getRolloutTraffic: async () => trafficAnswers[Math.min(j++, trafficAnswers.length - 1)],
  } as unknown as StatusClient;
}

/** `switchyard wait --version 7`, on a clock of its own that its sleeps move. */
async function wait(
  client: StatusClient,
  timeout = "1s",
  options: Omit<WaitOptions, "version" | "timeout"> = {},
) {
  let out = "";
  // Shortly after the publish, as when `publish` is followed by `wait` in a pipeline.
  let clock = PUBLISHED + 100;
  const error = await waitForVersion(
    client,
    {
      out: (t) => {
        out += t;
      },
    },
    { version: "7", timeout, ...options },
    {
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
      },
    },
  ).catch((e: unknown) => e as Error);
  return { out, error };
}

const inSync = (nodeId: string): NodeInit => ({
  nodeId,
  group: "default",
  state: ACKED,
  types: [{ typeUrl: TypeUrl.Listener, state: IN_SYNC }],
});
const behind = (nodeId: string): NodeInit => ({
  nodeId,
  group: "default",
  state: PENDING,
  types: [{ typeUrl: TypeUrl.Listener, state: BEHIND }],
});

describe("switchyard wait", () => {
  it("reads durations as 30s, 500ms or 2m, and refuses anything else", () => {
    expect(parseDuration("30s")).toBe(30_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("2m")).toBe(120_000);
    expect(() => parseDuration("soon")).toThrow(/invalid duration/);
  });

  it("refuses a version that is not a published version number, before asking the server", async () => {
    const asked = statusAnswering([]);
    for (const version of ["0", "v7", "-1", ""]) {
      const error = await waitForVersion(asked, { out: () => {} }, { version }).catch(
        (e: unknown) => e as Error,
      );
      expect(error?.message).toMatch(/invalid version/);
    }
  });

  it("exits 0 once every node is in sync, and with a note when none is targeted", async () => {
    const pending = convergence([behind("a")]);
    const done = convergence([inSync("a")], 42);
    const ok = await wait(statusAnswering([pending, pending, done]));
    expect(ok.error).toBeUndefined();
    expect(ok.out).toBe("version 7: 1/1 nodes in sync, p99 42 ms\n");
    const none = await wait(statusAnswering([convergence([])]));
    expect(none.error).toBeUndefined();
    expect(none.out).toMatch(/no connected nodes/);
  });

  it("says the p99 leaves out the nodes that connected after the publish, and how many", async () => {
    const done = convergence([inSync("a"), inSync("b"), inSync("c")], 42, 2);
    const ok = await wait(statusAnswering([done]));
    expect(ok.error).toBeUndefined();
    expect(ok.out).toBe(
      "version 7: 3/3 nodes in sync, p99 42 ms (and 2 nodes that connected later, not in the p99)\n",
    );
    const one = await wait(statusAnswering([convergence([inSync("a")], undefined, 1)]));
    expect(one.out).toBe(
      "version 7: 1/1 nodes in sync, p99 - (and 1 node that connected later, not in the p99)\n",
    );
  });

  it("does not report success until the publish is old enough for late-written nodes to be listed", async () => {
    const onlyA = convergence([inSync("a")], 42);
    const bLate = convergence([inSync("a"), behind("b")]);
    const both = convergence([inSync("a"), inSync("b")], 300);
    const ok = await wait(statusAnswering([onlyA, bLate, both]), "5s");
    expect(ok.error).toBeUndefined();
    expect(ok.out).toMatch(/^version 7: 2\/2 nodes in sync/);
  });

  it("fails with the NACK text, or with the laggards after the timeout", async () => {
    const nacked = convergence([
      {
        nodeId: "d",
        group: "default",
        state: NACKED,
        nackTypeUrl: TypeUrl.Listener,
        nackMessage: "bad listener",
        types: [{ typeUrl: TypeUrl.Listener, state: TypeConvergenceState.NACKED }],
      },
    ]);
    const rejected = await wait(statusAnswering([nacked]));
    expect(rejected.error?.message).toMatch(/d: LDS NACK:\n\s+bad listener/);

    const late = await wait(
      statusAnswering([
        convergence([
          {
            nodeId: "c",
            group: "default",
            state: PENDING,
            types: [
              { typeUrl: TypeUrl.Cluster, state: IN_SYNC },
              { typeUrl: TypeUrl.Listener, state: BEHIND },
            ],
          },
        ]),
      ]),
      "500ms",
    );
    expect(late.error?.message).toMatch(/0\/1 nodes in sync after 500ms/);
    expect(late.error?.message).toMatch(/c \(group default\): CDS in sync, LDS behind/);
  });

  it("--watch prints each change of the counts once, then the touched clusters' errors before and after as they change, until the timeout", async () => {
    const pending = convergence([behind("a")]);
    const done = convergence([inSync("a")], 42);
    const quiet = traffic([side(100, 0), side(0, 0, 2)], [side(0, 0), side(0, 0, 2)]);
    const broken = traffic([side(100, 0), side(0, 0, 4)], [side(0, 0), side(40, 20, 4)]);
    const watched = await wait(statusAnswering([pending, pending, done], [quiet, broken]), "6s", {
      watch: true,
    });
    expect(watched.error).toBeUndefined();
    const lines = watched.out.split("\n");
    expect(lines.filter((l) => l.includes("0/1 nodes in sync"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("1/1 nodes in sync, p99 42 ms"))).toHaveLength(1);
    // The table is printed when it changes: the quiet one, then the broken one, once each.
    expect(watched.out.match(/errors of the clusters version 7 touched/g)).toHaveLength(2);
    expect(watched.out).toMatch(
      /red\s+routes changed \(route_configuration\/shop\)\s+no requests\s+50\.0% of 40/,
    );
    expect(watched.out).toMatch(
      /blue\s+routes changed \(route_configuration\/shop\)\s+0\.0% of 100\s+no requests/,
    );
    expect(watched.out).toMatch(/legacy\s+cluster changed\s+does not report load\s+-/);
    expect(watched.out).toMatch(/\(all\)\s+0\.0% of 100\s+50\.0% of 40/);
  });

  it("--max-error-ratio fails as soon as a touched cluster's errors after the publish are above it, naming it with before and after", async () => {
    const done = convergence([inSync("a")], 42);
    const fewRequests = traffic([side(100, 0), side(0, 0)], [side(0, 0), side(4, 4)]);
    const broken = traffic([side(100, 0), side(0, 0)], [side(0, 0), side(40, 20)]);
    const failed = await wait(statusAnswering([done], [fewRequests, broken]), "1m", {
      maxErrorRatio: "5%",
    });
    expect(failed.error?.message).toBe(
      "version 7: 1 touched cluster(s) above the 5.0% error ratio allowed:\n  red: 50.0% of 40 after the publish, no requests before",
    );
    const healthy = traffic([side(100, 0), side(0, 0)], [side(0, 0), side(40, 1)]);
    const passed = await wait(statusAnswering([done], [healthy]), "5s", { maxErrorRatio: "0.05" });
    expect(passed.error).toBeUndefined();
    expect(passed.out).toMatch(/^version 7: 1\/1 nodes in sync, p99 42 ms\nerrors of the clusters/);
  });

  it("reads an error ratio as 0 to 1 or a percentage, and refuses anything else", () => {
    expect(parseErrorRatio("0.05")).toBe(0.05);
    expect(parseErrorRatio("5%")).toBeCloseTo(0.05);
    for (const bad of ["", "1.5", "-0.1", "five", "200%"])
      expect(() => parseErrorRatio(bad)).toThrow(/invalid error ratio/);
  });
});
