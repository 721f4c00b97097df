/**
 * The documented normalizations of imported resources: the numbered list at the top of
 * envoy-import.ts, each applied here to a resource's canonical JSON with a note saying what
 * changed, so that importing and then exporting gives back exactly the normalized resources.
 */

import { newestSchema } from "@switchyard/proto";
import { HttpConnectionManagerSchema } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import {
  ADS_CONFIG_SOURCE,
  adsConfigSource,
  configSourceExtra,
  HCM_FILTER_NAME,
  isRouterFilter,
  ON_DEMAND_FILTER_NAME,
  ROUTER_FILTER_NAME,
  withOnDemandFilter,
} from "../envoy/envoy-json.js";
import { envoyFromJson, envoyToJson } from "../envoy/envoy-proto-json.js";
import type { JsonObject, JsonValue } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { ImportSeverity } from "./envoy-import-issue.js";
import {
  asArray,
  asObject,
  asString,
  compact,
  isObject,
  jsonEqual,
  type Segment,
} from "./envoy-import-json.js";
import {
  type DecodedResource,
  resourceJson,
  resourceSchema,
  toResource,
} from "./envoy-import-resource.js";
import { type InlineCertificate, moveInlineCertificates } from "./envoy-import-secrets.js";

export const TYPE_PREFIX = "type.googleapis.com/";
export const HCM_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const ROUTER_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.http.router.v3.Router`;
export const DEFAULT_ROUTER: JsonObject = {
  name: ROUTER_FILTER_NAME,
  typedConfig: { "@type": ROUTER_TYPE },
};
export const ADS: JsonObject = ADS_CONFIG_SOURCE;
const ENVOY_DEFAULT_CONNECT_TIMEOUT = "5s";

export interface Note {
  readonly at: readonly Segment[];
  readonly severity: ImportSeverity;
  readonly message: string;
}

/** A resource with its canonical JSON after normalization. */
export interface Normalized {
  readonly resource: DecodedResource;
  readonly json: JsonObject;
  readonly notes: readonly Note[];
  /** Inline certificates moved to SDS secrets (normalization 11), keys still in the clear. */
  readonly certificates?: readonly InlineCertificate[];
}

function withLocalities(assignment: JsonObject, at: readonly Segment[], notes: Note[]): JsonObject {
  const endpoints = asArray(assignment.endpoints);
  if (!endpoints.some((locality) => asObject(locality).locality === undefined)) return assignment;
  notes.push({
    at: [...at, "endpoints"],
    severity: "info",
    message:
      "a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
  });
  return {
    ...assignment,
    endpoints: endpoints.map((locality) => ({ locality: {}, ...asObject(locality) })),
  };
}

function normalizeCluster(json: JsonObject, notes: Note[]): JsonObject {
  let out = json;
  if (out.connectTimeout === undefined) {
    out = { ...out, connectTimeout: ENVOY_DEFAULT_CONNECT_TIMEOUT };
    notes.push({
      at: ["connectTimeout"],
      severity: "info",
      message: "connect_timeout is not set: stored as Envoy's default, 5s",
    });
  }
  if (out.type === undefined && out.clusterType === undefined) {
    out = { ...out, type: "STATIC" };
    notes.push({
      at: ["type"],
      severity: "info",
      message: "type is not set: stored as Envoy's default, STATIC",
    });
  }
  const type = out.type;
  if (type === "EDS") {
    const eds = asObject(out.edsClusterConfig);
    const served = adsConfigSource(configSourceExtra(eds.edsConfig));
    if (!jsonEqual(eds.edsConfig, served)) {
      out = { ...out, edsClusterConfig: { ...eds, edsConfig: served } };
      notes.push({
        at: ["edsClusterConfig", "edsConfig"],
        severity: "info",
        message:
          "Switchyard serves this cluster's endpoints: eds_config becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
      });
    }
  } else if (type === "STATIC" || type === "STRICT_DNS" || type === "LOGICAL_DNS") {
    if (out.loadAssignment === undefined) {
      out = { ...out, loadAssignment: compact({ clusterName: out.name }) };
      notes.push({
        at: ["loadAssignment"],
        severity: "info",
        message: "no load_assignment: stored with no endpoints",
      });
    }
  } else if (isEmptyAssignmentOf(out)) {
    // ORIGINAL_DST and extension clusters find their hosts themselves (envoy-json.ts,
    // inlineAssignment): an assignment of no endpoints under their own name says nothing.
    const { loadAssignment: _, ...rest } = out;
    out = rest;
    notes.push({
      at: ["loadAssignment"],
      severity: "info",
      message:
        "the load_assignment has no endpoints and names the cluster itself: it is left out, as the cluster finds its hosts itself",
    });
  }
  // Normalization 4 holds for every assignment a cluster carries inline, whatever its type.
  if (out.loadAssignment !== undefined && type !== "EDS") {
    out = {
      ...out,
      loadAssignment: withLocalities(asObject(out.loadAssignment), ["loadAssignment"], notes),
    };
  }
  return out;
}

/** A load_assignment of no endpoints and no settings, named as its cluster. */
function isEmptyAssignmentOf(cluster: JsonObject): boolean {
  const assignment = cluster.loadAssignment;
  if (!isObject(assignment)) return false;
  const { clusterName, endpoints, ...rest } = assignment;
  return (
    clusterName === cluster.name &&
    asArray(endpoints).length === 0 &&
    Object.keys(rest).length === 0
  );
}

function normalizeRouteConfiguration(
  given: JsonObject,
  at: readonly Segment[],
  notes: Note[],
): JsonObject {
  const json = withAdsVhds(given, at, notes);
  if (!Array.isArray(json.virtualHosts)) return json;
  return {
    ...json,
    virtualHosts: json.virtualHosts.map((virtualHost) => {
      const host = asObject(virtualHost);
      if (!Array.isArray(host.routes)) return host;
      return {
        ...host,
        routes: host.routes.map((route) => {
          const { match } = asObject(route);
          if (!isObject(match) || match.caseSensitive !== true) return route;
          const { caseSensitive: _, ...rest } = match;
          return { ...asObject(route), match: rest };
        }),
      };
    }),
  };
}

/** Normalization 2 for on-demand virtual hosts: Switchyard serves them, over ADS. */
function withAdsVhds(json: JsonObject, at: readonly Segment[], notes: Note[]): JsonObject {
  if (!isObject(json.vhds)) return json;
  const served = adsConfigSource(configSourceExtra(json.vhds.configSource));
  if (jsonEqual(json.vhds.configSource, served)) return json;
  notes.push({
    at: [...at, "vhds", "configSource"],
    severity: "info",
    message:
      "Switchyard serves these virtual hosts: vhds.config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
  });
  return { ...json, vhds: { ...json.vhds, configSource: served } };
}

function normalizeHcm(hcm: JsonObject, at: readonly Segment[], notes: Note[]): JsonObject {
  let out = hcm;
  const served = isObject(out.rds)
    ? adsConfigSource(configSourceExtra(out.rds.configSource))
    : undefined;
  if (isObject(out.rds) && !jsonEqual(out.rds.configSource, served)) {
    out = { ...out, rds: { ...out.rds, configSource: served ?? ADS } };
    notes.push({
      at: [...at, "rds", "configSource"],
      severity: "info",
      message:
        "Switchyard serves this route configuration: config_source becomes { ads: {}, resource_api_version: V3 } (its initial_fetch_timeout and authorities kept)",
    });
  }
  const filters = asArray(out.httpFilters);
  if (!filters.some(isRouterFilter)) {
    out = { ...out, httpFilters: [...filters, DEFAULT_ROUTER] };
    notes.push({
      at: [...at, "httpFilters"],
      severity: "info",
      message: `no router filter: ${ROUTER_FILTER_NAME} is appended`,
    });
  }
  if (isObject(out.routeConfig)) {
    out = {
      ...out,
      routeConfig: normalizeRouteConfiguration(out.routeConfig, [...at, "routeConfig"], notes),
    };
  }
  return out;
}

/** A listener's filter chains, each mapped with its path: `filter_chains[i]`, then the default one. */
function mapChains(
  listener: JsonObject,
  map: (chain: JsonObject, at: readonly Segment[]) => JsonObject,
): JsonObject {
  let out = listener;
  if (Array.isArray(listener.filterChains)) {
    out = {
      ...out,
      filterChains: listener.filterChains.map((chain, c) =>
        map(asObject(chain), ["filterChains", c]),
      ),
    };
  }
  if (isObject(listener.defaultFilterChain)) {
    out = { ...out, defaultFilterChain: map(listener.defaultFilterChain, ["defaultFilterChain"]) };
  }
  return out;
}

/**
 * Where a listener holds HTTP connection managers: the api_listener, or each filter chain's
 * filters (its default_filter_chain's included).
 */
function mapHcms(
  listener: JsonObject,
  map: (hcm: JsonObject, at: readonly Segment[], index: number) => JsonObject,
): JsonObject {
  let index = 0;
  const apiListener = asObject(listener.apiListener);
  if (isObject(apiListener.apiListener) && apiListener.apiListener["@type"] === HCM_TYPE) {
    return {
      ...listener,
      apiListener: {
        ...apiListener,
        apiListener: map(apiListener.apiListener, ["apiListener", "apiListener"], 0),
      },
    };
  }
  return mapChains(listener, (chain, at) => {
    const filters = chain.filters;
    if (!Array.isArray(filters)) return chain;
    return {
      ...chain,
      filters: filters.map((filter, f) => {
        const typedConfig = asObject(filter).typedConfig;
        if (!isObject(typedConfig) || typedConfig["@type"] !== HCM_TYPE) return filter;
        return {
          ...asObject(filter),
          typedConfig: map(typedConfig, [...at, "filters", f, "typedConfig"], index++),
        };
      }),
    };
  });
}

/**
 * Normalization 13, for the one extension the model holds: an HTTP connection manager written as
 * a TypedStruct (which Envoy converts to the type it names) is read as that message, so that it is
 * the chain's modelled part. One that does not convert is left as written, for validation to say
 * why.
 */
function typedStructHcm(typedConfig: JsonValue | undefined): JsonObject | undefined {
  const config = asObject(typedConfig);
  const type = config["@type"];
  if (typeof type !== "string" || !TYPED_STRUCT_TYPE_URLS.has(type) || config.typeUrl !== HCM_TYPE)
    return undefined;
  try {
    const schema = newestSchema(HttpConnectionManagerSchema);
    const message = envoyFromJson(schema, (config.value ?? {}) as JsonValue);
    return { "@type": HCM_TYPE, ...asObject(envoyToJson(schema, message)) };
  } catch {
    return undefined;
  }
}

const TYPED_STRUCT_TYPE_URLS = new Set([
  `${TYPE_PREFIX}xds.type.v3.TypedStruct`,
  `${TYPE_PREFIX}udpa.type.v1.TypedStruct`,
]);

function normalizeListener(json: JsonObject, notes: Note[]): JsonObject {
  const named = mapChains(json, (chain, at) => {
    const filters = chain.filters;
    if (!Array.isArray(filters)) return chain;
    return {
      ...chain,
      filters: filters.map((filter, f) => {
        const converted = typedStructHcm(asObject(filter).typedConfig);
        if (converted) {
          notes.push({
            at: [...at, "filters", f, "typedConfig"],
            severity: "info",
            message:
              "the HTTP connection manager written as a TypedStruct is read as the message it names, as Envoy converts it",
          });
          filter = { ...asObject(filter), typedConfig: converted };
        }
        const object = asObject(filter);
        if (asObject(object.typedConfig)["@type"] !== HCM_TYPE || object.name === HCM_FILTER_NAME)
          return filter;
        notes.push({
          at: [...at, "filters", f, "name"],
          severity: "info",
          message: `the HTTP connection manager filter is named ${HCM_FILTER_NAME}`,
        });
        return { ...object, name: HCM_FILTER_NAME };
      }),
    };
  });
  return mapHcms(named, (hcm, at) => normalizeHcm(hcm, at, notes));
}

function inlineCount(listener: JsonObject): number {
  let count = 0;
  mapHcms(listener, (hcm) => {
    if (isObject(hcm.routeConfig)) count++;
    return hcm;
  });
  return count;
}

function uniqueName(base: string, taken: ReadonlyMap<string, JsonObject>): string {
  if (!taken.has(base)) return base;
  let i = 2;
  while (taken.has(`${base}-${i}`)) i++;
  return `${base}-${i}`;
}

/**
 * Normalization 7: every inline route configuration gets a name no route configuration with other
 * content uses. Standalone route configurations keep theirs.
 */
function nameInlineRoutes(items: readonly Normalized[]): Normalized[] {
  const taken = new Map<string, JsonObject>();
  for (const item of items) {
    if (
      item.resource.typeUrl === TypeUrl.RouteConfiguration &&
      typeof item.json.name === "string"
    ) {
      if (!taken.has(item.json.name)) taken.set(item.json.name, item.json);
    }
  }
  return items.map((item) => {
    if (item.resource.typeUrl !== TypeUrl.Listener) return item;
    const notes = [...item.notes];
    const several = inlineCount(item.json) > 1;
    const listenerName = asString(item.json.name);
    const json = mapHcms(item.json, (hcm, at, index) => {
      if (!isObject(hcm.routeConfig)) return hcm;
      const routes = hcm.routeConfig;
      const name = asString(routes.name);
      const holder = taken.get(name);
      if (name !== "" && (holder === undefined || jsonEqual(holder, routes))) {
        taken.set(name, routes);
        return hcm;
      }
      const derived = uniqueName(`${listenerName}-routes${several ? `-${index}` : ""}`, taken);
      const renamed = { ...routes, name: derived };
      taken.set(derived, renamed);
      notes.push({
        at: [...at, "routeConfig", "name"],
        severity: name === "" ? "info" : "warning",
        message:
          name === ""
            ? `the inline route_config has no name: stored as route configuration "${derived}"`
            : `another route configuration named "${name}" has different content: this inline one is stored as "${derived}"`,
      });
      return { ...hcm, routeConfig: renamed };
    });
    return { ...item, json, notes };
  });
}

/**
 * Normalization 9: a runtime layer's nested Struct keys are joined with "." into flat keys, as
 * Envoy's runtime joins them (`{fault: {http: {abort_percent: 1}}}` is the key
 * `fault.http.abort_percent`). A FractionalPercent value (`{numerator, denominator}`) and an empty
 * object are runtime values of their own, not nesting: they are left as they are (and refused
 * when mapped: the model holds strings, numbers and booleans).
 */
function flattenRuntime(json: JsonObject, notes: Note[]): JsonObject {
  const flat: Record<string, JsonValue> = {};
  let nested = false;
  const walk = (key: string, value: JsonValue) => {
    if (isObject(value) && Object.keys(value).length > 0 && !isFractionalPercent(value)) {
      nested = true;
      for (const [inner, innerValue] of Object.entries(value)) walk(`${key}.${inner}`, innerValue);
    } else flat[key] = value;
  };
  for (const [key, value] of Object.entries(asObject(json.layer))) walk(key, value);
  if (!nested) return json;
  notes.push({
    at: ["layer"],
    severity: "info",
    message: 'nested runtime keys are stored flat, joined with "." as Envoy joins them',
  });
  return { ...json, layer: flat };
}

/** Normalization 9 too: a Runtime without `layer` has an empty one (the model holds its entries). */
function withLayer(json: JsonObject, notes: Note[]): JsonObject {
  if (json.layer !== undefined) return json;
  notes.push({
    at: ["layer"],
    severity: "info",
    message: "no layer: stored as an empty one",
  });
  return { ...json, layer: {} };
}

function isFractionalPercent(value: JsonObject): boolean {
  return "numerator" in value || "denominator" in value;
}

function normalizeOne(resource: DecodedResource): Normalized {
  const notes: Note[] = [];
  const json = resourceJson(resource);
  switch (resource.typeUrl) {
    case TypeUrl.Cluster:
      return { resource, json: normalizeCluster(json, notes), notes };
    case TypeUrl.ClusterLoadAssignment:
      return { resource, json: withLocalities(json, [], notes), notes };
    case TypeUrl.Listener:
      return { resource, json: normalizeListener(json, notes), notes };
    case TypeUrl.RouteConfiguration:
      return { resource, json: normalizeRouteConfiguration(json, [], notes), notes };
    case TypeUrl.Runtime:
      return { resource, json: flattenRuntime(withLayer(json, notes), notes), notes };
    case TypeUrl.Secret:
      return { resource, json, notes };
  }
}

/**
 * The name a listener without one is stored under, from its address (Istio's `<ip>_<port>`
 * convention, `_udp` added for a UDP socket): Envoy names such a listener itself, with a random
 * UUID, which would not be stable from one import to the next.
 */
function listenerNameFromAddress(json: JsonObject): string | undefined {
  const address = asObject(json.address);
  const socket = asObject(address.socketAddress);
  if (isObject(address.socketAddress)) {
    const port = socket.portValue ?? socket.namedPort ?? 0;
    const udp = socket.protocol === "UDP" ? "_udp" : "";
    return `${asString(socket.address) || "0.0.0.0"}_${String(port)}${udp}`;
  }
  if (isObject(address.pipe)) return `pipe_${asString(address.pipe.path)}`;
  if (isObject(address.envoyInternalAddress)) {
    return `internal_${asString(address.envoyInternalAddress.serverListenerName)}`;
  }
  return undefined;
}

/** Normalization 10: every listener has a name; one without gets one from its address. */
function nameListeners(items: readonly Normalized[]): Normalized[] {
  const taken = new Set(
    items
      .filter((item) => item.resource.typeUrl === TypeUrl.Listener)
      .map((item) => asString(item.json.name))
      .filter((name) => name !== ""),
  );
  return items.map((item, index) => {
    if (item.resource.typeUrl !== TypeUrl.Listener || asString(item.json.name) !== "") return item;
    const base = listenerNameFromAddress(item.json) ?? `listener-${index}`;
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}-${i}`;
    taken.add(name);
    return {
      ...item,
      json: { name, ...item.json },
      notes: [
        ...item.notes,
        {
          at: ["name"],
          severity: "info",
          message: `the listener has no name (Envoy would give it a random one): stored as "${name}", from its address`,
        },
      ],
    };
  });
}

