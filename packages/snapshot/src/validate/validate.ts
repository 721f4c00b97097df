/**
 * `validate`: every problem in the stored configuration, found before anything is published.
 *
 * Pure and total: it never throws on bad input, it reports. Each check is a small function of the
 * spec (validate-structure.ts, validate-listener-structure.ts, validate-route-structure.ts,
 * validate-references.ts, validate-duplicates.ts, validate-grpc.ts) and the compiler's encoding
 * problems are folded in (validate-encoding.ts). Linear in the size of the spec: objects are
 * indexed by name once, and no check compares all pairs.
 *
 * Issues use the path syntax of validate-path.ts and the codes of validate-issues.ts.
 */

import { type CompiledConfig, type ConfigIssue, compile } from "../compile.js";
import { runtimeRegexLimit, withRegexLimit } from "../match/regex-limit.js";
import type { ConfigSpec } from "../model.js";
import type { SecretOpener } from "../secret-box.js";
import { createContext, type ValidationContext } from "./validate-context.js";
import {
  checkDefaultNodeGroups,
  checkDuplicateAssignments,
  checkDuplicateDomains,
  checkDuplicateNames,
  checkListenerConflicts,
} from "./validate-duplicates.js";
import { encodingHint, locateEncodingIssue } from "./validate-encoding.js";
import { checkEnvoyResources } from "./validate-envoy.js";
import { checkProxylessGrpc } from "./validate-grpc.js";
import { IssueList, type ValidationReport } from "./validate-issues.js";
import {
  checkFilterChains,
  checkHttpFilters,
  checkListenerAddresses,
} from "./validate-listener-structure.js";
import { pathPrefixes } from "./validate-path.js";
import {
  checkClustersHaveEndpoints,
  checkInternalListenerReferences,
  checkListenerRouteReferences,
  checkNodeGroupReferences,
  checkRouteClusterReferences,
} from "./validate-references.js";
import { withPredictedRejections } from "./validate-rejections.js";
import { checkResponseSizes } from "./validate-response-size.js";
import { checkDomains, checkRouteActions, checkRouteMatches } from "./validate-route-structure.js";
import { checkRuntimeLayers } from "./validate-runtime.js";
import { checkSecretReferences, checkSecrets, checkWithheldSecrets } from "./validate-secrets.js";
import { checkEndpoints, checkNames, checkTimeouts } from "./validate-structure.js";
import { checkVhds } from "./validate-vhds.js";

export interface ValidateOptions {
  /**
   * `compile(spec)` of the same spec, when the caller compiles anyway (publish does): its encoding
   * issues are used instead of compiling again. Encoding is most of the cost of validating a large
   * config, so a caller that validates then compiles should compile first and pass the result.
   */
  readonly compiled?: CompiledConfig;
  /**
   * Opens sealed private keys when compiling here (CompileOptions.openSecret), and sealed secret
   * values for the checks that need them in the clear (a session ticket key is 80 bytes, a generic
   * secret is not empty). A caller that has the secrets key should pass it even with `compiled`.
   */
  readonly openSecret?: SecretOpener;
  /** When certificates are judged expired; the clock by default. */
  readonly now?: number;
  /**
   * The server's xDS response limit, for node groups without their own
   * (validate-response-size.ts); the process's (setMaxResponseBytes) by default.
   */
  readonly maxResponseBytes?: number;
}

/** In report order; see each for its rules. */
const CHECKS: readonly ((ctx: ValidationContext) => void)[] = [
  checkNames,
  checkListenerAddresses,
  checkFilterChains,
  checkHttpFilters,
  checkTimeouts,
  checkEndpoints,
  checkDomains,
  checkRouteMatches,
  checkRouteActions,
  checkRuntimeLayers,
  checkSecrets,
  checkVhds,
  checkRouteClusterReferences,
  checkListenerRouteReferences,
  checkNodeGroupReferences,
  checkInternalListenerReferences,
  checkSecretReferences,
  checkClustersHaveEndpoints,
  checkDuplicateNames,
  checkDuplicateDomains,
  checkDuplicateAssignments,
  checkDefaultNodeGroups,
  checkListenerConflicts,
];

/**
 * Every problem in `spec`: errors (which block a publish) and warnings (which do not), each with a
 * stable code and the path of the field at fault. `ok` is true when there is no error.
 */
export function validate(spec: ConfigSpec, options: ValidateOptions = {}): ValidationReport {
  // A runtime layer setting re2.max_program_size.error_level lowers the regex limit, as Envoy
  // reads it; of several, the lowest (a proxy may load any of them last).
  const regexLimit = runtimeRegexLimit(spec.runtimeLayers.flatMap((layer) => layer.entries));
  return withRegexLimit(regexLimit, () => validateUnder(spec, options));
}

function validateUnder(spec: ConfigSpec, options: ValidateOptions): ValidationReport {
  const issues = new IssueList();
  const ctx = createContext(spec, issues, options.now, options.openSecret);
  for (const check of CHECKS) check(ctx);
  const compiled =
    options.compiled ?? compile(spec, options.openSecret ? { openSecret: options.openSecret } : {});
  checkEncoding(ctx, compiled.issues);
  checkWithheldSecrets(ctx, compiled);
  checkEnvoyResources(ctx, compiled);
  checkResponseSizes(ctx, compiled, options.maxResponseBytes);
  checkProxylessGrpc(ctx);
  const report = issues.report();
  return { ...report, issues: withPredictedRejections(report.issues, spec, compiled) };
}

/**
 * How many of the compiler's issues are located down to a field. Locating re-encodes parts of the
 * resource (about ten small encodings each), so an import that repeats one bad field in thousands
 * of objects would take seconds; past this many, issues keep the resource's path.
 */
const LOCATED_ENCODING_ISSUES = 100;

/**
 * The compiler's encoding issues as `invalid-envoy-json` errors at the field to blame. One that
 * lands on a path where (or under which) another error was already reported is left out: that
 * error is its cause (a negative port fails both the port check and the encoding), and saying it
 * twice would only bury it.
 */
function checkEncoding(ctx: ValidationContext, compilerIssues: readonly ConfigIssue[]): void {
  if (compilerIssues.length === 0) return;
  const explained = new Set<string>();
  for (const issue of ctx.issues.found) {
    if (issue.severity !== "error") continue;
    for (const prefix of pathPrefixes(issue.path)) explained.add(prefix);
  }
  const reported = new Set<string>();
  compilerIssues.forEach((compilerIssue, index) => {
    for (const problem of locateEncodingIssue(
      ctx,
      compilerIssue,
      index < LOCATED_ENCODING_ISSUES,
    )) {
      const key = `${problem.path}\u0000${problem.message}`;
      if (explained.has(problem.path) || reported.has(key)) continue;
      reported.add(key);
      ctx.issues.add(
        "invalid-envoy-json",
        problem.path,
        `Envoy's schema rejects this: ${problem.message}`,
        encodingHint(problem.path),
      );
    }
  });
}
