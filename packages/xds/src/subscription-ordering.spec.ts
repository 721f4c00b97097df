import { type ConfigSpec, TYPE_ORDER, TypeUrl } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
} from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { SotwSession } from "./sotw-session.js";
import {
  type ClientStyle,
  DeltaSimClient,
  type Seen,
  SHORT,
  SotwSimClient,
  snapshotOf,
} from "./subscription-fixtures.js";

const port = (p: number) => [endpointSpec("10.0.0.1", p)];

/** Cluster x, route configuration routes → x, listener edge → routes. */
const oneService = configSpec({
  clusters: [clusterSpec("x", port(8001))],
  routeConfigurations: [routeConfigurationSpec("routes", "x")],
  listeners: [apiListenerSpec("edge", "routes")],
});

/** oneService with its route moved to a new cluster `to` (replacing x). */
function movedTo(to: string, endpointPort = 8002): ConfigSpec {
  return configSpec({
    clusters: [clusterSpec(to, port(endpointPort))],
    routeConfigurations: [routeConfigurationSpec("routes", to)],
    listeners: oneService.listeners,
  });
}

/** oneService plus listener edge2 → routes2 → a new cluster c2. */
const secondService = configSpec({
  clusters: [...oneService.clusters, clusterSpec("c2", port(8003))],
  routeConfigurations: [...oneService.routeConfigurations, routeConfigurationSpec("routes2", "c2")],
  listeners: [...oneService.listeners, apiListenerSpec("edge2", "routes2")],
});

/** Clusters x and y, route configurations ra → x and rb → y, listeners la → ra and lb → rb. */
const twoServices = configSpec({
  clusters: [clusterSpec("x", port(8001)), clusterSpec("y", port(8002))],
  routeConfigurations: [routeConfigurationSpec("ra", "x"), routeConfigurationSpec("rb", "y")],
  listeners: [apiListenerSpec("la", "ra"), apiListenerSpec("lb", "rb")],
});

/** Before and after: the changes plan.spec.ts plans, replayed against simulated clients. */
const scenarios: Record<string, [ConfigSpec, ConfigSpec]> = {
  "a route moved to a new cluster": [oneService, movedTo("y")],
  "a listener deleted with its routes and cluster": [
    twoServices,
    configSpec({
      clusters: [clusterSpec("x", port(8001))],
      routeConfigurations: [routeConfigurationSpec("ra", "x")],
      listeners: [apiListenerSpec("la", "ra")],
    }),
  ],
  "two clusters swapped between routes": [
    twoServices,
    configSpec({
      ...twoServices,
      routeConfigurations: [routeConfigurationSpec("ra", "y"), routeConfigurationSpec("rb", "x")],
    }),
  ],
  "a change touching all four types": [
    twoServices,
    configSpec({
      clusters: [
        clusterSpec("x", port(8001), { connectTimeoutMs: 2000 }),
        clusterSpec("z", port(8003)),
      ],
      routeConfigurations: [routeConfigurationSpec("ra", "z")],
      listeners: [apiListenerSpec("la", "ra", { extra: { statPrefix: "changed" } })],
    }),
  ],
};

const ENVOY: ClientStyle = { t: "envoy" };
const GRPC: ClientStyle = { t: "grpc", listener: "edge" };

/** A response as the client saw it: type, what it carried, what it removed. */
const summary = (seen: readonly Seen[]) =>
  seen.map((s) => [SHORT[s.typeUrl], s.resources, s.removed, ...(s.nacked ? ["NACK"] : [])]);

const CONVERGED = { CDS: ["x"], EDS: ["x"], LDS: ["edge"], RDS: ["routes"] };
const MOVED = { CDS: ["y"], EDS: ["y"], LDS: ["edge"], RDS: ["routes"] };

const variants = [
  ["SotW", (style: ClientStyle) => new SotwSimClient(style)],
  ["Delta", (style: ClientStyle) => new DeltaSimClient(style)],
] as const;

