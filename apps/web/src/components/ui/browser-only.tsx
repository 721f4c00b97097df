"use client";

import { type ReactNode, Suspense, useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * `children` drawn by the browser only: `fallback` on the server and while the page hydrates,
 * the children right after (at once on a client-side navigation). For the part of a page that
 * reads the URL's query (useSearchParams) and the caller's data. The console's pages are rendered
 * per request (for their Content-Security-Policy nonce, app/layout.tsx), so such a part would
 * otherwise be drawn on the server, loading, and hydrated later than the rest of the page (React
 * hydrates a Suspense boundary after the root), by when WhoAmI or the page's data may have come:
 * a different tree, a hydration error (React #418, seen on /audit in console-csp.e2e.spec.ts).
 */
export function BrowserOnly({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  const inBrowser = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return inBrowser ? <Suspense fallback={fallback}>{children}</Suspense> : fallback;
}
