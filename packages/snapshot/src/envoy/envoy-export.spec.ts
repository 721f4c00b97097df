import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { expectExportsAsNormalized } from "../../test/round-trip.js";
import { compile } from "../compile.js";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  filterChainSpec,
  grpcServiceSpec,
  localitySpec,
  routeConfigurationSpec,
  routeSpec,
  socketListenerSpec,
  virtualHostSpec,
} from "../fixtures.js";
import {
  type DecodedResource,
  type EnvoyResource,
  importEnvoyConfig,
  parseEnvoyConfig,
  resourceJson,
  resourceName,
} from "../import/envoy-import.js";
import type { ConfigSpec } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { validate } from "../validate/validate.js";
import { EnvoyExportError, exportEnvoyConfig, exportEnvoyResources } from "./envoy-export.js";

const CORPUS = ["edge-proxy.yaml", "sidecar.yaml", "grpc-proxyless.json", "gateway.yaml"] as const;

function decoded(text: string, filename?: string): readonly DecodedResource[] {
  const result = parseEnvoyConfig(text, filename === undefined ? {} : { filename });
  if ("errors" in result)
    throw new Error(`unexpected errors: ${JSON.stringify(result.errors, null, 2)}`);
  return result.resources;
}

function corpus(file: string): readonly DecodedResource[] {
  return decoded(readFileSync(new URL(`../../test/corpus/${file}`, import.meta.url), "utf8"), file);
}

/** The stored objects of a spec, as importEnvoyConfig returns them (secrets are not exported). */
function fragment(spec: ConfigSpec) {
  const { nodeGroups: _, ...objects } = spec;
  return { ...objects, secrets: [] };
}

/** Imports `resources`, failing on any error. */
function imported(resources: readonly DecodedResource[]) {
  const result = importEnvoyConfig(resources);
  expect(result.issues.filter((issue) => issue.severity === "error")).toEqual([]);
  return result;
}

function specOf(resources: readonly DecodedResource[]): ConfigSpec {
  return configSpec(imported(resources).spec);
}

const key = (r: EnvoyResource) =>
  `${r.typeUrl.slice(r.typeUrl.lastIndexOf(".") + 1)} ${resourceName(r)}`;

/** A spec with one of each modelled feature, in the stored model's canonical form. */
function featureSpec(): ConfigSpec {
  const endpoints = [
    endpointSpec("10.0.0.1", 8080, { weight: 2, healthStatus: "HEALTHY" }),
    endpointSpec("10.0.0.2", 8080, {
      extra: { metadata: { filterMetadata: { app: { v: "1" } } } },
    }),
  ];
  return configSpec({
    clusters: [
      clusterSpec("api", [], {
        localities: [
          localitySpec(endpoints, { region: "eu", zone: "eu-1", weight: 3 }),
          localitySpec([endpointSpec("10.1.0.1", 8080)], {
            region: "us",
            priority: 1,
            weight: null,
          }),
        ],
        http2: true,
        tlsSecretName: "internal-ca",
        edsServiceName: "api.prod",
        circuitBreakers: { thresholds: [{ maxConnections: 100 }] },
        outlierDetection: { consecutive5xx: 5 },
        healthChecks: [
          {
            timeout: "1s",
            interval: "5s",
            unhealthyThreshold: 2,
            healthyThreshold: 2,
            tcpHealthCheck: {},
          },
        ],
        assignmentExtra: { policy: { overprovisioningFactor: 140 } },
        extra: { dnsLookupFamily: "V4_ONLY" },
      }),
      clusterSpec("empty"),
      clusterSpec("web", [endpointSpec("web.internal", 80)], {
        discoveryType: "STRICT_DNS",
        lbPolicy: "LEAST_REQUEST",
        connectTimeoutMs: 250,
      }),
    ],
    routeConfigurations: [
      routeConfigurationSpec("edge-routes", "web", {
        virtualHosts: [
          virtualHostSpec(
            "www",
            ["www.example.com"],
            [
              routeSpec("", {
                matchKind: "PATH",
                matchValue: "/healthz",
                actionKind: "DIRECT_RESPONSE",
                cluster: null,
                directResponse: { status: 200 },
              }),
              routeSpec("api", {
                name: "api",
                matchValue: "/api/",
                prefixRewrite: "/",
                timeoutMs: 1500,
                retryPolicy: { retryOn: "5xx", numRetries: 2 },
              }),
              routeSpec("", {
                matchKind: "SAFE_REGEX",
                matchValue: "^/v[0-9]+/",
                caseSensitive: false,
                headers: [{ name: "x-canary", presentMatch: true }],
                actionKind: "WEIGHTED_CLUSTERS",
                cluster: null,
                weightedClusters: [
                  { name: "api", weight: 90 },
                  { name: "web", weight: 10 },
                ],
              }),
              routeSpec("web", { extra: { route: { hostRewriteLiteral: "web.internal" } } }),
            ],
          ),
          virtualHostSpec(
            "old",
            ["old.example.com"],
            [
              routeSpec("", {
                actionKind: "REDIRECT",
                cluster: null,
                redirect: { httpsRedirect: true },
              }),
            ],
          ),
        ],
      }),
      routeConfigurationSpec("grpc-routes", "api"),
    ],
    listeners: [
      socketListenerSpec("edge", 443, "edge-routes", {
        filterChains: [
          filterChainSpec({
            name: "www",
            serverNames: ["www.example.com", "old.example.com"],
            tlsSecretName: "www-cert",
            inlineRouteConfigName: "edge-routes",
            statPrefix: "edge",
            httpFilters: [
              {
                name: "envoy.filters.http.cors",
                typedConfig: {
                  "@type": "type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors",
                },
              },
            ],
            accessLog: [
              {
                name: "envoy.access_loggers.stdout",
                typedConfig: {
                  "@type":
                    "type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog",
                },
              },
            ],
            hcmExtra: { useRemoteAddress: true },
            extra: { filterChainMatch: { transportProtocol: "tls" } },
          }),
        ],
        extra: { perConnectionBufferLimitBytes: 32768 },
      }),
      apiListenerSpec("grpc", "grpc-routes"),
    ],
  });
}