describe.each(variants)("make before break on %s ADS", (variant, client) => {
  /** What an LDS/CDS response carries: SotW the full state, Delta only what changed. */
  const carried = (fullState: string[], changed: string[]) =>
    variant === "SotW" ? fullState : changed;

  it("an Envoy-like client converges from scratch, CDS and EDS before LDS and RDS", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    expect(summary(envoy.run()).map(([type]) => type)).toEqual(["CDS", "EDS", "LDS", "RDS"]);
    expect(envoy.heldNames()).toEqual(CONVERGED);
    expect(envoy.lostRoutes).toEqual([]);
  });

  it("a route moved from cluster X to a new cluster Y reaches an Envoy-like client only after it ACKed CDS with Y and EDS for Y", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.publish(snapshotOf(movedTo("y")));
    const seen = envoy.run();
    const route = seen.find((s) => s.typeUrl === TypeUrl.RouteConfiguration);
    expect(route?.ackedBefore.get(TypeUrl.Cluster)?.has("y")).toBe(true);
    expect(route?.ackedBefore.get(TypeUrl.ClusterLoadAssignment)?.has("y")).toBe(true);
    expect(envoy.lostRoutes).toEqual([]);
    expect(envoy.heldNames()).toEqual(MOVED);
  });

  it("X is removed from CDS only after the RDS ACK", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    const target = snapshotOf(movedTo("y"));
    envoy.publish(target);
    const seen = envoy.run();
    expect(summary(seen)).toEqual([
      ["CDS", carried(["x", "y"], ["y"]), []],
      ["EDS", ["y"], []],
      ["RDS", ["routes"], []],
      ["CDS", carried(["y"], []), ["x"]],
    ]);
    const drop = seen.at(-1);
    expect(drop?.ackedBefore.get(TypeUrl.RouteConfiguration)?.get("routes")).toBe(
      target.get(TypeUrl.RouteConfiguration, "routes")?.version,
    );
  });

  it("a grpc-js-like client (named LDS → RDS → CDS → EDS) converges from scratch", () => {
    const grpc = client(GRPC).connect(snapshotOf(oneService));
    expect(summary(grpc.run()).map(([type]) => type)).toEqual(["LDS", "RDS", "CDS", "EDS"]);
    expect(grpc.heldNames()).toEqual(CONVERGED);
  });

  it("a grpc-js-like client converges after a change", () => {
    const grpc = client(GRPC).connect(snapshotOf(oneService));
    grpc.run();
    grpc.publish(snapshotOf(movedTo("y")));
    grpc.run();
    // It asks for cluster y only once a route names it: no plan can get y there first.
    expect(grpc.heldNames()).toEqual(MOVED);
    grpc.publish(snapshotOf(secondService));
    grpc.run();
    expect(grpc.heldNames()).toEqual(CONVERGED);
  });

  it("a client that connected before any config converges, in plan order, once the first snapshot arrives", () => {
    const envoy = client(ENVOY).connect(undefined);
    expect(envoy.pending).toBe(0);
    envoy.publish(snapshotOf(oneService));
    expect(summary(envoy.run()).map(([type]) => type)).toEqual(["CDS", "EDS", "LDS", "RDS"]);
    expect(envoy.heldNames()).toEqual(CONVERGED);
    const grpc = client(GRPC).connect(undefined);
    grpc.publish(snapshotOf(oneService));
    expect(summary(grpc.run()).map(([type]) => type)).toEqual(["LDS", "RDS", "CDS", "EDS"]);
    expect(grpc.heldNames()).toEqual(CONVERGED);
  });

  it("an endpoint-only change is a single EDS response", () => {
    for (const style of [ENVOY, GRPC]) {
      const node = client(style).connect(snapshotOf(oneService));
      node.run();
      node.publish(
        snapshotOf(configSpec({ ...oneService, clusters: [clusterSpec("x", port(9001))] })),
      );
      expect(summary(node.run())).toEqual([["EDS", ["x"], []]]);
    }
  });

  it("a changed cluster is followed by its unchanged assignment, after the CDS ACK (warming)", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    const cluster = clusterSpec("x", port(8001), { connectTimeoutMs: 5000 });
    envoy.publish(snapshotOf(configSpec({ ...oneService, clusters: [cluster] })));
    expect(summary(envoy.run())).toEqual([
      ["CDS", ["x"], []],
      ["EDS", ["x"], []],
    ]);
  });

  it("a changed cluster is followed by its unchanged assignment also when the assignment's first response was unanswered at the publish (warming)", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    // The assignment is on its way to the client, not yet ACKed, when the cluster changes.
    while (envoy.peekType() !== TypeUrl.ClusterLoadAssignment) envoy.deliverOne();
    const cluster = clusterSpec("x", port(8001), { connectTimeoutMs: 5000 });
    envoy.publish(snapshotOf(configSpec({ ...oneService, clusters: [cluster] })));
    const seen = summary(envoy.run());
    const cds = seen.findIndex(([type]) => type === "CDS");
    expect(cds).toBeGreaterThanOrEqual(0);
    expect(seen.slice(cds + 1).filter(([type]) => type === "EDS")).toEqual([["EDS", ["x"], []]]);
  });

  it("a changed listener is followed by its unchanged route configuration, after the LDS ACK (warming)", () => {
    for (const style of [ENVOY, GRPC]) {
      const node = client(style).connect(snapshotOf(oneService));
      node.run();
      const listener = apiListenerSpec("edge", "routes", { extra: { statPrefix: "changed" } });
      node.publish(snapshotOf(configSpec({ ...oneService, listeners: [listener] })));
      const seen = node.run();
      expect(summary(seen)).toEqual([
        ["LDS", ["edge"], []],
        ["RDS", ["routes"], []],
      ]);
      expect(seen[1]?.ackedBefore.get(TypeUrl.Listener)?.get("edge")).toBe(
        node.held(TypeUrl.Listener).get("edge")?.version,
      );
    }
  });

  it("a NACK mid-plan leaves the node consistent and the next snapshot plans from what it holds", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.judge = (_type, resources) =>
      resources.some((r) => r.name === "y") ? "cluster y: unsupported" : undefined;
    envoy.publish(snapshotOf(movedTo("y")));
    expect(summary(envoy.run())).toEqual([["CDS", carried(["x", "y"], ["y"]), [], "NACK"]]);
    // Nothing that needs y went out: the routes still go to x, which the node holds.
    expect(envoy.heldNames()).toEqual(CONVERGED);
    expect(envoy.session.planState.t).toBe("idle");
    expect(envoy.session.heldBack.map(({ name, reason }) => [name, reason.t])).toEqual([
      ["y", "rejected"],
      ["routes", "needs"],
    ]);

    envoy.publish(snapshotOf(movedTo("z", 8003)));
    const seen = envoy.run();
    // Planned from x (held), not from the rejected y.
    expect(summary(seen)).toEqual([
      ["CDS", carried(["x", "z"], ["z"]), []],
      ["EDS", ["z"], []],
      ["RDS", ["routes"], []],
      ["CDS", carried(["z"], []), ["x"]],
    ]);
    expect(envoy.heldNames()).toEqual({ CDS: ["z"], EDS: ["z"], LDS: ["edge"], RDS: ["routes"] });
    expect(envoy.lostRoutes).toEqual([]);
  });

  it("a new listener, its routes and their new cluster arrive in CDS, EDS, LDS, RDS order", () => {
    const envoy = client(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.publish(snapshotOf(secondService));
    expect(summary(envoy.run())).toEqual([
      ["CDS", carried(["c2", "x"], ["c2"]), []],
      ["EDS", ["c2"], []],
      ["LDS", carried(["edge", "edge2"], ["edge2"]), []],
      ["RDS", ["routes2"], []],
    ]);
    expect(envoy.lostRoutes).toEqual([]);
  });
});

