/** The origin paths are resolved against: only what stays on it is a path of this console. */
const CONSOLE = "http://console.invalid";

/**
 * Where to go after signing in: a path on this console from `?next=`, else the overview. The
 * path is resolved as the browser will resolve it (the URL standard drops tabs and newlines and
 * reads "\" as "/", so "/\t/evil.example" is "//evil.example", another site): anything that
 * leaves the console is ignored, so the login page is no open redirect.
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
  return path.startsWith("/login") ? "/" : path;
}

/** The login page's URL that returns to `path` afterwards. */
export function loginUrl(path: string): string {
  return path === "/" || path.startsWith("/login")
    ? "/login"
    : `/login?next=${encodeURIComponent(path)}`;
}
