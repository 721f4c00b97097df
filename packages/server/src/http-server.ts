import * as http from "node:http";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, ContextValues, Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

export type RequestHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export interface HttpServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The console's HTTP server: the Connect API (Connect, gRPC-web and gRPC protocols, so browsers,
 * the CLI and scripts can all call it), any `extraRoutes` (e.g. /metrics) and, for every other
 * path, the web console.
 */
export async function startHttpServer(options: {
  readonly port: number;
  readonly host: string;
  readonly routes: (router: ConnectRouter) => void;
  /** Run around every API method (access control). */
  readonly interceptors?: Interceptor[];
  /** Per-request context values for the handlers (the client's address). */
  readonly contextValues?: (request: http.IncomingMessage) => ContextValues;
  readonly fallback: RequestHandler;
  /** Handlers by exact path (query string ignored), served before the API and the console. */
  readonly extraRoutes?: Readonly<Record<string, RequestHandler>>;
}): Promise<HttpServer> {
  const handler = connectNodeAdapter({
    routes: options.routes,
    interceptors: options.interceptors ?? [],
    ...(options.contextValues === undefined
      ? {}
      : {
          contextValues: (request) =>
            (options.contextValues as NonNullable<typeof options.contextValues>)(
              request as http.IncomingMessage,
            ),
        }),
    // This server speaks HTTP/1.1 only, so every request is an IncomingMessage.
    fallback: (request, response) =>
      options.fallback(request as http.IncomingMessage, response as http.ServerResponse),
  });
  const extraRoutes = options.extraRoutes ?? {};
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?", 1)[0] ?? "";
    const extra = Object.hasOwn(extraRoutes, path) ? extraRoutes[path] : undefined;
    if (extra) extra(request, response);
    else handler(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Long-lived API streams would hold close() open forever.
        server.closeAllConnections();
      }),
  };
}
