/**
 * Checks of one object at a time: names, addresses and ports, weights, timeouts, route matches and
 * actions, filter chains, domains. Each is linear in the size of the spec.
 */
import { ROUTER_FILTER_NAME } from "../envoy/envoy-json.js";
import { isOpaqueType } from "../envoy/envoy-proto-json.js";
import type { FilterChainSpec, JsonObject, JsonValue, ListenerSpec, RouteSpec } from "../model.js";
import { describeRoute, type ValidationContext } from "./validate-context.js";
import {
  clusterPath,
  endpointPath,
  filterChainPath,
  jsonKey,
  listenerPath,
  localityPath,
  nodeGroupPath,
  routeConfigurationPath,
  routePath,
  runtimeLayerPath,
  secretPath,
  virtualHostPath,
} from "./validate-path.js";
import {
  addressProblem,
  domainProblem,
  ipFamily,
  isPort,
  isPositiveWeight,
  nameProblem,
  quotedName,
  regexProblem,
  UINT32_MAX,
} from "./validate-syntax.js";

const ROUTER_TYPE_URL = "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router";

const quote = JSON.stringify;

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every object name, and an EDS service name when set, can name an Envoy resource. */
export function checkNames({ spec, issues }: ValidationContext): void {
  const check = (what: string, name: string, path: string) => {
    const problem = nameProblem(name);
    if (problem) {
      issues.add(
        "invalid-name",
        path,
        `${what} name ${quotedName(name)} ${problem}`,
        "use a non-empty name without spaces, e.g. payments-v2",
      );
    }
  };
  for (const cluster of spec.clusters) {
    check("cluster", cluster.name, `${clusterPath(cluster.name)}.name`);
    if (cluster.edsServiceName !== null) {
      check("EDS service", cluster.edsServiceName, `${clusterPath(cluster.name)}.edsServiceName`);
    }
  }
  for (const listener of spec.listeners) {
    check("listener", listener.name, `${listenerPath(listener.name)}.name`);
  }
  for (const routeConfiguration of spec.routeConfigurations) {
    check(
      "route configuration",
      routeConfiguration.name,
      `${routeConfigurationPath(routeConfiguration.name)}.name`,
    );
    for (const virtualHost of routeConfiguration.virtualHosts) {
      check(
        "virtual host",
        virtualHost.name,
        `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.name`,
      );
    }
  }
  for (const group of spec.nodeGroups) {
    check("node group", group.name, `${nodeGroupPath(group.name)}.name`);
  }
  for (const layer of spec.runtimeLayers) {
    check("runtime layer", layer.name, `${runtimeLayerPath(layer.name)}.name`);
  }
  for (const secret of spec.secrets) {
    check("secret", secret.name, `${secretPath(secret.name)}.name`);
  }
}

/**
 * A socket listener binds an IP address and a port; an api_listener (proxyless gRPC) has neither,
 * since clients dial it by name.
 */
