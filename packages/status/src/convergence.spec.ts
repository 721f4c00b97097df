import { versionOf } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import { ConvergenceTracker, holdsExactly } from "./convergence.js";
import { CDS, EDS, nodeLike, streamOf, trackerWithClock } from "./fixtures.js";
import type { AckedState } from "./node-status.js";

/** Every node should hold these resources, per type. */
const EXPECTED = new Map<string, ReadonlyMap<string, string>>([
  [CDS, new Map([["a", "a2"]])],
  [EDS, new Map([["a", "ea2"]])],
]);

function world() {
  const clock = trackerWithClock();
  const converged: Array<[string, string, number]> = [];
  const convergence = new ConvergenceTracker({
    nodes: clock.tracker,
    onConverged: (version, nodeId, ms) => converged.push([version, nodeId, ms]),
  });
  clock.tracker.subscribe((change) => convergence.onChange(change));
  const publish = (version: string, targets: string[]) =>
    convergence.publish({
      version,
      publishedAt: clock.now(),
      targets,
      holds: holdsExactly((_node, typeUrl) => EXPECTED.get(typeUrl)),
    });
  return { ...clock, convergence, publish, converged };
}

/** A node on the old config (a1) for CDS and EDS. */
function connectOnOldConfig(w: ReturnType<typeof world>, streamId: number, nodeId: string) {
  const s = streamOf(w.tracker, streamId, nodeLike(nodeId));
  s.request(CDS);
  s.request(EDS);
  s.respond(CDS, "c1", `c1-${streamId}`, { a: "a1" });
  s.ack(CDS, "c1");
  s.respond(EDS, "e1", `e1-${streamId}`, { a: "ea1" });
  s.ack(EDS, "e1");
  return s;
}

/**
 * Sends the new config and lets the node ACK it `afterMs` later, then sets the clock back, so
 * several nodes can answer one publish with different delays.
 */
function update(w: ReturnType<typeof world>, s: ReturnType<typeof streamOf>, afterMs: number) {
  const start = w.now();
  s.respond(CDS, "c2", `c2-${afterMs}`, { a: "a2" });
  s.respond(EDS, "e2", `e2-${afterMs}`, { a: "ea2" });
  w.advance(afterMs);
  s.ack(CDS, "c2");
  s.ack(EDS, "e2");
  w.advance(start - w.now());
}

