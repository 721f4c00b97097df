/**
 * The corpus of route-tester-clients.e2e.spec.ts: route tables and RPCs within what gRPC supports
 * (gRFC A28), generated with fast-check, and one table as the route tester reads it (a
 * ConfigSpec) and as the API stores it (a RouteConfiguration message).
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { RouteActionKind, RouteMatchKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ConfigSpec, RouteSpec } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  endpointSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import { ECHO_METHOD } from "@switchyard/testing";
import fc from "fast-check";
import { routeConfiguration, type VirtualHostInit } from "../src/testing/api-objects.js";

// ---------------------------------------------------------------------------------------------
// The corpus: route tables and RPCs within what gRPC supports (gRFC A28, "Response validation").

/** The clusters generated routes send to, one backend each; `cs` only takes sentinel RPCs. */
export const CLUSTERS = ["c0", "c1", "c2", "c3"] as const;
export const SENTINEL_CLUSTER = "cs";
export const TABLE_HEADER = "x-table";

/** The methods RPCs call: two services, two methods, and case variants of them. */
export const METHODS = ["/a.S/M1", "/a.S/M2", "/b.S/M1", "/b.S/M2", "/A.s/m1", "/B.S/m2"] as const;

/** The two metadata keys header matchers read (and content-type, which gRPC fixes). */
export const KEYS = ["x-k1", "x-k2"] as const;
export const VALUES = ["v1", "v2", "V1", "10", "25", "vx"] as const;

/**
 * Domains a virtual host may hold. A proxyless client matches them against its dial target
 * "shop" (gRFC A28). Envoy's rules (route_components.proto, VirtualHost.domains): exact first,
 * then suffix wildcards longest first, then prefix wildcards longest first, then "*"; a wildcard
 * matches at least one character; matching ignores case.
 */
export const DOMAINS_MATCHING_SHOP = ["shop", "*op", "*hop", "sh*", "s*", "*"] as const;
export const DOMAINS_NOT_MATCHING_SHOP = ["*.example.com", "shop.*", "other"] as const;

export type PathKind = "PREFIX" | "PATH" | "SAFE_REGEX";

/**
 * Path rules (route_components.proto, RouteMatch): `prefix` the path's start, `path` all of it,
 * `safe_regex` all of it (RE2, the whole path must match); `case_sensitive` applies to prefix and
 * path, never to regexes.
 */
export const PATH_VALUES: Readonly<Record<PathKind, readonly string[]>> = {
  PREFIX: ["", "/", "/a", "/a.S/", "/A.S/", "/b.S/M", "/a.s/m1", "/b"],
  PATH: ["/a.S/M1", "/a.s/m1", "/b.S/M2", "/B.S/M2", "/a.S/M"],
  SAFE_REGEX: ["/a\\.S/M[12]", "/[ab]\\.S/M1", ".*M2", "/b.*", "/[aA]\\.[sS]/.*", ".*"],
};

export interface GeneratedRoute {
  readonly kind: PathKind;
  readonly value: string;
  readonly caseSensitive: boolean;
  /** envoy.config.route.v3.HeaderMatcher, proto3 JSON. */
  readonly headers: readonly JsonObject[];
  /**
   * runtime_fraction.default_value as a percentage: the route matches when a random number
   * modulo the denominator is below the numerator (route_components.proto, RouteMatch
   * runtime_fraction), so 0 never and 100 always; gRPC reads only the default (gRFC A28).
   */
  readonly percent: 0 | 100 | undefined;
  /** One cluster, or a split as [cluster, weight] (weights add up to 100). */
  readonly target: string | readonly (readonly [string, number])[];
}

export interface GeneratedVirtualHost {
  readonly domains: readonly string[];
  readonly routes: readonly GeneratedRoute[];
}

export type Table = readonly GeneratedVirtualHost[];

export interface Rpc {
  readonly method: string;
  readonly metadata: Readonly<Record<string, string>>;
}

