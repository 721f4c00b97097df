import { defineConfig } from "vitest/config";

/**
 * Files that need a process of their own: the console's (Next.js keeps process-wide state) and
 * those that run `switchyard serve` processes and stop them by signal (one such stop ended by a
 * signal when it shared its worker with other files: not understood yet, so kept apart).
 */
const OWN_PROCESS = [
  "test/console*.e2e.spec.ts",
  "test/cli.e2e.spec.ts",
  "test/faults*.e2e.spec.ts",
  "test/file-delivery.e2e.spec.ts",
  "test/replicas.e2e.spec.ts",
  "test/xds-auth.e2e.spec.ts",
  "test/xds-exposure.e2e.spec.ts",
];

export default defineConfig({
  test: {
    // End-to-end tests start real servers (Postgres, gRPC, the console): allow for a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two files at a time even on two cores (vitest's default there is one): most of an
    // end-to-end file's time is spent waiting on processes, sockets and the browser, not computing.
    // Every file has its own databases and ports, so files never see each other.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "server",
          include: ["src/**/*.spec.ts", "test/**/*.spec.ts", "bench/**/*.spec.ts"],
          exclude: OWN_PROCESS,
          // Files share a process: the server's modules (and the Envoy protos' registry) are
          // imported once per worker, not once a file (~2.8 s each). Servers, databases and
          // metrics registries are per test, never module-global.
          isolate: false,
        },
      },
      { extends: true, test: { name: "own-process", include: OWN_PROCESS, isolate: true } },
    ],
  },
});