describe("exportEnvoyConfig", () => {
  it("lists clusters, cluster load assignments, listeners, then route configurations, each sorted by name", () => {
    const spec = configSpec({
      clusters: [
        clusterSpec("b", [endpointSpec("10.0.0.2", 80)]),
        clusterSpec("a", [endpointSpec("10.0.0.1", 80)]),
      ],
      routeConfigurations: [routeConfigurationSpec("r2", "a"), routeConfigurationSpec("r1", "b")],
      listeners: [socketListenerSpec("l2", 81, "r2"), socketListenerSpec("l1", 80, "r1")],
    });
    expect(exportEnvoyResources(spec).map(key)).toEqual([
      "Cluster a",
      "Cluster b",
      "ClusterLoadAssignment a",
      "ClusterLoadAssignment b",
      "Listener l1",
      "Listener l2",
      "RouteConfiguration r1",
      "RouteConfiguration r2",
    ]);
  });

  it("does not list on its own a route configuration used only inline, but does one also loaded over RDS", () => {
    const inline = (name: string, routes: string) =>
      socketListenerSpec(name, 80, routes, {
        filterChains: [filterChainSpec({ inlineRouteConfigName: routes })],
      });
    const spec = configSpec({
      clusters: [clusterSpec("c")],
      routeConfigurations: [
        routeConfigurationSpec("only-inline", "c"),
        routeConfigurationSpec("shared", "c"),
      ],
      listeners: [
        inline("a", "only-inline"),
        inline("b", "shared"),
        socketListenerSpec("c", 81, "shared"),
      ],
    });
    expect(exportEnvoyResources(spec).map(key)).toEqual([
      "Cluster c",
      "Listener a",
      "Listener b",
      "Listener c",
      "RouteConfiguration shared",
    ]);
  });

  it("leaves out the assignment of an EDS cluster with no endpoints and no assignment settings", () => {
    const spec = configSpec({
      clusters: [
        clusterSpec("empty"),
        clusterSpec("policy", [], { assignmentExtra: { policy: { overprovisioningFactor: 140 } } }),
      ],
    });
    expect(exportEnvoyResources(spec).map(key)).toEqual([
      "Cluster empty",
      "Cluster policy",
      "ClusterLoadAssignment policy",
    ]);
  });

  it("prints the same resources as JSON and as YAML, each with its @type first", () => {
    const spec = featureSpec();
    const json = exportEnvoyConfig(spec, { format: "json" });
    const yaml = exportEnvoyConfig(spec, { format: "yaml" });
    expect(yaml).toMatch(
      /^- "@type": type\.googleapis\.com\/envoy\.config\.cluster\.v3\.Cluster\n/,
    );
    expect(JSON.parse(json)[0]).toMatchObject({ "@type": TypeUrl.Cluster, name: "api" });
    const fromJson = decoded(json, "export.json");
    const fromYaml = decoded(yaml, "export.yaml");
    expect(fromYaml.map(resourceJson)).toEqual(fromJson.map(resourceJson));
    expect(fromJson.map(key)).toEqual(exportEnvoyResources(spec).map(key));
  });

  it("throws EnvoyExportError naming the problem when the spec does not compile", () => {
    const spec = configSpec({ clusters: [clusterSpec("c", [], { extra: { notAField: 1 } })] });
    expect(() => exportEnvoyConfig(spec, { format: "yaml" })).toThrow(EnvoyExportError);
    expect(() => exportEnvoyConfig(spec, { format: "yaml" })).toThrow(
      /clusters\["c"\]: .*notAField/,
    );
  });

  describe("importing an export gives back the stored spec", () => {
    const cases: readonly [string, ConfigSpec][] = [
      ["a proxyless gRPC service", grpcServiceSpec("greeter", [endpointSpec("10.0.0.1", 50051)])],
      ["one of each modelled feature", featureSpec()],
    ];
    for (const [name, spec] of cases) {
      for (const format of ["yaml", "json"] as const) {
        it(`${name}, through ${format}`, () => {
          const text = exportEnvoyConfig(spec, { format });
          expect(imported(decoded(text, `export.${format}`)).spec).toEqual(fragment(spec));
        });
      }
    }
  });
});

