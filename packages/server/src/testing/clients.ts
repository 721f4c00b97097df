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
}

/** `describe.each(REAL_CLIENTS)("... (%s)", (_name, client) => ...)`. */
export const REAL_CLIENTS: ReadonlyArray<readonly [string, RealClient]> = [
  [
    "@grpc/grpc-js-xds",
    {
      connect: async (target, options) => createXdsEchoClient(target, options),
      leastRequestNack: /unsupported lb_policy: LEAST_REQUEST/,
      appliesFilterChanges: false,
    },
  ],
  [
    "gRPC C-core",
    {
      connect: startCcoreEchoClient,
      leastRequestNack: /field:lb_policy error:LB policy is not supported/,
      appliesFilterChanges: true,
    },
  ],
];
