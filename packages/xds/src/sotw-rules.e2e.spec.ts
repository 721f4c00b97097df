/**
 * The SotW rules of the xDS protocol (latest edition of Envoy's xDS protocol page,
 * https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol), each checked over real gRPC
 * streams: on ADS and, where the rule concerns one type, on that type's own service. Every test
 * gets its own server and cache, so the tests run concurrently.
 */
import type { DiscoveryResponse } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import { it as base, describe } from "vitest";
import {
  namesOf,
  type StreamKind,
  startTestServer,
  type TestServer,
  type TestStream,
} from "./test-client.js";
import { EDGE_NODE_ID, world } from "./test-world.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;

const it = base.extend<{ xds: TestServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  xds: async ({}, use) => {
    const server = await startTestServer(world());
    await use(server);
    await server.close();
  },
});

/** Runs a rule about one type on ADS and on the type's own service. */
const onBoth = (typeUrl: TypeUrl) =>
  [
    ["ADS", "ads"],
    ["its own service", typeUrl],
  ] as const satisfies readonly (readonly [string, StreamKind])[];

/** Opens a stream and subscribes it to `names` of `typeUrl`; resolves with the first answer. */
async function subscribe(
  xds: TestServer,
  kind: StreamKind,
  typeUrl: string,
  names: readonly string[],
): Promise<{ stream: TestStream; first: DiscoveryResponse }> {
  const stream = xds.client.open(kind);
  stream.request(typeUrl, names);
  return { stream, first: await stream.next() };
}

/** ACKs every response until the stream has been quiet for `quietMs`; returns them in order. */
/**
 * Reads the stream's responses, ACKing each with its type's subscription, until `types` have all
 * been answered; resolves with every response read, in order. Waits on responses, not on quiet:
 * a loaded machine may take longer than any quiet window between two of them.
 */
async function readAcking(
  stream: TestStream,
  subscriptions: ReadonlyMap<string, readonly string[]>,
  types: readonly string[],
): Promise<DiscoveryResponse[]> {
  const seen: DiscoveryResponse[] = [];
  while (!types.every((type) => seen.some((r) => r.typeUrl === type))) {
    const response = await stream.next(10_000);
    seen.push(response);
    stream.ack(response, subscriptions.get(response.typeUrl) ?? []);
  }
  return seen;
}

describe.concurrent.each(onBoth(CDS))("SotW wildcard subscriptions on %s", (_, kind) => {
  it("a first request with no names is a legacy wildcard: every cluster is sent", async ({
    xds,
    expect,
  }) => {
    const { first } = await subscribe(xds, kind, CDS, []);
    expect(namesOf(first)).toEqual(["a", "b"]);
  });

  it("the name * is an explicit wildcard: every cluster is sent", async ({ xds, expect }) => {
    const { first } = await subscribe(xds, kind, CDS, ["*"]);
    expect(namesOf(first)).toEqual(["a", "b"]);
  });

  it("[*, a] followed by [a] drops the wildcard and keeps a", async ({ xds, expect }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["*", "a"]);
    expect(namesOf(first)).toEqual(["a", "b"]);
    stream.ack(first, ["a"]);
    expect(namesOf(await stream.next())).toEqual(["a"]);
  });

  it("a legacy wildcard stream that names a resource leaves the wildcard: [] then [a] gets a only", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first, ["a"]);
    expect(namesOf(await stream.next())).toEqual(["a"]);
  });

  it("[a] followed by [a, *] adds the wildcard: every cluster is sent", async ({ xds, expect }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["a"]);
    expect(namesOf(first)).toEqual(["a"]);
    stream.ack(first, ["a", "*"]);
    expect(namesOf(await stream.next())).toEqual(["a", "b"]);
  });

  it("[a] followed by [*] replaces the name with the wildcard: every cluster is sent", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, ["a"]);
    stream.ack(first, ["*"]);
    expect(namesOf(await stream.next())).toEqual(["a", "b"]);
  });
});

