/**
 * The errors a react-hook-form holds, as a flat list in the order of the form's fields: what the
 * note by the Save bar says after a failed save (config-editor.tsx). Pure: react-hook-form's
 * `FieldErrors` is a tree of objects and arrays whose leaves carry `message`.
 */

export interface FormError {
  /** The field's path, as react-hook-form names it: "filterChains.0.port". */
  readonly path: string;
  readonly message: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/**
 * Every error in `errors`, depth first (a field's own error before its children's, list items in
 * index order). A list's error of its own sits under `root` and is reported at the list's path.
 * Leaves without a message (react-hook-form's bare `{ type }`) are left out.
 */
export function formErrors(errors: unknown, at = ""): FormError[] {
  if (!isRecord(errors)) return [];
  const out: FormError[] = [];
  const message = errors.message;
  if (typeof message === "string" && message !== "") out.push({ path: at, message });
  // A list's own error before its items' (integer keys come first in an object's key order).
  out.push(...formErrors(errors.root, at));
  for (const [key, value] of Object.entries(errors)) {
    // `ref` is the field's element, `types` its other messages (criteriaMode "all").
    if (["message", "type", "ref", "types", "root"].includes(key)) continue;
    out.push(...formErrors(value, at === "" ? key : `${at}.${key}`));
  }
  return out;
}

/** "Not saved: X", or "Not saved: X (and 2 more problems)": the Save bar's note. */
export function notSavedText(errors: readonly FormError[]): string | undefined {
  const [first] = errors;
  if (first === undefined) return undefined;
  const more = errors.length - 1;
  return more === 0
    ? `Not saved: ${first.message}`
    : `Not saved: ${first.message} (and ${more} more ${more === 1 ? "problem" : "problems"})`;
}
