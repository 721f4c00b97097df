import type * as http from "node:http";
import type * as http2 from "node:http2";
import { type JsonValue, toJson } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import {
  DiscoveryRequestSchema,
  DiscoveryResponseSchema,
} from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { TypeUrl } from "@switchyard/snapshot";
import type { XdsCallbacks } from "./callbacks.js";
import { type Authentication, type ClientAccess, identityLabel } from "./client-auth.js";
import { hostAllowed, requestHostName } from "./host-check.js";
import { fetchResources } from "./rest-fetch.js";
import { decodeJson, type JsonProblem } from "./rest-json.js";
import type { ConfigWatcher } from "./snapshot-cache.js";
import { toDiscoveryResponse } from "./sotw-transport.js";
import { SECRETS_NEED_AUTHENTICATION } from "./stream-loop.js";
import { xdstpRequestProblem } from "./xdstp-naming.js";

export type HttpRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type HttpResponse = http.ServerResponse | http2.Http2ServerResponse;

export interface RestHandlerOptions {
  readonly watcher: ConfigWatcher;
  readonly controlPlaneId: string;
  /** How long a request at the current version waits for a change before a 304. */
  readonly longPollTimeoutMs: number;
  /** Aborted when the server closes: every pending long poll ends and releases its watch. */
  readonly closing: AbortSignal;
  /** Node-group entitlement; absent, every node is served its group. */
  readonly access?: ClientAccess | undefined;
  /** How each request authenticated (the same rules as a gRPC call's). */
  readonly authenticate: (request: HttpRequest) => Authentication;
  readonly callbacks: XdsCallbacks;
  /** The xdstp:// authorities served (xdstp-naming.ts); none when absent. */
  readonly authorities?: readonly string[] | undefined;
  /** Serve secrets to clients that did not authenticate (XdsServerOptions.anonymousSecrets). */
  readonly anonymousSecrets: boolean;
  /** Host names answered besides IP addresses and localhost (XdsServerOptions.restHosts). */
  readonly hosts?: readonly string[] | undefined;
}

/** Every REST-JSON discovery path starts with this (envoy/service/<type>/v3/*ds.proto). */
export const REST_PATH_PREFIX = "/v3/discovery:";

/** The REST-JSON endpoints: `POST /v3/discovery:<endpoint>` serves one resource type. */
const REST_TYPES: ReadonlyMap<string, TypeUrl> = new Map([
  ["clusters", TypeUrl.Cluster],
  ["endpoints", TypeUrl.ClusterLoadAssignment],
  ["listeners", TypeUrl.Listener],
  ["routes", TypeUrl.RouteConfiguration],
  ["runtime", TypeUrl.Runtime],
  ["secrets", TypeUrl.Secret],
]);

/** A request body larger than this is refused (413): a DiscoveryRequest is a few hundred bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

export function isRestPath(url: string | undefined): boolean {
  return url?.startsWith(REST_PATH_PREFIX) ?? false;
}

/**
 * Serves REST-JSON discovery (xDS protocol, "REST-JSON polling subscriptions"): each request is
 * answered on its own, with no stream state; its node selects the configuration. A request whose
 * version_info is the current version of what it asks for is held until that changes, or answered
 * `304 Not Modified` with no body after `longPollTimeoutMs` (the answer Envoy's REST fetcher
 * takes as "nothing new"). Any other request is answered at once with a proto3 JSON
 * DiscoveryResponse whose Any resources carry `@type`.
 *
 * Errors: `400 {message, path}` for a body that is not JSON or not a DiscoveryRequest (`path` is
 * a JSONPath into the body), 401 without a valid credential and 403 when the node selects a node
 * group its credential does not cover (client-auth.ts), 404 for an unknown path, 405 for a method
 * other than POST, 413 for an oversized body, 503 when nothing is published for the node within
 * the bound.
 */
export function createRestHandler(
  options: RestHandlerOptions,
): (request: HttpRequest, response: HttpResponse) => void {
  return (request, response) => {
    serve(request, response, options).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(response, 500, {
        message: `the discovery request failed: ${error instanceof Error ? error.message : String(error)}`,
      });
    });
  };
}

