/**
 * Import issues and the JSON paths that locate them in the user's document, in the key spelling
 * the user wrote (`filter_chains` or `filterChains`).
 */
import { isRecord, type Segment } from "./envoy-import-json.js";
import type { DecodedResource } from "./envoy-import-resource.js";

export type ImportSeverity = "error" | "warning" | "info";

/** A problem (or a note) about imported config, located in the user's own document. */
export interface ImportError {
  readonly severity: ImportSeverity;
  /**
   * JSON path into the user's document, in the key spelling the user used:
   * `resources[2].filter_chains[0].filters[0].typed_config.stat_prefx`. "" is the whole document.
   */
  readonly path: string;
  readonly message: string;
  /** Index (from 0) of the YAML document the path is in, when the file holds several. */
  readonly document?: number;
  /** Position (from 1) in the text, when known. */
  readonly line?: number;
  readonly column?: number;
}

/** A located problem before it becomes an ImportError. */
export interface Problem {
  readonly at: readonly Segment[];
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `base` followed by `segments` as a JSON path: `a.b[0]["@type"]`. */
export function formatPath(base: string, segments: readonly Segment[]): string {
  let out = base;
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * `segments` (canonical camelCase keys) respelled as the keys in `source`, where the user wrote
 * `filter_chains` rather than `filterChains`.
 */
export function userSegments(source: unknown, segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  let node = source;
  for (const segment of segments) {
    if (typeof segment === "string" && isRecord(node) && !(segment in node)) {
      const snake = snakeCase(segment);
      const key = snake in node ? snake : segment;
      out.push(key);
      node = node[key];
      continue;
    }
    out.push(segment);
    node = isRecord(node)
      ? node[segment]
      : Array.isArray(node)
        ? node[segment as number]
        : undefined;
  }
  return out;
}

/** An issue about `resource`, with `at` (canonical keys) respelled as the user wrote them. */
export function issueAt(
  resource: DecodedResource,
  at: readonly Segment[],
  severity: ImportSeverity,
  message: string,
): ImportError {
  const segments = userSegments(resource.source, at);
  const position = resource.locate?.(segments);
  return {
    severity,
    path: formatPath(resource.path, segments),
    message,
    ...(resource.document === undefined ? {} : { document: resource.document }),
    ...(position ? { line: position.line, column: position.column } : {}),
  };
}
