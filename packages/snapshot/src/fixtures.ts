/**
 * Builders of stored specs for tests in every package: defaults that compile, overridden per
 * case. Exposed as `@switchyard/snapshot/fixtures`.
 */
import { createCipheriv, createHmac, hkdfSync } from "node:crypto";
import type {
  ClusterSpec,
  ConfigSpec,
  EndpointSpec,
  FilterChainSpec,
  JsonObject,
  ListenerSpec,
  LocalitySpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  RuntimeValue,
  SecretSpec,
  VirtualHostSpec,
} from "./model.js";
import { secretKeyId } from "./secret-box.js";

export function endpointSpec(
  address: string,
  port: number,
  overrides: Partial<EndpointSpec> = {},
): EndpointSpec {
  return { address, port, weight: null, healthStatus: "UNKNOWN", extra: {}, ...overrides };
}

export function localitySpec(
  endpoints: readonly EndpointSpec[],
  overrides: Partial<LocalitySpec> = {},
): LocalitySpec {
  // Proxyless gRPC clients require a locality weight, so the default sets one.
  return {
    region: "",
    zone: "",
    subZone: "",
    weight: 1,
    priority: 0,
    extra: {},
    endpoints,
    ...overrides,
  };
}

/** An EDS cluster, round robin, with one locality holding `endpoints`. */
export function clusterSpec(
  name: string,
  endpoints: readonly EndpointSpec[] = [],
  overrides: Partial<ClusterSpec> = {},
): ClusterSpec {
  return {
    name,
    discoveryType: "EDS",
    lbPolicy: "ROUND_ROBIN",
    connectTimeoutMs: 1000,
    http2: false,
    reportLoad: false,
    healthChecks: [],
    circuitBreakers: null,
    outlierDetection: null,
    tlsSecretName: null,
    edsServiceName: null,
    extra: {},
    assignmentExtra: {},
    localities: endpoints.length > 0 ? [localitySpec(endpoints)] : [],
    ...overrides,
  };
}

export function routeSpec(cluster: string, overrides: Partial<RouteSpec> = {}): RouteSpec {
  return {
    name: "",
    matchKind: "PREFIX",
    matchValue: "",
    caseSensitive: true,
    headers: [],
    queryParameters: [],
    actionKind: "CLUSTER",
    cluster,
    weightedClusters: [],
    redirect: null,
    directResponse: null,
    timeoutMs: null,
    retryPolicy: null,
    prefixRewrite: null,
    extra: {},
    ...overrides,
  };
}

export function virtualHostSpec(
  name: string,
  domains: readonly string[],
  routes: readonly RouteSpec[],
  overrides: Partial<VirtualHostSpec> = {},
): VirtualHostSpec {
  return { name, domains, extra: {}, routes, ...overrides };
}

/** A route configuration with one virtual host for every domain, routing everything to `cluster`. */
export function routeConfigurationSpec(
  name: string,
  cluster: string,
  overrides: Partial<RouteConfigurationSpec> = {},
): RouteConfigurationSpec {
  return {
    name,
    vhds: false,
    extra: {},
    virtualHosts: [virtualHostSpec(`${name}-vh`, ["*"], [routeSpec(cluster)])],
    ...overrides,
  };
}

export function filterChainSpec(overrides: Partial<FilterChainSpec> = {}): FilterChainSpec {
  return {
    name: "",
    isDefault: false,
    serverNames: [],
    tlsSecretName: null,
    networkFilters: [],
    networkOnly: false,
    statPrefix: "ingress_http",
    rdsRouteConfigName: null,
    inlineRouteConfigName: null,
    httpFilters: [],
    accessLog: [],
    hcmExtra: {},
    extra: {},
    ...overrides,
  };
}

/** An api_listener (what proxyless gRPC clients dial as xds:///NAME) loading `routeConfig` over RDS. */
export function apiListenerSpec(
  name: string,
  routeConfig: string,
  overrides: Partial<ListenerSpec> = {},
): ListenerSpec {
  return {
    name,
    apiListener: true,
    address: null,
    port: null,
    extra: {},
    filterChains: [filterChainSpec({ rdsRouteConfigName: routeConfig })],
    ...overrides,
  };
}

/** A socket listener on `port` loading `routeConfig` over RDS. */
export function socketListenerSpec(
  name: string,
  port: number,
  routeConfig: string,
  overrides: Partial<ListenerSpec> = {},
): ListenerSpec {
  return {
    name,
    apiListener: false,
    address: "0.0.0.0",
    port,
    extra: {},
    filterChains: [filterChainSpec({ rdsRouteConfigName: routeConfig })],
    ...overrides,
  };
}

