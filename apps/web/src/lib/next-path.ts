/**
 * Where to go after signing in: a path on this console from `?next=`, else the overview. Anything
 * else ("//evil.example", "https://...") is ignored, so the login page is no open redirect.
 */
export function safeNextPath(next: string | null): string {
  if (next === null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\"))
    return "/";
  return next.startsWith("/login") ? "/" : next;
}

/** The login page's URL that returns to `path` afterwards. */
export function loginUrl(path: string): string {
  return path === "/" || path.startsWith("/login")
    ? "/login"
    : `/login?next=${encodeURIComponent(path)}`;
}
