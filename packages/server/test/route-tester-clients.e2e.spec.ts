/**
 * The route tester (`routeRequest`, @switchyard/snapshot) against the two real proxyless gRPC
 * clients (issue 28 point 3): for generated route tables within what gRPC supports (gRFC A28,
 * https://github.com/grpc/proposal/blob/master/A28-xds-traffic-splitting-and-routing.md) and
 * generated RPCs, the cluster the tester answers is the backend the real client reaches, and "no
 * route" is an RPC that fails UNAVAILABLE.
 *
 * How a case runs: the table is published as route configuration `shop-routes` of listener
 * `shop` (an api_listener); the tester is asked the same question on the same configuration,
 * built with @switchyard/snapshot's fixtures: listener "shop", host "shop" (a proxyless client
 * matches virtual hosts against its dial target, gRFC A28), path "/service/method", the RPC's
 * metadata as request headers beside `content-type: application/grpc`. Each virtual host starts
 * with a sentinel route (this table's number in header `x-table` → cluster `cs`, which no
 * generated route uses): once an RPC carrying it reaches `cs`, the client routes by this table.
 *
 * Where a client departs from Envoy's documented rules (or gRFC A28), its row in REAL_CLIENTS
 * says so (`routingDeviations`, clients.ts) and the expectation for that client is the tester's
 * answer on the table as that client reads it (`asReadBy`): the case stays in the corpus. Each
 * deviation is also pinned both ways on a small table of its own (the cases after the property):
 * a client declaring it must differ from Envoy there, a client not declaring it must not.
 *
 * A failure prints fast-check's seed, path and counterexample (the table and the requests): pass
 * `{ seed, path }` to `fc.assert` to replay that case. Shrinking is off (`endOnFailure`): each
 * step is a publish and real RPCs.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { type ConfigSpec, type RouteAnswer, routeRequest } from "@switchyard/snapshot";
import {
  ECHO_METHOD,
  type EchoBackend,
  startEchoBackend,
  type XdsEchoClient,
} from "@switchyard/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REAL_CLIENTS, type RoutingDeviation } from "../src/testing/clients.js";
import { type Harness, startHarness } from "../src/testing/harness.js";
import { shopCluster, shopListener } from "../src/testing/shop.js";
import {
  CLUSTERS,
  configOf,
  type GeneratedRoute,
  METHODS,
  RPCS_PER_TABLE,
  type Rpc,
  routesMessageOf,
  rpc,
  SENTINEL_CLUSTER,
  TABLE_HEADER,
  TABLES,
  type Table,
  table,
} from "./route-corpus.js";

/** What a real client should do with an RPC: reach one of these clusters, or fail with `code`. */
type Expected =
  | { readonly t: "backend"; readonly clusters: readonly string[] }
  | { readonly t: "failed"; readonly code: number };

const UNAVAILABLE = 14;
const INTERNAL = 13;
const DEADLINE_EXCEEDED = 4;

/** The RPC as the router of a proxyless client sees it (gRFC A28: host, path, metadata). */
function ask(config: ConfigSpec, call: Rpc): RouteAnswer {
  return routeRequest(config, {
    listener: "shop",
    authority: "shop",
    path: call.method,
    method: "POST",
    headers: [
      ["content-type", "application/grpc"],
      ["te", "trailers"],
      ...Object.entries(call.metadata),
    ],
  });
}

/** What a client with `deviations` does where the tester answers `answer`. */
function expectedOf(answer: RouteAnswer, deviations: readonly RoutingDeviation[]): Expected {
  if (answer.t === "refused") {
    throw new Error(`the tester refused: ${answer.path}: ${answer.message}`);
  }
  const verdict = answer.verdict;
  // No virtual host (Envoy's 404) or no route (route_components.proto, VirtualHost.routes: "The
  // first route that matches will be used"; none does): gRFC A28, "If no match can be found, the
  // RPC will fail with code UNAVAILABLE".
  if (verdict.t === "no-virtual-host" || verdict.t === "no-route") {
    return {
      t: "failed",
      code: deviations.includes("no-route-fails-internal") ? INTERNAL : UNAVAILABLE,
    };
  }
  if (verdict.t !== "routed") {
    throw new Error(`the tester could not decide: ${JSON.stringify(verdict)}`);
  }
  const outcome = verdict.outcome;
  // RouteAction.cluster (route_components.proto): the request goes to that cluster.
  if (outcome.t === "cluster") return { t: "backend", clusters: [outcome.cluster] };
  // RouteAction.weighted_clusters: a random pick weighted by each entry's weight, so the backend
  // is one of the entries whose weight is above 0 (gRPC picks at random too, gRFC A28).
  if (outcome.t === "weighted-clusters") {
    return {
      t: "backend",
      clusters: outcome.clusters.filter((c) => c.weight > 0).map((c) => c.name),
    };
  }
  throw new Error(`an outcome gRPC cannot have: ${outcome.t}`);
}

