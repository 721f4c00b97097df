"use client";

import { Code, ConnectError } from "@connectrpc/connect";
import { TransportProvider } from "@connectrpc/connect-query";
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  isServer,
  MutationCache,
  QueryCache,
  QueryClient,
  QueryClientProvider,
} from "@tanstack/react-query";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import { config as zodConfig } from "zod";
import { ReauthDialog } from "@/components/access/reauth-dialog";
import { classifyError } from "@/lib/classify-error";
import { earlyFetch } from "@/lib/early-fetch";
import { loginUrl } from "@/lib/next-path";
import { reauthInterceptor } from "@/lib/reauth-prompt";

// Zod compiles object schemas with `new Function` when it finds it allowed, and finds out by
// trying: under the console's Content-Security-Policy (no 'unsafe-eval') the try is a reported
// violation (console-csp.e2e.spec.ts in @switchyard/server). Told it is jitless, it never tries.
zodConfig({ jitless: true });

/**
 * The API is served on the console's own origin (by @switchyard/server), so a path-only base URL
 * is enough and works unchanged behind any proxy or port. A page's first calls may already be
 * under way from the document's head (early-requests.ts). Binary protobuf, not JSON: decoding a
 * large list (thousands of routes) from JSON took the browser's main thread several times longer.
 * A privileged action refused for want of a recent password asks for it (ReauthDialog) and is
 * made again (reauth-prompt.ts).
 */
const transport = createConnectTransport({
  baseUrl: "/",
  fetch: earlyFetch,
  useBinaryFormat: true,
  interceptors: [reauthInterceptor],
});

/** Retry only failures that may go away by themselves, and only a little: errors show fast. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  const c = classifyError(error);
  return failureCount < 2 && (c === "unreachable" || c === "timeout");
}

/**
 * Any call answered Unauthenticated (no session, or it expired or was ended) sends the browser to
 * the login page, which comes back here afterwards.
 */
export function redirectIfSignedOut(error: unknown): void {
  if (isServer || !(error instanceof ConnectError) || error.code !== Code.Unauthenticated) return;
  const here = `${window.location.pathname}${window.location.search}`;
  if (window.location.pathname !== "/login") window.location.assign(loginUrl(here));
}

function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: redirectIfSignedOut }),
    mutationCache: new MutationCache({ onError: redirectIfSignedOut }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        retry: shouldRetry,
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4_000),
      },
    },
  });
}

let browserQueryClient: QueryClient | undefined;

/**
 * One client per server render (so requests never share a cache), and one for the lifetime of
 * the page in the browser (so a suspense re-render does not throw the cache away).
 */
function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function Providers({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  return (
    <TransportProvider transport={transport}>
      <QueryClientProvider client={queryClient}>
        {children}
        <ReauthDialog />
        {/* One toaster for the whole console: "saved to the draft", deletes, failures. */}
        <Toaster theme="system" position="bottom-right" closeButton richColors={false} />
      </QueryClientProvider>
    </TransportProvider>
  );
}
