/**
 * Text → JSON documents: JSON or YAML (detected from the file name or the text), one or several
 * YAML documents, syntax errors with their line and column, and a way to find where a JSON path
 * is in the text so that later problems are located too.
 */
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import {
  formatPath,
  type ImportError,
  type ImportSeverity,
  type Problem,
} from "./envoy-import-issue.js";
import { isRecord, type Segment } from "./envoy-import-json.js";

interface Position {
  readonly line: number;
  readonly column: number;
}

export interface ParsedDocument {
  readonly value: unknown;
  readonly index: number | undefined;
  /** Where a path is in the text, as far as it can be followed. */
  readonly locate: (segments: readonly Segment[]) => Position | undefined;
}

type TextResult =
  | { readonly documents: readonly ParsedDocument[] }
  | { readonly errors: ImportError[] };

function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** Follows `segments` through the YAML node tree; a map entry is located at its key. */
function locateNode(
  root: unknown,
  segments: readonly Segment[],
  text: string,
): Position | undefined {
  let node = root;
  let offset: number | undefined;
  const start = (n: unknown) =>
    isRecord(n) && Array.isArray(n.range) && typeof n.range[0] === "number"
      ? n.range[0]
      : undefined;
  offset = start(node);
  for (const segment of segments) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      offset = start(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
      node = node.items[segment];
      offset = start(node) ?? offset;
    } else break;
  }
  return offset === undefined ? undefined : positionAt(text, offset);
}

function syntaxError(
  kind: string,
  message: string,
  at: Position | undefined,
  document?: number,
): ImportError {
  return {
    severity: "error",
    path: "",
    message: `${kind} syntax error${at ? ` at line ${at.line}, column ${at.column}` : ""}: ${message}`,
    ...(document === undefined ? {} : { document }),
    ...(at ? { line: at.line, column: at.column } : {}),
  };
}

function yamlError(text: string, error: YAMLError, document: number | undefined): ImportError {
  return syntaxError("YAML", error.message, positionAt(text, error.pos[0]), document);
}

function parseYamlText(text: string): TextResult {
  const documents = parseAllDocuments(text, { prettyErrors: false, merge: true });
  const several = documents.length > 1;
  const errors = documents.flatMap((doc, i) =>
    doc.errors.map((error) => yamlError(text, error, several ? i : undefined)),
  );
  if (errors.length > 0) return { errors };
  const parsed: ParsedDocument[] = [];
  for (const [i, doc] of documents.entries()) {
    try {
      const value: unknown = doc.toJS({ maxAliasCount: 1000 });
      if (value === null || value === undefined) continue;
      parsed.push({
        value,
        index: several ? i : undefined,
        locate: (segments) => locateNode(doc.contents, segments, text),
      });
    } catch (error) {
      errors.push(
        syntaxError("YAML", error instanceof Error ? error.message : String(error), undefined),
      );
    }
  }
  return errors.length > 0 ? { errors } : { documents: parsed };
}

/** Strict JSON (JSON.parse), located through a YAML parse of the same text (JSON is YAML 1.2). */
function parseJsonText(text: string): TextResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /at position (\d+)/.exec(message)?.[1];
    return {
      errors: [
        syntaxError(
          "JSON",
          message,
          offset === undefined ? undefined : positionAt(text, Number(offset)),
        ),
      ],
    };
  }
  const doc = parseDocument(text, { prettyErrors: false });
  // JSON.parse keeps the last of duplicate keys without a word; Envoy and protobuf reject them.
  const duplicates = doc.errors.filter((error) => error.code === "DUPLICATE_KEY");
  if (duplicates.length > 0) {
    return {
      errors: duplicates.map((error) =>
        syntaxError("JSON", "duplicate key", positionAt(text, error.pos[0])),
      ),
    };
  }
  return {
    documents: [
      { value, index: undefined, locate: (segments) => locateNode(doc.contents, segments, text) },
    ],
  };
}

function isJson(text: string, filename: string | undefined): boolean {
  if (filename !== undefined && /\.json$/i.test(filename)) return true;
  if (filename !== undefined && /\.ya?ml$/i.test(filename)) return false;
  return /^\s*[[{]/.test(text);
}

export function located(
  severity: ImportSeverity,
  problem: Problem,
  document: ParsedDocument,
): ImportError {
  const position = document.locate(problem.at);
  return {
    severity,
    path: formatPath("", problem.at),
    message: problem.message,
    ...(document.index === undefined ? {} : { document: document.index }),
    ...(position ? { line: position.line, column: position.column } : {}),
  };
}

/** The documents in `text`, read as JSON or YAML (see isJson), or every syntax error in it. */
export function parseText(text: string, filename: string | undefined): TextResult {
  return isJson(text, filename) ? parseJsonText(text) : parseYamlText(text);
}
