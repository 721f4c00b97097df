import { createContextKey } from "@connectrpc/connect";
import type { Authentication } from "./client-auth.js";

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
