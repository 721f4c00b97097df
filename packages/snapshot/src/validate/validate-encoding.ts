/**
 * The compiler's encoding problems (`compile(spec).issues`: a stored Envoy field the Envoy schema
 * rejects) as `invalid-envoy-json` errors, located at the field that causes them.
 *
 * The compiler knows only the resource that failed. To find the field, the failed resource alone is
 * encoded again piece by piece: first with every stored JSON field (`extra`, `hcmExtra`,
 * `healthChecks`, ...) and every child removed, then with one field or one child added back at a
 * time. This runs only for resources that failed, so a valid config costs nothing here.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ClusterLoadAssignmentSchema } from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import { ListenerSchema } from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import type { ConfigIssue } from "../compile.js";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  listenerJson,
  routeConfigurationJson,
} from "../envoy/envoy-json.js";
import { envoyFromJson, envoyToBinary } from "../envoy/envoy-proto-json.js";
import type {
  ClusterSpec,
  FilterChainSpec,
  JsonObject,
  ListenerSpec,
  LocalitySpec,
  RouteConfigurationSpec,
  RouteSpec,
  VirtualHostSpec,
} from "../model.js";
import type { ValidationContext } from "./validate-context.js";
import {
  clusterPath,
  endpointPath,
  filterChainPath,
  listenerPath,
  localityPath,
  routeConfigurationPath,
  routePath,
  virtualHostPath,
} from "./validate-path.js";

/** Where an encoding problem is, and the schema's own words for it. */
export interface EncodingProblem {
  readonly path: string;
  readonly message: string;
}