/**
 * A TCP proxy: a socket listener whose one chain is network filters only, a tcp_proxy with the
 * given TcpProxy fields (`{ statPrefix: "db", cluster: "db" }`).
 */
export function tcpProxyListenerSpec(
  name: string,
  port: number,
  tcpProxy: JsonObject,
): ListenerSpec {
  return socketListenerSpec(name, port, "", {
    filterChains: [
      filterChainSpec({
        networkOnly: true,
        statPrefix: "",
        networkFilters: [
          {
            name: "envoy.filters.network.tcp_proxy",
            typedConfig: {
              "@type": "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
              ...tcpProxy,
            },
          },
        ],
      }),
    ],
  });
}

export function nodeGroupSpec(name: string, overrides: Partial<NodeGroupSpec> = {}): NodeGroupSpec {
  return {
    name,
    isDefault: false,
    priority: 100,
    nodeIds: [],
    nodeClusters: [],
    nodeMetadata: {},
    listeners: [],
    clusters: [],
    ...overrides,
  };
}

/** A runtime layer holding `values` (key → value), entries sorted by key as the API stores them. */
export function runtimeLayerSpec(
  name: string,
  values: { readonly [key: string]: RuntimeValue } = {},
): RuntimeLayerSpec {
  return {
    name,
    entries: Object.entries(values)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value })),
  };
}

/**
 * `plaintext` sealed in the form before sy2 ("sy1.<key id>.<iv>.<tag>.<data>": AES-256-GCM with
 * an HMAC of the plaintext as its IV), as a database written before the change holds it: what
 * tests of opening and sealing again such texts store. Nothing but this seals that form any more
 * (secret-box.ts); secret-box.spec.ts checks it against texts the old code sealed.
 */
export function legacySealed(key: Uint8Array, plaintext: string): string {
  const derive = (info: string) => Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), info, 32));
  const keyId = secretKeyId(key);
  const data = Buffer.from(plaintext, "utf8");
  const iv = createHmac("sha256", derive("switchyard secrets synthetic iv"))
    .update(data)
    .digest()
    .subarray(0, 12);
  const cipher = createCipheriv("aes-256-gcm", derive("switchyard secrets aes-256-gcm"), iv);
  cipher.setAAD(Buffer.from(`sy1.${keyId}`));
  const ciphertext = Buffer.concat([cipher.update(data), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString("base64url"));
  return ["sy1", keyId, ...parts].join(".");
}

/** A TLS certificate secret; `privateKey` is the sealed key (secret-box.ts). */
export function tlsSecretSpec(
  name: string,
  certificateChain: string,
  privateKey: string,
): SecretSpec {
  return {
    name,
    type: "TLS_CERTIFICATE",
    certificateChain,
    privateKey,
    trustedCa: "",
    matchSubjectAltNames: [],
    values: [],
  };
}

/** A validation context secret trusting `trustedCa`. */
export function validationSecretSpec(
  name: string,
  trustedCa: string,
  matchSubjectAltNames: readonly string[] = [],
): SecretSpec {
  return {
    name,
    type: "VALIDATION_CONTEXT",
    certificateChain: "",
    privateKey: null,
    trustedCa,
    matchSubjectAltNames,
    values: [],
  };
}

/**
 * A generic secret (GENERIC_SECRET) or session ticket keys (SESSION_TICKET_KEYS) holding `values`,
 * each already sealed (secret-values.ts sealValue).
 */
export function valueSecretSpec(
  name: string,
  type: "GENERIC_SECRET" | "SESSION_TICKET_KEYS",
  values: readonly string[],
): SecretSpec {
  return {
    name,
    type,
    certificateChain: "",
    privateKey: null,
    trustedCa: "",
    matchSubjectAltNames: [],
    values,
  };
}

export function configSpec(overrides: Partial<ConfigSpec> = {}): ConfigSpec {
  return {
    clusters: [],
    listeners: [],
    routeConfigurations: [],
    nodeGroups: [],
    runtimeLayers: [],
    secrets: [],
    ...overrides,
  };
}

/**
 * The smallest useful proxyless gRPC config: listener `service` (api_listener) → route
 * configuration `service-routes` → EDS cluster `service-backend` with the given endpoints.
 */
export function grpcServiceSpec(service: string, endpoints: readonly EndpointSpec[]): ConfigSpec {
  return configSpec({
    clusters: [clusterSpec(`${service}-backend`, endpoints, { http2: true })],
    routeConfigurations: [routeConfigurationSpec(`${service}-routes`, `${service}-backend`)],
    listeners: [apiListenerSpec(service, `${service}-routes`)],
  });
}

