/**
 * Checks of one listener at a time: its address and port (or none, for an api_listener), its
 * filter chains (how many, the route configuration each names, network filters that end as Envoy
 * requires) and its HTTP filters (the router last). Each is linear in the size of the spec.
 */

import { quotedInput } from "../bounded-text.js";
import { addressKind, addressTarget } from "../envoy/envoy-address.js";
import { configSourceExtra, isRouterFilter } from "../envoy/envoy-json.js";
import { isOpaqueType, typedConfigType } from "../envoy/envoy-proto-json.js";
import type { FilterChainSpec, JsonValue, ListenerSpec } from "../model.js";
import { nth } from "../nth.js";
import type { ValidationContext } from "./validate-context.js";
import { filterChainPath, jsonKey, listenerPath } from "./validate-path.js";
import { addressProblem, ipFamily, isListenerPort, isObject } from "./validate-syntax.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/**
 * What a listener binds, as Envoy's listener manager checks it (source/common/listener_manager/
 * listener_impl.cc, `ListenerImpl::ListenerImpl` and `buildInternalListener`):
 *   - an api_listener (proxyless gRPC) binds nothing: clients dial it by name, so it has no
 *     address, and it cannot also be an internal listener;
 *   - an internal listener (`internal_listener`) binds nothing either: "address should not be used
 *     when an internal listener config is provided", nor the TCP socket features it has no socket
 *     for ("has unsupported tcp listener feature", "does not support socket option");
 *   - any other listener binds an IP literal and a port (0 asks the kernel for a free one), or a
 *     Unix socket path, which has no port; an `envoy_internal_address` is refused ("use
 *     internal_listener field instead of address for internal listeners").
 */
export function checkListenerAddresses({ spec, issues }: ValidationContext): void {
  for (const listener of spec.listeners) {
    const path = listenerPath(listener.name);
    const what = `listener ${quote(listener.name)}`;
    const internal = listener.extra.internalListener !== undefined;
    if (listener.apiListener || internal) {
      const kind = listener.apiListener ? "an api_listener" : "an internal listener";
      const why = listener.apiListener
        ? "proxyless gRPC clients dial it by name"
        : "clusters reach it by name (envoy://NAME)";
      if (listener.apiListener && internal) {
        issues.add(
          "api-listener-address",
          `${path}.extra.internalListener`,
          `${what} is both an api_listener and an internal listener; Envoy refuses a listener that sets both`,
          "remove internal_listener",
        );
      }
      if (listener.address !== null && listener.address !== "") {
        issues.add(
          "api-listener-address",
          `${path}.address`,
          `${what} is ${kind} but has address ${quote(listener.address)}; ${why}, so it binds nothing`,
          "clear the address",
        );
      }
      if (listener.port !== null) {
        issues.add(
          "api-listener-address",
          `${path}.port`,
          `${what} is ${kind} but has port ${listener.port}; ${why}, so it binds nothing`,
          "clear the port",
        );
      }
      if (internal) checkInternalListenerFeatures(issues, listener, path, what);
      continue;
    }
    if (listener.address === null || listener.address === "") {
      issues.add(
        "socket-address-required",
        `${path}.address`,
        `${what} has no address to listen on`,
        'use "0.0.0.0" for every IPv4 address, "::" for every IPv6 address, or unix://PATH for a Unix socket; an internal listener sets internal_listener instead',
      );
      continue;
    }
    const kind = addressKind(listener.address);
    if (kind === "internal") {
      issues.add(
        "invalid-address",
        `${path}.address`,
        `${what} listens on internal address ${quote(listener.address)}; Envoy refuses it: an internal listener sets internal_listener and no address`,
        "clear the address and set internal_listener: {} in the listener's Envoy fields",
      );
      continue;
    }
    if (kind === "pipe") {
      if (addressTarget(listener.address) === "") {
        issues.add(
          "invalid-address",
          `${path}.address`,
          `${what} listens on a Unix socket with no path`,
          "write unix:///absolute/path.sock, or unix://@name for an abstract socket",
        );
      }
      if (listener.port !== null) {
        issues.add(
          "invalid-port",
          `${path}.port`,
          `${what} listens on Unix socket ${quote(listener.address)}, which has no port, but sets port ${listener.port}`,
          "clear the port",
        );
      }
      continue;
    }
    const socket = isObject(listener.extra.address)
      ? listener.extra.address.socketAddress
      : undefined;
    const resolver = isObject(socket) ? socket.resolverName : undefined;
    // A custom resolver (`resolver_name`) resolves the address itself: then it need not be an IP.
    if (ipFamily(listener.address) === 0 && (typeof resolver !== "string" || resolver === "")) {
      const problem = addressProblem(listener.address);
      issues.add(
        "invalid-address",
        `${path}.address`,
        `${what} has address ${quote(listener.address)}, which ${problem ?? "is a host name"}; a listener binds an IP address (Envoy does not resolve names here)`,
        'use an IP address such as "0.0.0.0"',
      );
    }
    if (listener.port === null) {
      issues.add("socket-address-required", `${path}.port`, `${what} has no port to listen on`);
    } else if (!isListenerPort(listener.port)) {
      issues.add(
        "invalid-port",
        `${path}.port`,
        `${what} has port ${listener.port}; a listener's port is an integer from 0 (any free port) to 65535`,
      );
    }
  }
}

/**
 * The Listener fields an internal listener cannot use (`buildInternalListener`: "has unsupported
 * tcp listener feature", "does not support socket option"), by proto3 JSON name, and when each is
 * in use.
 */
const INTERNAL_LISTENER_UNSUPPORTED: readonly [string, (value: JsonValue) => boolean][] = [
  ["connectionBalanceConfig", (value) => isObject(value) && value.exactBalance !== undefined],
  ["enableMptcp", (value) => value === true],
  ["enableReusePort", () => true],
  ["freebind", (value) => value === true],
  ["tcpBacklogSize", () => true],
  ["tcpFastOpenQueueLength", () => true],
  ["transparent", (value) => value === true],
  ["socketOptions", (value) => Array.isArray(value) && value.length > 0],
  ["additionalAddresses", (value) => Array.isArray(value) && value.length > 0],
];

function checkInternalListenerFeatures(
  issues: ValidationContext["issues"],
  listener: ListenerSpec,
  path: string,
  what: string,
): void {
  for (const [field, used] of INTERNAL_LISTENER_UNSUPPORTED) {
    const value = listener.extra[field];
    if (value === undefined || !used(value)) continue;
    issues.add(
      "internal-listener-feature",
      `${path}.extra${jsonKey(field)}`,
      `${what} is an internal listener and sets ${field}, a socket feature; Envoy refuses it, as an internal listener has no socket`,
      `remove ${field}`,
    );
  }
}

const ROUTE_SPECIFIER_KEYS = [
  "rds",
  "routeConfig",
  "route_config",
  "scopedRoutes",
  "scoped_routes",
];

function checkRouteSpecifier(
  { issues }: ValidationContext,
  listener: ListenerSpec,
  chain: FilterChainSpec,
  index: number,
): void {
  const path = filterChainPath(listener.name, index);
  const what = `filter chain ${nth(index)} of listener ${quote(listener.name)}`;
  const rds = chain.rdsRouteConfigName !== null;
  const inline = chain.inlineRouteConfigName !== null;
  if (rds && inline) {
    issues.add(
      "invalid-route-specifier",
      `${path}.inlineRouteConfigName`,
      `${what} sets both rdsRouteConfigName (${quote(chain.rdsRouteConfigName)}) and inlineRouteConfigName (${quote(chain.inlineRouteConfigName)})`,
      "keep one: RDS to load the routes by name, inline to embed them",
    );
  } else if (!rds && !inline) {
    issues.add(
      "invalid-route-specifier",
      `${path}.rdsRouteConfigName`,
      `${what} names no route configuration`,
      "set rdsRouteConfigName (or inlineRouteConfigName)",
    );
  }
  // The modelled route specifier is merged over hcmExtra, so one there clashes with it (Envoy's
  // route_specifier is a oneof). This is also what would take a proxyless gRPC client off RDS over
  // ADS, the only route source besides inline routes it accepts. `rds` may hold what the model
  // does not (its config source's initial_fetch_timeout, ...), but neither the route
  // configuration's name nor where it comes from.
  for (const key of ROUTE_SPECIFIER_KEYS) {
    const value = chain.hcmExtra[key];
    if (value === undefined) continue;
    if (key === "rds" && rdsExtraOnly(value)) continue;
    issues.add(
      "invalid-route-specifier",
      `${path}.hcmExtra${jsonKey(key)}`,
      `${what} sets ${key} in hcmExtra, which clashes with the route configuration it names`,
      "remove it from hcmExtra and name the route configuration in rdsRouteConfigName or inlineRouteConfigName",
    );
  }
}

/** Whether hcmExtra.rds holds only what the model leaves to it (no name, no config source kind). */
function rdsExtraOnly(value: JsonValue): boolean {
  if (!isObject(value) || value.routeConfigName !== undefined) return false;
  const source = value.configSource;
  return (
    source === undefined ||
    (isObject(source) &&
      Object.keys(configSourceExtra(source)).length === Object.keys(source).length)
  );
}

/**
 * How a listener takes traffic, as Envoy decides it: its socket type comes from its address alone
 * (`Network::Utility::protobufAddressSocketType`: `protocol: UDP` makes a datagram socket, anything
 * else a stream), and a UDP listener with `udp_listener_config.quic_options` is a QUIC listener,
 * connection-oriented like TCP. A plain UDP listener is served by its listener filters
 * (udp_proxy, dns_filter), not filter chains.
 */
function listenerKind(listener: ListenerSpec): "stream" | "quic" | "udp" {
  const address = listener.extra.address;
  const socket = isObject(address) ? address.socketAddress : undefined;
  if (!(isObject(socket) && socket.protocol === "UDP")) return "stream";
  const udp = listener.extra.udpListenerConfig;
  return isObject(udp) && udp.quicOptions !== undefined ? "quic" : "udp";
}

/**
 * The filter chains a listener needs (`ListenerImpl::validateFilterChains`): an api_listener has
 * exactly one, an HTTP connection manager (the compiler uses only the first); a TCP or QUIC
 * listener at least one, its default chain counting ("no filter chains specified"), and every
 * chain of a QUIC listener a transport socket ("no transport socket specified for connection
 * oriented UDP listener"); a plain UDP listener none ("filter chain(s) specified for
 * connection-less UDP listener"). A listener has at most one default chain (`default_filter_chain`
 * is one field). Each HTTP chain names exactly one route configuration, and each chain's network
 * filters end as Envoy requires (checkNetworkFilters).
 */
export function checkFilterChains(ctx: ValidationContext): void {
  for (const listener of ctx.spec.listeners) {
    const count = listener.filterChains.length;
    const what = `listener ${quote(listener.name)}`;
    const path = `${listenerPath(listener.name)}.filterChains`;
    const kind = listener.apiListener ? undefined : listenerKind(listener);
    if (listener.apiListener && (count !== 1 || listener.filterChains[0]?.networkOnly)) {
      ctx.issues.add(
        "filter-chain-count",
        path,
        count === 1
          ? `${what} is an api_listener whose filter chain has no HTTP connection manager; an api_listener is one HTTP connection manager`
          : `${what} is an api_listener with ${count} filter chains; it carries exactly one HTTP connection manager${count > 1 ? ", so the others would be dropped" : ""}`,
        count > 1 ? "keep one filter chain" : "add a filter chain naming its route configuration",
      );
    } else if (kind !== undefined && kind !== "udp" && count === 0) {
      ctx.issues.add(
        "filter-chain-count",
        path,
        `${what} has no filter chain, so it could accept no connection; Envoy rejects it ("no filter chains specified")`,
        "add a filter chain (or a default filter chain) naming its route configuration",
      );
    } else if (kind === "udp" && count > 0) {
      ctx.issues.add(
        "filter-chain-count",
        path,
        `${what} is a UDP listener with ${count} filter chain${count === 1 ? "" : "s"}; Envoy rejects filter chains on a connection-less UDP listener, which its listener filters serve (udp_proxy, dns_filter)`,
        "remove the filter chains, or make it a QUIC listener (udp_listener_config.quic_options)",
      );
    }
    const defaults = listener.filterChains.flatMap((chain, index) =>
      chain.isDefault ? [index] : [],
    );
    for (const index of defaults.slice(1)) {
      ctx.issues.add(
        "filter-chain-count",
        `${filterChainPath(listener.name, index)}.isDefault`,
        `${what} has ${defaults.length} default filter chains (${defaults.map(String).join(", ")}); a listener has one default_filter_chain`,
        "keep one chain as the default",
      );
    }
    listener.filterChains.forEach((chain, index) => {
      if (
        kind === "quic" &&
        !isObject(chain.extra.transportSocket) &&
        chain.tlsSecretName === null
      ) {
        ctx.issues.add(
          "filter-chain-count",
          `${filterChainPath(listener.name, index)}.extra.transportSocket`,
          `filter chain ${nth(index)} of QUIC ${what} has no transport socket; Envoy rejects it ("no transport socket specified for connection oriented UDP listener")`,
          "give it the QUIC transport socket (envoy.transport_sockets.quic) with its TLS certificate",
        );
      }
      if (!chain.networkOnly) checkRouteSpecifier(ctx, listener, chain, index);
      checkNetworkFilters(ctx, listener, chain, index);
    });
  }
}

const TYPE_URL_PREFIX = "type.googleapis.com/";

/**
 * The network filters Envoy's factories declare terminal (`isTerminalFilterByProto`): each must be
 * the last filter of its chain, and a chain's last filter must be one ("non-terminal filter ...
 * is the last filter in a network filter chain"). By typed config type; filters whose type
 * Switchyard has no schema for (contrib) are not judged.
 */
const TERMINAL_NETWORK_FILTERS = new Set([
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
  "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
  "envoy.extensions.filters.network.redis_proxy.v3.RedisProxy",
  "envoy.extensions.filters.network.direct_response.v3.Config",
  "envoy.extensions.filters.network.echo.v3.Echo",
  "envoy.extensions.filters.network.dubbo_proxy.v3.DubboProxy",
  "envoy.extensions.filters.network.thrift_proxy.v3.ThriftProxy",
  "envoy.extensions.filters.network.kafka_mesh.v3alpha.KafkaMesh",
  "envoy.extensions.filters.network.generic_proxy.v3.GenericProxy",
  "envoy.extensions.filters.network.rocketmq_proxy.v3.RocketmqProxy",
]);

const HCM_TYPE_NAME =
  "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager";

/**
 * A chain's kept network filters: objects with a name; no HTTP connection manager among them (it
 * is the modelled part of the chain); a terminal filter only last, and the last one terminal.
 */
function checkNetworkFilters(
  { issues }: ValidationContext,
  listener: ListenerSpec,
  chain: FilterChainSpec,
  chainIndex: number,
): void {
  const path = `${filterChainPath(listener.name, chainIndex)}.networkFilters`;
  const what = `filter chain ${nth(chainIndex)} of listener ${quote(listener.name)}`;
  const filters = chain.networkFilters;
  if (chain.networkOnly && filters.length === 0) {
    issues.add(
      "empty-filter-chain",
      path,
      `${what} has neither an HTTP connection manager nor a network filter: Envoy closes the connections it matches`,
      "add its network filters (a tcp_proxy, ...), or give it an HTTP connection manager",
    );
  }
  filters.forEach((filter, index) => {
    const at = `${path}[${index}]`;
    if (!isObject(filter) || typeof filter.name !== "string" || filter.name === "") {
      issues.add(
        "invalid-network-filter",
        at,
        `network filter ${nth(index)} of ${what} is not an object with a name`,
        'write it as proto3 JSON: { "name": "...", "typedConfig": { "@type": "..." } }',
      );
      return;
    }
    const type = typedConfigType(filter);
    if (type === HCM_TYPE_NAME) {
      issues.add(
        "invalid-network-filter",
        at,
        `network filter ${nth(index)} of ${what} is an HTTP connection manager: a chain's HTTP connection manager is its modelled part (statPrefix, routes, httpFilters), and comes last`,
        "move it out of networkFilters into the chain's HTTP connection manager fields",
      );
      return;
    }
    const last = chain.networkOnly && index === filters.length - 1;
    if (type === undefined || registryLacks(type)) return;
    const terminal = TERMINAL_NETWORK_FILTERS.has(type);
    if (terminal && !last) {
      issues.add(
        "invalid-network-filter",
        at,
        `${filter.name} (${type}) is a terminal filter, but ${chain.networkOnly ? `filter ${nth(index)} of ${filters.length}` : "the HTTP connection manager follows it"} in ${what}: Envoy requires a terminal filter to be the last of its chain`,
        "move it to the end of the chain, or remove the filters after it",
      );
    } else if (!terminal && last) {
      issues.add(
        "invalid-network-filter",
        at,
        `${what} ends with ${filter.name} (${type}), which is not a terminal filter: Envoy rejects a chain whose last filter does not end it (a tcp_proxy, an HTTP connection manager, ...)`,
        "add the terminal filter that should handle the connections (e.g. a tcp_proxy to a cluster)",
      );
    }
  });
}

function registryLacks(typeName: string): boolean {
  return isOpaqueType(`${TYPE_URL_PREFIX}${typeName}`);
}

/**
 * Every HTTP filter is an object with a name, and the router (appended by the compiler when the
 * list lacks it) comes last: Envoy rejects a terminal filter before the end of the chain, and a
 * proxyless gRPC client NACKs it too.
 */
export function checkHttpFilters({ spec, issues }: ValidationContext): void {
  for (const listener of spec.listeners) {
    listener.filterChains.forEach((chain, chainIndex) => {
      const path = `${filterChainPath(listener.name, chainIndex)}.httpFilters`;
      const what = `filter chain ${nth(chainIndex)} of listener ${quote(listener.name)}`;
      const last = chain.httpFilters.length - 1;
      chain.httpFilters.forEach((filter, index) => {
        if (!isObject(filter) || typeof filter.name !== "string" || filter.name === "") {
          issues.add(
            "invalid-http-filter",
            `${path}[${index}]`,
            `HTTP filter ${nth(index)} of ${what} is not an object with a name`,
            'write it as proto3 JSON: { "name": "...", "typedConfig": { "@type": "..." } }',
          );
        } else if (index < last && isRouterFilter(filter)) {
          issues.add(
            "router-filter-not-last",
            `${path}[${index}]`,
            `${what} has the router as HTTP filter ${nth(index)} of ${last + 1}; the router ends the chain, so Envoy and proxyless gRPC clients reject filters after it`,
            "move the router to the end of httpFilters, or remove it (the compiler appends one)",
          );
        }
      });
    });
  }
}
