import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type Cluster,
  ClusterSchema,
  DiscoveryType,
  HealthStatus,
  LbPolicy,
  RouteActionKind,
  type RouteConfiguration,
  RouteConfigurationSchema,
  RouteMatchKind,
} from "@switchyard/proto/switchyard/v1/config_pb";

/** Stored objects for the form tests, as the API returns them. */

export function cluster(init: MessageInitShape<typeof ClusterSchema> = {}): Cluster {
  return create(ClusterSchema, {
    name: "payments",
    discoveryType: DiscoveryType.EDS,
    lbPolicy: LbPolicy.ROUND_ROBIN,
    connectTimeoutMs: 5000,
    localities: [
      {
        weight: 1,
        endpoints: [
          { address: "10.0.0.1", port: 8080, healthStatus: HealthStatus.UNKNOWN },
          { address: "10.0.0.2", port: 8080, weight: 3, healthStatus: HealthStatus.UNKNOWN },
        ],
      },
    ],
    ...init,
  });
}

export function routeConfiguration(
  init: MessageInitShape<typeof RouteConfigurationSchema> = {},
): RouteConfiguration {
  return create(RouteConfigurationSchema, {
    name: "ingress",
    virtualHosts: [
      {
        name: "api",
        domains: ["api.example.com", "*.api.example.com"],
        routes: [
          {
            matchKind: RouteMatchKind.PREFIX,
            matchValue: "/v1",
            caseSensitive: true,
            actionKind: RouteActionKind.CLUSTER,
            cluster: "payments",
            timeoutMs: 2000,
          },
        ],
      },
    ],
    ...init,
  });
}
