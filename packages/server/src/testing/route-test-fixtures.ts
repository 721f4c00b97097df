/**
 * The route test gate's unit tests' world: route configuration `edge-routes` through listener
 * `edge`, virtual host `api` on api.example.com sending /v2/ to the cluster named and the rest to
 * api-v1; stored tests of it; and `pins`, two cases that pass when /v2/ goes to api-v2.
 */
import type { ConfigSpec } from "@switchyard/snapshot";
import {
  apiListenerSpec,
  clusterSpec,
  configSpec,
  routeConfigurationSpec,
  routeSpec,
  virtualHostSpec,
} from "@switchyard/snapshot/fixtures";
import type { StoredRouteTest } from "../store/route-tests.js";

export const spec = (v2: string): ConfigSpec =>
  configSpec({
    clusters: ["api-v1", "api-v2"].map((name) => clusterSpec(name)),
    routeConfigurations: [
      routeConfigurationSpec("edge-routes", "api-v1", {
        virtualHosts: [
          virtualHostSpec(
            "api",
            ["api.example.com"],
            [routeSpec(v2, { matchValue: "/v2/" }), routeSpec("api-v1", { matchValue: "/" })],
          ),
        ],
      }),
    ],
    listeners: [apiListenerSpec("edge", "edge-routes")],
  });

export const stored = (
  name: string,
  content: string,
  team: string | null = "checkout",
  knownFailing: readonly string[] = [],
): StoredRouteTest => ({
  name,
  team: team === null ? null : { id: "t1", name: team },
  content,
  listener: "edge",
  routeConfiguration: "",
  knownFailing,
  author: "carol",
  updatedAt: new Date(0),
});

export const pins = `
tests:
- test_name: orders go to v2
  input: { authority: api.example.com, path: /v2/orders, method: GET }
  validate: { cluster_name: api-v2 }
- test_name: the rest goes to v1
  input: { authority: api.example.com, path: /cart, method: POST }
  validate: { cluster_name: api-v1 }
`;
