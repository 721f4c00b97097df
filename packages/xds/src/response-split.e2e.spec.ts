/**
 * Responses over the client's message limit (response-split.ts), over real gRPC streams: a SotW
 * EDS response and a Delta response too large for one message arrive in parts, each under the
 * limit, each with its own nonce, each ACKed; what follows the split type waits for the last part.
 */
import { toBinary } from "@bufbuild/protobuf";
import {
  DeltaDiscoveryResponseSchema,
  type DiscoveryResponse,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, MIN_MAX_RESPONSE_BYTES, TypeUrl, versionOf } from "@switchyard/snapshot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wideFleet } from "./subscription-fixtures.js";
import { deltaNamesOf, namesOf, startTestServer, type TestServer } from "./test-client.js";

const LIMIT = MIN_MAX_RESPONSE_BYTES;
const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;

const SPEC = wideFleet();
const ASSIGNMENTS = compile(SPEC).groups[0]?.snapshot.resources(EDS) ?? new Map();
const NAMES = [...ASSIGNMENTS.keys()];
const VERSION_OF_ALL = versionOf([...ASSIGNMENTS.values()].map((r) => [r.name, r.version]));

describe("responses over the limit, over real gRPC streams", () => {
  /** The requests of the stream of node `nodeId` answering a response of `type`. */
  const answersOf = (nodeId: string, typeUrl: string, nonces: readonly string[]) => {
    const streamId = xds.opened.find((o) => o.node.id === nodeId)?.streamId;
    return xds.requests.filter(
      (r) => r.streamId === streamId && r.typeUrl === typeUrl && nonces.includes(r.responseNonce),
    );
  };
  let xds: TestServer;
  beforeAll(async () => {
    xds = await startTestServer(SPEC, { maxResponseBytes: LIMIT });
  });
  afterAll(() => xds?.close());

  it("a SotW EDS stream receives the assignments in parts under the limit, ACKs each, and is sent nothing more after the last", async () => {
    const stream = xds.client.open(EDS, { node: { id: "sotw-eds-split" } });
    stream.request(EDS, NAMES);
    const parts: DiscoveryResponse[] = [];
    const seen = new Set<string>();
    while (seen.size < NAMES.length) {
      const part = await stream.next();
      parts.push(part);
      for (const name of namesOf(part)) seen.add(name);
      expect(toBinary(DiscoveryResponseSchema, part).length).toBeLessThanOrEqual(LIMIT);
      stream.ack(part, NAMES);
    }
    expect(parts.length).toBeGreaterThan(3);
    expect(new Set(parts.map((p) => p.nonce)).size).toBe(parts.length);
    expect(parts.flatMap(namesOf)).toEqual(NAMES);
    // Each part's version is what the client holds after it; the last one's, all of them.
    expect(new Set(parts.map((p) => p.versionInfo)).size).toBe(parts.length);
    expect(parts.at(-1)?.versionInfo).toBe(VERSION_OF_ALL);
    await stream.expectNoResponse();
    // The server took every answer as an ACK of its part.
    const acks = answersOf(
      "sotw-eds-split",
      EDS,
      parts.map((p) => p.nonce),
    );
    expect(acks.map((r) => r.verdict)).toEqual(
      parts.map((p) => ({ t: "ack", version: p.versionInfo })),
    );
    stream.close();
  });

  it("a SotW ADS stream gets the listener only after it ACKed the last EDS part", async () => {
    const stream = xds.client.open("ads", { node: { id: "envoy-split" } });
    stream.request(CDS, []);
    const cds = await stream.next();
    stream.ack(cds, []);
    stream.request(EDS, NAMES);
    // As Envoy does: LDS asked for while the assignments are still coming.
    stream.request(LDS, []);
    const order: string[] = [];
    for (;;) {
      const response = await stream.next();
      order.push(response.typeUrl === EDS ? "EDS" : response.typeUrl === LDS ? "LDS" : "?");
      if (response.typeUrl === LDS) break;
      stream.ack(response, NAMES);
    }
    expect(order.at(-1)).toBe("LDS");
    expect(order.slice(0, -1).every((t) => t === "EDS")).toBe(true);
    expect(order.length).toBeGreaterThan(4);
    stream.close();
  });

  it("a Delta stream receives the assignments in parts under the limit and ACKs each", async () => {
    const stream = xds.client.openDelta("ads", { node: { id: "delta-split" } });
    stream.request(EDS, NAMES);
    const nonces: string[] = [];
    const versions: string[] = [];
    const received: string[] = [];
    while (received.length < NAMES.length) {
      const part = await stream.next();
      expect(toBinary(DeltaDiscoveryResponseSchema, part).length).toBeLessThanOrEqual(LIMIT);
      received.push(...deltaNamesOf(part));
      nonces.push(part.nonce);
      versions.push(part.systemVersionInfo);
      stream.ack(part);
    }
    expect(nonces.length).toBeGreaterThan(3);
    expect(new Set(nonces).size).toBe(nonces.length);
    expect(received).toEqual(NAMES);
    expect(versions.at(-1)).toBe(VERSION_OF_ALL);
    await stream.expectNoResponse();
    const acks = answersOf("delta-split", EDS, nonces);
    expect(acks.map((r) => r.verdict.t)).toEqual(nonces.map(() => "ack"));
    stream.close();
  });
});
