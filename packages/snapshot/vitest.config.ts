import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Pure functions: files share one process, and import the Envoy protos' registry once
    // instead of once a file.
    isolate: false,
  },
});
