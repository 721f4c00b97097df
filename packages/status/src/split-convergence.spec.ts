/**
 * A response split in parts (the xDS server's response-split.ts, past the client's message
 * limit) is held only once every part is ACKed: status and convergence fed by a real xDS server's
 * callbacks, over real gRPC streams, SotW and Delta.
 */
import {
  compile,
  MIN_MAX_RESPONSE_BYTES,
  type ResourceSnapshot,
  TypeUrl,
} from "@switchyard/snapshot";
import { clusterSpec, configSpec, endpointSpec } from "@switchyard/snapshot/fixtures";
import { deltaNamesOf, namesOf, startTestServer, type TestServer } from "@switchyard/xds/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ConvergenceTracker, holdsExactly } from "./convergence.js";
import { NodeStatusTracker } from "./node-status-tracker.js";

const EDS = TypeUrl.ClusterLoadAssignment;

/** 40 clusters of 100 endpoints: ~100 KiB of assignments, several responses at 16 KiB. */
const SPEC = configSpec({
  clusters: Array.from({ length: 40 }, (_, c) =>
    clusterSpec(
      `svc-${String(c).padStart(2, "0")}`,
      Array.from({ length: 100 }, (_, i) => endpointSpec(`10.3.${i >> 8}.${i & 255}`, 8080)),
    ),
  ),
});
const SNAPSHOT = compile(SPEC).groups[0]?.snapshot as ResourceSnapshot;
const NAMES = [...SNAPSHOT.resources(EDS).keys()];
const EXPECTED = new Map([...SNAPSHOT.resources(EDS).values()].map((r) => [r.name, r.version]));

describe("a split response, as node status and convergence see it", () => {
  const tracker = new NodeStatusTracker({ replicaId: "test" });
  const convergence = new ConvergenceTracker({ nodes: tracker });
  tracker.subscribe((change) => convergence.onChange(change));
  let xds: TestServer;
  beforeAll(async () => {
    xds = await startTestServer(SPEC, {
      maxResponseBytes: MIN_MAX_RESPONSE_BYTES,
      callbacks: tracker,
    });
  });
  afterAll(() => xds?.close());

  const track = (version: string, nodeId: string) => {
    convergence.publish({
      version,
      publishedAt: Date.now(),
      targets: [nodeId],
      holds: holdsExactly((_node, typeUrl) => (typeUrl === EDS ? EXPECTED : undefined)),
    });
    return () => {
      const report = convergence.report(version);
      return report?.converged.length === 1
        ? "converged"
        : report?.pending.length
          ? "pending"
          : "?";
    };
  };

  it("a SotW node holds the version only after it ACKed the last part", async () => {
    const state = track("sotw", "sotw-node");
    const stream = xds.client.open(EDS, { node: { id: "sotw-node" } });
    stream.request(EDS, NAMES);
    let part = await stream.next();
    const seen = new Set(namesOf(part));
    const between: string[] = [];
    while (seen.size < NAMES.length) {
      stream.ack(part, NAMES);
      // The next part answers that ACK: the server has taken it by now.
      part = await stream.next();
      for (const name of namesOf(part)) seen.add(name);
      between.push(state());
    }
    expect(between.length).toBeGreaterThan(2);
    expect(between.every((s) => s === "pending")).toBe(true);
    stream.ack(part, NAMES);
    await vi.waitFor(() => expect(state()).toBe("converged"), { timeout: 5_000 });
    stream.close();
  });

  it("a Delta node holds the version only after it ACKed the last part", async () => {
    const state = track("delta", "delta-node");
    const stream = xds.client.openDelta(EDS, { node: { id: "delta-node" } });
    stream.request(EDS, NAMES);
    let part = await stream.next();
    let received = deltaNamesOf(part).length;
    const between: string[] = [];
    while (received < NAMES.length) {
      stream.ack(part);
      part = await stream.next();
      received += deltaNamesOf(part).length;
      between.push(state());
    }
    expect(between.length).toBeGreaterThan(2);
    expect(between.every((s) => s === "pending")).toBe(true);
    stream.ack(part);
    await vi.waitFor(() => expect(state()).toBe("converged"), { timeout: 5_000 });
    stream.close();
  });
});
