import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  type Convergence,
  ConvergenceSchema,
  NodeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { describe, expect, it } from "vitest";
import {
  formatMs,
  isUnimplemented,
  nodesByUrgency,
  shortTypeName,
  summarizeRollout,
} from "./convergence";

function convergence(summary: {
  targeted: number;
  acked: number;
  nacked: number;
  pending: number;
  p50Ms?: number;
  p99Ms?: number;
  connectedLater?: number;
}): Convergence {
  return create(ConvergenceSchema, { version: 7n, summary });
}

describe("summarizeRollout", () => {
  it("says the p50/p99 to ACK leave out the nodes that connected after the publish, and how many", () => {
    const later = summarizeRollout(
      convergence({
        targeted: 5,
        acked: 5,
        nacked: 0,
        pending: 0,
        p50Ms: 20,
        p99Ms: 40,
        connectedLater: 2,
      }),
    );
    expect(later.p99).toBe("40 ms");
    expect(later.connectedLater).toBe("and 2 nodes that connected later");
    const one = summarizeRollout(
      convergence({ targeted: 1, acked: 1, nacked: 0, pending: 0, connectedLater: 1 }),
    );
    expect(one.connectedLater).toBe("and 1 node that connected later");
    const none = summarizeRollout(
      convergence({ targeted: 1, acked: 1, nacked: 0, pending: 0, p99Ms: 5 }),
    );
    expect(none.connectedLater).toBeUndefined();
  });

  it("says a version with no connected node has nothing to converge", () => {
    const s = summarizeRollout(convergence({ targeted: 0, acked: 0, nacked: 0, pending: 0 }));
    expect(s.state).toBe("no-nodes");
    expect(s.percent).toEqual({ acked: 0, nacked: 0, pending: 0 });
  });

  it("is converged when every targeted node ACKed, with the latencies formatted", () => {
    const s = summarizeRollout(
      convergence({ targeted: 4, acked: 4, nacked: 0, pending: 0, p50Ms: 12, p99Ms: 1500 }),
    );
    expect(s.state).toBe("converged");
    expect(s.headline).toBe("All 4 nodes run version 7");
    expect([s.p50, s.p99]).toEqual(["12 ms", "1.5 s"]);
  });

  it("reports a rejection as soon as one node NACKed, even while others are pending", () => {
    const s = summarizeRollout(convergence({ targeted: 4, acked: 1, nacked: 1, pending: 2 }));
    expect(s.state).toBe("nacked");
    expect(s.headline).toBe("1 node rejected version 7");
    expect(s.percent).toEqual({ acked: 25, nacked: 25, pending: 50 });
  });

  it("is converging while nodes are pending and none rejected", () => {
    const s = summarizeRollout(convergence({ targeted: 3, acked: 1, nacked: 0, pending: 2 }));
    expect(s.state).toBe("converging");
    expect(s.p50).toBeUndefined();
  });
});

describe("formatMs", () => {
  it.each([
    [0, "0 ms"],
    [999, "999 ms"],
    [1_234, "1.2 s"],
    [42_000, "42 s"],
    [120_000, "2 min"],
    [125_000, "2 min 5 s"],
  ])("%d ms reads %s", (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });
});

describe("nodesByUrgency", () => {
  it("lists nodes that rejected first, then pending, then ACKed, each by id", () => {
    const c = create(ConvergenceSchema, {
      nodes: [
        { nodeId: "a", state: NodeConvergenceState.ACKED },
        { nodeId: "b", state: NodeConvergenceState.PENDING },
        { nodeId: "c", state: NodeConvergenceState.NACKED },
        { nodeId: "d", state: NodeConvergenceState.PENDING },
      ],
    });
    expect(nodesByUrgency(c.nodes).map((n) => n.nodeId)).toEqual(["c", "b", "d", "a"]);
  });
});

describe("helpers", () => {
  it("tells an unimplemented watch from other failures", () => {
    expect(isUnimplemented(new ConnectError("x", Code.Unimplemented))).toBe(true);
    expect(isUnimplemented(new ConnectError("x", Code.Unavailable))).toBe(false);
  });

  it("shortens an xDS type URL to the message name", () => {
    expect(shortTypeName("type.googleapis.com/envoy.config.cluster.v3.Cluster")).toBe("Cluster");
  });
});