export function checkListenerAddresses({ spec, issues }: ValidationContext): void {
  for (const listener of spec.listeners) {
    const path = listenerPath(listener.name);
    const what = `listener ${quote(listener.name)}`;
    if (listener.apiListener) {
      if (listener.address !== null && listener.address !== "") {
        issues.add(
          "api-listener-address",
          `${path}.address`,
          `${what} is an api_listener but has address ${quote(listener.address)}; proxyless gRPC clients dial it by name, so it binds nothing`,
          "clear the address",
        );
      }
      if (listener.port !== null) {
        issues.add(
          "api-listener-address",
          `${path}.port`,
          `${what} is an api_listener but has port ${listener.port}; proxyless gRPC clients dial it by name, so it binds nothing`,
          "clear the port",
        );
      }
      continue;
    }
    if (listener.address === null || listener.address === "") {
      issues.add(
        "socket-address-required",
        `${path}.address`,
        `${what} has no address to listen on`,
        'use "0.0.0.0" for every IPv4 address, "::" for every IPv6 address',
      );
    } else if (ipFamily(listener.address) === 0) {
      const problem = addressProblem(listener.address);
      issues.add(
        "invalid-address",
        `${path}.address`,
        `${what} has address ${quote(listener.address)}, which ${problem ?? "is a host name"}; a listener binds an IP address`,
        'use an IP address such as "0.0.0.0"',
      );
    }
    if (listener.port === null) {
      issues.add("socket-address-required", `${path}.port`, `${what} has no port to listen on`);
    } else if (!isPort(listener.port)) {
      issues.add(
        "invalid-port",
        `${path}.port`,
        `${what} has port ${listener.port}; a port is an integer from 1 to 65535`,
      );
    }
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
  const what = `filter chain ${index} of listener ${quote(listener.name)}`;
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
  // ADS, the only route source besides inline routes it accepts.
  for (const key of ROUTE_SPECIFIER_KEYS) {
    if (key in chain.hcmExtra) {
      issues.add(
        "invalid-route-specifier",
        `${path}.hcmExtra${jsonKey(key)}`,
        `${what} sets ${key} in hcmExtra, which clashes with the route configuration it names`,
        "remove it from hcmExtra and name the route configuration in rdsRouteConfigName or inlineRouteConfigName",
      );
    }
  }
}

/**
 * A UDP listener (a socket address with `protocol: UDP`, or `udp_listener_config`) is served by
 * its listener filters (udp_proxy, dns_filter), not filter chains.
 */
function isUdpListener(listener: ListenerSpec): boolean {
  const address = listener.extra.address;
  const socket = isObject(address) ? address.socketAddress : undefined;
  return (
    (isObject(socket) && socket.protocol === "UDP") ||
    listener.extra.udpListenerConfig !== undefined
  );
}

/**
 * An api_listener has exactly one filter chain (the compiler uses only the first), an HTTP
 * connection manager; a TCP socket listener at least one chain; each HTTP chain names exactly one
 * route configuration, and each chain's network filters end as Envoy requires (checkNetworkFilters).
 */
export function checkFilterChains(ctx: ValidationContext): void {
  for (const listener of ctx.spec.listeners) {
    const count = listener.filterChains.length;
    const what = `listener ${quote(listener.name)}`;
    if (listener.apiListener && (count !== 1 || listener.filterChains[0]?.networkOnly)) {
      ctx.issues.add(
        "filter-chain-count",
        `${listenerPath(listener.name)}.filterChains`,
        count === 1
          ? `${what} is an api_listener whose filter chain has no HTTP connection manager; an api_listener is one HTTP connection manager`
          : `${what} is an api_listener with ${count} filter chains; it carries exactly one HTTP connection manager${count > 1 ? ", so the others would be dropped" : ""}`,
        count > 1 ? "keep one filter chain" : "add a filter chain naming its route configuration",
      );
    } else if (!listener.apiListener && count === 0 && !isUdpListener(listener)) {
      ctx.issues.add(
        "filter-chain-count",
        `${listenerPath(listener.name)}.filterChains`,
        `${what} has no filter chain, so it could accept no connection; Envoy rejects it`,
        "add a filter chain naming its route configuration",
      );
    }
    listener.filterChains.forEach((chain, index) => {
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

/** The type of a filter's typed config, seen through a TypedStruct. */
function filterTypeName(filter: JsonObject): string | undefined {
  const typedConfig = filter.typedConfig;
  if (!isObject(typedConfig)) return undefined;
  const url = typedConfig["@type"];
  if (typeof url !== "string") return undefined;
  const name = url.slice(url.lastIndexOf("/") + 1);
  if (name === "xds.type.v3.TypedStruct" || name === "udpa.type.v1.TypedStruct") {
    const named = typedConfig.typeUrl;
    return typeof named === "string" ? named.slice(named.lastIndexOf("/") + 1) : undefined;
  }
  return name;
}

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
  const what = `filter chain ${chainIndex} of listener ${quote(listener.name)}`;
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
        `network filter ${index} of ${what} is not an object with a name`,
        'write it as proto3 JSON: { "name": "...", "typedConfig": { "@type": "..." } }',
      );
      return;
    }
    const type = filterTypeName(filter);
    if (type === HCM_TYPE_NAME) {
      issues.add(
        "invalid-network-filter",
        at,
        `network filter ${index} of ${what} is an HTTP connection manager: a chain's HTTP connection manager is its modelled part (statPrefix, routes, httpFilters), and comes last`,
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
        `${filter.name} (${type}) is a terminal filter, but ${chain.networkOnly ? `filter ${index} of ${filters.length}` : "the HTTP connection manager follows it"} in ${what}: Envoy requires a terminal filter to be the last of its chain`,
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

function isRouter(filter: JsonObject): boolean {
  const typedConfig = filter.typedConfig ?? filter.typed_config;
  return (
    filter.name === ROUTER_FILTER_NAME ||
    (isObject(typedConfig) && typedConfig["@type"] === ROUTER_TYPE_URL)
  );
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
      const what = `filter chain ${chainIndex} of listener ${quote(listener.name)}`;
      const last = chain.httpFilters.length - 1;
      chain.httpFilters.forEach((filter, index) => {
        if (!isObject(filter) || typeof filter.name !== "string" || filter.name === "") {
          issues.add(
            "invalid-http-filter",
            `${path}[${index}]`,
            `HTTP filter ${index} of ${what} is not an object with a name`,
            'write it as proto3 JSON: { "name": "...", "typedConfig": { "@type": "..." } }',
          );
        } else if (index < last && isRouter(filter)) {
          issues.add(
            "router-filter-not-last",
            `${path}[${index}]`,
            `${what} has the router as HTTP filter ${index} of ${last + 1}; the router ends the chain, so Envoy and proxyless gRPC clients reject filters after it`,
            "move the router to the end of httpFilters, or remove it (the compiler appends one)",
          );
        }
      });
    });
  }
}

/** Connect timeouts are positive (Envoy: `gt: 0s`); route timeouts are not negative. */
export function checkTimeouts({ spec, issues }: ValidationContext): void {
  for (const cluster of spec.clusters) {
    if (!(Number.isFinite(cluster.connectTimeoutMs) && cluster.connectTimeoutMs > 0)) {
      issues.add(
        "invalid-timeout",
        `${clusterPath(cluster.name)}.connectTimeoutMs`,
        `cluster ${quote(cluster.name)} has connect timeout ${cluster.connectTimeoutMs} ms; it must be more than 0`,
        "a typical value is 1000 to 5000 ms",
      );
    }
  }
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        if (
          route.timeoutMs !== null &&
          !(Number.isFinite(route.timeoutMs) && route.timeoutMs >= 0)
        ) {
          issues.add(
            "invalid-timeout",
            `${routePath(routeConfiguration.name, virtualHost.name, index)}.timeoutMs`,
            `${describeRoute(virtualHost, index, route)} has timeout ${route.timeoutMs} ms; it must not be negative`,
            "use 0 to disable the timeout, or clear it for Envoy's default of 15 s",
          );
        }
      });
    }
  }
}

