/**
 * Test support for the routing specs: an edge proxy built with fixtures.ts (listener `edge` on
 * :8080 → route configuration `routes`), and helpers that ask it a question and unwrap the answer.
 */
import {
  configSpec,
  filterChainSpec,
  routeConfigurationSpec,
  routeSpec,
  socketListenerSpec,
  virtualHostSpec,
} from "../fixtures.js";
import type {
  ConfigSpec,
  FilterChainSpec,
  RouteConfigurationSpec,
  RouteSpec,
  RuntimeLayerSpec,
  VirtualHostSpec,
} from "../model.js";
import type { RouteAnswer, RouteRequest, RouteResult, RouteVerdict } from "./route-answer.js";
import { routeRequest } from "./route-request.js";

export const EDGE_PORT = 8080;

/** Listener `edge` (:8080, one HCM chain) loading route configuration `routes` with `virtualHosts`. */
export function edgeConfig(
  virtualHosts: readonly VirtualHostSpec[],
  options: {
    readonly routeConfiguration?: Partial<RouteConfigurationSpec>;
    readonly chain?: Partial<FilterChainSpec>;
    readonly runtimeLayers?: readonly RuntimeLayerSpec[];
  } = {},
): ConfigSpec {
  return configSpec({
    routeConfigurations: [
      routeConfigurationSpec("routes", "unused", {
        virtualHosts: [...virtualHosts],
        ...options.routeConfiguration,
      }),
    ],
    listeners: [
      socketListenerSpec("edge", EDGE_PORT, "routes", {
        filterChains: [filterChainSpec({ rdsRouteConfigName: "routes", ...options.chain })],
      }),
    ],
    runtimeLayers: options.runtimeLayers ?? [],
  });
}

/** One virtual host for every domain holding `routes`. */
export function anyHost(...routes: RouteSpec[]): VirtualHostSpec[] {
  return [virtualHostSpec("all", ["*"], routes)];
}

/** A route to `cluster` matching `prefix` (or the overrides' match). */
export function prefixRoute(
  prefix: string,
  cluster: string,
  overrides: Partial<RouteSpec> = {},
): RouteSpec {
  return routeSpec(cluster, { matchKind: "PREFIX", matchValue: prefix, ...overrides });
}

/** Asks through listener `edge` (example.com, GET /) unless the request says otherwise. */
export function ask(config: ConfigSpec, request: Partial<RouteRequest> = {}): RouteAnswer {
  const { listener, routeConfiguration, ...rest } = request;
  return routeRequest(config, {
    authority: "example.com",
    path: "/",
    ...rest,
    ...(routeConfiguration === undefined
      ? { listener: listener ?? "edge" }
      : { routeConfiguration }),
  });
}

export function answered(answer: RouteAnswer): RouteResult {
  if (answer.t === "refused") throw new Error(`refused: ${answer.path}: ${answer.message}`);
  return answer;
}

export function routed(
  answer: RouteAnswer,
): Extract<RouteVerdict, { t: "routed" }> & { readonly result: RouteResult } {
  const result = answered(answer);
  if (result.verdict.t !== "routed")
    throw new Error(`not routed: ${JSON.stringify(result.verdict)}`);
  return { ...result.verdict, result };
}

/** The cluster a routed answer forwards to (cluster, weighted clusters or header). */
export function clusterOf(answer: RouteAnswer): string | null {
  const { outcome } = routed(answer);
  switch (outcome.t) {
    case "cluster":
      return outcome.cluster;
    case "weighted-clusters":
    case "cluster-header":
      return outcome.cluster;
    default:
      throw new Error(`no cluster: ${JSON.stringify(outcome)}`);
  }
}

/** The index of the route a request matched in its virtual host. */
export function routeIndexOf(answer: RouteAnswer): number | null {
  const result = answered(answer);
  return result.verdict.t === "routed" ? (result.verdict.route?.index ?? null) : null;
}
