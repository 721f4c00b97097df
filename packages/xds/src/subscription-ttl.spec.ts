import { TypeUrl } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { DeltaSession } from "./delta-session.js";
import { type SotwResponse, SotwSession } from "./sotw-session.js";
import { snapshotOf } from "./subscription-fixtures.js";
import {
  FEATURE_RESOURCE_IN_SOTW,
  FEATURE_RESOURCE_TTL,
  type SessionOptions,
  ttlPolicy,
} from "./subscription-ttl.js";

const CDS = TypeUrl.Cluster;
const EDS = TypeUrl.ClusterLoadAssignment;
const TTL: SessionOptions = { ttl: { ttlMs: 30_000 } };
const BOTH = { clientFeatures: [FEATURE_RESOURCE_TTL, FEATURE_RESOURCE_IN_SOTW] };

const snapshot = snapshotOf(
  configSpec({
    clusters: [
      clusterSpec("a", [endpointSpec("10.0.0.1", 9000)]),
      clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
    ],
    routeConfigurations: [routeConfigurationSpec("routes", "a")],
    listeners: [apiListenerSpec("svc", "routes")],
  }),
);

function sotw(options: SessionOptions, features: readonly string[]) {
  const session = new SotwSession(options);
  session.onNode({ clientFeatures: features });
  session.onSnapshot(snapshot);
  return session;
}

/** Requests `names` of `typeUrl` and ACKs the response; returns it. */
function subscribeAndAck(session: SotwSession, typeUrl: string, names: string[]) {
  const [response] = session.onRequest({
    typeUrl,
    resourceNames: names,
    versionInfo: "",
    responseNonce: "",
  }).responses;
  if (!response) throw new Error("no response");
  session.onRequest({
    typeUrl,
    resourceNames: names,
    versionInfo: response.versionInfo,
    responseNonce: response.nonce,
  });
  return response;
}

describe("TTL and the Resource wrapper", () => {
  it("a SotW client without the client features gets bare resources and no heartbeats", () => {
    const session = sotw(TTL, []);
    const response = subscribeAndAck(session, EDS, ["a"]);
    expect(response.ttl).toBeUndefined();
    expect(session.onHeartbeat(0)).toEqual([]);
  });

  it("a SotW client needs supports-resource-in-sotw as well as supports-resource-ttl", () => {
    const session = sotw(TTL, [FEATURE_RESOURCE_TTL]);
    expect(subscribeAndAck(session, EDS, ["a"]).ttl).toBeUndefined();
    expect(ttlPolicy("sotw", BOTH, TTL.ttl).t).toBe("on");
  });

  it("no TTL without the session option, whatever the client supports", () => {
    const session = sotw({}, BOTH.clientFeatures);
    expect(subscribeAndAck(session, EDS, ["a"]).ttl).toBeUndefined();
    expect(session.onHeartbeat(0)).toEqual([]);
  });

  it("a SotW client with both features gets its resources wrapped with the TTL", () => {
    const session = sotw(TTL, BOTH.clientFeatures);
    expect(subscribeAndAck(session, CDS, []).ttl).toEqual({ ttlMs: 30_000 });
  });

  it("a Delta client with supports-resource-ttl gets the TTL on every resource", () => {
    const session = new DeltaSession(TTL);
    session.onNode({ clientFeatures: [FEATURE_RESOURCE_TTL] });
    session.onSnapshot(snapshot);
    const { responses } = session.onRequest({
      typeUrl: CDS,
      subscribe: [],
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: "",
    });
    expect(responses[0]?.ttl).toEqual({ ttlMs: 30_000 });
  });

  it("the TTL can be limited to some types", () => {
    const session = sotw({ ttl: { ttlMs: 1000, typeUrls: [EDS] } }, BOTH.clientFeatures);
    expect(subscribeAndAck(session, CDS, []).ttl).toBeUndefined();
    expect(subscribeAndAck(session, EDS, ["a"]).ttl).toEqual({ ttlMs: 1000 });
  });
});

