/**
 * Runtime layers: keys Envoy's runtime can address and values it can read.
 *
 * Envoy's runtime is a flat map from dotted keys to values (a nested layer's keys are joined with
 * "."), and a value is read as a string, a number (integers for `getInteger`, percentages for
 * feature fractions) or a boolean (`envoy.reloadable_features.*`). A key with an empty segment
 * ("a..b", ".a", "a.") names nothing a nested layer or the filesystem layer can also hold, and
 * whitespace in a key is almost always a paste gone wrong: both are refused.
 */

import { quotedInput } from "../bounded-text.js";
import type { JsonValue } from "../model.js";
import { nth } from "../nth.js";
import type { ValidationContext } from "./validate-context.js";
import { runtimeEntryPath } from "./validate-path.js";

/** A name or value as a message quotes it: cut when long (bounded-text.ts quotedInput). */
const quote = quotedInput;

const KEY_SEGMENT = /^[^\s\p{Cc}.]+$/u;

/** Why `key` is not a runtime key Envoy can address, or undefined when it is one. */
export function runtimeKeyProblem(key: string): string | undefined {
  if (key === "") return "is empty";
  if (/[\s\p{Cc}]/u.test(key)) return "holds whitespace or control characters";
  if (!key.split(".").every((segment) => KEY_SEGMENT.test(segment))) {
    return 'has an empty segment: dots separate non-empty parts ("a.b.c")';
  }
  return undefined;
}

/** Why `value` is not a runtime value, or undefined when it is one. */
export function runtimeValueProblem(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : `is ${value}, not a finite number`;
  }
  return `is ${value === null ? "null" : Array.isArray(value) ? "a list" : typeof value}: a runtime value is a string, a number or a boolean`;
}

export function checkRuntimeLayers({ spec, issues }: ValidationContext): void {
  for (const layer of spec.runtimeLayers) {
    const seen = new Map<string, number>();
    layer.entries.forEach((entry, index) => {
      const path = runtimeEntryPath(layer.name, index);
      const keyProblem = runtimeKeyProblem(entry.key);
      if (keyProblem) {
        issues.add(
          "invalid-runtime-key",
          `${path}.key`,
          `runtime key ${quote(entry.key)} of layer ${quote(layer.name)} ${keyProblem}`,
          "use a dotted key such as fault.http.abort.abort_percent",
        );
      }
      const first = seen.get(entry.key);
      if (first !== undefined) {
        issues.add(
          "duplicate-runtime-key",
          `${path}.key`,
          `runtime layer ${quote(layer.name)} lists key ${quote(entry.key)} twice (entries ${nth(first)} and ${nth(index)})`,
          "remove one of them",
        );
      } else seen.set(entry.key, index);
      const valueProblem = runtimeValueProblem(entry.value as JsonValue | undefined);
      if (valueProblem) {
        issues.add(
          "invalid-runtime-value",
          `${path}.value`,
          `the value of runtime key ${quote(entry.key)} in layer ${quote(layer.name)} ${valueProblem}`,
        );
      }
    });
  }
}
