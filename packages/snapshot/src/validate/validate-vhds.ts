/**
 * On-demand virtual hosts (VHDS): what a route configuration with `vhds` needs to work.
 *
 * - Its virtual hosts' names hold no "/": a VHDS resource is named `<route configuration>/<virtual
 *   host>` and read from the right (Envoy's VHDS page, "Virtual Host Resource Naming
 *   Convention": "a host entry cannot contain slashes while a route configuration name can").
 * - It is loaded over RDS: a listener that embeds it (inlineRouteConfigName) would give Envoy a
 *   static route table with no virtual hosts, which VHDS cannot fill (vhds.cc subscribes from
 *   the RDS subscription only).
 */

import { quotedInput } from "../bounded-text.js";
import type { ValidationContext } from "./validate-context.js";
import { filterChainPath, virtualHostPath } from "./validate-path.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

export function checkVhds({ spec, issues }: ValidationContext): void {
  const onDemand = new Set<string>();
  for (const routeConfiguration of spec.routeConfigurations) {
    if (!routeConfiguration.vhds) continue;
    onDemand.add(routeConfiguration.name);
    for (const virtualHost of routeConfiguration.virtualHosts) {
      if (!virtualHost.name.includes("/")) continue;
      issues.add(
        "vhds-virtual-host-name",
        `${virtualHostPath(routeConfiguration.name, virtualHost.name)}.name`,
        `virtual host ${quote(virtualHost.name)} of route configuration ${quote(routeConfiguration.name)} holds "/", which VHDS names cannot: a proxy asks for "${routeConfiguration.name}/<host>" and the name is read from its last "/"`,
        'rename the virtual host without "/"',
      );
    }
  }
  if (onDemand.size === 0) return;
  for (const listener of spec.listeners) {
    listener.filterChains.forEach((chain, index) => {
      const inline = chain.inlineRouteConfigName;
      if (inline === null || !onDemand.has(inline)) return;
      issues.add(
        "vhds-inline-route-configuration",
        `${filterChainPath(listener.name, index)}.inlineRouteConfigName`,
        `listener ${quote(listener.name)} embeds route configuration ${quote(inline)}, which has on-demand virtual hosts (VHDS): an embedded route configuration cannot request them, so the listener would route nothing`,
        `load it over RDS (rdsRouteConfigName: ${quote(inline)}), or turn off on-demand virtual hosts`,
      );
    });
  }
}