/**
 * Localities and endpoints: weights are integers >= 1 where set, addresses are IPs or host names
 * (IPs for STATIC and EDS clusters: Envoy resolves names only for the DNS types), ports are valid,
 * and a LOGICAL_DNS cluster has exactly one endpoint, as Envoy requires.
 */
export function checkEndpoints({ spec, issues }: ValidationContext): void {
  for (const cluster of spec.clusters) {
    const what = `cluster ${quote(cluster.name)}`;
    const needsIp = cluster.discoveryType === "STATIC" || cluster.discoveryType === "EDS";
    cluster.localities.forEach((locality, l) => {
      if (locality.weight !== null && !isPositiveWeight(locality.weight)) {
        issues.add(
          "invalid-weight",
          `${localityPath(cluster.name, l)}.weight`,
          `locality ${l} of ${what} has weight ${locality.weight}; a locality weight is an integer from 1 to ${UINT32_MAX}`,
          "use 1 for equal weights",
        );
      }
      // LocalityLbEndpoints.priority: `(validate.rules).uint32 = {lte: 128}`.
      if (
        !(Number.isInteger(locality.priority) && locality.priority >= 0 && locality.priority <= 128)
      ) {
        issues.add(
          "invalid-priority",
          `${localityPath(cluster.name, l)}.priority`,
          `locality ${l} of ${what} has priority ${locality.priority}; a priority is an integer from 0 (the highest) to 128, Envoy's bound`,
        );
      }
      locality.endpoints.forEach((endpoint, e) => {
        const path = endpointPath(cluster.name, l, e);
        const where = `endpoint ${e} of locality ${l} of ${what}`;
        const problem = addressProblem(endpoint.address);
        if (problem) {
          issues.add(
            "invalid-address",
            `${path}.address`,
            `${where} has address ${quote(endpoint.address)}, which ${problem}`,
          );
        } else if (needsIp && ipFamily(endpoint.address) === 0) {
          issues.add(
            "endpoint-not-ip",
            `${path}.address`,
            `${where} has host name ${quote(endpoint.address)}, but a ${cluster.discoveryType} cluster takes IP addresses only`,
            "use the IP address, or make the cluster STRICT_DNS or LOGICAL_DNS to resolve the name",
          );
        }
        if (!isPort(endpoint.port)) {
          issues.add(
            "invalid-port",
            `${path}.port`,
            `${where} has port ${endpoint.port}; a port is an integer from 1 to 65535`,
          );
        }
        if (endpoint.weight !== null && !isPositiveWeight(endpoint.weight)) {
          issues.add(
            "invalid-weight",
            `${path}.weight`,
            `${where} has weight ${endpoint.weight}; an endpoint weight is an integer from 1 to ${UINT32_MAX}`,
            "clear it for the default weight of 1",
          );
        }
      });
    });
    if (cluster.discoveryType === "LOGICAL_DNS") {
      const endpoints = cluster.localities.reduce(
        (n, locality) => n + locality.endpoints.length,
        0,
      );
      if (cluster.localities.length !== 1 || endpoints !== 1) {
        issues.add(
          "logical-dns-endpoint-count",
          `${clusterPath(cluster.name)}.localities`,
          `${what} is LOGICAL_DNS with ${endpoints} endpoints in ${cluster.localities.length} localities; Envoy requires exactly one locality with one endpoint (the name it resolves)`,
          "use STRICT_DNS to resolve several names",
        );
      }
    }
  }
}

