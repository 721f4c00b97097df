// "@switchyard/db/testing": integration-test helpers for any package. Not for production code.

export {
  createTestDatabase,
  type TestDatabase,
  type TestDatabaseOptions,
} from "./create-test-database.js";
export { SHARED_TEST_POSTGRES, sharedTestServer } from "./test-server.js";
