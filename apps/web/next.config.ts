import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";

// The npm workspace root: dependencies are hoisted there, and the console's font is read from its
// node_modules. Tracing and Turbopack must both see it, and must agree on it.
const workspaceRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Where `next dev` (port 3001) finds the API: a Switchyard server on its default port. */
const devApiOrigin = "http://localhost:3000";

/**
 * The console is not run by `next start`: @switchyard/server loads this directory with
 * `next({ dir, dev: false })` and serves it on the same origin as the Connect API.
 */
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  typedRoutes: true,
  outputFileTracingRoot: workspaceRoot,
  turbopack: {
    root: workspaceRoot,
  },
  // Types are checked once, by the `typecheck` task (`tsc --noEmit`, part of `npm test`), not a
  // second time by every build (17 s on 2 cores).
  typescript: { ignoreBuildErrors: true },
  // Browsers ask for /favicon.ico whatever the page links; the icon is app/icon.svg.
  redirects: async () => [{ source: "/favicon.ico", destination: "/icon.svg", permanent: true }],
};

export default function config(phase: string): NextConfig {
  if (phase !== PHASE_DEVELOPMENT_SERVER) return nextConfig;
  // In `next dev` the console has its own port, so the API calls it makes to its own origin
  // are forwarded to a running Switchyard server. In production the server handles them itself.
  return {
    ...nextConfig,
    rewrites: async () =>
      ["switchyard.v1.ConfigService", "switchyard.v1.StatusService"].map((service) => ({
        source: `/${service}/:method`,
        destination: `${devApiOrigin}/${service}/:method`,
      })),
  };
}
