import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Pure functions: files share one process, and import the Envoy protos' registry once
    // instead of once a file.
    isolate: false,
    // Property tests (fast-check, hundreds of cases) and the Envoy corpus are CPU-bound: 1–4 s
    // on this 2-core machine with CI's other lane running, 6.8 s once in a slow hour, past
    // Vitest's 5 s default. Their assertions are about output, never time.
    testTimeout: 30_000,
  },
});