/**
 * Header matchers gRPC supports (gRFC A28): exact, safe_regex, range, present, prefix, suffix,
 * each maybe inverted (route_components.proto, HeaderMatcher). `string_match` is left out:
 * gRPC C-core 1.51 NACKs it. content-type is always "application/grpc" to gRPC (gRFC A28).
 */
export const headerMatcher: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...KEYS) },
      { weight: 1, arbitrary: fc.constant("content-type") },
    ),
    fc.oneof(
      fc.constantFrom("v1", "v2", "10", "application/grpc").map((v) => ({ exactMatch: v })),
      fc
        .constantFrom("v[12]", "[0-9]+", "application/.*")
        .map((regex) => ({ safeRegexMatch: { regex } })),
      fc
        .constantFrom(["5", "20"], ["20", "30"], ["-5", "11"])
        .map(([start, end]) => ({ rangeMatch: { start, end } })),
      fc.boolean().map((present) => ({ presentMatch: present })),
      fc.constantFrom("v", "1", "application/grpc").map((v) => ({ prefixMatch: v })),
      fc.constantFrom("1", "0", "grpc").map((v) => ({ suffixMatch: v })),
    ),
    fc.boolean(),
  )
  .map(([name, rule, invert]) => ({ name, ...rule, ...(invert ? { invertMatch: true } : {}) }));

/** Weights of a split of 2 or 3 clusters, adding up to 100 (gRPC C-core checks the sum). */
export const SPLITS: Readonly<Record<2 | 3, readonly (readonly number[])[]>> = {
  2: [
    [100, 0],
    [0, 100],
    [50, 50],
  ],
  3: [
    [0, 0, 100],
    [30, 30, 40],
  ],
};

export const target: fc.Arbitrary<GeneratedRoute["target"]> = fc.oneof(
  fc.constantFrom(...CLUSTERS),
  fc
    .shuffledSubarray([...CLUSTERS], { minLength: 2, maxLength: 3 })
    .chain((clusters) =>
      fc
        .constantFrom(...SPLITS[clusters.length as 2 | 3])
        .map((weights) => clusters.map((c, i) => [c, weights[i] ?? 0] as const)),
    ),
);

export const route: fc.Arbitrary<GeneratedRoute> = fc
  .constantFrom<PathKind>("PREFIX", "PATH", "SAFE_REGEX")
  .chain((kind) =>
    fc.record({
      kind: fc.constant(kind),
      value: fc.constantFrom(...PATH_VALUES[kind]),
      caseSensitive: fc.boolean(),
      headers: fc.array(headerMatcher, { maxLength: 2 }),
      percent: fc.option(fc.constantFrom<0 | 100>(0, 100), { nil: undefined, freq: 5 }),
      target,
    }),
  );

/**
 * 1–3 virtual hosts whose domains are distinct (Envoy refuses a domain held twice), at least one
 * of them matching "shop" (a table with none is its own case below).
 */
export const table: fc.Arbitrary<Table> = fc
  .array(
    fc.record({
      domains: fc.subarray([...DOMAINS_MATCHING_SHOP, ...DOMAINS_NOT_MATCHING_SHOP], {
        minLength: 1,
        maxLength: 3,
      }),
      routes: fc.array(route, { minLength: 1, maxLength: 4 }),
    }),
    { minLength: 1, maxLength: 3 },
  )
  .map((hosts) => {
    const seen = new Set<string>();
    return hosts
      .map((host) => ({
        ...host,
        domains: host.domains.filter((d) => !seen.has(d) && seen.add(d)),
      }))
      .filter((host) => host.domains.length > 0);
  })
  .filter((hosts) =>
    hosts.some((h) =>
      h.domains.some((d) => (DOMAINS_MATCHING_SHOP as readonly string[]).includes(d)),
    ),
  );