describe("heartbeats", () => {
  it("SotW heartbeats carry no body and the version the client accepted", () => {
    const session = sotw(TTL, BOTH.clientFeatures);
    const eds = subscribeAndAck(session, EDS, ["a", "b"]);
    const [beat] = session.onHeartbeat(1000);
    expect(beat).toMatchObject({
      typeUrl: EDS,
      versionInfo: eds.versionInfo,
      resources: [],
      ttl: { ttlMs: 30_000 },
      heartbeats: [
        { name: "a", version: eds.versionInfo },
        { name: "b", version: eds.versionInfo },
      ],
    });
  });

  it("Delta heartbeats carry no body and each resource's own version", () => {
    const session = new DeltaSession(TTL);
    session.onNode({ clientFeatures: [FEATURE_RESOURCE_TTL] });
    session.onSnapshot(snapshot);
    const request = { unsubscribe: [], initialResourceVersions: {} };
    const [sent] = session.onRequest({
      typeUrl: EDS,
      subscribe: ["a", "b"],
      responseNonce: "",
      ...request,
    }).responses;
    session.onRequest({
      typeUrl: EDS,
      subscribe: [],
      responseNonce: sent?.nonce ?? "",
      ...request,
    });
    const [beat] = session.onHeartbeat(1000);
    expect(beat?.resources).toEqual([]);
    expect(beat?.removed).toEqual([]);
    expect(beat?.heartbeats).toEqual(
      sent?.resources.map((r) => ({ name: r.name, version: r.version })),
    );
    expect(beat?.heartbeats?.[0]?.version).toBe(snapshot.get(EDS, "a")?.version);
  });

  it("SotW LDS and CDS get their full state again instead of bodiless heartbeats", () => {
    const session = sotw(TTL, BOTH.clientFeatures);
    const cds = subscribeAndAck(session, CDS, []);
    const [refresh] = session.onHeartbeat(1000);
    expect(refresh?.heartbeats).toBeUndefined();
    expect(refresh?.resources).toEqual(cds.resources);
    expect(refresh?.versionInfo).toBe(cds.versionInfo);
  });

  it("a type gets a heartbeat at most once per heartbeat interval, and none while a response is in flight", () => {
    const session = sotw({ ttl: { ttlMs: 10_000, heartbeatMs: 4000 } }, BOTH.clientFeatures);
    subscribeAndAck(session, EDS, ["a"]);
    const ack = (beat: SotwResponse | undefined) =>
      session.onRequest({
        typeUrl: EDS,
        resourceNames: ["a"],
        versionInfo: beat?.versionInfo ?? "",
        responseNonce: beat?.nonce ?? "",
      });
    const [first] = session.onHeartbeat(0);
    expect(first?.typeUrl).toBe(EDS);
    // Unanswered: the next tick sends nothing for EDS.
    expect(session.onHeartbeat(5000)).toEqual([]);
    ack(first);
    const [second] = session.onHeartbeat(5000);
    expect(second?.typeUrl).toBe(EDS);
    ack(second);
    expect(session.onHeartbeat(8000)).toEqual([]);
    expect(session.onHeartbeat(9000)).toHaveLength(1);
  });

  it("a heartbeat changes nothing the client holds: the next change is still sent", () => {
    const session = sotw(TTL, BOTH.clientFeatures);
    subscribeAndAck(session, EDS, ["a"]);
    const [beat] = session.onHeartbeat(0);
    session.onRequest({
      typeUrl: EDS,
      resourceNames: ["a"],
      versionInfo: beat?.versionInfo ?? "",
      responseNonce: beat?.nonce ?? "",
    });
    const moved = snapshotOf(
      configSpec({ clusters: [clusterSpec("a", [endpointSpec("10.0.0.9", 9000)])] }),
    );
    const [update] = session.onSnapshot(moved);
    expect(update?.resources.map((r) => r.name)).toEqual(["a"]);
    expect(update?.ttl).toEqual({ ttlMs: 30_000 });
  });
});