describe.concurrent.each(onBoth(CDS))("SotW CDS on %s", (_, kind) => {
  it("a CDS response carries the full state: a change to one cluster sends every cluster", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first, []);
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    const update = await stream.next();
    expect(namesOf(update)).toEqual(["a", "b"]);
    expect(update.versionInfo).not.toBe(first.versionInfo);
  });

  it("an ACK gets no response until something changes", async ({ xds, expect }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.ack(first, []);
    await stream.expectNoResponse();
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    expect(namesOf(await stream.next())).toEqual(["a", "b"]);
  });

  it("a NACK is recorded, the rejected version is not sent again, and the next change goes out", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, CDS, []);
    stream.nack(first, [], "cluster a: unsupported lb_policy");
    // Recorded once the server has read it (on a loaded machine, later than a quiet window).
    await expect.poll(() => xds.requests.at(-1)?.verdict.t, { timeout: 10_000 }).toBe("nack");
    await stream.expectNoResponse();
    const nack = xds.requests.at(-1);
    expect(nack?.verdict).toEqual({
      t: "nack",
      rejectedVersion: first.versionInfo,
      errorDetail: "cluster a: unsupported lb_policy",
      // The client named the cluster it rejected.
      rejected: new Set(["a"]),
    });

    xds.publish(world({ clusterATimeoutMs: 2000 }));
    const update = await stream.next();
    expect(namesOf(update)).toEqual(["a", "b"]);
    expect(update.versionInfo).not.toBe(first.versionInfo);
  });

  it("no response names a resource twice, even when the request does", async ({ xds, expect }) => {
    const { first } = await subscribe(xds, kind, CDS, ["*", "a", "a", "b"]);
    expect(namesOf(first)).toEqual(["a", "b"]);
  });
});

describe.concurrent.each(onBoth(LDS))("SotW LDS on %s", (_, kind) => {
  it("an LDS response carries the full state: a change to one listener sends every listener", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, LDS, []);
    expect(namesOf(first)).toEqual(["svc-a", "svc-b"]);
    stream.ack(first, []);
    xds.publish(world({ listenerAStatPrefix: "edge" }));
    expect(namesOf(await stream.next())).toEqual(["svc-a", "svc-b"]);
  });
});

describe.concurrent.each(onBoth(RDS))("SotW RDS on %s", (_, kind) => {
  it("an RDS response carries only the route configurations requested", async ({ xds, expect }) => {
    const { first } = await subscribe(xds, kind, RDS, ["routes-a"]);
    expect(namesOf(first)).toEqual(["routes-a"]);
  });
});

describe.concurrent.each(onBoth(EDS))("SotW EDS on %s", (_, kind) => {
  it("an EDS response carries only the assignments requested, and only requested ones change it", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a"]);
    expect(namesOf(first)).toEqual(["a"]);
    stream.ack(first, ["a"]);
    xds.publish(world({ endpointBPort: 9001 }));
    await stream.expectNoResponse();
    xds.publish(world({ endpointAPort: 9001, endpointBPort: 9002 }));
    expect(namesOf(await stream.next())).toEqual(["a"]);
  });

  it("a newly requested name is sent even if the client was sent it before, unchanged", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "b"]);
    expect(namesOf(first)).toEqual(["a", "b"]);
    stream.ack(first, ["a", "b"]);
    stream.request(EDS, ["a"]);
    await stream.expectNoResponse();
    stream.request(EDS, ["a", "b"]);
    expect(namesOf(await stream.next())).toContain("b");
  });

  it("a request with a stale nonce gets no response, and its subscription change is ignored", async ({
    xds,
    expect,
  }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a"]);
    stream.ack(first, ["a"]);
    stream.request(EDS, ["a", "b"], { responseNonce: "not-the-latest" });
    await expect.poll(() => xds.requests.at(-1)?.verdict.t, { timeout: 10_000 }).toBe("stale");
    await stream.expectNoResponse();
    expect(xds.requests.at(-1)?.verdict).toEqual({ t: "stale" });
    stream.request(EDS, ["a", "b"]);
    expect(namesOf(await stream.next())).toContain("b");
  });

  it("the node is taken from the first request: later requests without a node are served", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.open(kind, { node: { id: EDGE_NODE_ID } });
    // Node group "edge" has cluster b only: its assignment "a" does not exist for this node.
    stream.request(EDS, ["b"]);
    const first = await stream.next();
    expect(namesOf(first)).toEqual(["b"]);
    // The test client sends the node on the first request only.
    stream.ack(first, ["a", "b"]);
    await stream.expectNoResponse();
    xds.publish(world({ endpointBPort: 9001 }));
    expect(namesOf(await stream.next())).toEqual(["b"]);
  });

  it("no response names an assignment twice, even when the request does", async ({
    xds,
    expect,
  }) => {
    const { first } = await subscribe(xds, kind, EDS, ["a", "a", "b", "a"]);
    expect(namesOf(first)).toEqual(["a", "b"]);
  });

  it("a requested assignment that does not exist is sent when it is created", async ({
    xds,
    expect,
  }) => {
    const stream = xds.client.open(kind);
    stream.request(EDS, ["c"]);
    await stream.expectNoResponse();
    xds.publish(world({ withClusterC: true }));
    expect(namesOf(await stream.next())).toEqual(["c"]);
  });

  it("leaving a name out of the next request unsubscribes from it", async ({ xds, expect }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "b"]);
    stream.ack(first, ["a"]);
    await stream.expectNoResponse();
    xds.publish(world({ endpointBPort: 9001 }));
    await stream.expectNoResponse();
    xds.publish(world({ endpointAPort: 9001, endpointBPort: 9001 }));
    expect(namesOf(await stream.next())).toEqual(["a"]);
  });

  it("an empty list after named requests unsubscribes from everything", async ({ xds }) => {
    const { stream, first } = await subscribe(xds, kind, EDS, ["a", "b"]);
    stream.ack(first, []);
    await stream.expectNoResponse();
    xds.publish(world({ endpointAPort: 9001, endpointBPort: 9001, withClusterC: true }));
    await stream.expectNoResponse();
  });
});

