"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";

/**
 * What a request (or a route test's cases) can go through, as select options: every listener
 * ("listener:NAME") and every route configuration ("route-configuration:NAME"), after an option
 * for none labelled `noneLabel`.
 */
export function useThroughOptions(noneLabel: string): { value: string; label: string }[] {
  const listeners = useQuery(ConfigService.method.listListeners, {});
  const routeConfigs = useQuery(ConfigService.method.listRouteConfigurations, {});
  return [
    { value: "", label: noneLabel },
    ...(listeners.data?.listeners ?? []).map((l) => ({
      value: `listener:${l.name}`,
      label: `Listener ${l.name}`,
    })),
    ...(routeConfigs.data?.routeConfigurations ?? []).map((rc) => ({
      value: `route-configuration:${rc.name}`,
      label: `Route configuration ${rc.name}`,
    })),
  ];
}
