/**
 * Which stored objects a validation issue is about, so that an answer says an object's issues
 * where that object is edited (its save, an import or publish that changes it) and not on every
 * unrelated operation: a warning about a listener nobody touched (its contrib filter without a
 * schema, say) is shown on that listener and on the Changes page, not in every publish's answer.
 * Pure.
 */
import { quotedInput } from "../bounded-text.js";
import { KIND_LABEL, type SourceKind, SPEC_FIELD } from "../sources.js";
import { named } from "./validate-path.js";

export interface ObjectRef {
  readonly kind: SourceKind;
  readonly name: string;
}

/**
 * The issues of `issues` about one of `objects`: its path is in the object
 * (`listeners["edge"]...`), or its message names the object (`listener "edge"`), as one about a
 * pair does (two listeners on one address, a reference to an object deleted). Issues without a
 * path (about the whole configuration) are about every change, and kept.
 */
export function issuesAbout<T extends { readonly path: string; readonly message: string }>(
  issues: readonly T[],
  objects: readonly ObjectRef[],
): T[] {
  if (objects.length === 0) return issues.filter((issue) => issue.path === "");
  const prefixes = objects.map((o) => `${SPEC_FIELD[o.kind]}${named(o.name)}`);
  const mentions = objects.map((o) => `${KIND_LABEL[o.kind]} ${quotedInput(o.name)}`);
  return issues.filter(
    (issue) =>
      issue.path === "" ||
      // `listeners["edge"]` ends in `"]`, so it is no prefix of `listeners["edge-2"]`.
      prefixes.some((p) => issue.path.startsWith(p)) ||
      mentions.some((m) => issue.message.includes(m)),
  );
}