/** Every virtual host has domains, each a valid Envoy domain pattern. */
export function checkDomains({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      const path = `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.domains`;
      const what = `virtual host ${quote(virtualHost.name)}`;
      if (virtualHost.domains.length === 0) {
        issues.add(
          "empty-domains",
          path,
          `${what} has no domains, so no request reaches it`,
          'add a domain, or "*" for any',
        );
      }
      virtualHost.domains.forEach((domain, index) => {
        const problem = domainProblem(domain);
        if (problem) {
          issues.add(
            "invalid-domain",
            `${path}[${index}]`,
            `domain ${index} of ${what}, ${quote(domain)}, ${problem}`,
            'use a host name, "*.example.com", "example.*" or "*"',
          );
        }
      });
    }
  }
}

/** A PATH match is an absolute path; a SAFE_REGEX match compiles as RE2 (see `regexProblem`). */
export function checkRouteMatches({ spec, issues }: ValidationContext): void {
  const regexProblems = new Map<string, string | undefined>();
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        const path = `${routePath(routeConfiguration.name, virtualHost.name, index)}.matchValue`;
        if (route.matchKind === "CONNECT" || route.matchKind === "PATH_MATCH_POLICY") {
          const key = route.matchKind === "CONNECT" ? "connectMatcher" : "pathMatchPolicy";
          const match = route.extra.match;
          if (!isObject(match) || match[key] === undefined) {
            issues.add(
              "invalid-path-match",
              `${routePath(routeConfiguration.name, virtualHost.name, index)}.extra.match.${key}`,
              `${describeRoute(virtualHost, index, route)} is a ${route.matchKind} match without its ${key}`,
              `set extra.match.${key}, as Envoy JSON`,
            );
          }
        } else if (
          (route.matchKind === "PATH" || route.matchKind === "PATH_SEPARATED_PREFIX") &&
          !route.matchValue.startsWith("/")
        ) {
          issues.add(
            "invalid-path-match",
            path,
            `${describeRoute(virtualHost, index, route)} matches path ${quote(route.matchValue)}, which no request has: paths start with "/"`,
            `use ${quote(`/${route.matchValue}`)}`,
          );
        } else if (route.matchKind === "SAFE_REGEX") {
          if (!regexProblems.has(route.matchValue)) {
            regexProblems.set(route.matchValue, regexProblem(route.matchValue));
          }
          const problem = regexProblems.get(route.matchValue);
          if (problem) {
            issues.add(
              "invalid-regex",
              path,
              `${describeRoute(virtualHost, index, route)} matches the regular expression ${quote(route.matchValue)}, which RE2 rejects: ${problem}`,
              "RE2 has no lookaround or backreferences; see https://github.com/google/re2/wiki/Syntax",
            );
          }
        }
      });
    }
  }
}