describe.each(variants)("a NACK contained to what it touches on %s ADS", (_variant, client) => {
  // Route → y; a publish makes y something the client rejects; the next adds b and moves the
  // route to b without touching y.
  const routedTo = (to: string, clusters: ReturnType<typeof clusterSpec>[]) =>
    configSpec({
      clusters,
      routeConfigurations: [routeConfigurationSpec("routes", to)],
      listeners: [apiListenerSpec("edge", "routes")],
    });
  const y = clusterSpec("y", port(8002));
  const badY = clusterSpec("y", port(8002), { connectTimeoutMs: 1 });
  const b = clusterSpec("b", port(8004));

  it.each([ENVOY, GRPC])(
    "%s: a later publish that does not touch the rejected cluster still reaches the node, make before break",
    (style) => {
      const node = client(style).connect(snapshotOf(routedTo("y", [y])));
      node.run();
      const goodY = node.held(TypeUrl.Cluster).get("y");
      const rejectedVersion = snapshotOf(routedTo("y", [badY])).get(TypeUrl.Cluster, "y")?.version;
      node.judge = (_type, resources) =>
        resources.some((r) => r.name === "y" && r.version === rejectedVersion)
          ? "xDS response validation errors: [resource index 0: y: INVALID_ARGUMENT: bad]"
          : undefined;

      node.publish(snapshotOf(routedTo("y", [badY])));
      expect(summary(node.run()).map((seen) => seen.at(-1))).toContain("NACK");
      const next = snapshotOf(routedTo("b", [badY, b]));
      node.publish(next);
      node.run();

      // Routes go to b, which the node holds; it never got the rejected y (Envoy keeps its last
      // good one; gRPC drops y once no route uses it).
      expect(node.held(TypeUrl.RouteConfiguration).get("routes")?.version).toBe(
        next.get(TypeUrl.RouteConfiguration, "routes")?.version,
      );
      expect(node.held(TypeUrl.Cluster).get("b")?.version).toBe(
        next.get(TypeUrl.Cluster, "b")?.version,
      );
      expect([goodY, undefined]).toContain(node.held(TypeUrl.Cluster).get("y"));
      // (gRPC subscribes to a cluster once a route names it: it holds such a route before the
      // cluster by design, and waits for it.)
      if (style === ENVOY) expect(node.lostRoutes).toEqual([]);
      expect(node.session.planState.t).toBe("idle");
      // Held back: the rejected y, from a client that still asks for it (gRPC no longer does).
      expect(node.session.heldBack.map(({ name, reason }) => [name, reason.t])).toEqual(
        style === ENVOY ? [["y", "rejected"]] : [],
      );
    },
  );
});

