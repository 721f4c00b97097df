import { RouteConfigurationView } from "@switchyard/proto/switchyard/v1/config_pb";

/**
 * The Topology page's ListRouteConfigurations request (early-requests.ts starts the same): the
 * TARGETS view, where each virtual host's routes are only the distinct places they send traffic.
 */
export const TOPOLOGY_ROUTES = { view: RouteConfigurationView.TARGETS } as const;