const NOT_FORWARDED: readonly (keyof RouteSpec)[] = [
  "cluster",
  "weightedClusters",
  "redirect",
  "directResponse",
  "timeoutMs",
  "retryPolicy",
  "prefixRewrite",
];
const PER_REQUEST: readonly (keyof RouteSpec)[] = [
  "cluster",
  "weightedClusters",
  "redirect",
  "directResponse",
];

/** Fields a route may hold for another action kind, which the compiler then ignores. */
const IGNORED_BY_ACTION: Record<RouteSpec["actionKind"], readonly (keyof RouteSpec)[]> = {
  CLUSTER: ["weightedClusters", "redirect", "directResponse"],
  WEIGHTED_CLUSTERS: ["cluster", "redirect", "directResponse"],
  CLUSTER_HEADER: PER_REQUEST,
  CLUSTER_SPECIFIER_PLUGIN: PER_REQUEST,
  INLINE_CLUSTER_SPECIFIER_PLUGIN: PER_REQUEST,
  NON_FORWARDING: NOT_FORWARDED,
  FILTER_ACTION: NOT_FORWARDED,
  REDIRECT: [
    "cluster",
    "weightedClusters",
    "directResponse",
    "timeoutMs",
    "retryPolicy",
    "prefixRewrite",
  ],
  DIRECT_RESPONSE: [
    "cluster",
    "weightedClusters",
    "redirect",
    "timeoutMs",
    "retryPolicy",
    "prefixRewrite",
  ],
};

function isSet(value: RouteSpec[keyof RouteSpec]): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== null && value !== "";
}

/**
 * A route holds what its actionKind needs: a cluster; weighted clusters whose weights are not
 * negative, not all zero and fit in uint32 (Envoy and gRPC sum them; a 0 weight is a valid
 * "no traffic" step of a rollout); a redirect; a direct response with a status. Fields of other
 * action kinds are ignored by the compiler, which is worth a warning.
 */
export function checkRouteActions({ spec, issues }: ValidationContext): void {
  for (const routeConfiguration of spec.routeConfigurations) {
    for (const virtualHost of routeConfiguration.virtualHosts) {
      virtualHost.routes.forEach((route, index) => {
        const path = routePath(routeConfiguration.name, virtualHost.name, index);
        const what = describeRoute(virtualHost, index, route);
        switch (route.actionKind) {
          case "CLUSTER":
            if (!route.cluster) {
              issues.add(
                "incomplete-route-action",
                `${path}.cluster`,
                `${what} is a CLUSTER route without a cluster`,
                "name the cluster it sends traffic to",
              );
            }
            break;
          case "WEIGHTED_CLUSTERS":
            checkWeightedClusters(issues, route, path, what);
            break;
          case "CLUSTER_HEADER":
          case "CLUSTER_SPECIFIER_PLUGIN":
          case "INLINE_CLUSTER_SPECIFIER_PLUGIN":
          case "NON_FORWARDING":
          case "FILTER_ACTION": {
            const [holder, key] = ACTION_IN_EXTRA[route.actionKind];
            const kept = holder === "route" ? route.extra.route : route.extra;
            if (!isObject(kept) || kept[key] === undefined) {
              issues.add(
                "incomplete-route-action",
                `${path}.extra${holder === "route" ? ".route" : ""}${jsonKey(key)}`,
                `${what} is a ${route.actionKind} route without its ${key}`,
                `set ${holder === "route" ? "extra.route." : "extra."}${key} (the route's ${route.actionKind === "NON_FORWARDING" || route.actionKind === "FILTER_ACTION" ? "action" : "cluster specifier"}, as Envoy JSON)`,
              );
            }
            break;
          }
          case "REDIRECT":
            if (route.redirect === null) {
              issues.add(
                "incomplete-route-action",
                `${path}.redirect`,
                `${what} is a REDIRECT route without a redirect`,
                'set redirect, e.g. { "httpsRedirect": true }',
              );
            }
            break;
          case "DIRECT_RESPONSE":
            if (route.directResponse === null) {
              issues.add(
                "incomplete-route-action",
                `${path}.directResponse`,
                `${what} is a DIRECT_RESPONSE route without a direct response`,
                'set directResponse, e.g. { "status": 404 }',
              );
            } else {
              const status = route.directResponse.status;
              // proto3 JSON also writes integers as strings ("404").
              const code =
                typeof status === "string" && /^\d+$/.test(status) ? Number(status) : status;
              if (typeof code !== "number" || !Number.isInteger(code) || code < 200 || code > 599) {
                issues.add(
                  "invalid-direct-response",
                  `${path}.directResponse.status`,
                  `${what} answers with status ${status === undefined ? "(none)" : JSON.stringify(status)}; a direct response needs a status from 200 to 599`,
                );
              }
            }
            break;
        }
        for (const field of IGNORED_BY_ACTION[route.actionKind]) {
          if (isSet(route[field])) {
            issues.add(
              "ignored-route-action-field",
              `${path}.${field}`,
              `${what} is a ${route.actionKind} route, so its ${field} is ignored`,
              `clear ${field}, or change actionKind`,
            );
          }
        }
      });
    }
  }
}

