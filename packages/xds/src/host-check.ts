/**
 * DNS rebinding: a web page on a name its author controls makes that name resolve to this
 * server's address, and its scripts then read this server as their own origin. The browser still
 * sends the page's name as `Host`, so a port that answers only to the names it is known by is out
 * of the page's reach. The xDS port's REST-JSON discovery (rest-handler.ts) and the console port
 * (@switchyard/server http-server.ts) both check it with these functions.
 */
import { isIP } from "node:net";

/** The request headers these functions read (Node's HTTP/1.1 and HTTP/2 requests have them). */
export type HostHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The request's host name, lower-case, without port or IPv6 brackets: from HTTP/1.1 `Host`, or
 * HTTP/2 `:authority`. Undefined when there is none, or it is anything but `host[:port]` (a user,
 * a path).
 */
export function requestHostName(headers: HostHeaders): string | undefined {
  const value = headers.host ?? headers[":authority"];
  const raw = typeof value === "string" ? value : (value?.[0] ?? "");
  if (raw === "") return undefined;
  let url: URL;
  try {
    url = new URL(`http://${raw}`);
  } catch {
    return undefined;
  }
  const extra = url.username + url.password + url.search + url.hash;
  if (extra !== "" || url.pathname !== "/" || /[/?#@]/.test(raw)) return undefined;
  return url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/**
 * Whether a server answers to `host` (requestHostName): at an IP address (a rebinding page always
 * uses a name), `localhost`, or one of `names` (case-insensitive). A trailing dot is the same name.
 */
export function hostAllowed(host: string | undefined, names: readonly string[]): boolean {
  if (host === undefined) return false;
  const name = host.replace(/\.$/, "");
  if (isIP(name) !== 0 || name === "localhost") return true;
  return names.some((allowed) => allowed.toLowerCase().replace(/\.$/, "") === name);
}
