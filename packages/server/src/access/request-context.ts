/**
 * What the access interceptor learns about a request and hands to the handlers through Connect's
 * context values: who is calling (set by the interceptor) and from where (set by the HTTP
 * adapter, which alone sees the socket).
 */
import type * as http from "node:http";
import {
  Code,
  ConnectError,
  type ContextValues,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from "@connectrpc/connect";
import type { Principal } from "../auth/index.js";

export interface RequestOrigin {
  /** The client's address as seen on the socket (no proxy headers are trusted). */
  readonly ip: string;
  /** Whether the connection was TLS: the session cookie is then `Secure`. */
  readonly secure: boolean;
}

export const REQUEST_ORIGIN = createContextKey<RequestOrigin>(
  { ip: "", secure: false },
  { description: "the client's address" },
);

/** The authenticated caller; null until the interceptor has resolved one (or for Login). */
export const PRINCIPAL = createContextKey<Principal | null>(null, {
  description: "the authenticated caller",
});

/** `contextValues` for connectNodeAdapter: the socket's address for audit and login limits. */
export function requestContextValues(
  request: http.IncomingMessage | { socket?: unknown },
): ContextValues {
  const socket = (request as http.IncomingMessage).socket as
    | (http.IncomingMessage["socket"] & { encrypted?: boolean })
    | undefined;
  return createContextValues().set(REQUEST_ORIGIN, {
    ip: socket?.remoteAddress ?? "",
    secure: socket?.encrypted === true,
  });
}

/** The caller of a handler. The interceptor guarantees one on every method but Login. */
export function callerOf(context: HandlerContext): Principal {
  const principal = context.values.get(PRINCIPAL);
  if (principal === null)
    throw new ConnectError("internal: no principal on an authenticated method", Code.Internal);
  return principal;
}

export function ipOf(context: HandlerContext): string {
  return context.values.get(REQUEST_ORIGIN).ip;
}