/** Where an action kind kept in `extra` has its config: extra.route.<key>, or extra.<key>. */
const ACTION_IN_EXTRA = {
  CLUSTER_HEADER: ["route", "clusterHeader"],
  CLUSTER_SPECIFIER_PLUGIN: ["route", "clusterSpecifierPlugin"],
  INLINE_CLUSTER_SPECIFIER_PLUGIN: ["route", "inlineClusterSpecifierPlugin"],
  NON_FORWARDING: ["route-level", "nonForwardingAction"],
  FILTER_ACTION: ["route-level", "filterAction"],
} as const;

function checkWeightedClusters(
  issues: ValidationContext["issues"],
  route: RouteSpec,
  path: string,
  what: string,
): void {
  if (route.weightedClusters.length === 0) {
    issues.add(
      "incomplete-route-action",
      `${path}.weightedClusters`,
      `${what} is a WEIGHTED_CLUSTERS route without clusters`,
      "add at least one cluster with a weight",
    );
    return;
  }
  let total = 0;
  let valid = true;
  route.weightedClusters.forEach((weighted, w) => {
    if (!weighted.name) {
      issues.add(
        "incomplete-route-action",
        `${path}.weightedClusters[${w}].name`,
        `weighted cluster ${w} of ${what} names no cluster`,
      );
    }
    if (
      !(Number.isInteger(weighted.weight) && weighted.weight >= 0 && weighted.weight <= UINT32_MAX)
    ) {
      valid = false;
      issues.add(
        "invalid-weight",
        `${path}.weightedClusters[${w}].weight`,
        `weighted cluster ${w} of ${what} has weight ${weighted.weight}; a weight is an integer from 0 to ${UINT32_MAX}`,
      );
    } else {
      total += weighted.weight;
    }
  });
  if (valid && total === 0) {
    issues.add(
      "invalid-weight",
      `${path}.weightedClusters`,
      `${what} gives every cluster weight 0, so it could send traffic nowhere`,
      "give at least one cluster a weight above 0",
    );
  } else if (valid && total > UINT32_MAX) {
    issues.add(
      "invalid-weight",
      `${path}.weightedClusters`,
      `${what} has weights summing to ${total}, more than ${UINT32_MAX}`,
      "scale the weights down, e.g. to percentages",
    );
  }
  // total_weight (deprecated, kept in extra) must be the sum when set: Envoy refuses the route
  // ("Sum of weights in the weighted_cluster must add up to total_weight") and gRPC NACKs it.
  const weighted = route.extra.route;
  const declared =
    isObject(weighted) && isObject(weighted.weightedClusters)
      ? weighted.weightedClusters.totalWeight
      : undefined;
  if (valid && declared !== undefined && Number(declared) !== total) {
    issues.add(
      "invalid-weight",
      `${path}.extra.route.weightedClusters.totalWeight`,
      `${what} declares total_weight ${String(declared)}, but its weights add up to ${total}: Envoy refuses the route and gRPC clients NACK it`,
      `set total_weight to ${total}, or remove it (it is deprecated: the sum is used)`,
    );
  }
}
