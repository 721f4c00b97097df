import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Pure functions and one state machine: files share one process.
    isolate: false,
    // Property tests (fast-check, hundreds of cases, each hashing its nodes) are CPU-bound, and
    // this 2-core machine runs them beside CI's other lane; their assertions are never about time.
    testTimeout: 30_000,
  },
});
