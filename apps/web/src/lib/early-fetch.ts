/**
 * The console transport's fetch: hands a call started early by the page's inline script
 * (early-requests.ts) to the first query or stream that makes exactly that call (same URL, same
 * request bytes), once; every other call is an ordinary fetch.
 */

/** One call started by the inline script. */
export interface EarlyRequest {
  readonly url: string;
  readonly body: Uint8Array;
  readonly ctl: AbortController;
  readonly response: Promise<Response>;
  used: boolean;
}

declare global {
  interface Window {
    __syEarly?: EarlyRequest[];
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function claim(url: string, body: unknown): EarlyRequest | undefined {
  if (typeof window === "undefined" || !window.__syEarly || !(body instanceof Uint8Array)) {
    return undefined;
  }
  const path = new URL(url, window.location.href).pathname;
  const early = window.__syEarly.find((e) => !e.used && e.url === path && sameBytes(e.body, body));
  if (early) early.used = true;
  return early;
}

export const earlyFetch: typeof fetch = (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const early = init?.method === "POST" ? claim(url, init.body) : undefined;
  if (!early) return fetch(input, init);
  // The caller's signal now governs the early request (a stream closed on unmount, a timeout).
  const signal = init?.signal;
  if (signal?.aborted) early.ctl.abort(signal.reason);
  signal?.addEventListener("abort", () => early.ctl.abort(signal.reason), { once: true });
  return early.response;
};
