import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.spec.ts", "test/**/*.spec.ts"],
    // End-to-end tests start real servers (Postgres, gRPC, the console): allow for a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time even on two cores (vitest's default there is one): most of an
    // end-to-end file's time is spent waiting on processes, sockets and the browser, not computing.
    // Every file has its own databases and ports, so files never see each other.
    maxWorkers: 2,
    // Files share a process: the server's modules (the Envoy protos' registry, Next.js) are
    // imported once per worker, not once a file (~4 s each on a loaded machine). Servers,
    // databases and metrics registries are per test, never module-global; the console's Next.js
    // app is one per process by design (web-console.ts).
    isolate: false,
    globalSetup: ["test/global-setup.ts"],
  },
});