function encodingError(schema: DescMessage, json: JsonObject): string | undefined {
  try {
    envoyToBinary(schema, envoyFromJson(schema, json));
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

type Probe<T> = (variant: T) => string | undefined;

/** Records `path` when `probe(variant)` fails; true when it passed. */
function tryPart<T>(found: EncodingProblem[], path: string, probe: Probe<T>, variant: T): boolean {
  const message = probe(variant);
  if (message !== undefined) found.push({ path, message });
  return message === undefined;
}

function locateCluster(cluster: ClusterSpec, assignment: boolean): EncodingProblem[] {
  const found: EncodingProblem[] = [];
  const bare: ClusterSpec = {
    ...cluster,
    extra: {},
    healthChecks: [],
    circuitBreakers: null,
    outlierDetection: null,
    assignmentExtra: {},
    localities: [],
  };
  const probe: Probe<ClusterSpec> = assignment
    ? (variant) => encodingError(ClusterLoadAssignmentSchema, clusterLoadAssignmentJson(variant))
    : (variant) => encodingError(ClusterSchema, clusterJson(variant));
  const path = clusterPath(cluster.name);
  if (!tryPart(found, path, probe, bare)) return found;
  // An EDS cluster's endpoints are in its assignment, any other's inline in the cluster.
  const withEndpoints = assignment || cluster.discoveryType !== "EDS";
  const fields: [string, Partial<ClusterSpec>][] = assignment
    ? [["assignmentExtra", { assignmentExtra: cluster.assignmentExtra }]]
    : [
        ["extra", { extra: cluster.extra }],
        ["healthChecks", { healthChecks: cluster.healthChecks }],
        ["circuitBreakers", { circuitBreakers: cluster.circuitBreakers }],
        ["outlierDetection", { outlierDetection: cluster.outlierDetection }],
        ...(withEndpoints
          ? [
              ["assignmentExtra", { assignmentExtra: cluster.assignmentExtra }] as [
                string,
                Partial<ClusterSpec>,
              ],
            ]
          : []),
      ];
  for (const [field, variant] of fields)
    tryPart(found, `${path}.${field}`, probe, { ...bare, ...variant });
  if (!withEndpoints) return found;
  cluster.localities.forEach((locality, l) => {
    const bareLocality: LocalitySpec = { ...locality, extra: {}, endpoints: [] };
    const withLocality = (variant: LocalitySpec): ClusterSpec => ({
      ...bare,
      localities: [variant],
    });
    if (!tryPart(found, localityPath(cluster.name, l), probe, withLocality(bareLocality))) return;
    tryPart(
      found,
      `${localityPath(cluster.name, l)}.extra`,
      probe,
      withLocality({ ...bareLocality, extra: locality.extra }),
    );
    locality.endpoints.forEach((endpoint, e) => {
      const path = endpointPath(cluster.name, l, e);
      const bareEndpoint = { ...endpoint, extra: {} };
      if (
        !tryPart(found, path, probe, withLocality({ ...bareLocality, endpoints: [bareEndpoint] }))
      )
        return;
      tryPart(
        found,
        `${path}.extra`,
        probe,
        withLocality({ ...bareLocality, endpoints: [endpoint] }),
      );
    });
  });
  return found;
}

function locateRouteConfiguration(routeConfiguration: RouteConfigurationSpec): EncodingProblem[] {
  const found: EncodingProblem[] = [];
  const probe: Probe<RouteConfigurationSpec> = (variant) =>
    encodingError(RouteConfigurationSchema, routeConfigurationJson(variant));
  const bare: RouteConfigurationSpec = { ...routeConfiguration, extra: {}, virtualHosts: [] };
  const name = routeConfiguration.name;
  if (!tryPart(found, routeConfigurationPath(name), probe, bare)) return found;
  tryPart(found, `${routeConfigurationPath(name)}.extra`, probe, {
    ...bare,
    extra: routeConfiguration.extra,
  });
  for (const virtualHost of routeConfiguration.virtualHosts) {
    const bareHost: VirtualHostSpec = { ...virtualHost, extra: {}, routes: [] };
    const withHost = (variant: VirtualHostSpec) => ({ ...bare, virtualHosts: [variant] });
    const hostPath = virtualHostPath(name, virtualHost.name);
    if (!tryPart(found, hostPath, probe, withHost(bareHost))) continue;
    tryPart(found, `${hostPath}.extra`, probe, withHost({ ...bareHost, extra: virtualHost.extra }));
    virtualHost.routes.forEach((route, index) => {
      const bareRoute: RouteSpec = {
        ...route,
        extra: {},
        headers: [],
        queryParameters: [],
        redirect: null,
        directResponse: null,
        retryPolicy: null,
      };
      const withRoute = (variant: Partial<RouteSpec>) =>
        withHost({ ...bareHost, routes: [{ ...bareRoute, ...variant }] });
      const path = routePath(name, virtualHost.name, index);
      if (!tryPart(found, path, probe, withRoute({}))) return;
      const fields: [keyof RouteSpec, Partial<RouteSpec>][] = [
        ["extra", { extra: route.extra }],
        ["headers", { headers: route.headers }],
        ["queryParameters", { queryParameters: route.queryParameters }],
        ["redirect", { redirect: route.redirect }],
        ["directResponse", { directResponse: route.directResponse }],
        ["retryPolicy", { retryPolicy: route.retryPolicy }],
      ];
      for (const [field, variant] of fields)
        tryPart(found, `${path}.${field}`, probe, withRoute(variant));
    });
  }
  return found;
}

function locateListener(listener: ListenerSpec): EncodingProblem[] {
  const found: EncodingProblem[] = [];
  // Inline route configurations are left out: each is encoded, and reported, on its own too.
  const probe: Probe<ListenerSpec> = (variant) =>
    encodingError(
      ListenerSchema,
      listenerJson(variant, () => undefined),
    );
  const bare: ListenerSpec = { ...listener, extra: {}, filterChains: [] };
  const path = listenerPath(listener.name);
  if (!tryPart(found, path, probe, bare)) return found;
  tryPart(found, `${path}.extra`, probe, { ...bare, extra: listener.extra });
  // An api_listener is compiled from its first filter chain only.
  const chains = listener.apiListener ? listener.filterChains.slice(0, 1) : listener.filterChains;
  chains.forEach((chain, index) => {
    const bareChain: FilterChainSpec = {
      ...chain,
      extra: {},
      networkFilters: [],
      hcmExtra: {},
      httpFilters: [],
      accessLog: [],
    };
    const withChain = (variant: Partial<FilterChainSpec>) => ({
      ...bare,
      filterChains: [{ ...bareChain, ...variant }],
    });
    const chainPath = filterChainPath(listener.name, index);
    if (!tryPart(found, chainPath, probe, withChain({}))) return;
    const fields: [keyof FilterChainSpec, Partial<FilterChainSpec>][] = [
      ["extra", { extra: chain.extra }],
      ["networkFilters", { networkFilters: chain.networkFilters }],
      ["hcmExtra", { hcmExtra: chain.hcmExtra }],
      ["httpFilters", { httpFilters: chain.httpFilters }],
      ["accessLog", { accessLog: chain.accessLog }],
    ];
    for (const [field, variant] of fields)
      tryPart(found, `${chainPath}.${field}`, probe, withChain(variant));
  });
  return found;
}

const ISSUE_PATH =
  /^(clusters|routeConfigurations|listeners)\[("(?:[^"\\]|\\.)*")\](\.endpoints)?$/;

/**
 * The located problems behind one compiler issue. Falls back to the resource's path when no single
 * field is to blame (two fields that clash, say) or when `probe` is false; returns nothing for a
 * listener that only fails because of the inline route configuration it embeds, which is reported
 * on its own.
 */
export function locateEncodingIssue(
  ctx: ValidationContext,
  issue: ConfigIssue,
  probe = true,
): EncodingProblem[] {
  const match = ISSUE_PATH.exec(issue.path);
  const name = match?.[2] === undefined ? undefined : (JSON.parse(match[2]) as string);
  let found: EncodingProblem[] = [];
  let fallback = issue.path;
  let embedsRoutes = false;
  if (match?.[1] === "clusters" && name !== undefined) {
    const cluster = ctx.clusters.get(name);
    if (cluster && probe) found = locateCluster(cluster, match[3] !== undefined);
    if (match[3] !== undefined) fallback = `${clusterPath(name)}.localities`;
  } else if (match?.[1] === "routeConfigurations" && name !== undefined) {
    const routeConfiguration = ctx.routeConfigurations.get(name);
    if (routeConfiguration && probe) found = locateRouteConfiguration(routeConfiguration);
  } else if (match?.[1] === "listeners" && name !== undefined) {
    const listener = ctx.listeners.get(name);
    if (listener && probe) {
      found = locateListener(listener);
      embedsRoutes = listener.filterChains.some(
        (chain) => chain.rdsRouteConfigName === null && chain.inlineRouteConfigName !== null,
      );
    }
  }
  if (found.length > 0) return found;
  if (embedsRoutes) return [];
  return [{ path: fallback, message: issue.message }];
}

const JSON_COLUMN_HINT: Record<string, string> = {
  extra:
    "extra holds the Envoy fields Switchyard does not model, as proto3 JSON of the same message: fix or remove the field it names",
  hcmExtra:
    "hcmExtra holds HttpConnectionManager fields as proto3 JSON: fix or remove the field it names",
  assignmentExtra:
    "assignmentExtra holds ClusterLoadAssignment fields as proto3 JSON: fix or remove the field it names",
};

/** The hint for a located problem: what the stored field holds. */
export function encodingHint(path: string): string {
  const field = /\.(\w+)$/.exec(path)?.[1] ?? "";
  return (
    JSON_COLUMN_HINT[field] ??
    (/^(healthChecks|circuitBreakers|outlierDetection|headers|queryParameters|redirect|directResponse|retryPolicy|httpFilters|networkFilters|accessLog)$/.test(
      field,
    )
      ? `${field} holds proto3 JSON of the Envoy message of the same name: fix the field it names`
      : "fix the value the message names")
  );
}