describe("ConvergenceTracker", () => {
  it("reports publish→ACK p50, p99 and max by nearest rank over the converged nodes", () => {
    const w = world();
    const delays = [30, 10, 50, 20, 40];
    const streams = delays.map((_, i) => connectOnOldConfig(w, i + 1, `envoy-${i + 1}`));
    w.publish(
      "cfg-2",
      [...delays.keys()].map((i) => `envoy-${i + 1}`),
    );
    streams.forEach((s, i) => {
      update(w, s, delays[i] ?? 0);
    });
    const report = w.convergence.report("cfg-2");
    expect(report?.converged.map((c) => [c.nodeId, c.ms])).toEqual([
      ["envoy-1", 30],
      ["envoy-2", 10],
      ["envoy-3", 50],
      ["envoy-4", 20],
      ["envoy-5", 40],
    ]);
    expect(report?.durations).toEqual({ count: 5, p50: 30, p99: 50, max: 50 });
    expect(report?.pending).toEqual([]);
  });

  it("only a node's answers re-evaluate it: a response sent to it reads none of its state", () => {
    const clock = trackerWithClock();
    let reads = 0;
    const convergence = new ConvergenceTracker({
      nodes: {
        ledgers: (nodeId) => {
          reads += 1;
          return clock.tracker.ledgers(nodeId);
        },
        statusOf: (ledger) => clock.tracker.statusOf(ledger),
      },
    });
    clock.tracker.subscribe((change) => convergence.onChange(change));
    const s = streamOf(clock.tracker, 1, nodeLike("envoy-1"));
    s.request(CDS);
    convergence.publish({
      version: "cfg-2",
      publishedAt: clock.now(),
      targets: ["envoy-1"],
      holds: holdsExactly((_node, typeUrl) => EXPECTED.get(typeUrl)),
    });
    const before = reads;
    s.respond(CDS, "c2", "n1", { a: "a2" });
    expect(reads).toBe(before);
    s.ack(CDS, "c2");
    expect(reads).toBeGreaterThan(before);
    expect(convergence.report("cfg-2")?.converged.map((c) => c.nodeId)).toEqual(["envoy-1"]);
  });

  it("a node converges only when every type it requested is ACKed at the version", () => {
    const w = world();
    const s = connectOnOldConfig(w, 1, "envoy-1");
    w.publish("cfg-2", ["envoy-1"]);
    s.respond(CDS, "c2", "n9", { a: "a2" });
    s.ack(CDS, "c2");
    expect(w.convergence.report("cfg-2")?.pending).toEqual(["envoy-1"]);
    s.respond(EDS, "e2", "n10", { a: "ea2" });
    w.advance(25);
    s.ack(EDS, "e2");
    expect(w.convergence.report("cfg-2")?.converged).toEqual([
      { nodeId: "envoy-1", at: w.now(), ms: 25 },
    ]);
  });

  it("a NACKing node is reported with its text and not counted converged", () => {
    const w = world();
    const good = connectOnOldConfig(w, 1, "good");
    const bad = connectOnOldConfig(w, 2, "bad");
    w.publish("cfg-2", ["good", "bad", "absent"]);
    update(w, good, 15);
    bad.respond(CDS, "c2", "nb", { a: "a2" });
    bad.nack(CDS, "c2", "cluster a: invalid TLS context");
    const report = w.convergence.report("cfg-2");
    expect(report?.converged.map((c) => c.nodeId)).toEqual(["good"]);
    expect(report?.nacked).toEqual([
      {
        nodeId: "bad",
        typeUrl: CDS,
        nack: expect.objectContaining({
          errorDetail: "cluster a: invalid TLS context",
          rejectedVersion: "c2",
          nonce: "nb",
        }),
      },
    ]);
    expect(report?.pending).toEqual(["absent"]);
    expect(report?.targeted).toBe(3);
    expect(report?.durations.count).toBe(1);
  });

  it("a NACK from before the publish does not mark the node NACKED for it", () => {
    const w = world();
    const s = connectOnOldConfig(w, 1, "envoy-1");
    s.respond(CDS, "c9", "old", { a: "broken" });
    s.nack(CDS, "c9", "old failure");
    w.advance(1);
    w.publish("cfg-2", ["envoy-1"]);
    expect(w.convergence.report("cfg-2")?.pending).toEqual(["envoy-1"]);
  });

  it("reports each node's convergence once, with its time, for the histogram", () => {
    const w = world();
    const one = connectOnOldConfig(w, 1, "envoy-1");
    const two = connectOnOldConfig(w, 2, "envoy-2");
    w.publish("cfg-2", ["envoy-1", "envoy-2"]);
    update(w, one, 30);
    update(w, two, 70);
    // A later change of an already converged node is not a second convergence.
    one.respond(CDS, "c3", "c3", { a: "a2" });
    one.ack(CDS, "c3");
    expect(w.converged).toEqual([
      ["cfg-2", "envoy-1", 30],
      ["cfg-2", "envoy-2", 70],
    ]);
  });

  it("a node that already held the version at publish converges in 0 ms", () => {
    const w = world();
    const s = connectOnOldConfig(w, 1, "envoy-1");
    update(w, s, 5);
    w.advance(100);
    w.publish("cfg-2", ["envoy-1"]);
    expect(w.convergence.report("cfg-2")?.converged[0]?.ms).toBe(0);
    // Nothing to converge on: not a sample of convergence time.
    expect(w.converged).toEqual([]);
  });

  it("convergence, once reached, is kept when the node later moves on or disconnects", () => {
    const w = world();
    const s = connectOnOldConfig(w, 1, "envoy-1");
    w.publish("cfg-2", ["envoy-1"]);
    update(w, s, 5);
    s.respond(CDS, "c3", "n3", { a: "a3" });
    s.ack(CDS, "c3");
    s.close();
    expect(w.convergence.report("cfg-2")?.converged.map((c) => c.nodeId)).toEqual(["envoy-1"]);
  });

  it("keeps only the newest published versions", () => {
    const clock = trackerWithClock();
    const convergence = new ConvergenceTracker({ nodes: clock.tracker, retainVersions: 2 });
    for (const version of ["v1", "v2", "v3"]) {
      convergence.publish({ version, publishedAt: 0, targets: [], holds: () => true });
    }
    expect(convergence.versions()).toEqual(["v2", "v3"]);
    expect(convergence.report("v1")).toBeUndefined();
  });
});

