import { randomBytes } from "node:crypto";

/**
 * The request header that carries a request's nonce to the console's pages (apps/web
 * src/app/layout.tsx reads it for its own inline script). Set by the server on every request,
 * over whatever the client sent.
 */
export const NONCE_HEADER = "x-nonce";

/**
 * A fresh nonce for one response: 128 random bits in base64, as CSP Level 3 (section 2.3.1,
 * "nonce-source") asks of a nonce: unguessable and never reused.
 */
export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The Content-Security-Policy of one response of the console's port (issue 22 point 10, issue 44
 * point 8). Scripts run only from the console's origin or inline with this response's `nonce`:
 * Next.js puts it on its bootstrap and RSC payload scripts when it finds it in the request's
 * Content-Security-Policy header (Next's CSP guide, "Nonces"), React on the scripts it renders, and
 * the root layout on the console's early-requests script; a script injected into a page has no
 * nonce and does not run (console-csp.e2e.spec.ts). No 'unsafe-inline' and no 'unsafe-eval' for
 * scripts.
 *
 * Styles keep 'unsafe-inline', with no nonce beside it (a nonce would switch 'unsafe-inline' off,
 * CSP3 section 6.7.3.2): the server-rendered HTML carries React `style` attributes (the loading
 * skeletons, the rollout bars, the topology's height) and sonner inserts a <style> element, none of
 * which can carry a nonce. An injected style can restyle a page but not run code.
 *
 * No other site may frame the console (clickjacking), and forms, <base> and plugins are kept to
 * the console's own origin or off.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
