import type { ServiceImpl } from "@connectrpc/connect";
import type { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { applyHandler } from "./apply-handler.js";
import type { ConfigServiceOptions } from "./config-options.js";
import { draftHandlers } from "./draft-handlers.js";
import { endpointsHandler } from "./endpoints-handler.js";
import { importExportHandlers } from "./import-export-handlers.js";
import { publishHandlers } from "./publish-handlers.js";
import { publishResponse } from "./publishing.js";
import { reviewHandlers } from "./review-handlers.js";
import { schemaHandlers } from "./schema-handlers.js";

export type { ConfigServiceOptions } from "./config-options.js";

/** switchyard.v1.ConfigService: the draft's objects, validation, diff, publish, history, rollback. */
export function createConfigService(
  options: ConfigServiceOptions,
): ServiceImpl<typeof ConfigService> {
  return {
    ...draftHandlers(options),
    ...importExportHandlers(options),
    ...publishHandlers(options.prisma, options.store, options.onPublished, options.routeTests.gate),
    ...reviewHandlers(
      options.prisma,
      options.store,
      (snapshot) => publishResponse(options.prisma, snapshot, options.onPublished),
      options.routeTests.gate,
    ),
    ...applyHandler(options),
    ...endpointsHandler(options),
    ...schemaHandlers(options),
  } satisfies ServiceImpl<typeof ConfigService>;
}
