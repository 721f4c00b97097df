// Runs in a worker thread (envoy-importer.ts): reading Envoy config is the one piece of work whose
// cost a caller chooses (megabytes of YAML), so it runs where it cannot stall xDS and the API, under
// a memory limit that ends this thread, not the server.
import {
  type EnvoySchema,
  installEnvoySchemas,
  readEnvoySchema,
  type StoredEnvoySchema,
} from "@switchyard/proto";
import {
  type ConfigSpecFragment,
  type ImportError,
  type ImportedAssignment,
  type ImportRename,
  importEnvoyConfig,
  parseEnvoyConfig,
  type ResourceListType,
  renameResources,
  setRegexMaxProgramSize,
} from "@switchyard/snapshot";

/**
 * The type of the resources a document gives without "@type", for all of them and per document
 * (ParseOptions): plain data, as it crosses to the worker thread.
 */
export interface ImportTypes {
  readonly resourceType?: ResourceListType;
  readonly documentTypes?: readonly (readonly [number, ResourceListType])[];
  /**
   * Objects of the document to store under other names, with the document's references to them
   * (renameResources): the incoming side of a name clash with a stored object.
   */
  readonly renames?: readonly ImportRename[];
}

export interface ImportJob extends ImportTypes {
  readonly content: string;
  readonly filename: string;
  /**
   * Whether the server can seal secret material. The key never comes here: inline private keys
   * and secret values go back unsealed in `spec.secrets`, and the importer seals them on the main
   * thread.
   */
  readonly canSeal: boolean;
  /**
   * The newer Envoy APIs the server has installed, oldest first: this thread has a registry of
   * its own, and reads the document with the same definitions.
   */
  readonly schemas: readonly (StoredEnvoySchema & { readonly sha256: string })[];
  /** The server's regex program size limit (regexMaxProgramSize): this thread keeps its own. */
  readonly regexMaxProgramSize: number;
}

/** The schemas read in this thread, by digest, so that each is read once. */
const known = new Map<string, EnvoySchema>();
let installed = "";

function installSchemas(schemas: ImportJob["schemas"]): void {
  const key = schemas.map((s) => s.sha256).join(",");
  if (key === installed) return;
  installEnvoySchemas(
    schemas.flatMap((stored) => {
      let schema = known.get(stored.sha256);
      if (!schema) {
        const read = readEnvoySchema(stored.name, stored.bytes);
        if ("problem" in read) return [];
        schema = read.schema;
        known.set(stored.sha256, schema);
      }
      return [schema];
    }),
  );
  installed = key;
}

export type ImportOutcome =
  | { readonly t: "unparsable"; readonly errors: readonly ImportError[] }
  | {
      readonly t: "imported";
      readonly spec: ConfigSpecFragment;
      readonly issues: readonly ImportError[];
      /** Assignments of clusters not in the document, and its EDS clusters without one. */
      readonly assignments: readonly ImportedAssignment[];
      readonly withoutAssignment: readonly string[];
    };

export default function importEnvoyText(job: ImportJob): ImportOutcome {
  installSchemas(job.schemas);
  setRegexMaxProgramSize(job.regexMaxProgramSize);
  const parsed = parseEnvoyConfig(job.content, {
    ...(job.filename ? { filename: job.filename } : {}),
    ...(job.resourceType ? { resourceType: job.resourceType } : {}),
    ...(job.documentTypes ? { documentTypes: new Map(job.documentTypes) } : {}),
  });
  if ("errors" in parsed) return { t: "unparsable", errors: parsed.errors };
  const imported = importEnvoyConfig(
    renameResources(parsed.resources, job.renames ?? []),
    job.canSeal ? { seal: (plaintext) => plaintext } : {},
  );
  return {
    t: "imported",
    spec: imported.spec,
    // The notes of reading the document (what it left out and why, Envoy's lenient forms), then
    // those of mapping it.
    issues: [...parsed.warnings, ...imported.issues],
    assignments: imported.assignments,
    withoutAssignment: imported.withoutAssignment,
  };
}