/**
 * The notes each corpus file's import gives: the documented normalizations it needed (see the
 * list at the top of envoy-import.ts), and nothing else.
 */
const EXPECTED_NOTES: Record<(typeof CORPUS)[number], readonly string[]> = {
  "edge-proxy.yaml": [
    'static_resources.listeners[1].filter_chains[0].filters[0].typed_config.route_config.name: the inline route_config has no name: stored as route configuration "http-routes"',
    "static_resources.clusters[0].load_assignment.endpoints: a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
    "static_resources.clusters[5].load_assignment.endpoints: a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
    "static_resources.clusters[6].type: type is not set: stored as Envoy's default, STATIC",
    "static_resources.clusters[6].load_assignment.endpoints: a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
  ],
  "sidecar.yaml": [
    "[10].load_assignment.endpoints: a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
  ],
  "grpc-proxyless.json": [],
  "gateway.yaml": [],
};

describe("the shapes generated configs use, stored as what they are", () => {
  const spec = () => specOf(corpus("gateway.yaml"));
  const listener = (name: string) => spec().listeners.find((l) => l.name === name);
  const endpoint = (cluster: string) =>
    spec().clusters.find((c) => c.name === cluster)?.localities[0]?.endpoints[0];

  it("validate and compile for publishing: no validation error, every snapshot consistent", () => {
    const compiled = compile(spec());
    expect(validate(spec(), { compiled }).issues.filter((i) => i.severity === "error")).toEqual([]);
    expect(compiled.issues).toEqual([]);
    for (const group of compiled.groups) expect(group.snapshot.danglingReferences()).toEqual([]);
  });

  it("a listener whose only chain is its default_filter_chain keeps it as its default chain", () => {
    expect(listener("envoy-gateway/eg/http")?.filterChains.map((c) => c.isDefault)).toEqual([true]);
    expect(listener("envoy-gateway/eg/http")?.filterChains[0]?.rdsRouteConfigName).toBe(
      "envoy-gateway/eg/http",
    );
  });

  it("an internal listener has no address; an endpoint reaching it is envoy://NAME, its endpoint_id kept", () => {
    expect(listener("tcproute/default/db/inner")).toMatchObject({
      address: null,
      port: null,
      extra: { internalListener: {} },
    });
    expect(endpoint("tcproute/default/db/tunnel")).toMatchObject({
      address: "envoy://tcproute/default/db/inner",
      port: 0,
      extra: { endpoint: { address: { envoyInternalAddress: { endpointId: "db-0" } } } },
    });
  });

  it("a Unix socket endpoint is unix://PATH, its mode kept", () => {
    expect(endpoint("sds-agent")).toMatchObject({
      address: "unix:///var/run/agent/sds.sock",
      port: 0,
      extra: { endpoint: { address: { pipe: { mode: 384 } } } },
    });
  });
});