/**
 * Normalization 6, across resources: a chain that loads over RDS a route configuration of the
 * document with on-demand virtual hosts (VHDS) gets Envoy's on_demand filter before its router,
 * as the compiler gives it (envoy-json.ts, httpFiltersJson): without it Envoy never asks for a
 * virtual host it lacks.
 */
function addOnDemandFilters(items: readonly Normalized[]): Normalized[] {
  const onDemand = new Set(
    items
      .filter(
        (item) => item.resource.typeUrl === TypeUrl.RouteConfiguration && isObject(item.json.vhds),
      )
      .map((item) => asString(item.json.name)),
  );
  if (onDemand.size === 0) return [...items];
  return items.map((item) => {
    if (item.resource.typeUrl !== TypeUrl.Listener) return item;
    const notes: Note[] = [];
    const json = mapHcms(item.json, (hcm, at) => {
      if (!isObject(hcm.rds) || !onDemand.has(asString(hcm.rds.routeConfigName))) return hcm;
      const filters = asArray(hcm.httpFilters);
      const added = withOnDemandFilter(filters);
      if (added === filters) return hcm;
      notes.push({
        at: [...at, "httpFilters"],
        severity: "info",
        message: `route configuration "${asString(hcm.rds.routeConfigName)}" has on-demand virtual hosts: ${ON_DEMAND_FILTER_NAME} is added before the router (Envoy asks for a virtual host only through it)`,
      });
      return { ...hcm, httpFilters: added };
    });
    return notes.length === 0 ? item : { ...item, json, notes: [...item.notes, ...notes] };
  });
}

