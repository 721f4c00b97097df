import { type ConfigSpec, compile, type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import { routeSpec, vhdsSpec, virtualHostSpec } from "@switchyard/snapshot/fixtures";
import { describe, expect, it } from "vitest";
import { type DeltaResponse, DeltaSession } from "./delta-session.js";

const VHDS = TypeUrl.VirtualHost;
const RDS = TypeUrl.RouteConfiguration;

function snapshotOf(spec: ConfigSpec): ResourceSnapshot {
  const group = compile(spec).groups[0];
  if (!group) throw new Error("no group");
  return group.snapshot;
}

/** vhdsSpec's route configuration with `extra` (changes the RouteConfiguration only). */
function withExtra(extra: object): ConfigSpec {
  const spec = vhdsSpec();
  const [rc] = spec.routeConfigurations;
  if (!rc) throw new Error("no route configuration");
  return { ...spec, routeConfigurations: [{ ...rc, extra: { ...extra } }] };
}

/** A response compactly: [name, aliases] per resource, unresolved names, removals. */
const content = (response: DeltaResponse | undefined) => ({
  resources: response?.resources.map((r) => [r.name, response.aliases?.get(r.name) ?? []]) ?? [],
  unresolved: response?.unresolved ?? [],
  removed: response?.removed ?? [],
});

class Client {
  readonly session = new DeltaSession();

  constructor(spec: ConfigSpec) {
    this.session.onSnapshot(snapshotOf(spec));
  }

  subscribe(typeUrl: string, names: readonly string[], unsubscribe: readonly string[] = []) {
    return this.session.onRequest({
      typeUrl,
      subscribe: names,
      unsubscribe,
      initialResourceVersions: {},
      responseNonce: "",
    }).responses;
  }

  ack(response: DeltaResponse | undefined) {
    if (!response) throw new Error("no response to ACK");
    return this.session.onRequest({
      typeUrl: response.typeUrl,
      subscribe: [],
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: response.nonce,
    }).responses;
  }
}

describe("VhdsSubscription (no sockets)", () => {
  it("answers aliases with the virtual hosts serving them, one resource per virtual host", () => {
    const client = new Client(vhdsSpec());
    const [response] = client.subscribe(VHDS, [
      "edge-routes/shop.example.com",
      "edge-routes/www.shop.example.com",
      "edge-routes/nowhere",
    ]);
    expect(content(response)).toEqual({
      resources: [
        ["edge-routes/fallback", ["edge-routes/nowhere"]],
        ["edge-routes/shop", ["edge-routes/shop.example.com", "edge-routes/www.shop.example.com"]],
      ],
      unresolved: [],
      removed: [],
    });
  });

  it("reports what the client holds as virtual hosts, not aliases", () => {
    const client = new Client(vhdsSpec());
    client.ack(client.subscribe(VHDS, ["edge-routes/shop.example.com"])[0]);
    const held = client.session.subscription(VHDS)?.holds;
    expect([...(held?.keys() ?? [])]).toEqual(["edge-routes/shop"]);
    expect(held?.get("edge-routes/shop")).toBe(
      snapshotOf(vhdsSpec()).get(VHDS, "edge-routes/shop")?.version,
    );
  });

  it("answers an alias of an unknown route configuration as unresolved, and a bare name as removed", () => {
    const client = new Client(vhdsSpec());
    const [response] = client.subscribe(VHDS, ["other/shop.example.com", "edge-routes"]);
    expect(content(response)).toEqual({
      resources: [],
      unresolved: ["other/shop.example.com"],
      removed: ["edge-routes"],
    });
  });

  it("does not send a virtual host again for a new alias it already serves at that version, but names every alias it serves", () => {
    const client = new Client(vhdsSpec());
    client.ack(client.subscribe(VHDS, ["edge-routes/shop.example.com"])[0]);
    const [response] = client.subscribe(VHDS, ["edge-routes/www.shop.example.com"]);
    expect(content(response).resources).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com", "edge-routes/www.shop.example.com"]],
    ]);
  });

  it("resets a route configuration's virtual hosts even when the RDS update overtakes the ACK of the VHDS response in flight", () => {
    const client = new Client(vhdsSpec());
    client.ack(client.subscribe(RDS, ["edge-routes"])[0]);
    const [vhds] = client.subscribe(VHDS, ["edge-routes/shop.example.com"]);
    // The new route configuration arrives before the VHDS ACK.
    const [rds] = client.session.onSnapshot(
      snapshotOf(withExtra({ maxDirectResponseBodySizeBytes: 2048 })),
    );
    expect(rds?.typeUrl).toBe(RDS);
    expect(client.ack(vhds)).toEqual([]);
    const [again] = client.ack(rds);
    expect(again?.typeUrl).toBe(VHDS);
    expect(content(again).resources).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com"]],
    ]);
  });

  it("sends a virtual host's VHDS response only after the RDS response before it is answered", () => {
    const client = new Client(vhdsSpec());
    const [rds] = client.subscribe(RDS, ["edge-routes"]);
    expect(client.subscribe(VHDS, ["edge-routes/shop.example.com"])).toEqual([]);
    const [vhds] = client.ack(rds);
    expect(vhds?.typeUrl).toBe(VHDS);
  });

  it("removes by name a virtual host no alias resolves to any more, and answers its alias anew", () => {
    const client = new Client(vhdsSpec());
    client.ack(client.subscribe(VHDS, ["edge-routes/api.internal"])[0]);
    const [response] = client.session.onSnapshot(
      snapshotOf(vhdsSpec([virtualHostSpec("shop", ["shop.example.com"], [routeSpec("shop")])])),
    );
    expect(content(response)).toEqual({
      resources: [],
      unresolved: ["edge-routes/api.internal"],
      removed: ["edge-routes/api"],
    });
  });

  it("answers a reconnecting client's hosts although it declares the virtual hosts it holds (initial_resource_versions name virtual hosts, not hosts)", () => {
    const client = new Client(vhdsSpec());
    const version = snapshotOf(vhdsSpec()).get(VHDS, "edge-routes/shop")?.version ?? "";
    const [response] = client.session.onRequest({
      typeUrl: VHDS,
      subscribe: ["edge-routes", "edge-routes/shop.example.com"],
      unsubscribe: [],
      initialResourceVersions: { "edge-routes/shop": version },
      responseNonce: "",
    }).responses;
    expect(content(response)).toEqual({
      resources: [["edge-routes/shop", ["edge-routes/shop.example.com"]]],
      unresolved: [],
      removed: ["edge-routes"],
    });
  });

  it("does not offer a NACKed virtual host again until a new snapshot", () => {
    const client = new Client(vhdsSpec());
    const [response] = client.subscribe(VHDS, ["edge-routes/shop.example.com"]);
    if (!response) throw new Error("no response");
    const after = client.session.onRequest({
      typeUrl: VHDS,
      subscribe: [],
      unsubscribe: [],
      initialResourceVersions: {},
      responseNonce: response.nonce,
      errorDetail: "rejected",
    });
    expect(after.verdict.t).toBe("nack");
    expect(after.responses).toEqual([]);
    const [again] = client.session.onSnapshot(snapshotOf(withExtra({})));
    expect(content(again).resources).toEqual([
      ["edge-routes/shop", ["edge-routes/shop.example.com"]],
    ]);
  });

  it("matches hosts without their port for a route configuration with ignore_port_in_host_matching, as Envoy does", () => {
    const hosts = [
      "edge-routes/shop.example.com:8080",
      "edge-routes/[::1]:8080",
      "edge-routes/api.internal:443",
    ];
    const ignoring = new Client(withExtra({ ignorePortInHostMatching: true }));
    expect(content(ignoring.subscribe(VHDS, hosts)[0]).resources).toEqual([
      ["edge-routes/api", ["edge-routes/api.internal:443"]],
      ["edge-routes/fallback", ["edge-routes/[::1]:8080"]],
      ["edge-routes/shop", ["edge-routes/shop.example.com:8080"]],
    ]);
    const keeping = new Client(vhdsSpec());
    expect(content(keeping.subscribe(VHDS, hosts)[0]).resources).toEqual([
      ["edge-routes/api", ["edge-routes/api.internal:443"]],
      ["edge-routes/fallback", ["edge-routes/[::1]:8080", "edge-routes/shop.example.com:8080"]],
    ]);
  });
});
