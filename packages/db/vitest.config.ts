import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Starting Postgres (initdb included) takes about a second; leave room for a slow machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
