import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // End-to-end tests start real servers (Postgres, gRPC, the console): allow for a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Files share one process (module state is per server or stream, never global): the Envoy
    // protos' registry is imported once instead of once a file (~2 s each).
    isolate: false,
  },
});