/**
 * The table as a client with `deviations` reads it, in Envoy's terms: the tester's answer on it
 * is what that client does. Each rewrite is the deviation's documented effect (clients.ts).
 */
function asReadBy(config: ConfigSpec, deviations: readonly RoutingDeviation[]): ConfigSpec {
  if (deviations.length === 0) return config;
  const header = (matcher: JsonObject): JsonObject => {
    let read = matcher;
    // "present_match: false matches an absent header" (route_components.proto, HeaderMatcher);
    // the client checks presence whatever the value.
    if (deviations.includes("present-match-false-as-true") && read.presentMatch === false) {
      read = { ...read, presentMatch: true };
    }
    // The client fails a matcher on an absent header before inverting it, so an inverted
    // matcher takes an absent header; Envoy's equivalent is treat_missing_header_as_empty
    // (every generated value matcher fails on ""). Envoy already matches an absent header with
    // an inverted present_match: true.
    if (
      deviations.includes("invert-matches-absent-header") &&
      read.invertMatch === true &&
      read.presentMatch === undefined
    ) {
      read = { ...read, treatMissingHeaderAsEmpty: true };
    }
    return read;
  };
  return {
    ...config,
    routeConfigurations: config.routeConfigurations.map((rc) => ({
      ...rc,
      virtualHosts: rc.virtualHosts.map((host) => ({
        ...host,
        routes: host.routes.map((r) => ({
          ...r,
          headers: r.headers.map((m) => header(m as JsonObject)),
        })),
      })),
    })),
  };
}

type Observed =
  | { readonly t: "backend"; readonly name: string }
  | { readonly t: "failed"; readonly code: number; readonly message: string };

/** What the real client did within `deadlineMs`: the backend's name, or the status it failed with. */
async function observeWithin(
  client: XdsEchoClient,
  call: Rpc,
  deadlineMs: number,
): Promise<Observed> {
  try {
    return { t: "backend", name: await client.call(deadlineMs, call) };
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    return { t: "failed", code: code ?? -1, message: message ?? String(error) };
  }
}

/** As observeWithin, with a deadline long enough for a new cluster's first connection. */
const observe = (client: XdsEchoClient, call: Rpc) => observeWithin(client, call, 5000);

/** What an Observed must match for `expected` (a deterministic one: a single cluster or a code). */
function shapeOf(expected: Expected): Partial<Observed> {
  if (expected.t === "failed") return { t: "failed", code: expected.code };
  const [cluster, ...others] = expected.clusters;
  if (cluster === undefined || others.length > 0) {
    throw new Error(`not one cluster: ${expected.clusters.join(", ")}`);
  }
  return { t: "backend", name: cluster };
}