describe.each(variants)("every planned change on %s ADS", (_variant, client) => {
  it.each(Object.entries(scenarios))(
    "%s: an Envoy-like client never holds a route to a cluster it lacks, and ends holding the snapshot",
    (_name, [before, after]) => {
      const envoy = client(ENVOY).connect(snapshotOf(before));
      envoy.run();
      const target = snapshotOf(after);
      envoy.publish(target);
      envoy.run();
      expect(envoy.lostRoutes).toEqual([]);
      for (const typeUrl of TYPE_ORDER) {
        const versions = (m: ReadonlyMap<string, { version: string }>) =>
          [...m].map(([name, r]) => [name, r.version]).sort();
        expect(versions(envoy.held(typeUrl)), SHORT[typeUrl]).toEqual(
          versions(target.resources(typeUrl)),
        );
      }
      expect(envoy.session.planState.t).toBe("idle");
    },
  );
});

describe("subscription changes between plan steps", () => {
  it("are answered from what the node holds (SotW): a stale cluster is still in CDS until the RDS ACK", () => {
    const envoy = new SotwSimClient(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.publish(snapshotOf(movedTo("y")));
    while (envoy.peekType() !== TypeUrl.RouteConfiguration) envoy.deliverOne();
    // The RDS step (routes → y) is in flight: the node still routes to x.
    const { responses } = envoy.request(TypeUrl.Cluster, ["*", "x"]);
    expect(responses.map((r) => [SHORT[r.typeUrl], r.resources.map((c) => c.name)])).toEqual([
      ["CDS", ["x", "y"]],
    ]);
  });

  it("are answered from what the node holds (Delta): a stale cluster is still there until the RDS ACK", () => {
    const envoy = new DeltaSimClient(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.publish(snapshotOf(movedTo("y")));
    while (envoy.peekType() !== TypeUrl.RouteConfiguration) envoy.deliverOne();
    const { responses } = envoy.request(TypeUrl.Cluster, { subscribe: ["x"] });
    expect(responses.map((r) => [r.resources.map((c) => c.name), r.removed])).toEqual([
      [["x"], []],
    ]);
  });

  it("a route configuration requested early is not sent before its cluster (SotW)", () => {
    const envoy = new SotwSimClient(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.judge = (_type, resources) =>
      resources.some((r) => r.name === "c2") ? "cluster c2: unsupported" : undefined;
    envoy.publish(snapshotOf(secondService));
    envoy.run();
    expect(envoy.request(TypeUrl.RouteConfiguration, ["routes", "routes2"]).responses).toEqual([]);
  });

  it("a route configuration requested early is not sent before its cluster, nor reported missing (Delta)", () => {
    const envoy = new DeltaSimClient(ENVOY).connect(snapshotOf(oneService));
    envoy.run();
    envoy.judge = (_type, resources) =>
      resources.some((r) => r.name === "c2") ? "cluster c2: unsupported" : undefined;
    envoy.publish(snapshotOf(secondService));
    envoy.run();
    const early = envoy.request(TypeUrl.RouteConfiguration, { subscribe: ["routes2"] });
    expect(early.responses).toEqual([]);
    // The same c2 again is not offered again (only what the node holds, for it to confirm): c2
    // must change to be tried.
    envoy.judge = () => undefined;
    envoy.publish(snapshotOf(secondService));
    expect(summary(envoy.run())).toEqual([["CDS", ["x"], []]]);
    const fixed = clusterSpec("c2", port(8003), { connectTimeoutMs: 2000 });
    envoy.publish(snapshotOf({ ...secondService, clusters: [...oneService.clusters, fixed] }));
    envoy.run();
    expect(envoy.heldNames().RDS).toEqual(["routes", "routes2"]);
    expect(envoy.lostRoutes).toEqual([]);
  });
});

describe("per-type streams", () => {
  it("order only their own type's steps: a CDS stream drops stale clusters right after the new ones are ACKed", () => {
    const session = new SotwSession();
    session.onSnapshot(snapshotOf(oneService));
    const request = (nonce: string, version: string) =>
      session.onRequest({
        typeUrl: TypeUrl.Cluster,
        resourceNames: [],
        versionInfo: version,
        responseNonce: nonce,
      }).responses;
    const [first] = request("", "");
    request(first?.nonce ?? "", first?.versionInfo ?? "");
    const [make] = session.onSnapshot(snapshotOf(movedTo("y")));
    expect(make?.resources.map((r) => r.name)).toEqual(["x", "y"]);
    // No RDS step on this stream to wait for: the EDS, LDS, RDS steps are skipped.
    const [drop] = request(make?.nonce ?? "", make?.versionInfo ?? "");
    expect(drop?.resources.map((r) => r.name)).toEqual(["y"]);
  });
});