describe.concurrent("SotW warming on ADS", () => {
  it("after a CDS update, the EDS of the changed clusters is sent even if unchanged", async ({
    xds,
    expect,
  }) => {
    const subscriptions = new Map([
      [CDS, []],
      [EDS, ["a", "b"]],
    ]);
    const stream = xds.client.open("ads");
    stream.request(CDS, []);
    stream.request(EDS, ["a", "b"]);
    const initial = await readAcking(stream, subscriptions, [CDS, EDS]);
    const edsBefore = initial.find((r) => r.typeUrl === EDS);
    expect(edsBefore && namesOf(edsBefore)).toEqual(["a", "b"]);

    // Cluster a changes; its ClusterLoadAssignment does not.
    xds.publish(world({ clusterATimeoutMs: 2000 }));
    const after = await readAcking(stream, subscriptions, [CDS, EDS]);
    const cds = after.findIndex((r) => r.typeUrl === CDS);
    const eds = after.findIndex((r) => r.typeUrl === EDS);
    expect(cds).toBeGreaterThanOrEqual(0);
    expect(eds).toBeGreaterThan(cds);
    const resent = after[eds];
    expect(resent && namesOf(resent)).toContain("a");
    const assignmentA = (r: DiscoveryResponse) => r.resources[namesOf(r).indexOf("a")]?.value;
    expect(resent && assignmentA(resent)).toEqual(edsBefore && assignmentA(edsBefore));
  });

  it("after an LDS update, the RDS of the changed listeners is sent even if unchanged", async ({
    xds,
    expect,
  }) => {
    const subscriptions = new Map([
      [LDS, []],
      [RDS, ["routes-a", "routes-b"]],
    ]);
    const stream = xds.client.open("ads");
    stream.request(LDS, []);
    stream.request(RDS, ["routes-a", "routes-b"]);
    await readAcking(stream, subscriptions, [LDS, RDS]);

    // Listener svc-a changes; its RouteConfiguration routes-a does not.
    xds.publish(world({ listenerAStatPrefix: "edge" }));
    const after = await readAcking(stream, subscriptions, [LDS, RDS]);
    const lds = after.findIndex((r) => r.typeUrl === LDS);
    const rds = after.findIndex((r) => r.typeUrl === RDS);
    expect(lds).toBeGreaterThanOrEqual(0);
    expect(rds).toBeGreaterThan(lds);
    const resent = after[rds];
    expect(resent && namesOf(resent)).toContain("routes-a");
  });

  it("every type on one ADS stream is answered, each response naming a resource once", async ({
    xds,
    expect,
  }) => {
    const subscriptions = new Map([
      [CDS, ["*", "a"]],
      [EDS, ["a", "b", "a"]],
      [LDS, ["svc-a", "*"]],
      [RDS, ["routes-a", "routes-a"]],
    ]);
    const stream = xds.client.open("ads");
    for (const [typeUrl, names] of subscriptions) stream.request(typeUrl, names);
    const responses = await readAcking(stream, subscriptions, [...subscriptions.keys()]);
    expect(new Set(responses.map((r) => r.typeUrl))).toEqual(new Set(subscriptions.keys()));
    for (const response of responses) {
      const names = namesOf(response);
      expect(names).toEqual([...new Set(names)]);
    }
  });
});
