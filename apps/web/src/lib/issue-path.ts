/**
 * Puts the API's validation issues at form fields.
 *
 * The server locates each issue by a path into the stored model (packages/snapshot validate-path.ts):
 *
 *   clusters["payments"].localities[0].endpoints[1].port
 *   routeConfigurations["ingress"].virtualHosts["api"].routes[2].cluster
 *
 * A form names its fields the way react-hook-form does (`localities.0.endpoints.1.port`). Children
 * addressed by name (`virtualHosts["api"]`) are found by their `name` in the submitted values, so
 * the error lands on the row the user typed, wherever it sits in the list.
 */

export type PathStep =
  | { readonly t: "field"; readonly name: string }
  | { readonly t: "index"; readonly index: number }
  | { readonly t: "key"; readonly key: string };

/** Splits a model path into steps; `undefined` when it is not in the path syntax. */
export function parseIssuePath(path: string): PathStep[] | undefined {
  const steps: PathStep[] = [];
  let i = 0;
  const identifier = /^[A-Za-z_$][\w$]*/;
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest.startsWith(".") || i === 0) {
      const offset = rest.startsWith(".") ? 1 : 0;
      const match = identifier.exec(rest.slice(offset));
      if (!match) return undefined;
      steps.push({ t: "field", name: match[0] });
      i += offset + match[0].length;
    } else if (rest.startsWith("[")) {
      const index = /^\[(\d+)\]/.exec(rest);
      if (index?.[1] !== undefined) {
        steps.push({ t: "index", index: Number(index[1]) });
        i += index[0].length;
        continue;
      }
      const key = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
      if (!key?.[1]) return undefined;
      steps.push({ t: "key", key: JSON.parse(key[1]) as string });
      i += key[0].length;
    } else {
      return undefined;
    }
  }
  return steps;
}

/** What a form tells the mapper about itself. */
export interface FieldMap {
  /**
   * The form's fields, `*` standing for any array index: `localities.*.endpoints.*.port`. An
   * issue deeper than a listed field (inside a JSON field) is shown at that field.
   */
  readonly fields: readonly string[];
  /** Model field names that the form names otherwise, by pattern: `{ "filterChains.*.rdsRouteConfigName": "filterChains.*.routeConfigName" }`. */
  readonly aliases?: Readonly<Record<string, string>>;
}

const pattern = (segments: readonly string[]) =>
  segments.map((s) => (/^\d+$/.test(s) ? "*" : s)).join(".");

/** Replaces the `*`s of `template` with the indexes of `segments`, in order. */
function fillIndexes(template: string, segments: readonly string[]): string {
  const indexes = segments.filter((s) => /^\d+$/.test(s));
  let n = 0;
  return template
    .split(".")
    .map((s) => (s === "*" ? (indexes[n++] ?? "0") : s))
    .join(".");
}

/**
 * The form field an issue belongs to, or `undefined` when the form has no field for it (then the
 * issue goes to the summary). `values` are the submitted form values, used to find named rows.
 */
export function fieldForIssue(path: string, values: unknown, map: FieldMap): string | undefined {
  const steps = parseIssuePath(path);
  // The first two steps name the object itself: clusters["payments"].
  if (!steps || steps.length < 2 || steps[0]?.t !== "field" || steps[1]?.t !== "key") {
    return undefined;
  }
  const segments: string[] = [];
  let cursor: unknown = values;
  for (const step of steps.slice(2)) {
    let segment: string;
    if (step.t === "field") segment = step.name;
    else if (step.t === "index") segment = String(step.index);
    else {
      // A named child: its position among the submitted rows.
      const rows = Array.isArray(cursor) ? cursor : [];
      const at = rows.findIndex(
        (row) =>
          typeof row === "object" && row !== null && (row as { name?: unknown }).name === step.key,
      );
      if (at < 0) return undefined;
      segment = String(at);
    }
    segments.push(segment);
    cursor =
      typeof cursor === "object" && cursor !== null
        ? (cursor as Record<string, unknown>)[segment]
        : undefined;
  }
  if (segments.length === 0) return "name";

  const known = new Set(map.fields);
  // The deepest prefix of the path that is a field of the form (or an alias of one).
  for (let length = segments.length; length > 0; length--) {
    const prefix = segments.slice(0, length);
    const shape = pattern(prefix);
    const alias = map.aliases?.[shape];
    if (alias !== undefined) return fillIndexes(alias, prefix);
    // A bare index ("localities.0") is a row, not a field.
    if (known.has(shape) && !/^\d+$/.test(prefix[prefix.length - 1] ?? "")) {
      return prefix.join(".");
    }
  }
  return undefined;
}

/** An issue the way the forms handle it. */
export interface FormIssue {
  readonly path: string;
  readonly code: string;
  readonly message: string;
  readonly hint: string;
}

export interface PlacedIssues {
  /** Form field → the issues shown under it. */
  readonly byField: ReadonlyMap<string, readonly FormIssue[]>;
  /** Issues with no field in the form: shown in the summary at the top. */
  readonly unplaced: readonly FormIssue[];
}

export function placeIssues(
  issues: readonly FormIssue[],
  values: unknown,
  map: FieldMap,
): PlacedIssues {
  const byField = new Map<string, FormIssue[]>();
  const unplaced: FormIssue[] = [];
  for (const issue of issues) {
    const field = fieldForIssue(issue.path, values, map);
    if (field === undefined) {
      unplaced.push(issue);
      continue;
    }
    const list = byField.get(field);
    if (list) list.push(issue);
    else byField.set(field, [issue]);
  }
  return { byField, unplaced };
}
