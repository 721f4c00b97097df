import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { type ConnectRouter, createContextValues } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { AggregatedDiscoveryService } from "@switchyard/proto/envoy/service/discovery/v3/ads_pb";
import type { XdsCallbacks } from "./callbacks.js";
import { kRemoteAddress } from "./context-keys.js";
import type { ConfigWatcher } from "./snapshot-cache.js";
import { serveSotwStream } from "./sotw-transport.js";

export interface XdsServerOptions {
  readonly watcher: ConfigWatcher;
  readonly callbacks?: XdsCallbacks;
  /** Identifies this replica in DiscoveryResponse.control_plane. */
  readonly controlPlaneId: string;
}

export interface XdsServer {
  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(port: number, host: string): Promise<number>;
  /** Closes every open stream and the listening socket. */
  close(): Promise<void>;
}

function xdsRoutes(options: XdsServerOptions) {
  const callbacks = options.callbacks ?? {};
  return (router: ConnectRouter) => {
    router.service(AggregatedDiscoveryService, {
      streamAggregatedResources: (requests, context) =>
        serveSotwStream(requests, context, {
          watcher: options.watcher,
          callbacks,
          variant: "ads-sotw",
          controlPlaneId: options.controlPlaneId,
        }),
    });
  };
}

/**
 * The xDS gRPC server: plaintext HTTP/2 (h2c) serving the discovery services over Connect's gRPC
 * protocol. `close` destroys open sessions, since an HTTP/2 server never finishes closing while a
 * stream is open (shared/FACTS.md).
 */
export function createXdsServer(options: XdsServerOptions): XdsServer {
  const handler = connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    routes: xdsRoutes(options),
    contextValues: (request) =>
      createContextValues().set(
        kRemoteAddress,
        `${request.socket.remoteAddress ?? ""}:${request.socket.remotePort ?? ""}`,
      ),
  });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.Http2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        server.once("error", onError);
        server.listen(port, host, () => {
          server.off("error", onError);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: () =>
      new Promise((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}
