import {
  type DescMessage,
  fromJson,
  type JsonObject,
  type JsonValue,
  ScalarType,
} from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { describe, expect, it } from "vitest";
import { findReferences, REFERENCE_ROWS } from "./envoy-references.js";

const TYPE = "type.googleapis.com/";
const HCM = `${TYPE}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const TCP_PROXY = `${TYPE}envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy`;
const ADS = { ads: {}, resourceApiVersion: "V3" };
const LISTENER = "envoy.config.listener.v3.Listener";
const CLUSTER = "envoy.config.cluster.v3.Cluster";
const ROUTE_CONFIGURATION = "envoy.config.route.v3.RouteConfiguration";

function schema(typeName: string): DescMessage {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`${typeName} is not in the registry`);
  return desc;
}

/** The references in `json` read as `type`, as "kind name at" lines. */
function referencesIn(type: string, json: JsonValue): string[] {
  const desc = schema(type);
  return findReferences(desc, fromJson(desc, json, { registry })).map(
    ({ kind, name, at }) => `${kind} ${name} ${at.join(".")}`,
  );
}

/** A listener on 443 whose one network filter has `typedConfig`. */
function listenerWith(typedConfig: JsonObject): JsonObject {
  return {
    name: "edge",
    address: { socketAddress: { address: "0.0.0.0", portValue: 443 } },
    filterChains: [{ filters: [{ name: "filter", typedConfig }] }],
  };
}

const FILTER = "filterChains.0.filters.0.typedConfig";

/** An HTTP connection manager over RDS `api-routes` with `httpFilters` before the router. */
function hcmWith(fields: JsonObject, httpFilters: JsonObject[] = []): JsonObject {
  return listenerWith({
    "@type": HCM,
    statPrefix: "edge",
    rds: { routeConfigName: "api-routes", configSource: ADS },
    httpFilters: [
      ...httpFilters,
      {
        name: "envoy.filters.http.router",
        typedConfig: { "@type": `${TYPE}envoy.extensions.filters.http.router.v3.Router` },
      },
    ],
    ...fields,
  });
}

const RDS = `routeConfiguration api-routes ${FILTER}.rds.routeConfigName`;

/** A TLS transport socket whose certificate comes by SDS from `sdsConfig` (omitted if undefined). */
function tlsListener(sdsConfig: JsonObject | undefined): JsonObject {
  return {
    ...listenerWith({ "@type": TCP_PROXY, statPrefix: "tls", cluster: "backend" }),
    filterChains: [
      {
        filters: [
          {
            name: "tcp",
            typedConfig: { "@type": TCP_PROXY, statPrefix: "tls", cluster: "backend" },
          },
        ],
        transportSocket: {
          name: "envoy.transport_sockets.tls",
          typedConfig: {
            "@type": `${TYPE}envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext`,
            commonTlsContext: {
              tlsCertificateSdsSecretConfigs: [
                sdsConfig === undefined ? { name: "edge-cert" } : { name: "edge-cert", sdsConfig },
              ],
            },
          },
        },
      },
    ],
  };
}

const TLS_CERT =
  "filterChains.0.transportSocket.typedConfig.commonTlsContext.tlsCertificateSdsSecretConfigs.0.name";
const BACKEND = `cluster backend ${FILTER}.cluster`;

interface Case {
  readonly rule: string;
  readonly type: string;
  readonly json: JsonValue;
  /** "kind name path" lines, in walk order. */
  readonly expected: readonly string[];
}

const CASES: readonly Case[] = [
  {
    rule: "a tcp_proxy's cluster, inside a listener's typed_config",
    type: LISTENER,
    json: listenerWith({ "@type": TCP_PROXY, statPrefix: "db", cluster: "db" }),
    expected: [`cluster db ${FILTER}.cluster`],
  },
  {
    rule: "a tcp_proxy's weighted clusters",
    type: LISTENER,
    json: listenerWith({
      "@type": TCP_PROXY,
      statPrefix: "db",
      weightedClusters: {
        clusters: [
          { name: "db-a", weight: 1 },
          { name: "db-b", weight: 3 },
        ],
      },
    }),
    expected: [
      `cluster db-a ${FILTER}.weightedClusters.clusters.0.name`,
      `cluster db-b ${FILTER}.weightedClusters.clusters.1.name`,
    ],
  },
  {
    rule: "a tcp_proxy given as a TypedStruct refers to its cluster under value",
    type: LISTENER,
    json: listenerWith({
      "@type": `${TYPE}xds.type.v3.TypedStruct`,
      typeUrl: TCP_PROXY,
      value: { stat_prefix: "db", cluster: "db" },
    }),
    expected: [`cluster db ${FILTER}.value.cluster`],
  },
  {
    rule: "an ext_authz filter's gRPC service cluster, and the HCM's RDS name over ADS",
    type: LISTENER,
    json: hcmWith({}, [
      {
        name: "envoy.filters.http.ext_authz",
        typedConfig: {
          "@type": `${TYPE}envoy.extensions.filters.http.ext_authz.v3.ExtAuthz`,
          transportApiVersion: "V3",
          grpcService: { envoyGrpc: { clusterName: "authz" } },
        },
      },
    ]),
    expected: [
      RDS,
      `cluster authz ${FILTER}.httpFilters.0.typedConfig.grpcService.envoyGrpc.clusterName`,
    ],
  },
  {
    rule: "an RDS name fetched from another server is no reference",
    type: LISTENER,
    json: hcmWith({
      rds: {
        routeConfigName: "elsewhere",
        configSource: {
          apiConfigSource: {
            apiType: "GRPC",
            transportApiVersion: "V3",
            grpcServices: [{ envoyGrpc: { clusterName: "other-xds" } }],
          },
        },
      },
    }),
    expected: [
      `cluster other-xds ${FILTER}.rds.configSource.apiConfigSource.grpcServices.0.envoyGrpc.clusterName`,
    ],
  },
  {
    rule: "a Zipkin tracer's collector_cluster",
    type: LISTENER,
    json: hcmWith({
      tracing: {
        provider: {
          name: "envoy.tracers.zipkin",
          typedConfig: {
            "@type": `${TYPE}envoy.config.trace.v3.ZipkinConfig`,
            collectorCluster: "zipkin",
            collectorEndpoint: "/api/v2/spans",
            collectorEndpointVersion: "HTTP_JSON",
          },
        },
      },
    }),
    expected: [RDS, `cluster zipkin ${FILTER}.tracing.provider.typedConfig.collectorCluster`],
  },
  {
    rule: "a JWT provider's JWKS http_uri cluster, under the provider's map key",
    type: LISTENER,
    json: hcmWith({}, [
      {
        name: "envoy.filters.http.jwt_authn",
        typedConfig: {
          "@type": `${TYPE}envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication`,
          providers: {
            idp: {
              issuer: "https://idp.example.com",
              remoteJwks: {
                httpUri: { uri: "https://idp.example.com/jwks", cluster: "idp", timeout: "1s" },
              },
            },
          },
        },
      },
    ]),
    expected: [
      RDS,
      `cluster idp ${FILTER}.httpFilters.0.typedConfig.providers.idp.remoteJwks.httpUri.cluster`,
    ],
  },
  {
    rule: "a route's cluster and its request mirror policies' clusters; a header-named mirror is none",
    type: ROUTE_CONFIGURATION,
    json: {
      name: "api-routes",
      virtualHosts: [
        {
          name: "api",
          domains: ["*"],
          routes: [
            {
              match: { prefix: "/" },
              route: {
                cluster: "api",
                requestMirrorPolicies: [
                  { cluster: "api-shadow" },
                  { clusterHeader: "x-mirror-to" },
                ],
              },
            },
          ],
        },
      ],
    },
    expected: [
      "cluster api virtualHosts.0.routes.0.route.cluster",
      "cluster api-shadow virtualHosts.0.routes.0.route.requestMirrorPolicies.0.cluster",
    ],
  },
  {
    rule: "a route's weighted clusters",
    type: ROUTE_CONFIGURATION,
    json: {
      name: "r",
      virtualHosts: [
        {
          name: "v",
          domains: ["*"],
          routes: [
            {
              match: { prefix: "/" },
              route: {
                weightedClusters: {
                  clusters: [
                    { name: "v1", weight: 9 },
                    { name: "v2", weight: 1 },
                  ],
                },
              },
            },
          ],
        },
      ],
    },
    expected: [
      "cluster v1 virtualHosts.0.routes.0.route.weightedClusters.clusters.0.name",
      "cluster v2 virtualHosts.0.routes.0.route.weightedClusters.clusters.1.name",
    ],
  },
  {
    rule: "an aggregate cluster's member clusters",
    type: CLUSTER,
    json: {
      name: "aggregate",
      connectTimeout: "1s",
      lbPolicy: "CLUSTER_PROVIDED",
      clusterType: {
        name: "envoy.clusters.aggregate",
        typedConfig: {
          "@type": `${TYPE}envoy.extensions.clusters.aggregate.v3.ClusterConfig`,
          clusters: ["primary", "fallback"],
        },
      },
    },
    expected: [
      "cluster primary clusterType.typedConfig.clusters.0",
      "cluster fallback clusterType.typedConfig.clusters.1",
    ],
  },
  {
    rule: "an SDS secret fetched over ADS is a reference",
    type: LISTENER,
    json: tlsListener(ADS),
    expected: [BACKEND, `secret edge-cert ${TLS_CERT}`],
  },
  {
    rule: "an SDS secret without sds_config (PGV allows it) is a reference",
    type: LISTENER,
    json: tlsListener(undefined),
    expected: [BACKEND, `secret edge-cert ${TLS_CERT}`],
  },
  {
    rule: "an SDS secret read from a path_config_source is no reference",
    type: LISTENER,
    json: tlsListener({ pathConfigSource: { path: "/etc/envoy/sds/edge-cert.yaml" } }),
    expected: [BACKEND],
  },
  {
    rule: "a Redis proxy's prefix routes, catch-all route and mirror clusters",
    type: LISTENER,
    json: listenerWith({
      "@type": `${TYPE}envoy.extensions.filters.network.redis_proxy.v3.RedisProxy`,
      statPrefix: "redis",
      settings: { opTimeout: "1s" },
      prefixRoutes: {
        routes: [
          {
            prefix: "session:",
            cluster: "redis-sessions",
            requestMirrorPolicy: [{ cluster: "redis-shadow" }],
          },
        ],
        catchAllRoute: { cluster: "redis-main" },
      },
    }),
    expected: [
      `cluster redis-sessions ${FILTER}.prefixRoutes.routes.0.cluster`,
      `cluster redis-shadow ${FILTER}.prefixRoutes.routes.0.requestMirrorPolicy.0.cluster`,
      `cluster redis-main ${FILTER}.prefixRoutes.catchAllRoute.cluster`,
    ],
  },
  {
    rule: "a UDP proxy's matcher action route cluster",
    type: LISTENER,
    json: {
      name: "dns",
      address: { socketAddress: { protocol: "UDP", address: "0.0.0.0", portValue: 53 } },
      listenerFilters: [
        {
          name: "envoy.filters.udp_listener.udp_proxy",
          typedConfig: {
            "@type": `${TYPE}envoy.extensions.filters.udp.udp_proxy.v3.UdpProxyConfig`,
            statPrefix: "dns",
            matcher: {
              onNoMatch: {
                action: {
                  name: "route",
                  typedConfig: {
                    "@type": `${TYPE}envoy.extensions.filters.udp.udp_proxy.v3.Route`,
                    cluster: "dns-upstream",
                  },
                },
              },
            },
          },
        },
      ],
    },
    expected: [
      "cluster dns-upstream listenerFilters.0.typedConfig.matcher.onNoMatch.action.typedConfig.cluster",
    ],
  },
];

describe("findReferences", () => {
  it.each(CASES)("$rule", ({ type, json, expected }) => {
    expect(referencesIn(type, json)).toEqual(expected);
  });

  it("finds nothing in an extension of a type the registry lacks", () => {
    const json = listenerWith({
      "@type": `${TYPE}xds.type.v3.TypedStruct`,
      typeUrl: `${TYPE}envoy.extensions.filters.network.kafka_broker.v3.KafkaBroker`,
      value: { stat_prefix: "kafka", cluster: "kafka" },
    });
    expect(referencesIn(LISTENER, json)).toEqual([]);
  });

  it.each(REFERENCE_ROWS.map((row) => [`${row.type}.${row.field}`, row] as const))(
    "the table's row %s names a string field the registry knows",
    (_name, row) => {
      const field = schema(row.type).fields.find((f) => f.name === row.field);
      expect(field?.fieldKind === "list" ? field.scalar : field?.scalar).toBe(ScalarType.STRING);
    },
  );
});
