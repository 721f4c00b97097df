import type { PrismaClient } from "@switchyard/db";
import type { WritePolicy } from "../access/config-guard.js";
import type { EnvoyImporter } from "../import/envoy-importer.js";
import type { RouteTestRunner } from "../routing/route-test-runner.js";
import type { SecretKeyring } from "../secrets-key.js";
import type { PublishedSnapshot } from "../store/snapshot-records.js";
import type { SnapshotStore } from "../store/snapshot-store.js";

/** What ConfigService's handlers are given (config-service.ts). */
export interface ConfigServiceOptions {
  readonly prisma: PrismaClient;
  readonly store: SnapshotStore;
  /** Seals private keys written through the API (secret-handlers.ts). */
  readonly keyring: SecretKeyring;
  /** Called after every successful publish or rollback, with what proxies must now get. */
  readonly onPublished: (snapshot: PublishedSnapshot) => void;
  /** What writes may hold beyond their author's role (files proxies read). */
  readonly writePolicy?: WritePolicy;
  /** Reads Import's documents off the event loop. */
  readonly importer: EnvoyImporter;
  /**
   * Where stored route tests run, off the event loop (routing/route-test-runner.ts): `gate` for
   * the publish gate (publishes and review requests), `dryRun` for a dry run's account of it
   * (Import's, `switchyard diff -f`). Two pools, so that no number of callers' checks delays a
   * publish.
   */
  readonly routeTests: {
    readonly gate: Pick<RouteTestRunner, "run">;
    readonly dryRun: Pick<RouteTestRunner, "run">;
  };
}
