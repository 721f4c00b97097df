import * as grpc from "@grpc/grpc-js";
import * as grpcXds from "@grpc/grpc-js-xds";
import { ECHO_METHOD } from "./echo-backend.js";

let registered = false;

export interface XdsClientOptions {
  /** The Switchyard xDS server, e.g. "127.0.0.1:18000". */
  readonly server: string;
  readonly nodeId: string;
  readonly nodeCluster?: string;
  readonly metadata?: Record<string, string>;
  /** A complete bootstrap to use instead of the one built from the fields above. */
  readonly bootstrap?: object;
  /**
   * Dial `xds://AUTHORITY/target` instead of `xds:///target`: the listener is then named by that
   * authority's client_listener_resource_name_template (gRPC federation, gRFC A47).
   */
  readonly targetAuthority?: string;
  /**
   * Name every resource by xdstp:// names under this authority, served by the same server
   * (gRFC A47): the bootstrap's `authorities` and default listener name template.
   */
  readonly xdstpAuthority?: string;
}

/** The gRPC xDS bootstrap (GRPC_XDS_BOOTSTRAP_CONFIG format) pointing at a Switchyard server. */
export function grpcBootstrap(options: XdsClientOptions): object {
  return {
    xds_servers: [
      {
        server_uri: options.server,
        channel_creds: [{ type: "insecure" }],
        server_features: ["xds_v3"],
      },
    ],
    // @grpc/grpc-js-xds (1.14) rejects a bootstrap whose node has no `locality` ("locality field
    // missing in node element").
    node: {
      id: options.nodeId,
      cluster: options.nodeCluster ?? "",
      locality: {},
      metadata: options.metadata ?? {},
    },
    ...(options.xdstpAuthority === undefined
      ? {}
      : {
          authorities: { [options.xdstpAuthority]: {} },
          client_default_listener_resource_name_template: `xdstp://${options.xdstpAuthority}/envoy.config.listener.v3.Listener/%s`,
        }),
  };
}

/** What one RPC sends beyond the echo call's defaults. */
export interface EchoCallOptions {
  /** The method path, "/package.Service/Method"; ECHO_METHOD unless given. */
  readonly method?: string;
  /**
   * The RPC's metadata, which an xDS route sees as request headers (gRFC A28): lower-case ASCII
   * keys not ending in "-bin", ASCII values.
   */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface XdsEchoClient {
  /**
   * Sends one RPC through the xDS-resolved route (ECHO_METHOD without metadata unless `options`
   * say otherwise); resolves with the name of the backend that answered. The deadline defaults to
   * CALL_DEADLINE_MS.
   */
  call(deadlineMs?: number, options?: EchoCallOptions): Promise<string>;
  close(): void;
}

/**
 * A real proxyless gRPC client (`@grpc/grpc-js-xds`) dialing `xds:///target` (or
 * `xds://AUTHORITY/target`). Each client gets its
 * own bootstrap through the channel option, so one test process can use several servers.
 */
export function createXdsEchoClient(target: string, options: XdsClientOptions): XdsEchoClient {
  if (!registered) {
    grpcXds.register();
    registered = true;
  }
  const uri = `xds://${options.targetAuthority ?? ""}/${target}`;
  const client = new grpc.Client(uri, grpc.credentials.createInsecure(), {
    "grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config": JSON.stringify(
      options.bootstrap ?? grpcBootstrap(options),
    ),
  });
  return {
    call: (deadlineMs = CALL_DEADLINE_MS, callOptions = {}) =>
      new Promise((resolve, reject) => {
        const metadata = new grpc.Metadata();
        for (const [key, value] of Object.entries(callOptions.metadata ?? {})) {
          metadata.set(key, value);
        }
        client.makeUnaryRequest(
          callOptions.method ?? ECHO_METHOD,
          (value: Buffer) => value,
          (value: Buffer) => value,
          Buffer.alloc(0),
          metadata,
          { deadline: Date.now() + deadlineMs },
          (error, response) => (error ? reject(error) : resolve(response?.toString() ?? "")),
        );
      }),
    close: () => client.close(),
  };
}

/**
 * A call's deadline unless a test gives one: generous, as a call the client gives up on is an
 * error in the load it reports (LRS), and the tests share a slow host's two cores with their
 * servers. A call still waiting for its route proceeds as soon as it comes, whatever the deadline.
 */
export const CALL_DEADLINE_MS = 5_000;

/** Calls until one RPC succeeds or `timeoutMs` passes; returns the answering backend. */
export async function callUntilReady(client: XdsEchoClient, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      return await client.call(Math.min(CALL_DEADLINE_MS, Math.max(100, deadline - Date.now())));
    } catch (error) {
      last = error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`no RPC succeeded within ${timeoutMs} ms`, { cause: last });
}
