/**
 * The route configuration a request is routed with, and the HTTP connection manager in front of
 * it, read exactly as the compiler serves them (envoy-json.ts): a stored spec is turned into the
 * Envoy JSON compile.ts encodes, then into Envoy's message, so every `extra` field counts as it
 * does on the wire. Pure.
 */

import type { RouteConfiguration } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import type { HttpConnectionManager } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { httpConnectionManagerJson, routeConfigurationFormJson } from "../envoy/envoy-json.js";
import { envoyFromJson } from "../envoy/envoy-proto-json.js";
import type {
  ConfigSpec,
  FilterChainSpec,
  ListenerSpec,
  RouteConfigurationSpec,
} from "../model.js";
import type { RouteRefusal, RouteRequest } from "./route-answer.js";

export interface RouteSource {
  readonly t: "source";
  readonly routeConfiguration: RouteConfiguration;
  readonly spec: RouteConfigurationSpec;
  readonly hcm?: {
    readonly listener: ListenerSpec;
    readonly chainIndex: number;
    readonly message: HttpConnectionManager;
  };
}

function refusal(code: RouteRefusal["code"], path: string, message: string): RouteRefusal {
  return { t: "refused", code, path, message };
}

const quoted = (name: string) => JSON.stringify(name);

/** True for a refusal, false for anything else (an Envoy message has no `t`). */
export function isRefusal(value: object): value is RouteRefusal {
  return (value as { t?: unknown }).t === "refused";
}

/**
 * Decoded route configurations, by the stored object: specs are immutable and shared (the draft
 * cache and a version keep the same instances), so the route tests a publish runs, or a tester's
 * questions, decode a route configuration once (~15 ms for 100 routes) rather than per request.
 * The messages are read, never altered.
 */
const decoded = new WeakMap<RouteConfigurationSpec, RouteConfiguration | RouteRefusal>();

/** Envoy's message for a stored route configuration, its on-demand (VHDS) virtual hosts included. */
function routeConfigurationMessage(
  spec: RouteConfigurationSpec,
): RouteConfiguration | RouteRefusal {
  let message = decoded.get(spec);
  if (message === undefined) {
    message = decodeRouteConfiguration(spec);
    decoded.set(spec, message);
  }
  return message;
}

function decodeRouteConfiguration(spec: RouteConfigurationSpec): RouteConfiguration | RouteRefusal {
  try {
    return envoyFromJson(RouteConfigurationSchema, routeConfigurationFormJson(spec));
  } catch (error) {
    return refusal(
      "invalid-config",
      `routeConfigurations[${quoted(spec.name)}]`,
      `the route configuration does not compile: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function chainLabel(chain: FilterChainSpec, index: number): string {
  const named = chain.name ? ` ${quoted(chain.name)}` : "";
  const sni = chain.serverNames.length > 0 ? ` (server_names ${chain.serverNames.join(", ")})` : "";
  return `[${index}]${named}${sni}`;
}

/** The filter chain the request names, or the only one with an HTTP connection manager. */
function pickChain(
  listener: ListenerSpec,
  request: RouteRequest,
): { chain: FilterChainSpec; index: number } | RouteRefusal {
  const at = `listeners[${quoted(listener.name)}]`;
  // An api_listener holds one HTTP connection manager: the first chain's (envoy-json.ts).
  const chains = (listener.apiListener ? listener.filterChains.slice(0, 1) : listener.filterChains)
    .map((chain, index) => ({ chain, index }))
    .filter(({ chain }) => !chain.networkOnly);
  if (request.filterChain !== undefined) {
    const wanted = request.filterChain;
    const found = chains.find(({ chain, index }) =>
      typeof wanted === "number" ? index === wanted : chain.name === wanted,
    );
    if (found) return found;
    return refusal(
      "no-http-connection-manager",
      "request.filterChain",
      `listener ${quoted(listener.name)} has no filter chain ${quoted(String(wanted))} with an HTTP connection manager; it has ${chains.map(({ chain, index }) => chainLabel(chain, index)).join(", ") || "none"}`,
    );
  }
  const [only, ...others] = chains;
  if (!only) {
    return refusal(
      "no-http-connection-manager",
      at,
      `listener ${quoted(listener.name)} has no HTTP connection manager: its filter chains hold only network filters, so nothing routes HTTP requests`,
    );
  }
  if (others.length > 0) {
    return refusal(
      "ambiguous-filter-chain",
      at,
      `listener ${quoted(listener.name)} has ${chains.length} filter chains with an HTTP connection manager (${chains.map(({ chain, index }) => chainLabel(chain, index)).join(", ")}); say which with filterChain (its name or index): Envoy picks a chain by the connection (filter_chain_match), which a request does not carry`,
    );
  }
  return only;
}

/** The route configuration and HCM for `request`, or why the question cannot be answered. */
export function resolveRouteSource(
  config: ConfigSpec,
  request: RouteRequest,
): RouteSource | RouteRefusal {
  const byName = new Map(config.routeConfigurations.map((rc) => [rc.name, rc]));
  if ((request.listener === undefined) === (request.routeConfiguration === undefined)) {
    return refusal(
      "bad-request",
      "request",
      "name exactly one of listener (to route through its HTTP connection manager) and routeConfiguration",
    );
  }
  if (request.routeConfiguration !== undefined) {
    const spec = byName.get(request.routeConfiguration);
    if (!spec) {
      return refusal(
        "unknown-route-configuration",
        "request.routeConfiguration",
        `no route configuration is named ${quoted(request.routeConfiguration)}`,
      );
    }
    const message = routeConfigurationMessage(spec);
    return isRefusal(message) ? message : { t: "source", routeConfiguration: message, spec };
  }
  const listenerName = request.listener ?? "";
  const listener = config.listeners.find((l) => l.name === listenerName);
  if (!listener) {
    return refusal(
      "unknown-listener",
      "request.listener",
      `no listener is named ${quoted(listenerName)}`,
    );
  }
  const picked = pickChain(listener, request);
  if (isRefusal(picked)) return picked;
  const chainPath = `listeners[${quoted(listener.name)}].filterChains[${picked.index}]`;
  let hcm: HttpConnectionManager;
  try {
    // The HCM's JSON is a filter's typed_config: its "@type" is the Any's, not a field.
    const { "@type": _, ...json } = httpConnectionManagerJson(picked.chain, (name) =>
      byName.get(name),
    );
    hcm = envoyFromJson(HttpConnectionManagerSchema, json);
  } catch (error) {
    return refusal(
      "invalid-config",
      chainPath,
      `the HTTP connection manager does not compile: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const specifier = hcm.routeSpecifier;
  let name: string;
  if (specifier.case === "rds") name = specifier.value.routeConfigName;
  else if (specifier.case === "routeConfig") name = specifier.value.name;
  else {
    return refusal(
      "unsupported-config",
      chainPath,
      specifier.case === "scopedRoutes"
        ? "the HTTP connection manager uses scoped_routes (SRDS), which this question does not evaluate"
        : "the HTTP connection manager names no route configuration (neither rds nor route_config)",
    );
  }
  const spec = byName.get(name);
  if (!spec) {
    return refusal(
      "unknown-route-configuration",
      chainPath,
      `the HTTP connection manager loads route configuration ${quoted(name)}, which is not stored: Envoy would wait for it and answer nothing`,
    );
  }
  const message = routeConfigurationMessage(spec);
  if (isRefusal(message)) return message;
  return {
    t: "source",
    routeConfiguration: message,
    spec,
    hcm: { listener, chainIndex: picked.index, message: hcm },
  };
}
