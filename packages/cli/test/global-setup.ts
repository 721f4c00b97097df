/**
 * One PostgreSQL for the whole run, with a migrated template every test file clones its
 * databases from, instead of one started per file (each file runs in a process of its own).
 */
import { sharedTestServer } from "@switchyard/db/testing";

export default function setup(): Promise<() => Promise<void>> {
  return sharedTestServer();
}
