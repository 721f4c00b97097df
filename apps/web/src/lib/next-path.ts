/** The origin paths are resolved against: only what stays on it is a path of this console. */
const CONSOLE = "http://console.invalid";

/**
 * Where to go after signing in: a path on this console from `?next=`, else the overview.
 *
 * `next` is read as the browser will read it, by the WHATWG URL parser against a fixed origin
 * (URL Standard, "basic URL parser": tabs and newlines are dropped, "\" is "/" in an http URL,
 * "." and ".." segments, also percent-encoded as "%2e", are resolved). What comes out must be on
 * that origin, and its path must not start with "//" or "/\": handed to the router, such a path is
 * a scheme-relative URL naming another host ("/.//evil.example" resolves to "//evil.example").
 * Parsing the result again must give the same URL, so nothing is left for the browser to
 * normalise differently. Anything else is ignored: the login page is no open redirect.
 * next-path.spec.ts holds the cases; console-access.e2e.spec.ts plays them in Chromium.
 */
export function safeNextPath(next: string | null): string {
  if (next === null || !next.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, CONSOLE);
  } catch {
    return "/";
  }
  if (url.origin !== CONSOLE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (/^\/[/\\]/.test(path) || new URL(path, CONSOLE).href !== url.href) return "/";
  return path.startsWith("/login") ? "/" : path;
}

/** The login page's URL that returns to `path` afterwards. */
export function loginUrl(path: string): string {
  return path === "/" || path.startsWith("/login")
    ? "/login"
    : `/login?next=${encodeURIComponent(path)}`;
}
