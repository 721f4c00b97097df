import { createContextKey } from "@connectrpc/connect";

/** The peer address ("ip:port") of the HTTP/2 connection a stream arrived on. */
export const kRemoteAddress = createContextKey<string>("", { description: "remote address" });
