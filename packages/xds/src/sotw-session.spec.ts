import { type ConfigSpec, compile, type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { type SotwResponse, SotwSession } from "./sotw-session.js";

function snapshotOf(spec: ConfigSpec): ResourceSnapshot {
  const { groups, issues } = compile(spec);
  expect(issues).toEqual([]);
  const snapshot = groups[0]?.snapshot;
  if (!snapshot) throw new Error("no snapshot");
  return snapshot;
}

const twoClusters = (port = 9000) =>
  snapshotOf(
    configSpec({
      clusters: [
        clusterSpec("a", [endpointSpec("10.0.0.1", port)]),
        clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
      ],
      routeConfigurations: [routeConfigurationSpec("routes", "a")],
      listeners: [apiListenerSpec("svc", "routes")],
    }),
  );

const names = (response: SotwResponse | undefined) => response?.resources.map((r) => r.name);

/** A client driving a SotwSession the way Envoy does: every response is answered. */
class Client {
  readonly session = new SotwSession();
  readonly nonces = new Map<string, string>();
  readonly versions = new Map<string, string>();

  constructor(snapshot: ResourceSnapshot) {
    this.session.onSnapshot(snapshot);
  }

  #record(responses: SotwResponse[]): SotwResponse[] {
    for (const r of responses) this.nonces.set(r.typeUrl, r.nonce);
    return responses;
  }

  request(
    typeUrl: string,
    resourceNames: string[],
    extra: { nonce?: string; errorDetail?: string; version?: string | undefined } = {},
  ) {
    const result = this.session.onRequest({
      typeUrl,
      resourceNames,
      versionInfo: extra.version ?? this.versions.get(typeUrl) ?? "",
      responseNonce: extra.nonce ?? this.nonces.get(typeUrl) ?? "",
      errorDetail: extra.errorDetail,
    });
    return { verdict: result.verdict, responses: this.#record(result.responses) };
  }

  /** ACKs the last response of `typeUrl` with the same names. */
  ack(typeUrl: string, resourceNames: string[], response: SotwResponse | undefined) {
    if (response) this.versions.set(typeUrl, response.versionInfo);
    return this.request(typeUrl, resourceNames);
  }

  snapshot(snapshot: ResourceSnapshot) {
    return this.#record(this.session.onSnapshot(snapshot));
  }
}

describe("SotW subscriptions", () => {
  it("treats a first CDS request without names as a legacy wildcard and sends every cluster", () => {
    const client = new Client(twoClusters());
    const { verdict, responses } = client.request(TypeUrl.Cluster, []);
    expect(verdict.t).toBe("initial");
    expect(names(responses[0])).toEqual(["a", "b"]);
  });

  it("treats the name * as an explicit wildcard", () => {
    const client = new Client(twoClusters());
    expect(names(client.request(TypeUrl.Cluster, ["*"]).responses[0])).toEqual(["a", "b"]);
  });

  it("drops the wildcard but keeps A when [*, A] is followed by [A]", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.Cluster, ["*", "a"]).responses[0];
    expect(names(first)).toEqual(["a", "b"]);
    const { responses } = client.ack(TypeUrl.Cluster, ["a"], first);
    expect(names(responses[0])).toEqual(["a"]);
  });

  it("sends only the named cluster to a client that names it", () => {
    const client = new Client(twoClusters());
    expect(names(client.request(TypeUrl.Cluster, ["b"]).responses[0])).toEqual(["b"]);
  });

  it("gives an ACK no response until something changes", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.Cluster, []).responses[0];
    expect(client.ack(TypeUrl.Cluster, [], first).responses).toEqual([]);
    const [update] = client.snapshot(
      snapshotOf(
        configSpec({
          clusters: [clusterSpec("a", [], { connectTimeoutMs: 2000 }), clusterSpec("b")],
        }),
      ),
    );
    expect(update?.typeUrl).toBe(TypeUrl.Cluster);
  });

  it("sends LDS and CDS as the full state, and EDS and RDS only what changed", () => {
    const client = new Client(twoClusters());
    const cds = client.request(TypeUrl.Cluster, []).responses[0];
    client.ack(TypeUrl.Cluster, [], cds);
    const eds = client.request(TypeUrl.ClusterLoadAssignment, ["a", "b"]).responses[0];
    expect(names(eds)).toEqual(["a", "b"]);
    client.ack(TypeUrl.ClusterLoadAssignment, ["a", "b"], eds);

    const responses = client.snapshot(
      snapshotOf(
        configSpec({
          clusters: [
            clusterSpec("a", [endpointSpec("10.0.0.9", 9000)], { connectTimeoutMs: 3000 }),
            clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
          ],
        }),
      ),
    );
    expect(responses.map((r) => [r.typeUrl, names(r)])).toEqual([[TypeUrl.Cluster, ["a", "b"]]]);
    const after = client.ack(TypeUrl.Cluster, [], responses[0]).responses;
    expect(after.map((r) => [r.typeUrl, names(r)])).toEqual([
      [TypeUrl.ClusterLoadAssignment, ["a"]],
    ]);
  });

  it("ignores a request whose nonce is not the latest one sent", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.ClusterLoadAssignment, ["a"]).responses[0];
    client.ack(TypeUrl.ClusterLoadAssignment, ["a"], first);
    const { verdict, responses } = client.request(TypeUrl.ClusterLoadAssignment, ["a", "b"], {
      nonce: "stale",
    });
    expect(verdict.t).toBe("stale");
    expect(responses).toEqual([]);
  });

  it("records a NACK, does not resend the rejected version, and still sends the next change", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.Cluster, []).responses[0];
    const nack = client.request(TypeUrl.Cluster, [], { errorDetail: "Unsupported type STATIC" });
    expect(nack.verdict).toEqual({
      t: "nack",
      rejectedVersion: first?.versionInfo,
      errorDetail: "Unsupported type STATIC",
    });
    expect(nack.responses).toEqual([]);
    const [next] = client.snapshot(snapshotOf(configSpec({ clusters: [clusterSpec("a")] })));
    expect(names(next)).toEqual(["a"]);
  });

  it("after a NACK, a snapshot that withdraws the rejected change resends what the client holds, so its ACK clears the NACK", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.Cluster, []).responses[0];
    client.ack(TypeUrl.Cluster, [], first);
    const threeClusters = snapshotOf(
      configSpec({
        clusters: ["a", "b", "c"].map((name) =>
          clusterSpec(name, [endpointSpec("10.0.0.1", 9000)]),
        ),
        routeConfigurations: [routeConfigurationSpec("routes", "a")],
        listeners: [apiListenerSpec("svc", "routes")],
      }),
    );
    const [rejected] = client.snapshot(threeClusters);
    expect(names(rejected)).toEqual(["a", "b", "c"]);
    client.request(TypeUrl.Cluster, [], { errorDetail: "cluster c is not allowed" });

    // The rollback: the same clusters the client ACKed and holds.
    const [confirm] = client.snapshot(twoClusters());
    expect(names(confirm)).toEqual(["a", "b"]);
    expect(confirm?.versionInfo).toBe(first?.versionInfo);
    expect(client.ack(TypeUrl.Cluster, [], confirm).verdict.t).toBe("ack");
    // Once ACKed, an unchanged snapshot sends nothing again.
    expect(client.snapshot(twoClusters())).toEqual([]);
  });

  it("sends a newly requested resource even if it was sent before", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.ClusterLoadAssignment, ["a"]).responses[0];
    const dropped = client.ack(TypeUrl.ClusterLoadAssignment, [], first);
    expect(dropped.responses).toEqual([]);
    const again = client.request(TypeUrl.ClusterLoadAssignment, ["a"]);
    expect(names(again.responses[0])).toEqual(["a"]);
  });

  it("sends a requested resource that does not exist yet as soon as it is created", () => {
    const client = new Client(twoClusters());
    expect(client.request(TypeUrl.ClusterLoadAssignment, ["later"]).responses).toEqual([]);
    const [created] = client.snapshot(
      snapshotOf(configSpec({ clusters: [clusterSpec("later", [endpointSpec("10.0.0.3", 80)])] })),
    );
    expect(names(created)).toEqual(["later"]);
  });

  it("unsubscribes from everything on an empty list after named requests", () => {
    const client = new Client(twoClusters());
    const first = client.request(TypeUrl.Cluster, ["a"]).responses[0];
    expect(client.ack(TypeUrl.Cluster, [], first).responses).toEqual([]);
    expect(client.snapshot(twoClusters(9999))).toEqual([]);
    expect(client.session.subscription(TypeUrl.Cluster)?.wildcard).toBe(false);
  });

  it("never names a resource twice in one response", () => {
    const client = new Client(twoClusters());
    const response = client.request(TypeUrl.Cluster, ["a", "a", "*", "a"]).responses[0];
    expect(names(response)).toEqual(["a", "b"]);
  });

  it("does not resend a pure wildcard state a reconnecting client says it already holds", () => {
    const first = new Client(twoClusters());
    const version = first.request(TypeUrl.Cluster, []).responses[0]?.versionInfo;
    const reconnected = new Client(twoClusters());
    expect(reconnected.request(TypeUrl.Cluster, [], { version }).responses).toEqual([]);
    expect(
      names(reconnected.snapshot(snapshotOf(configSpec({ clusters: [clusterSpec("a")] })))[0]),
    ).toEqual(["a"]);
  });
});

