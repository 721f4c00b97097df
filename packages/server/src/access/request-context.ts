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
import proxyaddr from "proxy-addr";
import type { Principal } from "../auth/index.js";

export interface RequestOrigin {
  /**
   * The client's address: the socket's, or, when the socket is a trusted proxy's, the address
   * that proxy (and any trusted proxies before it) forwarded in X-Forwarded-For.
   */
  readonly ip: string;
  /**
   * Whether the client reached the console over HTTPS: a TLS socket, or a trusted proxy saying
   * so in X-Forwarded-Proto. The session cookie is then `Secure`.
   */
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

/**
 * Whether the request carried the caller's current password in its own field (a privileged
 * method's `proof`, privileged-actions.ts) and the interceptor found it right: the handler needs
 * not, and must not, check it again (a second check would count twice against the login limits).
 */
export const PASSWORD_PROVEN = createContextKey<boolean>(false, {
  description: "the request's own password field was checked and right",
});

/**
 * Which addresses are proxies whose X-Forwarded-* headers are believed (SWITCHYARD_TRUSTED_PROXIES:
 * IP addresses and CIDR ranges, or the names proxy-addr knows: loopback, linklocal, uniquelocal).
 * Throws, naming the entry, when one is not an address or a range.
 */
export function trustedProxies(entries: readonly string[]): (address: string) => boolean {
  const trust = proxyaddr.compile([...entries]);
  return (address) => trust(address, 0);
}

const TRUST_NONE = () => false;

/** Where a request comes from, believing X-Forwarded-For and -Proto only from `trusted` proxies. */
export function requestOrigin(
  request: http.IncomingMessage,
  trusted: (address: string) => boolean = TRUST_NONE,
): RequestOrigin {
  const socket = request.socket as
    | (http.IncomingMessage["socket"] & { encrypted?: boolean })
    | undefined;
  const peer = socket?.remoteAddress ?? "";
  if (socket?.encrypted === true) return { ip: clientIp(request, trusted), secure: true };
  if (!trusted(peer)) return { ip: peer, secure: false };
  // As Express reads it: the first value, set by the proxy nearest the client.
  const proto = String(request.headers["x-forwarded-proto"] ?? "")
    .split(",", 1)[0]
    ?.trim();
  return { ip: clientIp(request, trusted), secure: proto?.toLowerCase() === "https" };
}

function clientIp(request: http.IncomingMessage, trusted: (address: string) => boolean): string {
  if (request.socket?.remoteAddress === undefined) return "";
  // proxy-addr walks X-Forwarded-For from the socket outwards while the hop is trusted.
  return proxyaddr(request, (address) => trusted(address));
}

/**
 * `contextValues` for connectNodeAdapter: the client's address (audit, login limits) and whether
 * it came over HTTPS (cookies), believing the headers of `trusted` proxies only.
 */
export function requestContextValues(
  trusted: (address: string) => boolean = TRUST_NONE,
): (request: http.IncomingMessage | { socket?: unknown }) => ContextValues {
  return (request) =>
    createContextValues().set(
      REQUEST_ORIGIN,
      requestOrigin(request as http.IncomingMessage, trusted),
    );
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
