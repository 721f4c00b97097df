import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // End-to-end tests start real servers (Postgres, gRPC, the console): allow for a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
