/**
 * The two real proxyless gRPC xDS clients every end-to-end routing test runs with: the Node
 * client (@grpc/grpc-js-xds) and gRPC C-core (Debian's python3-grpcio, the core under gRPC C++,
 * Python, Ruby and PHP). Each is a table row: its name, how to connect it, and how it words what
 * the tests read of it.
 */
import {
  createXdsEchoClient,
  startCcoreEchoClient,
  type XdsClientOptions,
  type XdsEchoClient,
} from "@switchyard/testing";

/**
 * A way a client's routing departs from Envoy's documented rules (route_components.proto) or
 * gRFC A28, found and pinned by route-tester-clients.e2e.spec.ts (which expects of the client
 * what the route tester answers on the table as that client reads it):
 * - `wildcard-domain-matches-empty`: a wildcard domain matches at least one character ("*shop"
 *   and "shop*" do not match "shop"); the client lets it match none.
 * - `domain-match-case-sensitive`: domains match the host case-insensitively ("SHOP", "*HOP"
 *   match "shop"); the client compares case-sensitively.
 * - `present-match-false-as-true`: HeaderMatcher.present_match false should match an absent
 *   header; the client checks presence whatever the value.
 * - `invert-matches-absent-header`: Envoy matches no absent header, inverted or not (but for
 *   present_match); the client fails the matcher and then inverts it, so an inverted matcher
 *   takes an RPC without that header.
 * - `no-route-fails-internal`: an RPC no route matches fails UNAVAILABLE (gRFC A28, "If no match
 *   can be found, the RPC will fail with code UNAVAILABLE"); the client fails it INTERNAL
 *   ("xds cluster manager picker: unknown cluster \"\"").
 * - `no-virtual-host-rpcs-wait`: with no virtual host for its target, a channel that has no
 *   configuration yet fails its RPCs UNAVAILABLE (gRFC A28: the resolver returns an error to
 *   the channel); the client holds them until their deadline.
 */
export type RoutingDeviation =
  | "wildcard-domain-matches-empty"
  | "domain-match-case-sensitive"
  | "present-match-false-as-true"
  | "invert-matches-absent-header"
  | "no-route-fails-internal"
  | "no-virtual-host-rpcs-wait";

export interface RealClient {
  /** Connects a client dialing `xds:///target` (or xds://AUTHORITY/target). */
  readonly connect: (target: string, options: XdsClientOptions) => Promise<XdsEchoClient>;
  /** Its NACK of a LEAST_REQUEST cluster, which neither supports. */
  readonly leastRequestNack: RegExp;
  /**
   * Whether an open channel applies a change of the listener's HTTP filters (a fault filter
   * added or lifted). @grpc/grpc-js-xds 1.14.1 accepts the update (ACK) but keeps running the
   * filters its channel started with: only a client connecting after the publish runs the new
   * ones (real-clients.e2e.spec.ts shows both).
   */
  readonly appliesFilterChanges: boolean;
  /** Where its routing departs from Envoy's (the route tester answers as Envoy does). */
  readonly routingDeviations: readonly RoutingDeviation[];
}

/** `describe.each(REAL_CLIENTS)("... (%s)", (_name, client) => ...)`. */
export const REAL_CLIENTS: ReadonlyArray<readonly [string, RealClient]> = [
  [
    "@grpc/grpc-js-xds",
    {
      connect: async (target, options) => createXdsEchoClient(target, options),
      leastRequestNack: /unsupported lb_policy: LEAST_REQUEST/,
      appliesFilterChanges: false,
      routingDeviations: [
        "wildcard-domain-matches-empty",
        "domain-match-case-sensitive",
        "present-match-false-as-true",
        "invert-matches-absent-header",
        "no-virtual-host-rpcs-wait",
      ],
    },
  ],
  [
    "gRPC C-core",
    {
      connect: startCcoreEchoClient,
      leastRequestNack: /field:lb_policy error:LB policy is not supported/,
      appliesFilterChanges: true,
      routingDeviations: ["no-route-fails-internal"],
    },
  ],
];
