import { defineConfig } from "vitest/config";

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
  },
});
