/**
 * Two versions in one node group, over real gRPC streams (SnapshotCache holds, in its module
 * doc): while the group is held on v1, a node is served v2 only once promoted, by the rules a
 * publish follows (make-before-break within the node: CDS and EDS before LDS and RDS, as on
 * Envoy's xDS protocol page, "Eventual consistency considerations",
 * https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol), and the group's other
 * nodes are sent nothing.
 *
 * One SotW ADS client and one Delta ADS client of the default group; the change adds cluster c
 * (CDS and EDS) and changes listener svc-a (LDS, and RDS after it).
 */
import type {
  DeltaDiscoveryResponse,
  DiscoveryResponse,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { compile, DEFAULT_GROUP_NAME, TypeUrl } from "@switchyard/snapshot";
import { describe, expect, it } from "vitest";
import {
  type DeltaTestStream,
  deltaNamesOf,
  namesOf,
  startTestServer,
  type TestServer,
  type TestStream,
} from "./test-client.js";
import { world } from "./test-world.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const LDS = TypeUrl.Listener;
const RDS = TypeUrl.RouteConfiguration;

const GROUP = DEFAULT_GROUP_NAME;
const SUBSCRIPTIONS = new Map<string, readonly string[]>([
  [CDS, []],
  [EDS, ["a", "b", "c"]],
  [LDS, []],
  [RDS, ["routes-a", "routes-b"]],
]);
const V2 = world({ withClusterC: true, listenerAStatPrefix: "canary" });

/** Reads and ACKs the stream's responses until `done` holds of them; returns them in order. */
async function readSotw(
  stream: TestStream,
  done: (seen: readonly DiscoveryResponse[]) => boolean,
): Promise<DiscoveryResponse[]> {
  const seen: DiscoveryResponse[] = [];
  while (!done(seen)) {
    const response = await stream.next(10_000);
    seen.push(response);
    stream.ack(response, SUBSCRIPTIONS.get(response.typeUrl) ?? []);
  }
  return seen;
}

async function readDelta(
  stream: DeltaTestStream,
  done: (seen: readonly DeltaDiscoveryResponse[]) => boolean,
): Promise<DeltaDiscoveryResponse[]> {
  const seen: DeltaDiscoveryResponse[] = [];
  while (!done(seen)) {
    const response = await stream.next(10_000);
    seen.push(response);
    stream.ack(response);
  }
  return seen;
}

const answered =
  (...types: readonly string[]) =>
  (seen: readonly { readonly typeUrl: string }[]) =>
    types.every((type) => seen.some((r) => r.typeUrl === type));

/** A SotW ADS stream of node `id`, subscribed to every type and read until each is answered. */
async function sotwNode(xds: TestServer, id: string) {
  const stream = xds.client.open("ads", { node: { id } });
  for (const [typeUrl, names] of SUBSCRIPTIONS) stream.request(typeUrl, names);
  const initial = await readSotw(stream, answered(...SUBSCRIPTIONS.keys()));
  return { stream, initial };
}

async function deltaNode(xds: TestServer, id: string) {
  const stream = xds.client.openDelta("ads", { node: { id } });
  for (const [typeUrl, names] of SUBSCRIPTIONS) stream.request(typeUrl, names);
  const initial = await readDelta(stream, answered(...SUBSCRIPTIONS.keys()));
  return { stream, initial };
}

/** The clusters of the latest CDS response among `responses`. */
function clustersIn(responses: readonly DiscoveryResponse[]): string[] | undefined {
  const cds = responses.filter((r) => r.typeUrl === CDS).at(-1);
  return cds && namesOf(cds);
}

/** Where the first response of `typeUrl` is, in arrival order (-1: none). */
const indexOf = (responses: readonly { readonly typeUrl: string }[], typeUrl: string) =>
  responses.findIndex((r) => r.typeUrl === typeUrl);

describe("a node group held on v1 while v2 rolls out", () => {
  it("serves each node the version it is assigned: promoted, reconnected, new, demoted and settled", async () => {
    const xds = await startTestServer(world());
    try {
      const v1 = xds.cache.config;
      if (v1 === undefined) throw new Error("the test server installs its first config");
      const sotw = await sotwNode(xds, "sotw-1");
      const delta = await deltaNode(xds, "delta-1");
      expect(clustersIn(sotw.initial)).toEqual(["a", "b"]);

      xds.cache.setConfig(compile(V2), 2, { hold: { [GROUP]: { config: v1, version: 1 } } });
      await Promise.all([sotw.stream.expectNoResponse(300), delta.stream.expectNoResponse(300)]);

      // Promoted: only the SotW node is sent v2, clusters before listeners.
      xds.cache.promote(GROUP, ["sotw-1"]);
      const promoted = await readSotw(sotw.stream, answered(CDS, EDS, LDS));
      expect(clustersIn(promoted)).toEqual(["a", "b", "c"]);
      expect(indexOf(promoted, CDS)).toBeLessThan(indexOf(promoted, LDS));
      expect(indexOf(promoted, EDS)).toBeLessThan(indexOf(promoted, LDS));
      await delta.stream.expectNoResponse(300);
      expect(xds.cache.servedTo({ id: "sotw-1", cluster: "", metadata: {} })?.version).toBe(2);
      expect(xds.cache.servedTo({ id: "delta-1", cluster: "", metadata: {} })?.version).toBe(1);

      // The promoted node reconnects: v2 from its first response.
      sotw.stream.close();
      await sotw.stream.ended(5_000);
      const again = await sotwNode(xds, "sotw-1");
      expect(clustersIn(again.initial)).toEqual(["a", "b", "c"]);

      // A node that first connects now is served v1.
      const late = await sotwNode(xds, "late-1");
      expect(clustersIn(late.initial)).toEqual(["a", "b"]);

      // Demoted (a rollback): the node is sent v1 again, and no other node anything.
      xds.cache.demote(GROUP, ["sotw-1"]);
      const demoted = await readSotw(
        again.stream,
        (seen) => clustersIn(seen)?.includes("c") === false && answered(LDS)(seen),
      );
      expect(clustersIn(demoted)).toEqual(["a", "b"]);
      await Promise.all([delta.stream.expectNoResponse(300), late.stream.expectNoResponse(300)]);

      // Settled on v2: every node of the group has it, the Delta node clusters first too.
      xds.cache.settle(GROUP, 2);
      const [sotwSettled, lateSettled, deltaSettled] = await Promise.all([
        readSotw(again.stream, (seen) => clustersIn(seen)?.includes("c") === true),
        readSotw(late.stream, (seen) => clustersIn(seen)?.includes("c") === true),
        readDelta(delta.stream, answered(CDS, EDS, LDS)),
      ]);
      expect(clustersIn(sotwSettled)).toEqual(["a", "b", "c"]);
      expect(clustersIn(lateSettled)).toEqual(["a", "b", "c"]);
      const deltaCds = deltaSettled.find((r) => r.typeUrl === CDS);
      expect(deltaCds && deltaNamesOf(deltaCds)).toEqual(["c"]);
      expect(indexOf(deltaSettled, CDS)).toBeLessThan(indexOf(deltaSettled, LDS));
      expect(indexOf(deltaSettled, EDS)).toBeLessThan(indexOf(deltaSettled, LDS));
      expect(xds.cache.heldGroups).toEqual([]);
    } finally {
      await xds.close();
    }
  });
});
