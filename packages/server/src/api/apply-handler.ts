import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { ConfigService, ImportClash } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  auditWrites,
  authorizeWrites,
  claimNewOwners,
  writesBetween,
} from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import { ApplyDryRun, PublishError } from "../store/publish-transaction.js";
import type { ConfigServiceOptions } from "./config-options.js";
import { issueMessage, toConnectError } from "./errors.js";
import { outsideEffects } from "./import-clashes.js";
import { readImport, withStoredEndpoints } from "./import-export-handlers.js";
import { bodiesSelection, objectChanges } from "./object-changes.js";
import { pruneDeletions } from "./prune-deletions.js";
import { guarded, publishResponse } from "./publishing.js";

/**
 * ConfigService.Apply: Envoy v3 documents applied on top of the latest published version and
 * published, in one transaction (SnapshotStore.apply): the version goes out with exactly what it
 * held and the document, or nothing changes and the answer says why. Someone's pending draft is
 * left alone (only an object both touch is refused); each object is authorized as an edit, then
 * the version as a publish, and both are audited.
 */
export function applyHandler(
  options: ConfigServiceOptions,
): Pick<ServiceImpl<typeof ConfigService>, "apply"> {
  const { prisma, store, keyring, importer, onPublished, routeTests } = options;
  return {
    async apply(request, context) {
      const caller = callerOf(context);
      const document = request.filename || "the document";
      if (request.content.trim() === "")
        throw new ConnectError(`${document} is empty: nothing to apply`, Code.InvalidArgument);
      const select = bodiesSelection(request.bodies);
      const imported = await readImport(importer, keyring, request, context.signal);
      let snapshot: Awaited<ReturnType<typeof store.apply>>;
      /** What the files replace or prune that objects outside them use (ImportClash). */
      let outside: ImportClash[] = [];
      try {
        snapshot = await store.apply({
          ...guarded(context, {
            action: "publish",
            routeTests: routeTests.gate,
            routeTestOverride: request.routeTestOverride,
            abortRollout: request.abortRollout,
            acceptWarnings: request.acceptWarnings,
          }),
          message: request.message.trim() || `apply ${document}`,
          prepare: async (_tx, latest) => withStoredEndpoints(latest, imported, document),
          remove: (tx, latest, version, fragment) =>
            pruneDeletions(tx, caller, latest, version, fragment, request.prune),
          dryRun: request.dryRun,
          afterWrite: async (tx, applied) => {
            outside = outsideEffects(applied.before, imported.spec, applied.changes);
            const writes = writesBetween(applied.changes, applied.before, applied.after);
            await authorizeWrites(tx, caller, writes, options.writePolicy);
            await claimNewOwners(tx, caller, writes);
            await auditWrites(tx, caller, ipOf(context), writes, { apply: document });
          },
        });
      } catch (error) {
        // Nothing to publish is not a failure: the configuration already holds the document.
        if (error instanceof PublishError && error.code === "no-changes")
          return { changes: [], warnings: [] };
        if (error instanceof ApplyDryRun) {
          const selected = select(error.changes);
          return {
            changes: await objectChanges(selected.changes, selected.withBodies ? error : undefined),
            warnings: [...imported.issues, ...error.issues].map(issueMessage),
            outside,
          };
        }
        throw toConnectError(error);
      }
      // The import's notes (what the document left out, and why) come before validation's.
      const published = await publishResponse(prisma, snapshot, onPublished, select);
      return {
        ...published,
        warnings: [...imported.issues.map(issueMessage), ...published.warnings],
        outside,
      };
    },
  };
}