describe("ADS ordering", () => {
  it("holds LDS while a CDS response is unanswered, then sends it", () => {
    const client = new Client(twoClusters());
    const cds = client.request(TypeUrl.Cluster, []).responses;
    expect(cds.map((r) => r.typeUrl)).toEqual([TypeUrl.Cluster]);
    expect(client.request(TypeUrl.Listener, []).responses).toEqual([]);
    const after = client.ack(TypeUrl.Cluster, [], cds[0]).responses;
    expect(after.map((r) => r.typeUrl)).toEqual([TypeUrl.Listener]);
  });

  it("resends the assignment of a changed cluster after CDS even when the endpoints did not change (warming)", () => {
    const client = new Client(twoClusters());
    const cds = client.request(TypeUrl.Cluster, []).responses[0];
    client.ack(TypeUrl.Cluster, [], cds);
    const eds = client.request(TypeUrl.ClusterLoadAssignment, ["a", "b"]).responses[0];
    client.ack(TypeUrl.ClusterLoadAssignment, ["a", "b"], eds);

    const [update] = client.snapshot(
      snapshotOf(
        configSpec({
          clusters: [
            clusterSpec("a", [endpointSpec("10.0.0.1", 9000)], { lbPolicy: "RING_HASH" }),
            clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
          ],
        }),
      ),
    );
    const warmed = client.ack(TypeUrl.Cluster, [], update).responses;
    expect(warmed.map((r) => [r.typeUrl, names(r)])).toEqual([
      [TypeUrl.ClusterLoadAssignment, ["a"]],
    ]);
  });

  it("resends the route configuration after LDS even when it did not change (warming)", () => {
    const client = new Client(twoClusters());
    const lds = client.request(TypeUrl.Listener, []).responses[0];
    client.ack(TypeUrl.Listener, [], lds);
    const rds = client.request(TypeUrl.RouteConfiguration, ["routes"]).responses[0];
    client.ack(TypeUrl.RouteConfiguration, ["routes"], rds);
    const [update] = client.snapshot(
      snapshotOf(
        configSpec({
          clusters: [
            clusterSpec("a", [endpointSpec("10.0.0.1", 9000)]),
            clusterSpec("b", [endpointSpec("10.0.0.2", 9000)]),
          ],
          routeConfigurations: [routeConfigurationSpec("routes", "a")],
          listeners: [apiListenerSpec("svc", "routes", { extra: { statPrefix: "changed" } })],
        }),
      ),
    );
    expect(update?.typeUrl).toBe(TypeUrl.Listener);
    const warmed = client.ack(TypeUrl.Listener, [], update).responses;
    expect(warmed.map((r) => [r.typeUrl, names(r)])).toEqual([
      [TypeUrl.RouteConfiguration, ["routes"]],
    ]);
  });
});
