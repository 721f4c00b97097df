/**
 * ConfigService.Import and Export: an Envoy v3 document read into the draft (readImport and
 * withStoredEndpoints, which Apply shares: apply-handler.ts), and a version written out as one.
 */
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import {
  type ApplyRequest,
  ConfigFormat,
  type ConfigService,
  type ImportRequest,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ConfigSpec,
  type ConfigSpecFragment,
  compile,
  diffManifests,
  edsResourceName,
  exportEnvoyConfig,
  type ImportedAssignment,
  type ImportRename,
  objectKey,
  planMerge,
  renamesNotTaken,
  shownPath,
  sourceManifest,
  sourceObjects,
  validate,
  withoutSkipped,
} from "@switchyard/snapshot";
import {
  auditWrites,
  authorizeWrites,
  claimNewOwners,
  DEFAULT_WRITE_POLICY,
  writesBetween,
} from "../access/config-guard.js";
import { callerOf, ipOf } from "../access/request-context.js";
import type { EnvoyImporter, ImportOutcome } from "../import/envoy-importer.js";
import type { SecretKeyring } from "../secrets-key.js";
import { readConfigSpec } from "../store/config-store.js";
import { deleteObject, writeChangedObjects } from "../store/draft-store.js";
import type { ConfigServiceOptions } from "./config-options.js";
import { specAt } from "./draft-handlers.js";
import { type ApiIssue, invalidArgument, issueMessage, translated } from "./errors.js";
import {
  checkChoicesUsed,
  clashMessages,
  clashRequestOf,
  outsideEffects,
} from "./import-clashes.js";
import { importScopeProblem } from "./import-scope.js";
import { importTypes } from "./import-types.js";
import { objectChanges, sourceKindOf } from "./object-changes.js";
import { pruneDeletions, withoutPruned } from "./prune-deletions.js";
import { routeTestIssues } from "./route-test-gate.js";
import { valueTextProblem } from "./text-problem.js";

/** Reads of a document with renames, at most, before an import's clashes must settle. */
const MAX_RENAME_PASSES = 5;

/** Thrown to roll back a dry-run import after its effect was measured. */
class DryRun extends Error {
  constructor(readonly result: { before: ConfigSpec; after: ConfigSpec }) {
    super("dry run");
  }
}

