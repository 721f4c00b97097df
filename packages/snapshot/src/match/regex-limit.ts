/**
 * The one check every regular expression a caller supplies passes before it is compiled: its RE2
 * program size (regex-program-size.ts), against Envoy's `max_program_size` semantics. Envoy
 * refuses a regex whose program is larger than the runtime key `re2.max_program_size.error_level`
 * (default 100), or than `RegexMatcher.google_re2.max_program_size` where that deprecated field is
 * set (`CompiledGoogleReMatcher`, source/common/common/regex.cc in Envoy); Switchyard refuses it
 * before compiling, in validation (Envoy would NACK it), in the route tester and in route tests,
 * so a caller's regex costs at most a bounded compile.
 *
 * The limit is the process's (SWITCHYARD_REGEX_MAX_PROGRAM_SIZE, read in the server's env.ts and
 * set once at startup, in each worker thread too): it bounds what Switchyard itself compiles. A
 * published runtime layer that sets `re2.max_program_size.error_level` lowers it for validation,
 * as Envoy would; it cannot raise it past the process's limit (withRegexLimit).
 */
import { RE2JS } from "re2js";
import { regexProgramSize } from "./regex-program-size.js";

/** Envoy's default `re2.max_program_size.error_level`. */
export const DEFAULT_REGEX_MAX_PROGRAM_SIZE = 100;
/** The runtime key Envoy reads the limit from. */
export const REGEX_ERROR_LEVEL_KEY = "re2.max_program_size.error_level";

let processLimit = DEFAULT_REGEX_MAX_PROGRAM_SIZE;
let scopedLimit: number | undefined;

/** Sets the process's limit (startup, and each worker thread); a positive integer. */
export function setRegexMaxProgramSize(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`a regex program size limit is a positive integer, not ${limit}`);
  processLimit = limit;
}

/** The limit in force: the process's, or the lower one `withRegexLimit` runs under. */
export function regexMaxProgramSize(): number {
  return scopedLimit ?? processLimit;
}

/**
 * Runs `run` with the limit lowered to `limit` (a runtime layer's error level), never raised
 * past the process's. Synchronous, so no other check sees the scoped limit.
 */
export function withRegexLimit<T>(limit: number | undefined, run: () => T): T {
  const before = scopedLimit;
  scopedLimit = limit === undefined ? before : Math.min(limit, before ?? processLimit);
  try {
    return run();
  } finally {
    scopedLimit = before;
  }
}

/** Why `pattern`'s program is too large to compile, or undefined when it is within the limit. */
export function regexSizeProblem(
  pattern: string,
  limit = regexMaxProgramSize(),
): string | undefined {
  const size = regexProgramSize(pattern, limit);
  if (size <= limit) return undefined;
  if (size === Number.POSITIVE_INFINITY)
    return "nests parentheses more than 1000 deep, more than RE2 allows";
  const set = limit === processLimit ? "SWITCHYARD_REGEX_MAX_PROGRAM_SIZE" : REGEX_ERROR_LEVEL_KEY;
  return `compiles to an RE2 program of more than ${limit} instructions (at least ${size}), the most allowed (${set}; Envoy refuses a regex past its ${REGEX_ERROR_LEVEL_KEY}, default ${DEFAULT_REGEX_MAX_PROGRAM_SIZE}): simplify it, e.g. fewer or smaller counted repetitions`;
}

/**
 * `pattern` compiled with re2js once its size is known to be within the limit; throws
 * RegexRefusedError with RE2's or the size's problem.
 */
export function compileBoundedRegex(pattern: string): RE2JS {
  const problem = regexSizeProblem(pattern);
  if (problem !== undefined) throw new RegexRefusedError(problem);
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    throw new RegexRefusedError(
      `not an RE2 regular expression: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A regex refused before or while compiling: `message` says why (no field path: callers add it). */
export class RegexRefusedError extends Error {}

/**
 * The error level a set of runtime entries gives (Envoy reads `re2.max_program_size.error_level`
 * as an integer); undefined when none sets it.
 */
export function runtimeRegexLimit(
  entries: Iterable<{ readonly key: string; readonly value: unknown }>,
): number | undefined {
  let limit: number | undefined;
  for (const { key, value } of entries) {
    if (key !== REGEX_ERROR_LEVEL_KEY) continue;
    const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
    if (Number.isInteger(n) && n >= 0) limit = limit === undefined ? n : Math.min(limit, n);
  }
  return limit;
}