/**
 * A fleet-sized config for benchmarks: `clusters` EDS clusters with 3 endpoints each in 2
 * localities, route configurations of 100 routes each spreading `routes` routes over the clusters
 * (prefix, path, regex and header matches, weighted splits, retries, timeouts), and one socket
 * listener per route configuration.
 */
export function largeConfigSpec(clusters: number, routes: number): ConfigSpec {
  const clusterSpecs = Array.from({ length: clusters }, (_, i) =>
    clusterSpec(`svc-${i}`, [], {
      http2: i % 4 === 0,
      localities: [
        localitySpec(
          [
            endpointSpec(`10.${(i >> 8) & 255}.${i & 255}.1`, 8080),
            endpointSpec(`10.${(i >> 8) & 255}.${i & 255}.2`, 8080),
          ],
          {
            region: "eu-west-1",
            zone: "eu-west-1a",
            weight: 10,
          },
        ),
        localitySpec([endpointSpec(`10.${(i >> 8) & 255}.${i & 255}.3`, 8080)], {
          region: "eu-west-1",
          zone: "eu-west-1b",
          weight: 10,
          priority: 1,
        }),
      ],
    }),
  );
  const perConfig = 100;
  const routeConfigurations = Array.from({ length: Math.ceil(routes / perConfig) }, (_, c) => {
    const count = Math.min(perConfig, routes - c * perConfig);
    const routeList = Array.from({ length: count }, (_, r): RouteSpec => {
      const n = c * perConfig + r;
      const cluster = `svc-${n % Math.max(clusters, 1)}`;
      const kind = n % 4;
      return routeSpec(cluster, {
        name: `route-${n}`,
        matchKind: kind === 2 ? "SAFE_REGEX" : kind === 1 ? "PATH" : "PREFIX",
        matchValue:
          kind === 2
            ? `^/api/v[0-9]+/items-${n}/[a-z]+$`
            : kind === 1
              ? `/exact/${n}`
              : `/api/${n}/`,
        headers:
          kind === 3 ? [{ name: "x-tenant", stringMatch: { exact: `tenant-${n % 50}` } }] : [],
        actionKind: n % 10 === 0 ? "WEIGHTED_CLUSTERS" : "CLUSTER",
        cluster: n % 10 === 0 ? null : cluster,
        weightedClusters:
          n % 10 === 0
            ? [
                { name: cluster, weight: 80 },
                { name: `svc-${(n + 1) % Math.max(clusters, 1)}`, weight: 20 },
              ]
            : [],
        timeoutMs: 15_000,
        retryPolicy: n % 3 === 0 ? { retryOn: "5xx,reset", numRetries: 2 } : null,
        prefixRewrite: kind === 0 ? "/" : null,
      });
    });
    return routeConfigurationSpec(`routes-${c}`, "unused", {
      virtualHosts: [
        virtualHostSpec(`vh-${c}`, [`app-${c}.example.com`, `app-${c}.internal`], routeList),
      ],
    });
  });
  const listeners = routeConfigurations.map((rc, i) =>
    socketListenerSpec(`listener-${i}`, 10_000 + i, rc.name),
  );
  return configSpec({ clusters: clusterSpecs, routeConfigurations, listeners });
}

/**
 * An edge proxy with on-demand virtual hosts (VHDS): listener `edge` on :8080 loads route
 * configuration `edge-routes` over RDS, whose virtual hosts (one cluster each) are requested by
 * host: `shop` (shop.example.com, www.shop.example.com), `wild` (*.example.com), `api` (api.*)
 * and `fallback` (*). `virtualHosts` replaces them.
 */
export function vhdsSpec(
  virtualHosts: readonly VirtualHostSpec[] = [
    virtualHostSpec("shop", ["shop.example.com", "www.shop.example.com"], [routeSpec("shop")]),
    virtualHostSpec("wild", ["*.example.com"], [routeSpec("wild")]),
    virtualHostSpec("api", ["api.*"], [routeSpec("api")]),
    virtualHostSpec("fallback", ["*"], [routeSpec("fallback")]),
  ],
): ConfigSpec {
  const clusters = [
    ...new Set(virtualHosts.flatMap((vh) => vh.routes.map((route) => route.cluster ?? ""))),
  ]
    .filter((name) => name !== "")
    .sort()
    .map((name) => clusterSpec(name, [endpointSpec("10.0.0.1", 8080)]));
  return configSpec({
    clusters,
    routeConfigurations: [
      routeConfigurationSpec("edge-routes", "unused", {
        vhds: true,
        virtualHosts: [...virtualHosts],
      }),
    ],
    listeners: [socketListenerSpec("edge", 8080, "edge-routes")],
  });
}