describe("round trip over the corpus", () => {
  for (const file of CORPUS) {
    it(`importing then exporting ${file} gives back its resources, after only the documented normalizations`, () => {
      const input = corpus(file);
      expectExportsAsNormalized(input, specOf(input));
    });

    it(`importing ${file} reports exactly the normalizations it needed`, () => {
      const { issues } = imported(corpus(file));
      expect(
        issues.filter((i) => i.severity !== "warning").map((i) => `${i.path}: ${i.message}`),
      ).toEqual(EXPECTED_NOTES[file]);
    });

    it(`importing ${file}, exporting it and importing the export gives the same spec`, () => {
      const spec = specOf(corpus(file));
      for (const format of ["yaml", "json"] as const) {
        const again = imported(decoded(exportEnvoyConfig(spec, { format }), `export.${format}`));
        expect(again.spec).toEqual(fragment(spec));
        expect(again.issues).toEqual([]);
      }
    });
  }
});

/**
 * Rules the generated resources found broken (envoy-generated.spec.ts), each on the smallest
 * resource that showed it: each imports with no error, noting its normalization, and exports back
 * as its input normalized.
 */
describe("every documented normalization holds wherever its field is", () => {
  const HCM_URL =
    "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";
  const cases: readonly { rule: string; resources: readonly object[]; notes: readonly string[] }[] =
    [
      {
        rule: "a listener's default_filter_chain gets its HTTP connection manager's normalizations (5: the filter's name, 2: RDS over ADS, 6: the router)",
        resources: [
          {
            "@type": TypeUrl.Listener,
            name: "l0",
            address: { socketAddress: { address: "10.0.0.1", portValue: 8080 } },
            defaultFilterChain: {
              filters: [
                {
                  name: "hcm",
                  typedConfig: {
                    "@type": HCM_URL,
                    statPrefix: "edge",
                    rds: {
                      routeConfigName: "r0",
                      configSource: { pathConfigSource: { path: "/r" } },
                    },
                  },
                },
              ],
            },
          },
        ],
        notes: [
          "[0].defaultFilterChain.filters[0].name: the HTTP connection manager filter is named envoy.filters.network.http_connection_manager",
          "[0].defaultFilterChain.filters[0].typedConfig.rds.configSource: Switchyard serves this route configuration: config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
          "[0].defaultFilterChain.filters[0].typedConfig.httpFilters: no router filter: envoy.filters.http.router is appended",
        ],
      },
      {
        rule: "an HTTP connection manager written as a TypedStruct is read as the message it names (13), and is the chain's modelled part",
        resources: [
          {
            "@type": TypeUrl.Listener,
            name: "l0",
            address: { socketAddress: { address: "10.0.0.1", portValue: 8080 } },
            filterChains: [
              {
                filters: [
                  {
                    name: "envoy.filters.network.http_connection_manager",
                    typedConfig: {
                      "@type": "type.googleapis.com/xds.type.v3.TypedStruct",
                      typeUrl: HCM_URL,
                      value: {
                        stat_prefix: "edge",
                        rds: { route_config_name: "r0", config_source: { ads: {} } },
                      },
                    },
                  },
                ],
              },
            ],
          },
        ],
        notes: [
          "[0].filterChains[0].filters[0].typedConfig: the HTTP connection manager written as a TypedStruct is read as the message it names, as Envoy converts it",
          "[0].filterChains[0].filters[0].typedConfig.rds.configSource: Switchyard serves this route configuration: config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
          "[0].filterChains[0].filters[0].typedConfig.httpFilters: no router filter: envoy.filters.http.router is appended",
        ],
      },
      {
        rule: "eds_cluster_config on a cluster of another type, which Envoy ignores, is kept as written",
        resources: [
          {
            "@type": TypeUrl.Cluster,
            name: "c0",
            type: "STATIC",
            connectTimeout: "1s",
            edsClusterConfig: { serviceName: "ignored" },
            loadAssignment: { clusterName: "c0" },
          },
        ],
        notes: [],
      },
      {
        rule: "a chain loading over RDS a route configuration with on-demand virtual hosts gets the on_demand filter before its router (6), as the compiler gives it",
        resources: [
          {
            "@type": TypeUrl.Listener,
            name: "l0",
            address: { socketAddress: { address: "10.0.0.1", portValue: 8080 } },
            filterChains: [
              {
                filters: [
                  {
                    name: "envoy.filters.network.http_connection_manager",
                    typedConfig: {
                      "@type": HCM_URL,
                      statPrefix: "edge",
                      rds: {
                        routeConfigName: "r0",
                        configSource: { ads: {}, resourceApiVersion: "V3" },
                      },
                      httpFilters: [
                        {
                          name: "envoy.filters.http.router",
                          typedConfig: {
                            "@type":
                              "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
                          },
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          },
          {
            "@type": TypeUrl.RouteConfiguration,
            name: "r0",
            vhds: { configSource: { ads: {}, resourceApiVersion: "V3" } },
          },
        ],
        notes: [
          '[0].filterChains[0].filters[0].typedConfig.httpFilters: route configuration "r0" has on-demand virtual hosts: envoy.filters.http.on_demand is added before the router (Envoy asks for a virtual host only through it)',
        ],
      },
      {
        rule: "an ORIGINAL_DST or extension cluster's inline assignment gets `locality: {}` (4), as a STATIC one's does",
        resources: [
          {
            "@type": TypeUrl.Cluster,
            name: "c0",
            connectTimeout: "1s",
            clusterType: {
              name: "envoy.clusters.aggregate",
              typedConfig: {
                "@type": "type.googleapis.com/envoy.extensions.clusters.aggregate.v3.ClusterConfig",
                clusters: ["c1"],
              },
            },
            loadAssignment: {
              clusterName: "c0",
              endpoints: [{ lbEndpoints: [{ endpoint: { address: { pipe: { path: "/s" } } } }] }],
            },
          },
        ],
        notes: [
          "[0].loadAssignment.endpoints: a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
        ],
      },
      {
        rule: "an ORIGINAL_DST or extension cluster keeps an inline assignment named otherwise, with no endpoints",
        resources: [
          {
            "@type": TypeUrl.Cluster,
            name: "c0",
            type: "ORIGINAL_DST",
            connectTimeout: "1s",
            lbPolicy: "CLUSTER_PROVIDED",
            loadAssignment: { clusterName: "c2" },
          },
        ],
        notes: [],
      },
      {
        rule: "an ORIGINAL_DST or extension cluster's assignment of no endpoints under its own name is left out (3)",
        resources: [
          {
            "@type": TypeUrl.Cluster,
            name: "c0",
            type: "ORIGINAL_DST",
            connectTimeout: "1s",
            lbPolicy: "CLUSTER_PROVIDED",
            loadAssignment: { clusterName: "c0" },
          },
        ],
        notes: [
          "[0].loadAssignment: the load_assignment has no endpoints and names the cluster itself: it is left out, as the cluster finds its hosts itself",
        ],
      },
      {
        rule: "on-demand virtual hosts are served over ADS (2): vhds.config_source becomes ADS",
        resources: [
          {
            "@type": TypeUrl.RouteConfiguration,
            name: "r0",
            vhds: { configSource: { initialFetchTimeout: "43s", ads: {} } },
          },
        ],
        notes: [
          "[0].vhds.configSource: Switchyard serves these virtual hosts: vhds.config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
        ],
      },
      {
        rule: "a Runtime without layer gets an empty one (9)",
        resources: [{ "@type": TypeUrl.Runtime, name: "rt0" }],
        notes: ["[0].layer: no layer: stored as an empty one"],
      },
    ];
  for (const { rule, resources, notes } of cases) {
    it(rule, () => {
      const input = decoded(JSON.stringify(resources), "case.json");
      const { issues } = imported(input);
      expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual(notes);
      expectExportsAsNormalized(input, specOf(input));
    });
  }
});
