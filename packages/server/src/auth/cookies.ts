/**
 * The session cookie. HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it: the first line of CSRF defence; the API still checks Origin, see index.ts), Path=/, and
 * Secure whenever the request came over https.
 */

export const SESSION_COOKIE = "switchyard_session";

export interface SessionCookieOptions {
  /** Whether the request was https (directly, or per a trusted proxy's X-Forwarded-Proto). */
  readonly secure: boolean;
  /** Seconds until the browser drops it; match the session's expiry. */
  readonly maxAgeS: number;
}

/** The `Set-Cookie` header value that hands a session's secret to the browser. */
export function sessionCookie(secret: string, options: SessionCookieOptions): string {
  if (!/^[A-Za-z0-9_-]+$/.test(secret)) throw new Error("internal: a session secret is base64url");
  return cookie(secret, Math.max(0, Math.floor(options.maxAgeS)), options.secure);
}

/** The `Set-Cookie` header value that removes the session cookie (logout). */
export function clearSessionCookie(options: { readonly secure: boolean }): string {
  return cookie("", 0, options.secure);
}

function cookie(value: string, maxAgeS: number, secure: boolean): string {
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    `Max-Age=${maxAgeS}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** The session secret in a request's `Cookie` header, or null. */
export function readSessionCookie(cookieHeader: string | null | undefined): string | null {
  if (cookieHeader == null) return null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === "" ? null : value;
  }
  return null;
}
