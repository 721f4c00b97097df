import { describe, expect, it } from "vitest";
import {
  type RegisteredEndpoint,
  registerEndpoints,
  registrationProblems,
} from "./endpoint-registration.js";
import { clusterSpec } from "./fixtures.js";
import type { ClusterSpec } from "./model.js";

const at = (
  address: string,
  port: number,
  more: Partial<RegisteredEndpoint> = {},
): RegisteredEndpoint => ({
  address,
  port,
  weight: null,
  healthStatus: "UNKNOWN",
  region: "",
  zone: "",
  subZone: "",
  priority: 0,
  ...more,
});

const endpointsOf = (cluster: ClusterSpec) =>
  cluster.localities.map((l) => ({
    locality: [l.region, l.zone, l.priority].join("/"),
    weight: l.weight,
    endpoints: l.endpoints.map(
      (e) =>
        `${e.address}:${e.port}${e.weight === null ? "" : `@${e.weight}`}${e.healthStatus === "UNKNOWN" ? "" : ` ${e.healthStatus}`}`,
    ),
  }));

describe("endpoint registration", () => {
  const stored: ClusterSpec = {
    ...clusterSpec("svc"),
    localities: [
      {
        region: "eu",
        zone: "a",
        subZone: "",
        priority: 0,
        weight: 3,
        extra: {},
        endpoints: [
          {
            address: "10.0.0.1",
            port: 80,
            weight: null,
            healthStatus: "UNKNOWN",
            extra: { metadata: { filterMetadata: { x: { y: 1 } } } },
          },
          { address: "10.0.0.2", port: 80, weight: null, healthStatus: "UNKNOWN", extra: {} },
        ],
      },
    ],
  };

  it("set makes the endpoints exactly those given, grouped by locality, keeping a remaining locality's weight", () => {
    const set = registerEndpoints(stored, "set", [
      at("10.0.0.2", 80, { region: "eu", zone: "a" }),
      at("10.0.1.1", 80, { region: "us", zone: "b", priority: 1 }),
    ]);
    expect(endpointsOf(set)).toEqual([
      { locality: "eu/a/0", weight: 3, endpoints: ["10.0.0.2:80"] },
      { locality: "us/b/1", weight: 1, endpoints: ["10.0.1.1:80"] },
    ]);
  });

  it("add registers new endpoints and replaces one already registered, wherever it was, keeping its extra fields", () => {
    const added = registerEndpoints(stored, "add", [
      at("10.0.0.1", 80, { region: "eu", zone: "a", weight: 5, healthStatus: "DRAINING" }),
      at("10.0.0.3", 80, { region: "eu", zone: "a" }),
    ]);
    expect(endpointsOf(added)).toEqual([
      {
        locality: "eu/a/0",
        weight: 3,
        endpoints: ["10.0.0.2:80", "10.0.0.1:80@5 DRAINING", "10.0.0.3:80"],
      },
    ]);
    expect(added.localities[0]?.endpoints[1]?.extra).toEqual(
      stored.localities[0]?.endpoints[0]?.extra,
    );
    const moved = registerEndpoints(stored, "add", [at("10.0.0.1", 80, { region: "us" })]);
    expect(endpointsOf(moved)).toEqual([
      { locality: "eu/a/0", weight: 3, endpoints: ["10.0.0.2:80"] },
      { locality: "us//0", weight: 3, endpoints: ["10.0.0.1:80"] },
    ]);
  });

  it("gives every locality it creates a weight (gRPC sends nothing to one without): its priority's siblings' one weight, else 1", () => {
    const plain = clusterSpec("plain", [], { localities: [] });
    const unnamed = registerEndpoints(plain, "set", [at("10.0.0.1", 80)]);
    expect(endpointsOf(unnamed)).toEqual([
      { locality: "//0", weight: 1, endpoints: ["10.0.0.1:80"] },
    ]);
    // `endpoints add echo-v2 127.0.0.1:50053 --zone z1` beside a weighted locality.
    expect(
      endpointsOf(registerEndpoints(stored, "add", [at("127.0.0.1", 50053, { zone: "z1" })])),
    ).toContainEqual({ locality: "/z1/0", weight: 3, endpoints: ["127.0.0.1:50053"] });
    // Beside unweighted ones, or ones that disagree, or at another priority: 1.
    const unweighted: ClusterSpec = {
      ...stored,
      localities: stored.localities.map((l) => ({ ...l, weight: null })),
    };
    expect(
      endpointsOf(registerEndpoints(unweighted, "add", [at("10.0.0.9", 80, { zone: "z1" })])),
    ).toContainEqual({ locality: "/z1/0", weight: 1, endpoints: ["10.0.0.9:80"] });
    const mixed = registerEndpoints(stored, "add", [at("10.0.0.8", 80, { zone: "b" })]);
    const disagreeing: ClusterSpec = {
      ...mixed,
      localities: mixed.localities.map((l, i) => ({ ...l, weight: i === 0 ? 3 : 5 })),
    };
    expect(
      endpointsOf(registerEndpoints(disagreeing, "add", [at("10.0.0.9", 80, { zone: "z1" })])),
    ).toContainEqual({ locality: "/z1/0", weight: 1, endpoints: ["10.0.0.9:80"] });
    expect(
      endpointsOf(
        registerEndpoints(stored, "add", [at("10.0.0.9", 80, { zone: "z1", priority: 1 })]),
      ),
    ).toContainEqual({ locality: "/z1/1", weight: 1, endpoints: ["10.0.0.9:80"] });
  });

  it("remove takes endpoints out by address and port, drops an emptied locality, and ignores one not registered", () => {
    expect(endpointsOf(registerEndpoints(stored, "remove", [at("10.0.0.1", 80)]))).toEqual([
      { locality: "eu/a/0", weight: 3, endpoints: ["10.0.0.2:80"] },
    ]);
    expect(
      registerEndpoints(stored, "remove", [at("10.0.0.1", 80), at("10.0.0.2", 80)]).localities,
    ).toEqual([]);
    expect(registerEndpoints(stored, "remove", [at("10.9.9.9", 80)])).toBe(stored);
  });

  it("gives back the cluster itself when nothing changes, so a script may run twice", () => {
    const once = registerEndpoints(stored, "add", [
      at("10.0.0.3", 80, { region: "eu", zone: "a" }),
    ]);
    expect(registerEndpoints(once, "add", [at("10.0.0.3", 80, { region: "eu", zone: "a" })])).toBe(
      once,
    );
  });

  it("refuses an add or remove naming no endpoint, and an endpoint named twice", () => {
    expect(registrationProblems([], "add")).toEqual(["name at least one endpoint to add"]);
    expect(registrationProblems([], "set")).toEqual([]);
    expect(registrationProblems([at("h", 1), at("H", 1)], "set")).toEqual([
      "endpoints[1] (H:1) is named twice",
    ]);
  });
});
