/**
 * The config of the fleet benchmarks and the change each round publishes, shared by the real
 * server (changed through the API) and the replay floor (compiled ahead of time), so that both
 * send the same bytes.
 */
import type { ConfigSpec } from "@switchyard/snapshot";

/** The route configuration a one-route change touches, and the route in it. */
export const CHANGED_ROUTE_CONFIGURATION = "routes-0";
export const CHANGED_ROUTE = "route-0";

/** The match of the changed route in round `round` (1, 2, ...): a prefix no other route has. */
export const changedMatch = (round: number): string => `/api/0/round-${round}/`;

/** `spec` after round `round`'s one-route change. */
export function withRouteChange(spec: ConfigSpec, round: number): ConfigSpec {
  return {
    ...spec,
    routeConfigurations: spec.routeConfigurations.map((rc) =>
      rc.name !== CHANGED_ROUTE_CONFIGURATION
        ? rc
        : {
            ...rc,
            virtualHosts: rc.virtualHosts.map((vh) => ({
              ...vh,
              routes: vh.routes.map((route) =>
                route.name === CHANGED_ROUTE
                  ? { ...route, matchValue: changedMatch(round) }
                  : route,
              ),
            })),
          },
    ),
  };
}
