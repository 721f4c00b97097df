// Runs in a worker thread (envoy-importer.ts): reading Envoy config is the one piece of work whose
// cost a caller chooses (megabytes of YAML), so it runs where it cannot stall xDS and the API, under
// a memory limit that ends this thread, not the server.
import {
  type ConfigSpecFragment,
  type ImportError,
  type ImportedAssignment,
  importEnvoyConfig,
  parseEnvoyConfig,
} from "@switchyard/snapshot";

export interface ImportJob {
  readonly content: string;
  readonly filename: string;
  /**
   * Whether the server can seal secret material. The key never comes here: inline private keys
   * and secret values go back unsealed in `spec.secrets`, and the importer seals them on the main
   * thread.
   */
  readonly canSeal: boolean;
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
  const parsed = parseEnvoyConfig(job.content, job.filename ? { filename: job.filename } : {});
  if ("errors" in parsed) return { t: "unparsable", errors: parsed.errors };
  const imported = importEnvoyConfig(
    parsed.resources,
    job.canSeal ? { seal: (plaintext) => plaintext } : {},
  );
  return {
    t: "imported",
    spec: imported.spec,
    issues: imported.issues,
    assignments: imported.assignments,
    withoutAssignment: imported.withoutAssignment,
  };
}
