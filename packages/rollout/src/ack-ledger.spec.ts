import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AckLedger, type Sent } from "./ack-ledger.js";
import { type AckStatus, ackGate } from "./gates.js";
import type { NodeEntry } from "./rollout-state.js";

const ids = ["a", "b", "c", "d", "e", "f"];

/** An update at the (never decreasing) time of its step: a node is sent, ACKs, NACKs or is sent again. */
const updates = fc.array(
  fc.tuple(
    fc.constantFrom(...ids),
    fc.constantFrom("send", "ack", "nack"),
    fc.nat(20_000),
    fc.boolean(),
  ),
  { maxLength: 40 },
);

describe("the ACK ledger", () => {
  it("gives ackGate's verdict on the same nodes, whatever the updates and their times", () => {
    fc.assert(
      fc.property(updates, fc.nat(10), (list, built) => {
        const nodes: { [nodeId: string]: NodeEntry } = {};
        let ledger: AckLedger | undefined;
        let now = 0;
        list.forEach(([nodeId, what, gap, connected], i) => {
          // The ledger is made part-way, as a step makes it from the stored state.
          if (i === built) ledger = AckLedger.of(nodes);
          now += gap;
          const before = nodes[nodeId]?.sent;
          const ack: AckStatus =
            what === "ack"
              ? { t: "acked", at: now }
              : what === "nack"
                ? { t: "nacked", at: now, detail: `${nodeId} says no` }
                : { t: "pending" };
          const sent: Sent =
            what === "send" || !before ? { wave: 1, at: now, ack } : { ...before, ack };
          nodes[nodeId] = { connected, sent };
          ledger?.update(nodeId, before, sent);
        });
        ledger ??= AckLedger.of(nodes);
        for (const at of [now, now + 15_000, now + 30_000]) {
          const members = Object.entries(nodes).flatMap(([nodeId, entry]) =>
            entry.sent
              ? [{ nodeId, sentAt: entry.sent.at, ack: entry.sent.ack, connected: entry.connected }]
              : [],
          );
          const input = { timeoutMs: 30_000, now: at, wave: 2, version: 8 };
          expect(
            ledger.verdict({ ...input, connected: (id) => nodes[id]?.connected === true }),
          ).toEqual(ackGate({ ...input, members }));
        }
      }),
      { numRuns: 300 },
    );
  });
});
