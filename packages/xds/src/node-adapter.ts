/**
 * Connect's Node adapter, with a say in what happens when a handler fails after the request was
 * taken (the response could not be written: most often the client went away mid-stream, a
 * browser tab closed, a proxy restarted). connect-node's own adapter prints those with
 * `console.error` in its own format, outside the server's JSON log; here they go to `onFailure`,
 * which the servers log as JSON (a closed stream at debug, anything else as an error). Routing is
 * the same: the router's request paths, the query string ignored, a fallback for any other path.
 */
import { Code, ConnectError, createConnectRouter } from "@connectrpc/connect";
import {
  type ConnectNodeAdapterOptions,
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from "@connectrpc/connect-node";

/** A Node request listener (http or http2), as connect-node's adapter returns one. */
export type NodeHandlerFn = NonNullable<ConnectNodeAdapterOptions["fallback"]>;

/** A handler's failure after its request was taken; `method` is "package.Service/Method". */
export type HandlerFailure = (method: string, reason: unknown) => void;

/**
 * Error codes of a peer that went away, as Node's sockets and streams report them: the
 * connection reset or closed under a write, or a write to a stream already destroyed because of
 * that (connect-node's own list, node-error.ts, has most; EPIPE and premature closes it calls
 * internal).
 */
const PEER_GONE = new Set([
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ERR_STREAM_PREMATURE_CLOSE",
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_INVALID_STREAM",
]);

/**
 * An HTTP/2 stream the peer reset with CANCEL (RFC 9113 section 7, code 0x8: "the stream is no
 * longer needed"; what a gRPC client sends when it cancels a call), as Node reports it:
 * ERR_HTTP2_STREAM_ERROR, "Stream closed with error code NGHTTP2_CANCEL". Other reset codes
 * (PROTOCOL_ERROR, INTERNAL_ERROR …) say something went wrong, and are not the peer leaving.
 */
const cancelled = (error: NodeJS.ErrnoException) =>
  error.code === "ERR_HTTP2_STREAM_ERROR" && /\bNGHTTP2_CANCEL\b/.test(error.message);

/** Whether `reason` says only that the client went away (or cancelled), not that we failed. */
export function peerWentAway(reason: unknown): boolean {
  const code = ConnectError.from(reason).code;
  if (code === Code.Aborted || code === Code.Canceled) return true;
  for (let cause: unknown = reason; cause instanceof Error; cause = cause.cause) {
    const error = cause as NodeJS.ErrnoException;
    if (error.code !== undefined && PEER_GONE.has(error.code)) return true;
    if (cancelled(error)) return true;
  }
  return false;
}

export function loggedNodeAdapter(
  options: ConnectNodeAdapterOptions,
  onFailure: HandlerFailure,
): NodeHandlerFn {
  const router = createConnectRouter({
    ...options,
    acceptCompression: options.acceptCompression ?? [compressionGzip, compressionBrotli],
  });
  options.routes(router);
  const prefix = options.requestPathPrefix ?? "";
  const byPath = new Map(router.handlers.map((h) => [prefix + h.requestPath, h]));
  const fallback: NodeHandlerFn =
    options.fallback ??
    ((_request, response) => {
      response.writeHead(404);
      response.end();
    });
  return (request, response) => {
    const handler = byPath.get((request.url ?? "").split("?", 1)[0] ?? "");
    if (handler === undefined) {
      fallback(request, response);
      return;
    }
    const universal = universalRequestFromNodeRequest(
      request,
      response,
      undefined,
      options.contextValues?.(request),
    );
    handler(universal)
      .then((answer) => universalResponseToNodeResponse(answer, response))
      .catch((reason: unknown) =>
        onFailure(`${handler.service.typeName}/${handler.method.name}`, reason),
      );
  };
}
