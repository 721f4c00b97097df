/**
 * On-demand virtual hosts (VHDS) through every stage that handles them: names and host matching
 * (vhds.ts), compile, plan, validate, import and export, file delivery. Long because it is one
 * feature's suite on one fixture (vhdsSpec), so what VHDS does end to end reads in one place.
 */
import { fromBinary, fromJson } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { VirtualHostSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { describe, expect, it } from "vitest";
import { type CompileMemo, compile } from "../compile.js";
import { exportEnvoyConfig } from "../envoy/envoy-export.js";
import { envoyForm } from "../envoy/envoy-form.js";
import { deliveryFiles } from "../file-delivery.js";
import {
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  nodeGroupSpec,
  routeSpec,
  socketListenerSpec,
  vhdsSpec,
  virtualHostSpec,
} from "../fixtures.js";
import { importEnvoyConfig, parseEnvoyConfig } from "../import/envoy-import.js";
import type { ConfigSpec } from "../model.js";
import { validate } from "../validate/validate.js";
import { planUpdate } from "./plan.js";
import { type ResourceSnapshot, TypeUrl } from "./resource-snapshot.js";
import { selectVirtualHost, splitVhdsName, VirtualHostIndex, vhdsResourceName } from "./vhds.js";

function defaultSnapshot(spec: ConfigSpec): ResourceSnapshot {
  const compiled = compile(spec);
  expect(compiled.issues).toEqual([]);
  const group = compiled.groups.find((g) => g.isDefault);
  if (!group) throw new Error("no default group");
  return group.snapshot;
}

describe("VHDS names (VHDS page, Virtual Host Resource Naming Convention)", () => {
  it("names a virtual host <route configuration>/<virtual host>", () => {
    expect(vhdsResourceName("edge-routes", "shop")).toBe("edge-routes/shop");
  });

  it("splits a requested name at its last slash: a route configuration name may hold slashes, a host may not", () => {
    expect(splitVhdsName("team/a/routes/shop.example.com")).toEqual({
      routeConfiguration: "team/a/routes",
      host: "shop.example.com",
    });
  });

  it("reads a name without a slash (Envoy's bare route configuration subscription) or with an empty host as no host", () => {
    expect(splitVhdsName("edge-routes")).toBeUndefined();
    expect(splitVhdsName("edge-routes/")).toBeUndefined();
    expect(splitVhdsName("/shop.example.com")).toBeUndefined();
  });
});

describe("VHDS host matching (Envoy's virtual host selection)", () => {
  const hosts = [
    { name: "shop", domains: ["shop.example.com"] },
    { name: "wild", domains: ["*.example.com"] },
    { name: "deep", domains: ["*.eu.example.com"] },
    { name: "dash", domains: ["*-api.example.com"] },
    { name: "api", domains: ["api.*"] },
    { name: "apiv2", domains: ["api.v2.*"] },
    { name: "fallback", domains: ["*"] },
  ];
  const pick = (host: string, candidates = hosts) => selectVirtualHost(host, candidates)?.name;

  it("prefers an exact domain over every wildcard", () => {
    expect(pick("shop.example.com")).toBe("shop");
  });

  it("matches case-insensitively", () => {
    expect(pick("SHOP.Example.COM")).toBe("shop");
  });

  it("takes the longest suffix wildcard", () => {
    expect(pick("a.example.com")).toBe("wild");
    expect(pick("a.eu.example.com")).toBe("deep");
    expect(pick("billing-api.example.com")).toBe("dash");
  });

  it("prefers a suffix wildcard over a prefix wildcard", () => {
    expect(pick("api.example.com")).toBe("wild");
  });

  it("takes the longest prefix wildcard when no suffix wildcard matches", () => {
    expect(pick("api.internal")).toBe("api");
    expect(pick("api.v2.internal")).toBe("apiv2");
  });

  it("falls back to * last", () => {
    expect(pick("other.org")).toBe("fallback");
  });

  it("lets a wildcard stand for at least one character", () => {
    const noFallback = hosts.filter((h) => h.name !== "fallback");
    expect(pick("example.com", noFallback)).toBeUndefined();
    expect(pick(".example.com", noFallback)).toBeUndefined();
    expect(pick("x.example.com", noFallback)).toBe("wild");
    expect(pick("api.", noFallback)).toBeUndefined();
  });

  it("keeps the port as part of the host (no ignore_port_in_host_matching)", () => {
    expect(pick("shop.example.com:8080")).toBe("fallback");
  });

  it("finds nothing when no domain matches and there is no *", () => {
    expect(pick("other.org", hosts.slice(0, 3))).toBeUndefined();
  });

  it("gives the same answers from an index built once (VirtualHostIndex), with or without *", () => {
    const probes = [
      "shop.example.com",
      "SHOP.Example.COM",
      "a.example.com",
      "a.eu.example.com",
      "billing-api.example.com",
      "api.example.com",
      "api.internal",
      "api.v2.internal",
      "api.",
      "example.com",
      ".example.com",
      "x.example.com",
      "shop.example.com:8080",
      "other.org",
      "",
    ];
    for (const candidates of [hosts, hosts.filter((h) => h.name !== "fallback")]) {
      const index = new VirtualHostIndex(candidates);
      for (const host of probes)
        expect([host, index.select(host)?.name]).toEqual([host, pick(host, candidates)]);
    }
  });
});

describe("compile: on-demand virtual hosts", () => {
  it("sends a VHDS route configuration over RDS with vhds over ADS and no virtual hosts inline", () => {
    const snapshot = defaultSnapshot(vhdsSpec());
    const rc = fromBinary(
      RouteConfigurationSchema,
      snapshot.get(TypeUrl.RouteConfiguration, "edge-routes")?.body ?? new Uint8Array(),
    );
    expect(rc.virtualHosts).toEqual([]);
    expect(rc.vhds?.configSource?.configSourceSpecifier.case).toBe("ads");
  });

  it("makes each virtual host a VirtualHost resource named <route configuration>/<virtual host>, with its domains and routes, naming its clusters", () => {
    const snapshot = defaultSnapshot(vhdsSpec());
    expect([...snapshot.resources(TypeUrl.VirtualHost).keys()]).toEqual([
      "edge-routes/api",
      "edge-routes/fallback",
      "edge-routes/shop",
      "edge-routes/wild",
    ]);
    const shop = snapshot.get(TypeUrl.VirtualHost, "edge-routes/shop");
    const body = fromBinary(VirtualHostSchema, shop?.body ?? new Uint8Array());
    expect(body.name).toBe("edge-routes/shop");
    expect(body.domains).toEqual(["shop.example.com", "www.shop.example.com"]);
    expect(body.routes).toHaveLength(1);
    expect(shop?.references).toEqual(["shop"]);
  });

  it("still names every routed cluster in the route configuration, so no virtual host's cluster dangles", () => {
    const snapshot = defaultSnapshot(vhdsSpec());
    expect(snapshot.get(TypeUrl.RouteConfiguration, "edge-routes")?.references).toEqual([
      "api",
      "fallback",
      "shop",
      "wild",
    ]);
    expect(snapshot.danglingReferences()).toEqual([]);
  });

  it("sends a route configuration without VHDS as before: virtual hosts inline, no VirtualHost resources", () => {
    const spec = vhdsSpec();
    const [rc] = spec.routeConfigurations;
    if (!rc) throw new Error("no route configuration");
    const snapshot = defaultSnapshot({ ...spec, routeConfigurations: [{ ...rc, vhds: false }] });
    expect(snapshot.resources(TypeUrl.VirtualHost).size).toBe(0);
    const body = fromBinary(
      RouteConfigurationSchema,
      snapshot.get(TypeUrl.RouteConfiguration, "edge-routes")?.body ?? new Uint8Array(),
    );
    expect(body.virtualHosts.map((vh) => vh.name)).toEqual(["shop", "wild", "api", "fallback"]);
  });

  it("gives a node group the virtual hosts of the route configurations its listeners load, and no others", () => {
    const spec = vhdsSpec();
    const other = socketListenerSpec("other", 9090, "other-routes");
    const compiled = compile({
      ...spec,
      clusters: [...spec.clusters, clusterSpec("o", [endpointSpec("10.0.0.2", 80)])],
      routeConfigurations: [
        ...spec.routeConfigurations,
        {
          name: "other-routes",
          vhds: true,
          extra: {},
          virtualHosts: [virtualHostSpec("o", ["o.example.org"], [routeSpec("o")])],
        },
      ],
      listeners: [...spec.listeners, other],
      nodeGroups: [
        nodeGroupSpec("edge", { listeners: ["edge"], clusters: spec.clusters.map((c) => c.name) }),
      ],
    });
    const edge = compiled.groups.find((g) => g.name === "edge")?.snapshot;
    expect([...(edge?.resources(TypeUrl.VirtualHost).keys() ?? [])]).toEqual([
      "edge-routes/api",
      "edge-routes/fallback",
      "edge-routes/shop",
      "edge-routes/wild",
    ]);
  });
});

describe("compile: the on_demand filter of a listener loading a VHDS route configuration", () => {
  function httpFilters(spec: ConfigSpec, memo?: CompileMemo): string[] {
    const compiled = compile(spec, memo ? { memo } : {});
    const body = compiled.groups[0]?.snapshot.get(TypeUrl.Listener, "edge")?.body;
    const listener = fromBinary(ListenerSchema, body ?? new Uint8Array());
    const any = listener.filterChains[0]?.filters[0]?.configType;
    const hcm =
      any?.case === "typedConfig" ? anyUnpack(any.value, HttpConnectionManagerSchema) : undefined;
    return hcm?.httpFilters.map((f) => f.name) ?? [];
  }
  const vhdsOff = (spec: ConfigSpec): ConfigSpec => ({
    ...spec,
    routeConfigurations: spec.routeConfigurations.map((rc) => ({ ...rc, vhds: false })),
  });

  it("puts envoy.filters.http.on_demand before the router, so Envoy requests the virtual host of a host it lacks", () => {
    expect(httpFilters(vhdsSpec())).toEqual([
      "envoy.filters.http.on_demand",
      "envoy.filters.http.router",
    ]);
    expect(
      registry.getMessage("envoy.extensions.filters.http.on_demand.v3.OnDemand"),
    ).toBeDefined();
  });

  it("adds no second one when the chain lists it, and none without VHDS", () => {
    const spec = vhdsSpec();
    const [edge] = spec.listeners;
    if (!edge) throw new Error("no listener");
    const listed = {
      ...spec,
      listeners: [
        {
          ...edge,
          filterChains: [
            filterChainSpec({
              rdsRouteConfigName: "edge-routes",
              httpFilters: [{ name: "envoy.filters.http.on_demand" }],
            }),
          ],
        },
      ],
    };
    expect(httpFilters(listed)).toEqual([
      "envoy.filters.http.on_demand",
      "envoy.filters.http.router",
    ]);
    expect(httpFilters(vhdsOff(spec))).toEqual(["envoy.filters.http.router"]);
  });

  it("follows the route configuration's vhds when the listener itself is unchanged (compile memo)", () => {
    const memo: CompileMemo = new WeakMap();
    const on = vhdsSpec();
    const off = vhdsOff(on);
    expect(httpFilters(off, memo)).toEqual(["envoy.filters.http.router"]);
    expect(httpFilters(on, memo)).toHaveLength(2);
    expect(httpFilters(off, memo)).toEqual(["envoy.filters.http.router"]);
  });
});

describe("plan: VHDS after RDS (xDS protocol, make before break)", () => {
  const moved = (cluster: string) =>
    vhdsSpec([
      virtualHostSpec("shop", ["shop.example.com"], [routeSpec(cluster)]),
      virtualHostSpec("fallback", ["*"], [routeSpec("fallback")]),
    ]);

  it("sends a changed virtual host after the clusters it routes to, and drops the old cluster only after it", () => {
    const before = defaultSnapshot(moved("shop"));
    const after = defaultSnapshot(moved("shop-v2"));
    const steps = planUpdate(before, after).map((s) => `${s.t} ${s.typeUrl.split(".").at(-1)}`);
    expect(steps).toEqual([
      "make Cluster",
      "make ClusterLoadAssignment",
      "make VirtualHost",
      "break Cluster",
      "break ClusterLoadAssignment",
    ]);
  });

  it("puts the VHDS step after the RDS step when both change", () => {
    const before = defaultSnapshot(moved("shop"));
    const spec = moved("shop-v2");
    const [rc] = spec.routeConfigurations;
    if (!rc) throw new Error("no route configuration");
    const after = defaultSnapshot({
      ...spec,
      routeConfigurations: [{ ...rc, extra: { maxDirectResponseBodySizeBytes: 2048 } }],
    });
    const types = planUpdate(before, after).map((s) => s.typeUrl.split(".").at(-1));
    expect(types.indexOf("VirtualHost")).toBe(types.indexOf("RouteConfiguration") + 1);
  });

  it("resends every virtual host of a route configuration the RDS step sends, though unchanged: an RDS update resets them", () => {
    const spec = moved("shop");
    const before = defaultSnapshot(spec);
    const [rc] = spec.routeConfigurations;
    if (!rc) throw new Error("no route configuration");
    const after = defaultSnapshot({
      ...spec,
      routeConfigurations: [{ ...rc, extra: { maxDirectResponseBodySizeBytes: 2048 } }],
    });
    const vhds = planUpdate(before, after).find((s) => s.typeUrl === TypeUrl.VirtualHost);
    expect(vhds?.changed.map((r) => r.name)).toEqual(["edge-routes/fallback", "edge-routes/shop"]);
  });

  it("removes a deleted virtual host in the VHDS step", () => {
    const before = defaultSnapshot(moved("shop"));
    const after = defaultSnapshot(
      vhdsSpec([
        virtualHostSpec("shop", ["shop.example.com"], [routeSpec("shop")]),
        virtualHostSpec("fallback", ["*"], [routeSpec("shop")]),
      ]),
    );
    const vhds = planUpdate(before, after).find((s) => s.typeUrl === TypeUrl.VirtualHost);
    expect(vhds?.changed.map((r) => r.name)).toEqual(["edge-routes/fallback"]);
    const removedAfter = defaultSnapshot(
      vhdsSpec([virtualHostSpec("shop", ["shop.example.com"], [routeSpec("shop")])]),
    );
    const removal = planUpdate(before, removedAfter).find((s) => s.typeUrl === TypeUrl.VirtualHost);
    expect(removal?.removed).toEqual(["edge-routes/fallback"]);
  });
});

describe("validate: on-demand virtual hosts", () => {
  it('refuses a VHDS virtual host whose name holds "/", at its name', () => {
    const report = validate(
      vhdsSpec([virtualHostSpec("shop/eu", ["shop.example.com"], [routeSpec("shop")])]),
    );
    expect(report.issues.map((i) => [i.code, i.path])).toContainEqual([
      "vhds-virtual-host-name",
      'routeConfigurations["edge-routes"].virtualHosts["shop/eu"].name',
    ]);
    expect(report.ok).toBe(false);
  });

  it("refuses a listener that embeds a VHDS route configuration: on-demand virtual hosts need RDS", () => {
    const spec = vhdsSpec();
    const edge = spec.listeners[0];
    if (!edge) throw new Error("no listener");
    const report = validate({
      ...spec,
      listeners: [
        { ...edge, filterChains: [filterChainSpec({ inlineRouteConfigName: "edge-routes" })] },
      ],
    });
    expect(report.issues.map((i) => [i.code, i.path])).toContainEqual([
      "vhds-inline-route-configuration",
      'listeners["edge"].filterChains[0].inlineRouteConfigName',
    ]);
  });

  it("does not add a route configuration's on-demand virtual hosts up as one response against gRPC's 4 MB limit", () => {
    const heavy = (name: string) =>
      virtualHostSpec(name, [`${name}.example.com`], [routeSpec("shop")], {
        extra: { metadata: { filterMetadata: { notes: { text: "x".repeat(1024 * 1024) } } } },
      });
    const spec = vhdsSpec(["a", "b", "c", "d", "e"].map(heavy));
    expect(validate(spec).issues.map((i) => i.code)).not.toContain("response-too-large");
    const inline = {
      ...spec,
      routeConfigurations: spec.routeConfigurations.map((rc) => ({ ...rc, vhds: false })),
    };
    expect(validate(inline).issues.map((i) => i.code)).toContain("response-too-large");
  });

  it("accepts the VHDS fixture", () => {
    expect(validate(vhdsSpec()).issues.filter((i) => i.severity === "error")).toEqual([]);
  });
});

describe("the apply form: Envoy YAML with vhds and virtual_hosts", () => {
  const yaml = `
- "@type": type.googleapis.com/envoy.config.route.v3.RouteConfiguration
  name: edge-routes
  vhds: { config_source: { ads: {}, resource_api_version: V3 } }
  virtual_hosts:
    - name: shop
      domains: [shop.example.com]
      routes: [{ match: { prefix: / }, route: { cluster: shop } }]
`;

  function importedSpec(text: string): ConfigSpec {
    const parsed = parseEnvoyConfig(text, { filename: "routes.yaml" });
    if ("errors" in parsed) throw new Error(JSON.stringify(parsed.errors));
    const result = importEnvoyConfig(parsed.resources);
    expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
    return configSpec(result.spec);
  }

  it("imports a route configuration with vhds as on-demand, its virtual hosts kept", () => {
    const [rc] = importedSpec(yaml).routeConfigurations;
    expect(rc?.vhds).toBe(true);
    expect(rc?.extra).toEqual({});
    expect(rc?.virtualHosts.map((vh) => [vh.name, vh.domains])).toEqual([
      ["shop", ["shop.example.com"]],
    ]);
  });

  it("shows (get -o yaml) and exports it with vhds and its virtual hosts, which import reads back the same", () => {
    const spec = vhdsSpec();
    const [form] = envoyForm(spec, "routeConfiguration", "edge-routes") ?? [];
    expect(form?.vhds).toEqual({ config_source: { ads: {}, resource_api_version: "V3" } });
    expect(form?.virtual_hosts).toHaveLength(4);
    const exported = exportEnvoyConfig(spec, { format: "yaml" });
    expect(exported).not.toContain("envoy.config.route.v3.VirtualHost\n");
    const back = importedSpec(exported);
    expect(back.routeConfigurations).toEqual(spec.routeConfigurations);
  });
});

describe("file delivery of a VHDS route configuration", () => {
  it("writes it with its virtual hosts inline and no vhds: an Envoy reading files has no Delta ADS to ask", () => {
    const files = deliveryFiles(defaultSnapshot(vhdsSpec()), {
      root: "/etc/envoy/xds",
      version: "3",
      format: "json",
    });
    expect(files.map((f) => f.path)).not.toContainEqual(expect.stringContaining("VirtualHost"));
    const file = files.find((f) => f.path === "rds/edge-routes.json");
    const response = fromJson(DiscoveryResponseSchema, JSON.parse(file?.content ?? "{}"), {
      registry,
    });
    const [any] = response.resources;
    const rc = any && anyUnpack(any, RouteConfigurationSchema);
    expect(rc?.vhds).toBeUndefined();
    expect(rc?.virtualHosts.map((vh) => vh.name)).toEqual([
      "edge-routes/api",
      "edge-routes/fallback",
      "edge-routes/shop",
      "edge-routes/wild",
    ]);
  });
});
