/**
 * The HTTP filters a request passes, in the HTTP connection manager's order, with what per-route
 * configuration each gets. Pure.
 *
 * Envoy (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto,
 * Route/VirtualHost/WeightedCluster.ClusterWeight.typed_per_filter_config and
 * "config.route.v3.FilterConfig"; route.proto, RouteConfiguration.typed_per_filter_config): an
 * entry is keyed by the filter's name in http_filters; the most specific entry wins, weighted
 * cluster entry over route over virtual host over route configuration. An entry decides whether the
 * filter runs: a FilterConfig with `disabled: true` turns it off, any other entry turns it on
 * (also a filter the HCM marks `disabled`, which "must be explicitly enabled by setting per filter
 * configuration in the route configuration"). The config handed to the filter is that of the most
 * specific entry that has one (a disabled entry has none). A FilterConfig whose `config` is an
 * empty Any enables the filter without config. The router (terminal) cannot be disabled.
 */

import type { Any } from "@bufbuild/protobuf/wkt";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { FilterConfigSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import type { HttpFilter } from "@switchyard/proto/envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager_pb";
import { RoutingConfigError } from "./request-headers.js";
import type { HeaderOperation, HttpFilterInForce } from "./route-answer.js";

const FILTER_CONFIG_TYPE = "envoy.config.route.v3.FilterConfig";

type Level = HeaderOperation["level"];

/** A level's typed_per_filter_config, most specific level first. */
export interface PerFilterLevel {
  readonly level: Level;
  readonly configs: { readonly [name: string]: Any };
  /** Where the map is, for errors: `routes[2].typed_per_filter_config`. */
  readonly path: string;
}

interface Entry {
  readonly disabled: boolean;
  readonly configType: string | null;
}

function typeNameOf(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
}

/** One typed_per_filter_config entry as Envoy's PerFilterConfigs reads it. */
function readEntry(any: Any, path: string): Entry {
  if (typeNameOf(any.typeUrl) !== FILTER_CONFIG_TYPE) {
    return { disabled: false, configType: typeNameOf(any.typeUrl) };
  }
  const wrapper = anyUnpack(any, FilterConfigSchema);
  if (!wrapper) throw new RoutingConfigError(path, "the FilterConfig cannot be decoded");
  if (wrapper.disabled) return { disabled: true, configType: null };
  if (!wrapper.config) {
    throw new RoutingConfigError(
      path,
      'a FilterConfig without config and not disabled: Envoy refuses it ("Empty route/virtual host per filter configuration")',
    );
  }
  if (wrapper.config.typeUrl === "") return { disabled: false, configType: null };
  return { disabled: false, configType: typeNameOf(wrapper.config.typeUrl) };
}

/** The filters in force for a request routed through `levels` (most specific first; empty with no route). */
export function httpFiltersInForce(
  filters: readonly HttpFilter[],
  levels: readonly PerFilterLevel[],
): HttpFilterInForce[] {
  return filters.map((filter) => {
    const type =
      filter.configType.case === "typedConfig"
        ? typeNameOf(filter.configType.value.typeUrl)
        : filter.configType.case === "configDiscovery"
          ? "config_discovery"
          : "";
    let decidedBy: HttpFilterInForce["decidedBy"] = "filter";
    let enabled = !filter.disabled;
    let perRouteConfig: HttpFilterInForce["perRouteConfig"] = null;
    let decided = false;
    for (const { level, configs, path } of levels) {
      const any = configs[filter.name];
      if (!any) continue;
      const entry = readEntry(any, `${path}[${JSON.stringify(filter.name)}]`);
      if (!decided) {
        decided = true;
        decidedBy = level;
        enabled = !entry.disabled;
      }
      if (perRouteConfig === null && entry.configType !== null) {
        perRouteConfig = { level, type: entry.configType };
      }
    }
    return { name: filter.name, type, enabled, decidedBy, perRouteConfig };
  });
}