async function serve(
  request: HttpRequest,
  response: HttpResponse,
  options: RestHandlerOptions,
): Promise<void> {
  const path = (request.url ?? "").split("?")[0] ?? "";
  const typeUrl = REST_TYPES.get(path.slice(REST_PATH_PREFIX.length));
  if (!typeUrl) {
    const served = [...REST_TYPES.keys()].map((name) => `${REST_PATH_PREFIX}${name}`);
    sendJson(response, 404, {
      message: `no discovery endpoint at ${path}: the REST endpoints are ${served.join(", ")}`,
    });
    return;
  }
  if (request.method !== "POST") {
    sendJson(
      response,
      405,
      { message: `${path} accepts only POST with a JSON DiscoveryRequest, not ${request.method}` },
      { allow: "POST" },
    );
    return;
  }
  // A web page can reach this port: a form or a "simple" fetch posts text/plain, and through DNS
  // rebinding its own host name resolves here. Neither passes: only application/json (which a
  // cross-origin page cannot send without a preflight this server never answers), only at a
  // host this server is known by.
  const host = requestHostName(request.headers);
  if (!hostAllowed(host, options.hosts ?? [])) {
    sendJson(response, 421, {
      message: `this xDS server does not answer to host "${host ?? ""}": REST-JSON discovery is served at IP addresses, localhost and the host names it is given (--xds-rest-hosts, SWITCHYARD_XDS_REST_HOSTS); add the name proxies use for it there`,
    });
    return;
  }
  const contentType = headerValue(request.headers["content-type"]).split(";", 1)[0]?.trim();
  if (contentType?.toLowerCase() !== "application/json") {
    sendJson(response, 415, {
      message: `${path} takes a JSON DiscoveryRequest with content-type application/json, not ${contentType ? `"${contentType}"` : "none"}`,
    });
    return;
  }
  const remoteAddress = `${request.socket.remoteAddress ?? ""}:${request.socket.remotePort ?? ""}`;
  const authentication = options.authenticate(request);
  if (authentication.t === "refused") {
    options.callbacks.onAuthRefused?.({
      code: "unauthenticated",
      reason: authentication.reason,
      message: authentication.message,
      remoteAddress,
      transport: "rest",
    });
    sendJson(
      response,
      401,
      { message: authentication.message },
      options.access?.mode === "token" ? { "www-authenticate": "Bearer" } : {},
    );
    return;
  }
  const { identity } = authentication;
  if (typeUrl === TypeUrl.Secret && identity.t === "anonymous" && !options.anonymousSecrets) {
    options.callbacks.onAuthRefused?.({
      code: "unauthenticated",
      reason: "secrets_need_authentication",
      message: SECRETS_NEED_AUTHENTICATION,
      remoteAddress,
      transport: "rest",
    });
    sendJson(response, 401, { message: SECRETS_NEED_AUTHENTICATION });
    return;
  }
  const body = await readBody(request);
  if (body === undefined) {
    sendJson(response, 413, {
      message: `the request body is larger than ${MAX_BODY_BYTES} bytes; a DiscoveryRequest is far smaller`,
    });
    return;
  }
  const decoded = decodeJson(DiscoveryRequestSchema, body, registry);
  if (decoded.t === "invalid") {
    sendJson(response, 400, problemBody(decoded.problem));
    return;
  }
  const discovery = decoded.message;
  if (discovery.typeUrl !== "" && discovery.typeUrl !== typeUrl) {
    sendJson(
      response,
      400,
      problemBody({
        message: `type_url "${discovery.typeUrl}" is not what ${path} serves ("${typeUrl}"): leave it empty or post to the endpoint of that type`,
        path: `$.${keyUsed(decoded.json, "type_url", "typeUrl")}`,
      }),
    );
    return;
  }
  const badName = xdstpRequestProblem("resource_names", discovery.resourceNames, typeUrl);
  if (badName) {
    sendJson(
      response,
      400,
      problemBody({
        message: badName,
        path: `$.${keyUsed(decoded.json, "resource_names", "resourceNames")}`,
      }),
    );
    return;
  }
  if (!discovery.node) {
    sendJson(
      response,
      400,
      problemBody({
        message:
          'the request has no node: add "node": {"id": "...", "cluster": "..."}; it selects the configuration served',
        path: "$.node",
      }),
    );
    return;
  }

  const gone = new AbortController();
  // "close" also fires once the answer is sent; aborting a finished fetch does nothing.
  response.once("close", () => gone.abort());
  const nodeId = discovery.node.id;
  const { access } = options;
  const result = await fetchResources(
    options.watcher,
    {
      typeUrl,
      node: discovery.node,
      resourceNames: discovery.resourceNames,
      versionInfo: discovery.versionInfo,
      authorities: options.authorities,
    },
    {
      timeoutMs: options.longPollTimeoutMs,
      signal: AbortSignal.any([gone.signal, options.closing]),
      ...(access
        ? { admit: (group: string) => access.admit(identity, nodeId, group)?.rawMessage }
        : {}),
    },
  );
  switch (result.t) {
    case "denied":
      options.callbacks.onAuthRefused?.({
        code: "permission_denied",
        reason: "node_group",
        message: result.message,
        remoteAddress,
        transport: "rest",
        nodeId,
        identity: identityLabel(identity),
      });
      sendJson(response, 403, { message: result.message });
      return;
    case "changed": {
      const message = toDiscoveryResponse(
        { typeUrl, versionInfo: result.versionInfo, nonce: "", resources: result.resources },
        options.controlPlaneId,
      );
      sendJson(response, 200, toJson(DiscoveryResponseSchema, message, { registry }));
      return;
    }
    case "unchanged":
      send(response, 304, {}, undefined);
      return;
    case "unconfigured":
      sendJson(
        response,
        503,
        { message: "no configuration is published for this node yet: retry later" },
        { "retry-after": "5" },
      );
      return;
    case "aborted":
      return;
  }
}

function problemBody(problem: JsonProblem): JsonValue {
  return { message: problem.message, path: problem.path };
}

/** Which of two spellings of a field the client used (proto3 JSON accepts both). */
function keyUsed(json: JsonValue, protoName: string, jsonName: string): string {
  return typeof json === "object" && json !== null && !Array.isArray(json) && protoName in json
    ? protoName
    : jsonName;
}

/** The body as text, or undefined when it exceeds MAX_BODY_BYTES. */
async function readBody(request: HttpRequest): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function headerValue(value: string | readonly string[] | undefined): string {
  return typeof value === "string" ? value : (value?.[0] ?? "");
}

function sendJson(
  response: HttpResponse,
  status: number,
  body: JsonValue,
  headers: Record<string, string> = {},
): void {
  send(
    response,
    status,
    { "content-type": "application/json", ...headers },
    `${JSON.stringify(body)}\n`,
  );
}

function send(
  response: HttpResponse,
  status: number,
  headers: Record<string, string>,
  body: string | undefined,
): void {
  if (response.headersSent || response.destroyed) return;
  // HTTP/1 and HTTP/2 compatibility responses share this part of their API.
  const common = response as http.ServerResponse;
  common.writeHead(status, { "cache-control": "no-store", ...headers });
  common.end(body);
}