export function importExportHandlers(
  options: ConfigServiceOptions,
): Pick<ServiceImpl<typeof ConfigService>, "import" | "export"> {
  const { prisma, store, keyring, importer, routeTests: runners } = options;
  const policy = options.writePolicy ?? DEFAULT_WRITE_POLICY;
  return {
    async import(request, context) {
      const caller = callerOf(context);
      const document = request.filename || "the document";
      let imported = await readImport(importer, keyring, request, context.signal);
      if (request.object) {
        const problem = importScopeProblem(
          imported.spec,
          sourceKindOf(request.object.kind),
          request.object.name,
        );
        if (problem) {
          throw invalidArgument(`${document} cannot be saved: ${problem}`, [
            { severity: "error", code: "import-scope", path: "", message: problem },
          ]);
        }
      }
      // Clashes with stored objects are decided on the draft as it is now; a rename reads the
      // document again with the incoming objects under their new names (and its references to
      // them following), until no new clash appears.
      const rules = clashRequestOf(request);
      const merge = { ...rules, open: keyring.open };
      const stored = await readConfigSpec(prisma);
      let read = withStoredEndpoints(stored, imported, document);
      let plan = planMerge(stored, read, merge);
      // Each pass reads the document with the renames decided so far: a rename can make another
      // of its objects differ from the stored one (its listener now naming local_route-2), which
      // is a clash of its own, decided in the next pass.
      for (let taken = 0, pass = 0; plan.renames.length > taken; pass++) {
        if (pass === MAX_RENAME_PASSES)
          throw new ConnectError(
            `${document}: renaming its clashing objects did not settle after ${MAX_RENAME_PASSES} passes: choose replace or skip for some (ImportRequest.choices)`,
            Code.FailedPrecondition,
          );
        taken = plan.renames.length;
        imported = await readImport(importer, keyring, request, context.signal, plan.renames);
        read = withStoredEndpoints(stored, imported, document);
        const missed = renamesNotTaken(read, plan.renames);
        if (missed.length > 0)
          throw new ConnectError(
            `${document}: ${missed.map((r) => `${r.kind} ${JSON.stringify(r.from)}`).join(", ")} cannot be stored under another name (its name is derived from the object holding it): choose replace or skip for it (ImportRequest.choices), or rename it in the document`,
            Code.FailedPrecondition,
          );
        plan = planMerge(stored, read, merge, plan.clashes);
      }
      checkChoicesUsed(rules, plan.clashes);
      const clashes = plan.clashes;
      const decided = new Map(clashes.map((c) => [objectKey(c.kind, c.name), c.action]));
      const apply = () =>
        prisma.$transaction(
          async (tx) => {
            const before = await readConfigSpec(tx);
            // The draft may have changed since the clashes were decided: a clash none decided
            // (an object created meanwhile under a name the import takes) refuses the import.
            const fragment = withStoredEndpoints(
              before,
              { ...imported, spec: withoutSkipped(imported.spec, clashes) },
              document,
            );
            const late = planMerge(before, fragment, {
              onClash: "replace",
              open: keyring.open,
            }).clashes.filter((c) => decided.get(objectKey(c.kind, c.name)) !== "replace");
            if (late.length > 0)
              throw new ConnectError(
                `the draft changed while ${document} was read (${late.map((c) => `${c.kind} ${JSON.stringify(c.name)}`).join(", ")}): import it again`,
                Code.Aborted,
              );
            const pruned = await pruneDeletions(tx, caller, before, 0, fragment, request.prune);
            // An object the document holds as the draft has it keeps its row (update time).
            await writeChangedObjects(tx, before, fragment);
            const after = withoutPruned(await readConfigSpec(tx), pruned);
            // Each object the import changes is a write of its own: a member imports only
            // what their team owns.
            const writes = writesBetween(
              diffManifests(
                sourceManifest(sourceObjects(before)),
                sourceManifest(sourceObjects(after)),
              ),
              before,
              after,
            );
            await authorizeWrites(tx, caller, writes, policy);
            await claimNewOwners(tx, caller, writes);
            await auditWrites(tx, caller, ipOf(context), writes, {
              import: request.filename || "document",
            });
            // Deleted once authorized: the check reads a cluster's owner from its row.
            for (const object of pruned) await deleteObject(tx, object.kind, object.name);
            const result = { before, after };
            // A dry run measures the effect inside the transaction, then rolls it back.
            if (request.dryRun) throw new DryRun(result);
            return result;
          },
          { timeout: 120_000 },
        );
      let result: { before: ConfigSpec; after: ConfigSpec };
      try {
        result = await translated(apply);
      } catch (error) {
        if (!(error instanceof DryRun)) throw error;
        result = error.result;
      }
      const changes = diffManifests(
        sourceManifest(sourceObjects(result.before)),
        sourceManifest(sourceObjects(result.after)),
      );
      // A dry run also says what a publish of the result would say (switchyard diff -f): its
      // validation, as publish runs it, secrets opened with the server's key, and the stored
      // route tests that would refuse it.
      const checked = request.dryRun && request.validate && changes.length > 0;
      // Each predicted rejection says whether the latest version has it too: a new one would
      // refuse the publish without accept_warnings (diff -f exits 3 for it).
      const validation = checked
        ? await store.markRejections(
            validate(result.after, {
              compiled: compile(result.after, { openSecret: keyring.open }),
              openSecret: keyring.open,
              now: Date.now(),
            }).issues,
          )
        : [];
      const routeTests = checked
        ? await routeTestIssues(prisma, runners.dryRun, changes, result.after)
        : [];
      return {
        changes: await objectChanges(changes, { before: result.before, after: result.after }),
        issues: [...imported.issues, ...validation, ...routeTests].map(issueMessage),
        // A declarative import (replace) says what it replaces that others use, as apply does.
        clashes:
          rules.onClash === "replace" && rules.choices.size === 0
            ? outsideEffects(result.before, read, changes)
            : clashMessages(stored, read, clashes),
      };
    },

    async export(request) {
      const spec = await specAt(prisma, request.version);
      return {
        content: exportEnvoyConfig(spec, {
          format: request.format === ConfigFormat.JSON ? "json" : "yaml",
        }),
      };
    },
  };
}

/**
 * The objects of an Import's (or Apply's) document, read off the event loop (inline private keys
 * come back as SDS secrets, sealed with the server's secrets key); a document that does not
 * parse, holds an error, or holds what the draft cannot store is refused with every issue.
 */