/** Normalization 11: inline certificates with inline keys become SDS secrets (envoy-import-secrets.ts). */
function moveCertificates(items: readonly Normalized[]): Normalized[] {
  // The document's own Secret resources keep their names: a moved certificate takes another.
  const taken = new Set<string>(
    items
      .filter((item) => item.resource.typeUrl === TypeUrl.Secret)
      .map((item) => asString(item.json.name)),
  );
  return items.map((item) => {
    const typeUrl = item.resource.typeUrl;
    if (typeUrl !== TypeUrl.Listener && typeUrl !== TypeUrl.Cluster) return item;
    const moved = moveInlineCertificates(
      typeUrl.slice(typeUrl.lastIndexOf("/") + 1),
      asString(item.json.name),
      item.json,
      taken,
    );
    if (moved.notes.length === 0) return item;
    return {
      ...item,
      json: moved.json,
      notes: [...item.notes, ...moved.notes],
      certificates: moved.certificates,
    };
  });
}

export function normalizeAll(resources: readonly DecodedResource[]): Normalized[] {
  return nameInlineRoutes(
    moveCertificates(addOnDemandFilters(nameListeners(resources.map(normalizeOne)))),
  );
}

/** A normalized resource decoded again with the generated types. */
export function decodeNormalized(item: Normalized): DecodedResource {
  const message = envoyFromJson(resourceSchema(item.resource.typeUrl), item.json);
  return { ...item.resource, ...toResource(item.resource.typeUrl, message) };
}
