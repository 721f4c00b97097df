/**
 * `@switchyard/server/testing`: what end-to-end tests of the server, here and in @switchyard/cli,
 * start and call it with. A server with its own databases (harness), the same serving its console
 * to a signed-in Chromium page (console-world), signed-in clients of each API (auth), API messages
 * (api-objects), the shop world every routing story uses (shop), a raw ADS stream
 * (raw-ads-client) and the two real proxyless gRPC clients (clients).
 */

// Route tests stored, and the publish gate that runs them in a worker thread, for the config
// benchmark.
export { gateOnRouteTests } from "../api/route-test-gate.js";
export { createRouteTestRunner } from "../routing/route-test-runner.js";
// A database's draft and versions written directly, for a test or benchmark that seeds one before
// a server (often a `switchyard serve` process) opens it.
export { writeCluster, writeObjects, writeRouteConfiguration } from "../store/draft-store.js";
export { putRouteTest } from "../store/route-tests.js";
export { SnapshotStore } from "../store/snapshot-store.js";
export * from "./api-objects.js";
export * from "./auth.js";
export * from "./clients.js";
export * from "./console-world.js";
export * from "./harness.js";
export * from "./raw-ads-client.js";
export * from "./shop.js";
