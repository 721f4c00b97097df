/**
 * What reading an xDS request costs when it repeats Envoy's Node: Envoy sends its Node, with
 * every extension it was built with, in every request of a stream unless its bootstrap sets
 * set_node_on_first_message_only; the server reads it from a stream's first request only and
 * skips it, undecoded, in the others (grpc-streams.ts `firstRequestOnly`). Measured against the
 * floor of the same request without a node, in the same run.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { DiscoveryRequestSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { withoutFields } from "@switchyard/xds";
import { type Figure, median } from "./config.bench.js";

/** Extensions an Envoy 1.3x build lists in its Node: ~190 (`envoy --version`'s build lists). */
const EXTENSIONS = 190;
const NODE_FIELD = new Set([DiscoveryRequestSchema.field.node.number]);

/** An ACK of a route configuration update as Envoy sends it, with its Node. */
function envoyAck(withNode: boolean): Uint8Array {
  return toBinary(
    DiscoveryRequestSchema,
    create(DiscoveryRequestSchema, {
      versionInfo: "5f0c6e1b2a9d4c37",
      typeUrl: "type.googleapis.com/envoy.config.route.v3.RouteConfiguration",
      responseNonce: "1842",
      resourceNames: Array.from({ length: 10 }, (_, i) => `routes-${i}`),
      ...(withNode
        ? {
            node: {
              id: "sidecar~10.12.3.4~checkout-7d9f8b6c5-x2k4q.shop~shop.svc.cluster.local",
              cluster: "checkout.shop",
              userAgentName: "envoy",
              userAgentVersionType: {
                case: "userAgentBuildVersion",
                value: { version: { majorNumber: 1, minorNumber: 31, patch: 2 } },
              },
              locality: { region: "eu-west-1", zone: "eu-west-1a" },
              clientFeatures: [
                "envoy.config.require-any-fields-contain-struct",
                "envoy.lb.does_not_support_overprovisioning",
                "fmt.json",
                "envoy.lrs.supports_send_all_clusters",
                "xds.config.resource-in-sotw",
              ],
              extensions: Array.from({ length: EXTENSIONS }, (_, i) => ({
                name: `envoy.filters.http.extension_number_${i}`,
                category: `envoy.filters.category_${i % 40}`,
                typeUrls: [`type.googleapis.com/envoy.extensions.filters.http.ext${i}.v3.Config`],
              })),
            },
          }
        : {}),
    }),
  );
}

/** Median µs per call of `read` over `rounds` rounds of 2,000 calls. */
function perCall(read: () => unknown, rounds = 7): number {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (let i = 0; i < 2_000; i++) read();
    times.push(((performance.now() - start) * 1000) / 2_000);
  }
  return median(times);
}

export function requestParseFigures(): Figure[] {
  const withNode = envoyAck(true);
  const bare = envoyAck(false);
  const floor = perCall(() => fromBinary(DiscoveryRequestSchema, bare));
  const skipped = perCall(() =>
    fromBinary(DiscoveryRequestSchema, withoutFields(withNode, NODE_FIELD)),
  );
  const decoded = perCall(() => fromBinary(DiscoveryRequestSchema, withNode));
  return [
    {
      name: `a later xDS request repeating Envoy's Node (${(withNode.length / 1024).toFixed(0)} KiB, ${EXTENSIONS} extensions): read in`,
      value: skipped,
      unit: "µs",
      note: `floor (the request without a node, ${bare.length} B) ${floor.toFixed(1)} µs, ×${(skipped / floor).toFixed(1)}; decoding the Node too: ${decoded.toFixed(0)} µs`,
    },
  ];
}
