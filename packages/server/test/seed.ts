import type { PrismaClient } from "@switchyard/db";

/**
 * Stores a proxyless gRPC service the way a user would through the console: an api_listener
 * `service` loading route configuration `service-routes` over RDS, routing everything to the EDS
 * cluster `service-backend`, whose endpoints are `ports` on 127.0.0.1.
 */
export async function seedGrpcService(
  prisma: PrismaClient,
  service: string,
  ports: readonly number[],
): Promise<void> {
  await prisma.cluster.create({
    data: {
      name: `${service}-backend`,
      discoveryType: "EDS",
      lbPolicy: "ROUND_ROBIN",
      http2: true,
      localities: {
        create: [
          {
            position: 0,
            weight: 1,
            endpoints: {
              create: ports.map((port, position) => ({ position, address: "127.0.0.1", port })),
            },
          },
        ],
      },
    },
  });
  await prisma.routeConfiguration.create({
    data: {
      name: `${service}-routes`,
      virtualHosts: {
        create: [
          {
            position: 0,
            name: service,
            domains: ["*"],
            routes: {
              create: [
                {
                  position: 0,
                  matchKind: "PREFIX",
                  matchValue: "",
                  actionKind: "CLUSTER",
                  cluster: `${service}-backend`,
                },
              ],
            },
          },
        ],
      },
    },
  });
  await prisma.listener.create({
    data: {
      name: service,
      apiListener: true,
      filterChains: { create: [{ position: 0, rdsRouteConfigName: `${service}-routes` }] },
    },
  });
}
