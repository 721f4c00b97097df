import type { ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import type { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import type { WritePolicy } from "../access/config-guard.js";
import type { EnvoyImporter } from "../import/envoy-importer.js";
import type { SecretKeyring } from "../secrets-key.js";
import type { PublishedSnapshot } from "../store/snapshot-records.js";
import type { SnapshotStore } from "../store/snapshot-store.js";
import { applyHandler } from "./apply-handler.js";
import { draftHandlers } from "./draft-handlers.js";
import { endpointsHandler } from "./endpoints-handler.js";
import { publishHandlers } from "./publish-handlers.js";

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
}

/** switchyard.v1.ConfigService: the draft's objects, validation, diff, publish, history, rollback. */
export function createConfigService(
  options: ConfigServiceOptions,
): ServiceImpl<typeof ConfigService> {
  return {
    ...draftHandlers(options),
    ...publishHandlers(options.prisma, options.store, options.onPublished),
    ...applyHandler(options),
    ...endpointsHandler(options),
  } as ServiceImpl<typeof ConfigService>;
}