describe("ConvergenceTracker tallies (the fleet's convergence timeline)", () => {
  it("a tally counts converged times ascending, NACKs now and ever, and the first NACK's time", () => {
    const w = world();
    const fast = connectOnOldConfig(w, 1, "fast");
    const slow = connectOnOldConfig(w, 2, "slow");
    const bad = connectOnOldConfig(w, 3, "bad");
    const publishedAt = w.now();
    w.publish("cfg-2", ["fast", "slow", "bad", "absent"]);
    update(w, slow, 70);
    update(w, fast, 20);
    w.advance(40);
    bad.respond(CDS, "c2", "nb", { a: "a2" });
    bad.nack(CDS, "c2", "cluster a: invalid TLS context");
    expect(w.convergence.tally("cfg-2")).toEqual({
      version: "cfg-2",
      publishedAt,
      targeted: 4,
      convergedMs: [20, 70],
      nacked: 1,
      nackedEver: 1,
      firstNackAt: publishedAt + 40,
    });
  });

  it("a target that NACKed and then converged is no longer NACKed but is still counted as having NACKed", () => {
    const w = world();
    const s = connectOnOldConfig(w, 1, "envoy-1");
    w.publish("cfg-2", ["envoy-1"]);
    s.respond(CDS, "c2", "nb", { a: "a2" });
    s.nack(CDS, "c2", "transient");
    w.advance(10);
    update(w, s, 5);
    const tally = w.convergence.tally("cfg-2");
    expect(tally?.nacked).toBe(0);
    expect(tally?.nackedEver).toBe(1);
    expect(tally?.convergedMs).toEqual([15]);
  });

  it("takeChanged gives each version whose tally moved once, then nothing until it moves again", () => {
    const w = world();
    const one = connectOnOldConfig(w, 1, "envoy-1");
    const two = connectOnOldConfig(w, 2, "envoy-2");
    w.publish("cfg-2", ["envoy-1", "envoy-2"]);
    expect(w.convergence.takeChanged().map((t) => [t.version, t.convergedMs.length])).toEqual([
      ["cfg-2", 0],
    ]);
    expect(w.convergence.takeChanged()).toEqual([]);
    // A response sent is not an answer: the tally did not move.
    one.respond(CDS, "c2", "n1", { a: "a2" });
    expect(w.convergence.takeChanged()).toEqual([]);
    update(w, one, 10);
    update(w, two, 30);
    expect(w.convergence.takeChanged().map((t) => t.convergedMs)).toEqual([[10, 30]]);
    expect(w.convergence.takeChanged()).toEqual([]);
  });

  it("a version no longer kept has no tally and is not reported changed", () => {
    const clock = trackerWithClock();
    const convergence = new ConvergenceTracker({ nodes: clock.tracker, retainVersions: 1 });
    convergence.publish({ version: "v1", publishedAt: 0, targets: [], holds: () => true });
    convergence.publish({ version: "v2", publishedAt: 0, targets: [], holds: () => true });
    expect(convergence.tally("v1")).toBeUndefined();
    expect(convergence.takeChanged().map((t) => t.version)).toEqual(["v2"]);
  });
});

describe("holdsExactly", () => {
  const acked = (held: [string, string | undefined][], versionInfo = "x"): AckedState => ({
    versionInfo,
    nonce: "n",
    at: 0,
    held: new Map(held),
    resourceVersionsKnown: held.every(([, v]) => v !== undefined),
  });
  const holds = holdsExactly((_node, typeUrl) => EXPECTED.get(typeUrl));

  it.each([
    { rule: "the same resources at the same versions hold", a: acked([["a", "a2"]]), ok: true },
    { rule: "an older version does not hold", a: acked([["a", "a1"]]), ok: false },
    {
      rule: "an extra resource does not hold",
      a: acked([
        ["a", "a2"],
        ["b", "b1"],
      ]),
      ok: false,
    },
    { rule: "never ACKed does not hold", a: undefined, ok: false },
    {
      rule: "without resource versions, the version_info is compared with versionOf the expected",
      a: acked([["a", undefined]], versionOf([["a", "a2"]])),
      ok: true,
    },
  ])("$rule", ({ a, ok }) => {
    expect(holds("envoy-1", CDS, a)).toBe(ok);
  });

  it("a type the version has no opinion on holds", () => {
    expect(holds("envoy-1", "type.googleapis.com/other", undefined)).toBe(true);
  });
});