export const rpc: fc.Arbitrary<Rpc> = fc.record({
  method: fc.constantFrom(...METHODS),
  metadata: fc
    .tuple(...KEYS.map(() => fc.option(fc.constantFrom(...VALUES), { nil: undefined })))
    .map((values) =>
      Object.fromEntries(
        KEYS.flatMap((key, i) => (values[i] === undefined ? [] : [[key, values[i]]])),
      ),
    ),
});

/**
 * The corpus's size per client: tables published, and RPCs sent through each (300 comparisons a
 * run; each run draws a new seed, so CI covers new tables every time).
 */
export const TABLES = 25;
export const RPCS_PER_TABLE = 12;

// ---------------------------------------------------------------------------------------------
// One table, as the tester reads it (a ConfigSpec) and as the API stores it.

export const sentinelRoute = (table: number): RouteSpec =>
  routeSpec(SENTINEL_CLUSTER, {
    matchKind: "PATH",
    matchValue: ECHO_METHOD,
    caseSensitive: true,
    headers: [{ name: TABLE_HEADER, exactMatch: String(table) }],
  });

export function routeSpecOf(generated: GeneratedRoute): RouteSpec {
  const split = typeof generated.target === "string" ? undefined : generated.target;
  return routeSpec(typeof generated.target === "string" ? generated.target : "", {
    matchKind: generated.kind,
    matchValue: generated.value,
    caseSensitive: generated.caseSensitive,
    headers: [...generated.headers],
    ...(split
      ? {
          actionKind: "WEIGHTED_CLUSTERS",
          cluster: null,
          weightedClusters: split.map(([name, weight]) => ({ name, weight })),
        }
      : {}),
    ...(generated.percent === undefined
      ? {}
      : {
          extra: {
            match: {
              runtimeFraction: {
                defaultValue: { numerator: generated.percent, denominator: "HUNDRED" },
              },
            },
          },
        }),
  });
}

/** The shop's configuration holding `table` (number `n`), as the tester is asked about it. */
export function configOf(table: Table, n: number, ports: ReadonlyMap<string, number>): ConfigSpec {
  return configSpec({
    clusters: [...CLUSTERS, SENTINEL_CLUSTER].map((name) =>
      clusterSpec(name, [endpointSpec("127.0.0.1", ports.get(name) ?? 0)], { http2: true }),
    ),
    routeConfigurations: [
      routeConfigurationSpec("shop-routes", SENTINEL_CLUSTER, {
        virtualHosts: table.map((host, i) =>
          virtualHostSpec(`vh${i}`, host.domains, [
            sentinelRoute(n),
            ...host.routes.map(routeSpecOf),
          ]),
        ),
      }),
    ],
    listeners: [apiListenerSpec("shop", "shop-routes")],
  });
}

/** The API's RouteConfiguration `shop-routes` of a spec's route configuration. */
export function routesMessageOf(config: ConfigSpec) {
  const spec = config.routeConfigurations[0];
  if (!spec) throw new Error("the shop's configuration has no route configuration");
  return routeConfiguration(
    spec.name,
    spec.virtualHosts.map(
      (host): VirtualHostInit => ({
        name: host.name,
        domains: [...host.domains],
        routes: host.routes.map((r) => ({
          matchKind: RouteMatchKind[r.matchKind as keyof typeof RouteMatchKind],
          matchValue: r.matchValue,
          caseSensitive: r.caseSensitive,
          headers: r.headers as JsonObject[],
          actionKind: RouteActionKind[r.actionKind as keyof typeof RouteActionKind],
          ...(r.cluster === null ? {} : { cluster: r.cluster }),
          weightedClusters: r.weightedClusters.map((w) => ({ name: w.name, weight: w.weight })),
          ...(Object.keys(r.extra).length > 0 ? { extra: r.extra as JsonObject } : {}),
        })),
      }),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Expectations: the tester's answer, and what a real client should do with it.
