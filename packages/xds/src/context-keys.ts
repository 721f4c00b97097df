import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import type { Authentication, ClientIdentity } from "./client-auth.js";

/** The peer address ("ip:port") of the HTTP/2 connection a stream arrived on. */
export const kRemoteAddress = createContextKey<string>("", { description: "remote address" });

/**
 * How the call authenticated (client-auth.ts), decided by the server from the connection's
 * certificate and the call's metadata before the handler runs.
 */
export const kAuthentication = createContextKey<Authentication>(
  { t: "authenticated", identity: { t: "anonymous" } },
  { description: "client authentication" },
);

/**
 * Who a call on the xDS port is, as the port's client authentication judged it (`--xds-auth`):
 * for the services beside discovery that proxies call (load reporting). Throws Unauthenticated,
 * with the reason, when the call's credential was refused.
 */
export function callerIdentity(context: HandlerContext): ClientIdentity {
  const authentication = context.values.get(kAuthentication);
  if (authentication.t === "refused")
    throw new ConnectError(authentication.message, Code.Unauthenticated);
  return authentication.identity;
}
