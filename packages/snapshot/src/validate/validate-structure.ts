/**
 * Checks of one object at a time that are neither a listener's nor a route's structure: names,
 * timeouts, localities and endpoints. Each is linear in the size of the spec. Listeners are
 * checked in validate-listener-structure.ts, routes in validate-route-structure.ts.
 */

import { quotedInput } from "../bounded-text.js";
import { addressKind, addressTarget } from "../envoy/envoy-address.js";
import type { ClusterSpec, EndpointSpec } from "../model.js";
import { nth } from "../nth.js";
import { describeRoute, type ValidationContext } from "./validate-context.js";
import {
  clusterPath,
  endpointPath,
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
  ipFamily,
  isObject,
  isPort,
  isPositiveWeight,
  nameProblem,
  partNameProblem,
  quotedName,
  UINT32_MAX,
} from "./validate-syntax.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

/**
 * Every object name, and an EDS service name when set, can name an xDS resource (nameProblem); a
 * virtual host's name is a resource name only when its route configuration serves it on demand
 * (VHDS, where it is `<route configuration>/<virtual host>`), and otherwise a name within the
 * route configuration (partNameProblem).
 */
export function checkNames({ spec, issues }: ValidationContext): void {
  const check = (what: string, name: string, path: string, problemOf = nameProblem) => {
    const problem = problemOf(name);
    if (problem) {
      issues.add(
        "invalid-name",
        path,
        `${what} name ${quotedName(name)} ${problem}`,
        problemOf === nameProblem
          ? "use a non-empty name without spaces, e.g. payments-v2"
          : "use a non-empty name without control characters",
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
        routeConfiguration.vhds ? nameProblem : partNameProblem,
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
          `locality ${nth(l)} of ${what} has weight ${locality.weight}; a locality weight is an integer from 1 to ${UINT32_MAX}`,
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
          `locality ${nth(l)} of ${what} has priority ${locality.priority}; a priority is an integer from 0 (the highest) to 128, Envoy's bound`,
        );
      }
      locality.endpoints.forEach((endpoint, e) => {
        const path = endpointPath(cluster.name, l, e);
        const where = `endpoint ${nth(e)} of locality ${nth(l)} of ${what}`;
        const kind = addressKind(endpoint.address);
        if (kind !== "socket") {
          checkUnixOrInternalEndpoint(issues, cluster, endpoint, path, where);
        } else {
          const problem = addressProblem(endpoint.address);
          const resolver = resolverName(endpoint.extra);
          if (resolver !== undefined && !needsIp && cluster.discoveryType !== "ORIGINAL_DST") {
            // StrictDnsClusterImpl and LogicalDnsCluster::create: "... clusters must NOT have a
            // custom resolver name set".
            issues.add(
              "resolver-name-on-dns-cluster",
              `${path}.extra.endpoint.address.socketAddress.resolverName`,
              `${where} names resolver ${quote(resolver)}, but a ${cluster.discoveryType} cluster resolves its endpoints with DNS, and Envoy refuses a custom resolver there`,
              "remove resolver_name, or make the cluster STATIC or EDS",
            );
          }
          if (problem) {
            issues.add(
              "invalid-address",
              `${path}.address`,
              `${where} has address ${quote(endpoint.address)}, which ${problem}`,
            );
          } else if (needsIp && ipFamily(endpoint.address) === 0 && resolver === undefined) {
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

/**
 * The custom resolver a socket address names (`socket_address.resolver_name`, kept in the
 * endpoint's extra): Envoy resolves the address with it instead of reading an IP literal
 * (`Network::Address::resolveProtoSocketAddress`), so a host name is then no error.
 */
function resolverName(extra: EndpointSpec["extra"]): string | undefined {
  const endpoint = extra.endpoint;
  const address = isObject(endpoint) ? endpoint.address : undefined;
  const socket = isObject(address) ? address.socketAddress : undefined;
  const name = isObject(socket) ? socket.resolverName : undefined;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/**
 * An endpoint on a Unix socket (`unix://PATH`) or an internal listener (`envoy://LISTENER`):
 * it has a path or a listener name and no port, and only clusters that take the address as given
 * can use it. The DNS cluster types resolve a socket address's host name and read nothing else
 * (Envoy's strict_dns and logical_dns clusters take `socket_address.address` of each endpoint).
 */
function checkUnixOrInternalEndpoint(
  issues: ValidationContext["issues"],
  cluster: ClusterSpec,
  endpoint: EndpointSpec,
  path: string,
  where: string,
): void {
  const kind = addressKind(endpoint.address);
  const noun = kind === "pipe" ? "Unix socket" : "internal listener address";
  if (addressTarget(endpoint.address) === "") {
    issues.add(
      "invalid-address",
      `${path}.address`,
      kind === "pipe"
        ? `${where} is a Unix socket with no path`
        : `${where} is an internal listener address with no listener name`,
      kind === "pipe" ? "write unix:///absolute/path.sock" : "write envoy://LISTENER_NAME",
    );
  }
  if (endpoint.port !== 0) {
    issues.add(
      "invalid-port",
      `${path}.port`,
      `${where} is ${noun} ${quote(endpoint.address)}, which has no port, but sets port ${endpoint.port}`,
      "clear the port",
    );
  }
  if (cluster.discoveryType === "STRICT_DNS" || cluster.discoveryType === "LOGICAL_DNS") {
    issues.add(
      "invalid-address",
      `${path}.address`,
      `${where} is ${noun} ${quote(endpoint.address)}, but a ${cluster.discoveryType} cluster resolves host names of socket addresses and reads no other address`,
      "make the cluster STATIC (or EDS) to use the address as given",
    );
  }
}
