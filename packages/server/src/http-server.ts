import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import type { ConnectRouter, ContextValues, Interceptor } from "@connectrpc/connect";
import {
  type HandlerFailure,
  hostAllowed,
  loggedNodeAdapter,
  requestHostName,
} from "@switchyard/xds";
import {
  API_READ_MAX_BYTES,
  type BodyPolicy,
  checkRequestBodies,
  createRequestCheckInterceptor,
} from "./api/request-checks.js";
import type { ConsoleTls } from "./console-tls.js";
import { contentSecurityPolicy, NONCE_HEADER, newNonce } from "./content-security-policy.js";

export type RequestHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/**
 * Sent with every response of the console's port (issue 22, point 10), beside its
 * Content-Security-Policy (content-security-policy.ts): no other site may frame it (clickjacking),
 * no response is sniffed as another type, and no page leaks its address to another origin.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

/**
 * Sent with every response when the console port serves HTTPS itself (`--tls`): browsers that
 * saw it reach this host only over HTTPS for a year (RFC 6797, section 6.1.1; a year is what
 * preload lists ask for), so a network attacker cannot strip TLS from a later visit. Never sent
 * over plain HTTP, where RFC 6797 section 7.2 has browsers ignore it. No includeSubDomains: other
 * hosts under the console's name are not Switchyard's to speak for. Behind a TLS-terminating proxy
 * the proxy sends it (README, "Hardening for production").
 */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";

/** Why a request naming `host` is refused (421 Misdirected Request, RFC 9110 section 15.5.20). */
function wrongHost(host: string | undefined): string {
  const named = host === undefined ? "no valid Host" : `host "${host}"`;
  return `this Switchyard console does not answer to ${named}: it answers at IP addresses, localhost and the host names in SWITCHYARD_CONSOLE_HOSTS (--console-hosts), so that a web page on another name cannot read it through DNS rebinding; add the name you reach it by there, comma-separated`;
}

/** How long an idle keep-alive connection is kept open (see where it is set). */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface HttpServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The console's HTTP server: the Connect API (Connect, gRPC-web and gRPC protocols, so browsers,
 * the CLI and scripts can all call it), any `extraRoutes` (e.g. /metrics) and, for every other
 * path, the web console. Every request's content is checked before `interceptors` run
 * (api/request-checks.ts).
 */
export async function startHttpServer(options: {
  readonly port: number;
  readonly host: string;
  readonly routes: (router: ConnectRouter) => void;
  /** Run around every API method (access control). */
  readonly interceptors?: Interceptor[];
  /** Who may send a body, and how large, per method (access/body-policy.ts). */
  readonly bodyPolicy?: BodyPolicy;
  /** Per-request context values for the handlers (the client's address). */
  readonly contextValues?: (request: http.IncomingMessage) => ContextValues;
  readonly fallback: RequestHandler;
  /** Handlers by exact path (query string ignored), served before the API and the console. */
  readonly extraRoutes?: Readonly<Record<string, RequestHandler>>;
  /** Serve HTTPS with this certificate and key (console-tls.ts); plain HTTP without. */
  readonly tls?: ConsoleTls | undefined;
  /**
   * Host names answered besides IP addresses and localhost (SWITCHYARD_CONSOLE_HOSTS); a request
   * naming any other host is refused (DNS rebinding, @switchyard/xds host-check.ts).
   */
  readonly hosts?: readonly string[] | undefined;
  /**
   * A call's handler failed after its request was taken (@switchyard/xds node-adapter.ts): the
   * app logs it as JSON, at debug when the client went away. Without it, such failures pass
   * unlogged.
   */
  readonly onHandlerFailure?: HandlerFailure | undefined;
}): Promise<HttpServer> {
  const handler = loggedNodeAdapter(
    {
      routes: (router) => {
        options.routes(router);
        // Every method's body is checked before Connect decodes it, to say what is wrong and where
        // (api/request-checks.ts); the adapter serves `router.handlers` once this returns.
        router.handlers.splice(
          0,
          router.handlers.length,
          ...router.handlers.map((handler) => checkRequestBodies(handler, options.bodyPolicy)),
        );
      },
      readMaxBytes: API_READ_MAX_BYTES,
      // A field this server does not know is refused, naming it, rather than dropped unseen: a
      // misspelt field would otherwise leave a request doing less than it says.
      jsonOptions: { ignoreUnknownFields: false },
      // The content checks run first, as Connect's own decoding would: a request that cannot be
      // read is refused as such whoever sends it.
      interceptors: [createRequestCheckInterceptor(), ...(options.interceptors ?? [])],
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
    },
    options.onHandlerFailure ?? (() => {}),
  );
  const extraRoutes = options.extraRoutes ?? {};
  const headers = Object.entries({
    ...SECURITY_HEADERS,
    ...(options.tls === undefined
      ? {}
      : { "Strict-Transport-Security": STRICT_TRANSPORT_SECURITY }),
  });
  const hosts = options.hosts ?? [];
  const listener: RequestHandler = (request, response) => {
    for (const [name, value] of headers) response.setHeader(name, value);
    // A policy with a nonce of its own for each response, sent to the browser and handed to the
    // console in the request: Next.js takes the nonce from the request's Content-Security-Policy
    // for the scripts it writes, the root layout from NONCE_HEADER for its own. Whatever the
    // client sent under those names is replaced.
    const nonce = newNonce();
    const policy = contentSecurityPolicy(nonce);
    response.setHeader("Content-Security-Policy", policy);
    request.headers["content-security-policy"] = policy;
    delete request.headers["content-security-policy-report-only"];
    request.headers[NONCE_HEADER] = nonce;
    const host = requestHostName(request.headers);
    if (!hostAllowed(host, hosts)) {
      response
        .writeHead(421, {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-store",
        })
        .end(`${wrongHost(host)}\n`);
      return;
    }
    const path = (request.url ?? "").split("?", 1)[0] ?? "";
    const extra = Object.hasOwn(extraRoutes, path) ? extraRoutes[path] : undefined;
    if (extra) extra(request, response);
    else handler(request, response);
  };
  const server =
    options.tls === undefined
      ? http.createServer(listener)
      : https.createServer({ cert: options.tls.cert, key: options.tls.key }, listener);
  // An idle keep-alive connection is closed by the client before the server: Node's agents
  // (the CLI's, scripts', a fault test's) drop idle sockets after 5 s, the server's default too,
  // and a request sent on a socket the server is closing at that moment fails with ECONNRESET
  // (seen under load in faults-load.e2e). Load balancers idle out at 60 s: the server waits
  // longer than both.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
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
