import { type NodeContext, TypeUrl } from "@switchyard/snapshot";
import { clusterSpec, configSpec, endpointSpec } from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { Subscription } from "./subscription.js";
import { snapshotOf } from "./subscription-fixtures.js";
import { XdstpNaming, xdstpNameProblem } from "./xdstp-naming.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const AUTH = "xds.example.com";
const cds = (id: string, query = "") =>
  `xdstp://${AUTH}/envoy.config.cluster.v3.Cluster/${id}${query}`;
const eds = (id: string, query = "") =>
  `xdstp://${AUTH}/envoy.config.endpoint.v3.ClusterLoadAssignment/${id}${query}`;

const node: NodeContext = {
  id: "edge-1",
  cluster: "edge",
  userAgentName: "envoy",
  userAgentVersion: "",
  locality: { region: "", zone: "", subZone: "" },
  metadata: {},
  clientFeatures: [],
};

function snapshot(names: string[]) {
  return snapshotOf(
    configSpec({ clusters: names.map((n) => clusterSpec(n, [endpointSpec("10.0.0.1", 80)])) }),
  );
}

/** A subscription of `typeUrl` resolving xdstp:// names for `node` under AUTH. */
function subscription(typeUrl: string = CDS): Subscription {
  return new Subscription(typeUrl, new XdstpNaming([AUTH], node));
}

/** Sends what the subscription lacks against the snapshot's resources of its type, and ACKs it. */
function exchange(s: Subscription, names: string[], nonce: string) {
  const map = snapshot(names).resources(s.typeUrl);
  const { resources, removed, missing } = s.difference(s.offer(map, map));
  s.markSent(nonce, nonce, { replace: false, sent: resources, removed: [...removed, ...missing] });
  s.acknowledge(nonce);
  return { sent: resources.map((r) => r.name), removed, missing };
}

describe("xdstp:// names in a subscription (pure)", () => {
  it("a glob covers the resources directly in its directory, named with its parameters, and follows adds and removals", () => {
    const s = subscription();
    s.changeNames([cds("team-a/*", "?xds.node.cluster=edge")], []);
    expect(exchange(s, ["team-a/x", "team-a/y", "team-a/sub/z", "b"], "1")).toEqual({
      sent: [cds("team-a/x", "?xds.node.cluster=edge"), cds("team-a/y", "?xds.node.cluster=edge")],
      removed: [],
      missing: [],
    });
    expect(exchange(s, ["team-a/y", "team-a/w"], "2")).toEqual({
      sent: [cds("team-a/w", "?xds.node.cluster=edge")],
      removed: [cds("team-a/x", "?xds.node.cluster=edge")],
      missing: [],
    });
    expect(s.globs).toEqual([cds("team-a/*", "?xds.node.cluster=edge")]);
    expect([...s.names]).toEqual([]);
  });

  it("a glob subscribed again is answered in full, as a name is (the client may have forgotten its members)", () => {
    const s = subscription();
    s.changeNames([cds("*")], []);
    expect(exchange(s, ["a", "b"], "1").sent).toEqual([cds("a"), cds("b")]);
    expect(exchange(s, ["a", "b"], "2").sent).toEqual([]);
    s.changeNames([cds("*")], []);
    expect(exchange(s, ["a", "b"], "3").sent).toEqual([cds("a"), cds("b")]);
  });

  it("dropping a glob forgets what only it covered, answering nothing (Delta, no wildcard)", () => {
    const s = subscription();
    s.changeNames([cds("*")], []);
    expect(exchange(s, ["a", "b"], "1").sent).toEqual([cds("a"), cds("b")]);
    s.changeNames([], [cds("*")]);
    expect([...s.holds.keys()]).toEqual([]);
    expect(exchange(s, ["a", "b"], "2")).toEqual({ sent: [], removed: [], missing: [] });
  });

  it("a reference without parameters forces the resend of the held name the client qualified with its own", () => {
    const s = subscription(EDS);
    const qualified = eds("a", "?xds.node.cluster=edge");
    s.changeNames([qualified], []);
    expect(exchange(s, ["a"], "1").sent).toEqual([qualified]);
    expect(exchange(s, ["a"], "2").sent).toEqual([]);
    s.forceResend([eds("a")]);
    expect(exchange(s, ["a"], "3").sent).toEqual([qualified]);
  });

  it("a name for another node or authority, or of a stored name that does not exist, is missing", () => {
    const s = subscription();
    const names = [
      cds("a", "?xds.node.id=edge-2"),
      cds("a").replace(AUTH, "elsewhere"),
      cds("nope"),
      cds("a"),
    ];
    s.changeNames(names, []);
    const result = exchange(s, ["a"], "1");
    expect(result.sent).toEqual([cds("a")]);
    expect([...result.missing].sort()).toEqual(names.slice(0, 3).sort());
  });

  it("a malformed name, or one of another type, is a request error; plain names never are", () => {
    expect(xdstpNameProblem("xdstp://a", CDS)).toMatch(
      /not a valid xdstp:\/\/ name: it has no resource type/,
    );
    expect(xdstpNameProblem(eds("a"), CDS)).toMatch(
      /names a resource of type envoy.config.endpoint/,
    );
    expect(xdstpNameProblem(cds("a"), CDS)).toBeUndefined();
    expect(xdstpNameProblem("xdstp-ish name", CDS)).toBeUndefined();
  });
});