/** Sends the sentinel RPC of table `n` until it reaches `cs`: the client routes by that table. */
async function untilClientHasTable(client: XdsEchoClient, n: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    const seen = await observe(client, {
      method: ECHO_METHOD,
      metadata: { [TABLE_HEADER]: String(n) },
    });
    if (seen.t === "backend" && seen.name === SENTINEL_CLUSTER) return;
    last = seen.t === "backend" ? seen.name : seen.message;
    if (Date.now() > deadline) {
      throw new Error(`the client never routed by table ${n} (last answer: ${last})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(REAL_CLIENTS)(
  "the route tester answers as a real proxyless gRPC client routes (%s)",
  (name, real) => {
    let harness: Harness;
    let client: XdsEchoClient;
    const backends: EchoBackend[] = [];
    const ports = new Map<string, number>();
    let tables = 0;

    /** Publishes `table` as the next table and waits until the client routes by it. */
    const publish = async (config: ConfigSpec, n: number) => {
      await harness.api().updateRouteConfiguration(routesMessageOf(config));
      await harness.api().publish({ message: `route table ${n}` });
      await untilClientHasTable(client, n);
    };

    beforeAll(async () => {
      backends.push(
        ...(await Promise.all(
          [...CLUSTERS, SENTINEL_CLUSTER].map((c) => startEchoBackend(c, 0, { methods: METHODS })),
        )),
      );
      for (const backend of backends) ports.set(backend.name, backend.port);
      harness = await startHarness();
      const api = harness.api();
      for (const backend of backends) await api.createCluster(shopCluster(backend.name, backend));
      const first = configOf([{ domains: ["*"], routes: [] }], 0, ports);
      await api.createRouteConfiguration(routesMessageOf(first));
      await api.createListener(shopListener());
      await api.publish({ message: "the shop, table 0" });
      client = await real.connect("shop", {
        server: `127.0.0.1:${harness.app.xdsPort}`,
        nodeId: "route-tester-client",
      });
      await untilClientHasTable(client, 0);
    });

    afterAll(async () => {
      client?.close();
      await harness?.stop();
      await Promise.all(backends.map((b) => b.stop()));
    });

    it("reaches the cluster the tester answers, or fails where it answers no route, over generated tables and RPCs", async () => {
      const deviations = real.routingDeviations;
      let compared = 0;
      await fc.assert(
        fc.asyncProperty(
          table,
          fc.array(rpc, { minLength: RPCS_PER_TABLE, maxLength: RPCS_PER_TABLE }),
          async (generated, calls) => {
            tables += 1;
            const n = tables;
            const config = configOf(generated, n, ports);
            await publish(config, n);
            const seen = await Promise.all(calls.map((call) => observe(client, call)));
            const problems: string[] = [];
            for (const [i, call] of calls.entries()) {
              const envoy = expectedOf(ask(config, call), []);
              const expected = expectedOf(ask(asReadBy(config, deviations), call), deviations);
              const got = seen[i];
              compared += 1;
              const agrees =
                got !== undefined &&
                (expected.t === "failed"
                  ? got.t === "failed" && got.code === expected.code
                  : got.t === "backend" && expected.clusters.includes(got.name));
              if (!agrees) {
                problems.push(
                  `${call.method} ${JSON.stringify(call.metadata)}: expected ${JSON.stringify(expected)} (Envoy: ${JSON.stringify(envoy)}), ${name} did ${JSON.stringify(got)}`,
                );
              }
            }
            if (problems.length > 0) {
              throw new Error(`table ${n} disagrees:\n${problems.join("\n")}`);
            }
          },
        ),
        { numRuns: TABLES, endOnFailure: true },
      );
      expect(compared).toBe(TABLES * RPCS_PER_TABLE);
    }, 120_000);

    // Each declared deviation pinned on a small table, both ways: a client that declares it does
    // what the table as it reads it says, and differs there from Envoy; a client that does not
    // declare it does what the tester answers. So a row cannot excuse what its client no longer does.
    const prefixRoute = (cluster: string): GeneratedRoute => ({
      kind: "PREFIX",
      value: "",
      caseSensitive: true,
      headers: [],
      percent: undefined,
      target: cluster,
    });

    // VirtualHost.domains (route_components.proto): a wildcard "will not match the empty string"
    // ("*-bar.foo.com" does not match "-bar.foo.com"), and the host is matched case-insensitively
    // (Envoy lower-cases both). Each case puts `domain` on a virtual host routing to c0, beside
    // "*" routing to c1; `readAs` is an Envoy domain that the deviating client's choice amounts to.
    it.each([
      { domain: "*shop", deviation: "wildcard-domain-matches-empty", readAs: "shop" },
      { domain: "shop*", deviation: "wildcard-domain-matches-empty", readAs: "shop" },
      { domain: "SHOP", deviation: "domain-match-case-sensitive", readAs: "other" },
      { domain: "*HOP", deviation: "domain-match-case-sensitive", readAs: "other" },
    ] as const)(
      "the virtual host with domain $domain is chosen as the tester answers, unless the client declares $deviation",
      async ({ domain, deviation, readAs }) => {
        tables += 1;
        const n = tables;
        const hosts = (first: string): Table => [
          { domains: [first], routes: [prefixRoute("c0")] },
          { domains: ["*"], routes: [prefixRoute("c1")] },
        ];
        const config = configOf(hosts(domain), n, ports);
        await publish(config, n);
        const call = { method: "/a.S/M1", metadata: {} };
        const envoy = expectedOf(ask(config, call), []);
        const declared = real.routingDeviations.includes(deviation);
        const expected = declared
          ? expectedOf(ask(configOf(hosts(readAs), n, ports), call), [])
          : envoy;
        if (declared) expect(expected).not.toEqual(envoy);
        expect(await observe(client, call)).toMatchObject(shapeOf(expected));
      },
    );

    // HeaderMatcher (route_components.proto): present_match "If specified as false, header match
    // will be performed based on whether the header is absent"; invert_match inverts the result,
    // but an absent header matches nothing unless treat_missing_header_as_empty (or
    // present_match) says otherwise. gRFC A28: an RPC no route matches fails UNAVAILABLE.
    it.each([
      {
        deviation: "present-match-false-as-true",
        call: { method: "/a.S/M1", metadata: { "x-k1": "v1" } },
      },
      { deviation: "invert-matches-absent-header", call: { method: "/a.S/M2", metadata: {} } },
      { deviation: "no-route-fails-internal", call: { method: "/b.S/M1", metadata: {} } },
    ] as const)(
      "$call.method $call.metadata goes where the tester answers, unless the client declares $deviation",
      async ({ deviation, call }) => {
        tables += 1;
        const n = tables;
        const config = configOf(
          [
            {
              domains: ["*"],
              routes: [
                {
                  ...prefixRoute("c0"),
                  kind: "PATH",
                  value: "/a.S/M1",
                  headers: [{ name: "x-k1", presentMatch: false }],
                },
                {
                  ...prefixRoute("c1"),
                  kind: "PATH",
                  value: "/a.S/M2",
                  headers: [{ name: "x-k1", exactMatch: "v1", invertMatch: true }],
                },
              ],
            },
          ],
          n,
          ports,
        );
        await publish(config, n);
        const envoy = expectedOf(ask(config, call), []);
        // The client's other deviations apply too (C-core fails an unrouted RPC INTERNAL).
        const expected = expectedOf(
          ask(asReadBy(config, real.routingDeviations), call),
          real.routingDeviations,
        );
        if (real.routingDeviations.includes(deviation)) expect(expected).not.toEqual(envoy);
        expect(await observe(client, call)).toMatchObject(shapeOf(expected));
      },
    );

    // gRFC A28: "If no matching VirtualHost is found, the xDS client will report that to the xDS
    // resolver, and the xDS resolver will return an error to the client channel": a channel with
    // no configuration yet fails its (not wait-for-ready) RPCs UNAVAILABLE. Envoy answers 404.
    it("a client connecting while no virtual host serves its target fails its RPCs as the tester finds no virtual host", async () => {
      tables += 1;
      const n = tables;
      const config = configOf(
        [{ domains: ["*.example.com"], routes: [prefixRoute("c0")] }],
        n,
        ports,
      );
      await harness.api().updateRouteConfiguration(routesMessageOf(config));
      await harness.api().publish({ message: `route table ${n}: no virtual host for shop` });
      const call = { method: "/a.S/M1", metadata: {} };
      expect(ask(config, call)).toMatchObject({ verdict: { t: "no-virtual-host" } });
      const waits = real.routingDeviations.includes("no-virtual-host-rpcs-wait");
      const fresh = await real.connect("shop", {
        server: `127.0.0.1:${harness.app.xdsPort}`,
        nodeId: "route-tester-fresh-client",
      });
      try {
        // A client that waits holds the RPC until its deadline (DEADLINE_EXCEEDED) instead.
        const seen = await observeWithin(fresh, call, waits ? 2000 : 10_000);
        expect(seen).toMatchObject(
          waits
            ? { t: "failed", code: DEADLINE_EXCEEDED }
            : shapeOf(expectedOf(ask(config, call), [])),
        );
      } finally {
        fresh.close();
      }
    });
  },
);
