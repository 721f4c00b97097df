import { toBinary } from "@bufbuild/protobuf";
import {
  DeltaDiscoveryResponseSchema,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import {
  type ConfigSpec,
  MIN_MAX_RESPONSE_BYTES,
  resourceBytes,
  responseBudget,
  TypeUrl,
  versionOf,
  type XdsResource,
} from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import type { DeltaResponse } from "./delta-session.js";
import { toDeltaDiscoveryResponse } from "./delta-transport.js";
import { firstDeltaPart, firstPart } from "./response-split.js";
import type { SotwResponse } from "./sotw-session.js";
import { toDiscoveryResponse } from "./sotw-transport.js";
import { sharedList } from "./subscription.js";
import {
  type ClientStyle,
  DeltaSimClient,
  manyEndpoints,
  type Seen,
  SHORT,
  SotwSimClient,
  snapshotOf,
  wideFleet,
} from "./subscription-fixtures.js";

/** The smallest limit a server takes: a few assignments of 100 endpoints fill a response. */
const LIMIT = MIN_MAX_RESPONSE_BYTES;
const OPTIONS = { maxResponseBytes: LIMIT };

const endpoints = manyEndpoints;
const fleet = wideFleet;

const ENVOY: ClientStyle = { t: "envoy" };

/** The encoded size of a response, as a client's max receive message size counts it. */
function wireBytes(response: SotwResponse | DeltaResponse): number {
  return "versionInfo" in response
    ? toBinary(DiscoveryResponseSchema, toDiscoveryResponse(response, "switchyard@test", "message"))
        .length
    : toBinary(DeltaDiscoveryResponseSchema, toDeltaDiscoveryResponse(response, "switchyard@test"))
        .length;
}

const versionOfResponse = (response: SotwResponse | DeltaResponse) =>
  "versionInfo" in response ? response.versionInfo : response.systemVersionInfo;

const types = (seen: readonly Seen[]) => seen.map((s) => SHORT[s.typeUrl]);
const ofType = (seen: readonly Seen[], typeUrl: string) =>
  seen.filter((s) => s.typeUrl === typeUrl);

/** A map of `count` resources of `bytes` bytes each, sorted by name. */
function resourcesOf(count: number, bytes: number): ReadonlyMap<string, XdsResource> {
  return new Map(
    Array.from({ length: count }, (_, i) => {
      const name = `r-${String(i).padStart(3, "0")}`;
      const resource: XdsResource = {
        typeUrl: TypeUrl.ClusterLoadAssignment,
        name,
        version: `v${i}`,
        body: new Uint8Array(bytes),
        references: [],
      };
      return [name, resource] as const;
    }),
  );
}

describe("firstPart: where a response splits", () => {
  const budget = { bytes: 10_000, form: "any" } as const;

  it("gives the list itself when every resource of its map fits: nothing copied, nothing summed per response", () => {
    const basis = resourcesOf(9, 1_000);
    const list = sharedList([...basis.values()], basis);
    expect(firstPart(list, basis, budget)).toBe(list);
  });

  it("packs resources in order, greedily, up to the budget", () => {
    const basis = resourcesOf(30, 1_000);
    const list = sharedList([...basis.values()], basis);
    const part = firstPart(list, basis, budget);
    const size = part.reduce((sum, r) => sum + resourceBytes(r, "any"), 0);
    expect(part).toEqual(list.slice(0, part.length));
    expect(size).toBeLessThanOrEqual(budget.bytes);
    expect(size + resourceBytes(list[part.length] as XdsResource, "any")).toBeGreaterThan(
      budget.bytes,
    );
  });

  it("gives every stream with the same list the same part, encoded once for all (a shared list)", () => {
    const basis = resourcesOf(30, 1_000);
    const list = sharedList([...basis.values()], basis);
    const part = firstPart(list, basis, budget);
    expect(firstPart(sharedList([...list], basis), basis, budget)).toBe(part);
    expect(sharedList([...part], basis)).toBe(part);
  });

  it("sends a resource larger than the budget alone", () => {
    const basis = resourcesOf(3, 20_000);
    const list = [...basis.values()];
    expect(firstPart(list, basis, budget)).toEqual(list.slice(0, 1));
  });

  it("counts a Delta response's removed names, first, and cuts them too when they alone are over", () => {
    const basis = resourcesOf(9, 1_000);
    const list = [...basis.values()];
    expect(firstDeltaPart(list, [], basis, budget)).toBeUndefined();
    const fewRemoved = firstDeltaPart(list, ["gone-a", "gone-b"], basis, budget);
    expect(fewRemoved).toBeUndefined();
    const manyRemoved = Array.from({ length: 2_000 }, (_, i) => `gone-${i}`);
    const part = firstDeltaPart(list, manyRemoved, basis, budget);
    expect(part?.resources).toEqual([]);
    expect(part?.removed).toEqual(manyRemoved.slice(0, part?.removed.length));
    expect(part?.removed.length).toBeGreaterThan(500);
    expect(part?.removed.length).toBeLessThan(manyRemoved.length);
  });
});

const variants = [
  ["SotW", () => new SotwSimClient(ENVOY, OPTIONS), () => new SotwSimClient(ENVOY)],
  ["Delta", () => new DeltaSimClient(ENVOY, OPTIONS), () => new DeltaSimClient(ENVOY)],
] as const;

describe.each(variants)("split responses on %s ADS", (_variant, limited, unlimited) => {
  const assignments = (spec: ConfigSpec) =>
    snapshotOf(spec).resources(TypeUrl.ClusterLoadAssignment);

  it("sends endpoints over the limit in parts, each under it and ACKed on its own, before any listener", () => {
    const envoy = limited().connect(snapshotOf(fleet()));
    const seen = envoy.run();
    const eds = ofType(seen, TypeUrl.ClusterLoadAssignment);
    expect(eds.length).toBeGreaterThan(3);
    for (const part of eds) expect(wireBytes(part.response)).toBeLessThanOrEqual(LIMIT);
    // Every part ACKed: each is one response with its own nonce, and none is NACKed.
    expect(new Set(eds.map((part) => part.response.nonce)).size).toBe(eds.length);
    expect(eds.some((part) => part.nacked)).toBe(false);
    // CDS, then every EDS part, then LDS and RDS: the listener waits for the last part.
    expect(types(seen)).toEqual(["CDS", ...eds.map(() => "EDS"), "LDS", "RDS"]);
    // Together the parts are the whole of EDS, each assignment once.
    const sent = eds.flatMap((part) => part.resources);
    expect(sent).toEqual([...assignments(fleet()).keys()]);
    expect(envoy.held(TypeUrl.ClusterLoadAssignment).size).toBe(40);
  });

  it("gives each part the version of what the client holds after it, the last part the version of all", () => {
    const envoy = limited().connect(snapshotOf(fleet()));
    const eds = ofType(envoy.run(), TypeUrl.ClusterLoadAssignment);
    const all = [...assignments(fleet()).values()];
    expect(eds.length).toBeGreaterThan(1);
    let held = 0;
    for (const part of eds) {
      held += part.resources.length;
      const holds = all.slice(0, held).map((r): [string, string] => [r.name, r.version]);
      expect(versionOfResponse(part.response)).toBe(versionOf(holds));
    }
    expect(versionOfResponse(eds.at(-1)?.response as SotwResponse)).toBe(
      versionOf(all.map((r) => [r.name, r.version])),
    );
  });

  it("sends a response under the limit as it would without one: the same list of resources, one response", () => {
    const small = configSpec({
      clusters: [clusterSpec("x", endpoints(2, 8080)), clusterSpec("y", endpoints(2, 8080))],
      routeConfigurations: [routeConfigurationSpec("routes", "x")],
      listeners: [apiListenerSpec("edge", "routes")],
    });
    const snapshot = snapshotOf(small);
    const a = limited().connect(snapshot).run();
    const b = unlimited().connect(snapshot).run();
    expect(types(a)).toEqual(types(b));
    a.forEach((seen, i) => {
      expect(seen.response.resources).toBe(b[i]?.response.resources);
    });
  });

  it("moves a route to a new cluster only once every part of the EDS step before it is ACKed (make before break)", () => {
    const envoy = limited().connect(snapshotOf(fleet()));
    envoy.run();
    // Every assignment changes (a new port) and the route moves to a new cluster.
    const next = fleet(9090, "svc-new", ["svc-new"]);
    envoy.publish(snapshotOf(next));
    const seen = envoy.run();
    const eds = ofType(seen, TypeUrl.ClusterLoadAssignment);
    expect(eds.length).toBeGreaterThan(3);
    const rds = seen.findIndex((s) => s.typeUrl === TypeUrl.RouteConfiguration);
    expect(rds).toBeGreaterThan(seen.lastIndexOf(eds.at(-1) as Seen));
    const heldAtRoute = seen[rds]?.ackedBefore.get(TypeUrl.ClusterLoadAssignment);
    for (const [name, resource] of assignments(next))
      expect(heldAtRoute?.get(name)).toBe(resource.version);
    expect(envoy.lostRoutes).toEqual([]);
  });

  it("holds the plan step until the last part is answered", () => {
    const envoy = limited().connect(snapshotOf(fleet()));
    envoy.run();
    envoy.publish(snapshotOf(fleet(9090)));
    const states: string[] = [];
    while (envoy.pending > 0) {
      const seen = envoy.deliverOne();
      if (seen?.typeUrl === TypeUrl.ClusterLoadAssignment) {
        const state = envoy.session.planState;
        states.push(state.t === "awaiting" ? (SHORT[state.step.typeUrl] ?? "") : state.t);
      }
    }
    // While a part is answered and the next goes, the cursor still awaits the EDS step; once the
    // last part is answered, the plan is done (nothing after EDS in an endpoint-only change).
    expect(states.slice(0, -1).every((s) => s === "EDS")).toBe(true);
    expect(states.at(-1)).toBe("idle");
    expect(states.length).toBeGreaterThan(3);
  });

  it("attributes a NACK of one part to that part's resources only: the other parts are held, the rejected ones held back", () => {
    const envoy = limited().connect(snapshotOf(fleet()));
    envoy.run();
    const next = snapshotOf(fleet(9090));
    let rejectedPart: readonly string[] = [];
    envoy.judge = (typeUrl, resources) => {
      if (typeUrl !== TypeUrl.ClusterLoadAssignment || !resources.some((r) => r.name === "svc-20"))
        return undefined;
      rejectedPart = resources.map((r) => r.name);
      return "this part is bad";
    };
    envoy.publish(next);
    envoy.run();
    // One part of several: fewer than the 40 assignments of the step.
    expect(rejectedPart.length).toBeGreaterThan(0);
    expect(rejectedPart.length).toBeLessThan(40);
    const held = envoy.held(TypeUrl.ClusterLoadAssignment);
    for (const [name, resource] of next.resources(TypeUrl.ClusterLoadAssignment)) {
      if (rejectedPart.includes(name)) expect(held.get(name)?.version).not.toBe(resource.version);
      else expect(held.get(name)?.version).toBe(resource.version);
    }
    expect(
      envoy.session.heldBack
        .filter((r) => r.reason.t === "rejected")
        .map((r) => r.name)
        .sort(),
    ).toEqual([...rejectedPart].sort());
  });
});

describe("what is never split", () => {
  /** Clusters of ~1 KiB each: 40 of them are over LIMIT as one CDS response. */
  const heavy = configSpec({
    clusters: Array.from({ length: 40 }, (_, i) =>
      clusterSpec(`svc-${i}`, endpoints(1, 8080), {
        extra: { metadata: { filterMetadata: { notes: { text: "x".repeat(1024) } } } },
      }),
    ),
    routeConfigurations: [routeConfigurationSpec("routes", "svc-0")],
    listeners: [apiListenerSpec("edge", "routes")],
  });

  it("a SotW CDS response is full-state: sent whole even over the limit (validation refuses such a publish)", () => {
    const envoy = new SotwSimClient(ENVOY, OPTIONS).connect(snapshotOf(heavy));
    const cds = ofType(envoy.run(), TypeUrl.Cluster);
    expect(cds).toHaveLength(1);
    expect(cds[0]?.resources).toHaveLength(40);
    expect(wireBytes(cds[0]?.response as SotwResponse)).toBeGreaterThan(responseBudget(LIMIT));
  });

  it("a Delta CDS response over the limit goes in parts", () => {
    const envoy = new DeltaSimClient(ENVOY, OPTIONS).connect(snapshotOf(heavy));
    const cds = ofType(envoy.run(), TypeUrl.Cluster);
    expect(cds.length).toBeGreaterThan(1);
    for (const part of cds) expect(wireBytes(part.response)).toBeLessThanOrEqual(LIMIT);
    expect(envoy.held(TypeUrl.Cluster).size).toBe(40);
  });

  it("a node group's own limit is the one its responses are split at", () => {
    const snapshot = snapshotOf(fleet()).withMaxResponseBytes(4 * LIMIT);
    const eds = ofType(
      new SotwSimClient(ENVOY, OPTIONS).connect(snapshot).run(),
      TypeUrl.ClusterLoadAssignment,
    );
    const sizes = eds.map((part) => wireBytes(part.response));
    expect(Math.max(...sizes)).toBeGreaterThan(LIMIT);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4 * LIMIT);
  });
});
