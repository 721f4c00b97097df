import { type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { type DeltaResponse, DeltaSession, type DeltaTypedRequest } from "./delta-session.js";
import { snapshotOf } from "./subscription-fixtures.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;

/** Clusters a and b (endpoint port `port` for a), routes → a, listener svc → routes. */
const twoClusters = (port = 9000, extra: { connectTimeoutMs?: number } = {}) =>
  snapshotOf(
    configSpec({
      clusters: [
        clusterSpec("a", [endpointSpec("10.0.0.1", port)], extra),
        clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
      ],
      routeConfigurations: [routeConfigurationSpec("routes", "a")],
      listeners: [apiListenerSpec("svc", "routes")],
    }),
  );

const onlyA = () =>
  snapshotOf(
    configSpec({
      clusters: [clusterSpec("a", [endpointSpec("10.0.0.1", 9000)])],
      routeConfigurations: [routeConfigurationSpec("routes", "a")],
      listeners: [apiListenerSpec("svc", "routes")],
    }),
  );

/** What a response carries, compactly: names sent (each with its version) and names removed. */
const content = (response: DeltaResponse | undefined) => ({
  resources: response?.resources.map((r) => r.name) ?? [],
  removed: response?.removed ?? [],
});

/** A Delta client under test: requests are explicit, nonces echo the latest response. */
class Client {
  readonly session = new DeltaSession();
  readonly nonces = new Map<string, string>();

  constructor(snapshot: ResourceSnapshot) {
    this.session.onSnapshot(snapshot);
  }

  request(typeUrl: string, change: Partial<Omit<DeltaTypedRequest, "typeUrl">> = {}) {
    const result = this.session.onRequest({
      typeUrl,
      subscribe: [],
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: "",
      ...change,
    });
    for (const r of result.responses) this.nonces.set(r.typeUrl, r.nonce);
    return result;
  }

  /** ACKs `response`, with subscription changes if any. */
  ack(
    response: DeltaResponse | undefined,
    change: { subscribe?: string[]; unsubscribe?: string[] } = {},
  ) {
    if (!response) throw new Error("nothing to ACK");
    return this.request(response.typeUrl, { responseNonce: response.nonce, ...change });
  }

  snapshot(snapshot: ResourceSnapshot) {
    const responses = this.session.onSnapshot(snapshot);
    for (const r of responses) this.nonces.set(r.typeUrl, r.nonce);
    return responses;
  }
}

describe("Delta subscriptions", () => {
  it("treats a first request that subscribes nothing as a legacy wildcard and sends every resource", () => {
    const client = new Client(twoClusters());
    const { verdict, responses } = client.request(CDS);
    expect(verdict).toEqual({ t: "initial" });
    expect(content(responses[0])).toEqual({ resources: ["a", "b"], removed: [] });
    expect(client.session.subscription(CDS)?.wildcard).toBe(true);
  });

  it("answers a wildcard subscription to a type with no resources once, empty, so the client need not wait out its fetch timeout", () => {
    const client = new Client(snapshotOf(configSpec({ clusters: [clusterSpec("a")] })));
    const { responses } = client.request(TypeUrl.Listener, { subscribe: ["*"] });
    expect(responses).toHaveLength(1);
    expect(content(responses[0])).toEqual({ resources: [], removed: [] });
    // Once answered, nothing more until there is something to say.
    expect(client.ack(responses[0]).responses).toEqual([]);
    expect(client.snapshot(snapshotOf(configSpec({ clusters: [clusterSpec("b")] })))).toEqual([]);
  });

  it("does not answer a named subscription to an empty type with an empty response", () => {
    const client = new Client(snapshotOf(configSpec({ clusters: [clusterSpec("a")] })));
    const { responses } = client.request(TypeUrl.Listener, { subscribe: ["svc"] });
    // The name does not exist: it is answered in removed_resources, as the spec says.
    expect(content(responses[0])).toEqual({ resources: [], removed: ["svc"] });
  });

  it("treats the name * as an explicit wildcard", () => {
    const client = new Client(twoClusters());
    const { responses } = client.request(CDS, { subscribe: ["*"] });
    expect(content(responses[0])).toEqual({ resources: ["a", "b"], removed: [] });
  });

  it("keeps a legacy wildcard when a name is subscribed; unsubscribing * keeps the name and needs no response", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS).responses[0];
    const named = client.ack(first, { subscribe: ["a"] });
    // * continues and a is added: a is answered (the client may have forgotten it).
    expect(content(named.responses[0])).toEqual({ resources: ["a"], removed: [] });
    const dropped = client.ack(named.responses[0], { unsubscribe: ["*"] });
    expect(dropped.responses).toEqual([]);
    const subscription = client.session.subscription(CDS);
    expect(subscription?.wildcard).toBe(false);
    expect([...(subscription?.holds.keys() ?? [])]).toEqual(["a"]);
  });

  it("once a name was subscribed, unsubscribing it leaves nothing subscribed, not a wildcard", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS, { subscribe: ["a"] }).responses[0];
    expect(content(first)).toEqual({ resources: ["a"], removed: [] });
    expect(client.ack(first, { unsubscribe: ["a"] }).responses).toEqual([]);
    expect(client.request(CDS).responses).toEqual([]);
    expect(client.session.subscription(CDS)?.wildcard).toBe(false);
    expect(client.snapshot(twoClusters(9000, { connectTimeoutMs: 4000 }))).toEqual([]);
  });

  it("sends only the subscribed names", () => {
    const client = new Client(twoClusters());
    expect(content(client.request(EDS, { subscribe: ["b"] }).responses[0])).toEqual({
      resources: ["b"],
      removed: [],
    });
  });

  it("sends only changed resources, each with its own version", () => {
    const client = new Client(twoClusters());
    client.ack(client.request(EDS, { subscribe: ["a", "b"] }).responses[0]);
    const next = twoClusters(9999);
    const [update] = client.snapshot(next);
    expect(content(update)).toEqual({ resources: ["a"], removed: [] });
    expect(update?.resources[0]?.version).toBe(next.get(EDS, "a")?.version);
    expect(update?.resources[0]?.version).not.toBe(twoClusters().get(EDS, "a")?.version);
  });

  it("puts deleted resources in removed_resources", () => {
    const client = new Client(twoClusters());
    client.ack(client.request(CDS).responses[0]);
    const [update] = client.snapshot(onlyA());
    expect(content(update)).toEqual({ resources: [], removed: ["b"] });
  });

  it("answers a subscription to a name that does not exist with removed_resources, and sends it once created", () => {
    const client = new Client(twoClusters());
    const missing = client.request(EDS, { subscribe: ["later"] }).responses[0];
    expect(content(missing)).toEqual({ resources: [], removed: ["later"] });
    client.ack(missing);
    const [created] = client.snapshot(
      snapshotOf(configSpec({ clusters: [clusterSpec("later", [endpointSpec("10.0.0.3", 80)])] })),
    );
    expect(content(created)).toEqual({ resources: ["later"], removed: [] });
  });

  it("does not resend what initial_resource_versions says the client holds at that version", () => {
    const snapshot = twoClusters();
    const client = new Client(snapshot);
    const { responses } = client.request(CDS, {
      initialResourceVersions: {
        a: snapshot.get(CDS, "a")?.version ?? "",
        b: "an-older-version",
        gone: "v1",
      },
    });
    expect(content(responses[0])).toEqual({ resources: ["b"], removed: ["gone"] });
  });

  it("ignores initial_resource_versions after the first request", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS).responses[0];
    client.ack(first);
    const later = client.request(CDS, { initialResourceVersions: { a: "stale" } });
    expect(later.responses).toEqual([]);
  });

  it("honours the subscription changes of a request with a stale nonce", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a"] }).responses[0];
    client.ack(first);
    const [update] = client.snapshot(twoClusters(9999));
    // The client has not seen `update` yet: its request carries the older nonce.
    const stale = client.request(EDS, { subscribe: ["b"], responseNonce: first?.nonce ?? "" });
    expect(stale.verdict).toEqual({ t: "stale" });
    // One response per type in flight: b goes once `update` is answered.
    expect(stale.responses).toEqual([]);
    expect(content(client.ack(update).responses[0])).toEqual({ resources: ["b"], removed: [] });
  });

  it("answers a subscription to a name the client already holds (it may have forgotten it)", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a"] }).responses[0];
    const again = client.ack(first, { subscribe: ["a"] });
    expect(content(again.responses[0])).toEqual({ resources: ["a"], removed: [] });
  });

  it("needs no response to an unsubscribe from a name the client holds", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a", "b"] }).responses[0];
    expect(client.ack(first, { unsubscribe: ["a"] }).responses).toEqual([]);
    // And a is not sent when it changes.
    expect(client.snapshot(twoClusters(9999))).toEqual([]);
  });

  it("ignores an unsubscribe from a name never subscribed", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a"] }).responses[0];
    expect(client.ack(first, { unsubscribe: ["never"] }).responses).toEqual([]);
    expect([...(client.session.subscription(EDS)?.names ?? [])]).toEqual(["a"]);
  });

  it("with * and A subscribed, unsubscribing A answers A in resources when the wildcard covers it", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS, { subscribe: ["*", "a"] }).responses[0];
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: [] });
    const unsubscribed = client.ack(first, { unsubscribe: ["a"] });
    expect(content(unsubscribed.responses[0])).toEqual({ resources: ["a"], removed: [] });
  });

  it("with * and A subscribed, unsubscribing A answers A in removed_resources when the wildcard does not cover it", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS, { subscribe: ["*", "nowhere"] }).responses[0];
    expect(content(first)).toEqual({ resources: ["a", "b"], removed: ["nowhere"] });
    const unsubscribed = client.ack(first, { unsubscribe: ["nowhere"] });
    expect(content(unsubscribed.responses[0])).toEqual({ resources: [], removed: ["nowhere"] });
  });

  it("records a NACK and does not resend the rejected resources in a loop; the next snapshot is sent", () => {
    const client = new Client(twoClusters());
    const first = client.request(CDS).responses[0];
    const nack = client.request(CDS, {
      responseNonce: first?.nonce ?? "",
      errorDetail: "Unsupported type STATIC",
    });
    expect(nack.verdict).toEqual({
      t: "nack",
      rejectedVersion: first?.systemVersionInfo,
      errorDetail: "Unsupported type STATIC",
    });
    expect(nack.responses).toEqual([]);
    expect(client.request(CDS).responses).toEqual([]);
    expect(client.session.subscription(CDS)?.holds.size).toBe(0);
    const [next] = client.snapshot(twoClusters(9000, { connectTimeoutMs: 2500 }));
    expect(content(next)).toEqual({ resources: ["a", "b"], removed: [] });
  });

  it("never names a resource twice in one response", () => {
    const client = new Client(twoClusters());
    const { responses } = client.request(CDS, { subscribe: ["a", "a", "*", "a", "gone", "gone"] });
    expect(content(responses[0])).toEqual({ resources: ["a", "b"], removed: ["gone"] });
  });

  it("sends at most one unanswered response per type; changes meanwhile go together after the ACK", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a"] }).responses[0];
    expect(client.request(EDS, { subscribe: ["b"] }).responses).toEqual([]);
    expect(client.snapshot(twoClusters(9999))).toEqual([]);
    expect(content(client.ack(first).responses[0])).toEqual({ resources: ["a", "b"], removed: [] });
  });

  it("tells an ACK, a request that answers nothing, and a stale nonce apart", () => {
    const client = new Client(twoClusters());
    const first = client.request(EDS, { subscribe: ["a"] }).responses[0];
    expect(client.ack(first).verdict).toEqual({ t: "ack", version: first?.systemVersionInfo });
    expect(client.request(EDS, { subscribe: ["b"] }).verdict).toEqual({ t: "update" });
    expect(client.request(EDS, { responseNonce: "not-a-nonce" }).verdict).toEqual({ t: "stale" });
  });
});
