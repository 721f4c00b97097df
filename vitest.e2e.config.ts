import { defineConfig } from "vitest/config";

/**
 * The server's and the CLI's tests as one run, two test workers between them (what two cores
 * allow beside the type-checks, instead of two each): `npm test` runs
 * `vitest run --config vitest.e2e.config.ts` (scripts/test.mjs). Each package's own settings are
 * in its vitest.config.ts, and one PostgreSQL serves both (their global setups share it). Not
 * named vitest.config.ts: every package without a config of its own would find it.
 */
export default defineConfig({
  test: {
    projects: ["packages/server", "packages/cli"],
    maxWorkers: 2,
  },
});
