import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ConvergenceSchema,
  NodeConvergenceState,
  TypeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl } from "@switchyard/proto/type-url";
import { describe, expect, it } from "vitest";
import { parseDuration, type StatusClient, waitForVersion } from "./status-commands.js";

const PUBLISHED = 1_000_000;
const { ACKED, NACKED, PENDING } = NodeConvergenceState;
const { IN_SYNC, BEHIND } = TypeConvergenceState;

type NodeInit = NonNullable<MessageInitShape<typeof ConvergenceSchema>["nodes"]>[number];

/** GetConvergence's answer for version 7, published at PUBLISHED, with these nodes. */
function convergence(nodes: NodeInit[], p99Ms?: number) {
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
    },
    nodes,
  });
}

/** A StatusService whose GetConvergence answers these in turn, then the last one forever. */
function statusAnswering(answers: ReturnType<typeof convergence>[]): StatusClient {
  let i = 0;
  return {
    getConvergence: async () => answers[Math.min(i++, answers.length - 1)],
  } as unknown as StatusClient;
}

/** `switchyard wait --version 7`, on a clock of its own that its sleeps move. */
async function wait(client: StatusClient, timeout = "1s") {
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
    { version: "7", timeout },
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
});