export async function readImport(
  importer: EnvoyImporter,
  keyring: SecretKeyring,
  request: (ImportRequest | ApplyRequest) & { readonly content: string; readonly filename: string },
  signal: AbortSignal,
  renames: readonly ImportRename[] = [],
): Promise<Extract<ImportOutcome, { t: "imported" }>> {
  const document = request.filename || "the document";
  const types = importTypes(request, request.$typeName.slice("switchyard.v1.".length));
  const imported = await importer.read(request.content, request.filename, keyring, signal, {
    ...types,
    ...(renames.length > 0 ? { renames } : {}),
  });
  if (imported.t === "unparsable") {
    throw invalidArgument(
      `${document} is not valid Envoy v3 config: ${summarize(imported.errors)}`,
      imported.errors,
    );
  }
  const errors = imported.issues.filter((issue) => issue.severity === "error");
  if (errors.length > 0)
    throw invalidArgument(`${document} cannot be imported: ${summarize(errors)}`, imported.issues);
  checkStorable(document, imported.spec);
  return imported;
}

/**
 * What an import writes, with EDS as Envoy has it (CDS and EDS are separate resources, updated
 * separately): a cluster that came without its ClusterLoadAssignment keeps the stored endpoints,
 * and an assignment whose cluster is not in the document gives the stored EDS cluster of that
 * EDS resource name (its eds_cluster_config.service_name, or its name) new endpoints. An
 * assignment no stored cluster takes is refused, at its cluster_name.
 */
export function withStoredEndpoints(
  stored: ConfigSpec,
  imported: {
    readonly spec: ConfigSpecFragment;
    readonly assignments: readonly ImportedAssignment[];
    readonly withoutAssignment: readonly string[];
  },
  document: string,
): ConfigSpecFragment {
  if (imported.assignments.length === 0 && imported.withoutAssignment.length === 0)
    return imported.spec;
  const byName = new Map(stored.clusters.map((cluster) => [cluster.name, cluster]));
  const byEdsName = new Map(
    stored.clusters
      .filter((cluster) => cluster.discoveryType === "EDS")
      .map((cluster) => [edsResourceName(cluster), cluster]),
  );
  const keep = new Set(imported.withoutAssignment);
  const clusters = imported.spec.clusters.map((cluster) => {
    const was = byName.get(cluster.name);
    return keep.has(cluster.name) && was?.discoveryType === "EDS"
      ? { ...cluster, localities: was.localities, assignmentExtra: was.assignmentExtra }
      : cluster;
  });
  const missing: ApiIssue[] = [];
  for (const assignment of imported.assignments) {
    const cluster = byEdsName.get(assignment.edsName);
    if (cluster === undefined) {
      missing.push(assignment.missing);
      continue;
    }
    const { localities, assignmentExtra } = assignment;
    clusters.push({ ...cluster, localities, assignmentExtra });
  }
  if (missing.length > 0)
    throw invalidArgument(`${document} cannot be imported: ${summarize(missing)}`, missing);
  return { ...imported.spec, clusters };
}

/**
 * Refuses an imported config the draft cannot hold, as Create refuses such an object: a name that
 * is empty, holds control characters or is too long to index (nameProblem), or any string holding
 * U+0000 (YAML's `"\0"`), which Postgres refuses. Other problems may sit in the draft until a
 * publish (request-checks.e2e.spec.ts).
 */
function checkStorable(document: string, spec: ConfigSpecFragment): void {
  const text = valueTextProblem(spec, "config");
  if (text) {
    throw invalidArgument(`${document} cannot be imported: ${text.path} ${text.reason}`, [
      { severity: "error", code: "invalid-request", path: text.path, message: text.reason },
    ]);
  }
  const whole = { ...spec, nodeGroups: [], secrets: [] };
  const names = validate(whole).issues.filter((issue) => issue.code === "invalid-name");
  if (names.length > 0) {
    throw invalidArgument(`${document} cannot be imported: ${summarize(names)}`, names);
  }
}

function summarize(issues: readonly ApiIssue[]): string {
  const shown = issues
    .slice(0, 3)
    .map((issue) => `${shownPath(issue.path)}: ${issue.message}`)
    .join("; ");
  return issues.length > 3 ? `${shown} (and ${issues.length - 3} more)` : shown;
}
