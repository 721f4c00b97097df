/**
 * Text → JSON documents: JSON or YAML (detected from the file name or the text), one or several
 * YAML documents, syntax errors with their line and column, and a way to find where a JSON path
 * is in the text so that later problems are located too.
 *
 * Hostile text is bounded before anything recursive sees it: at most MAX_IMPORT_BYTES, and no
 * deeper than MAX_NESTING maps and lists. The text is read once into the `yaml` package's concrete
 * syntax tree (its lexer and parser are iterative), whose depth is measured with an explicit
 * stack; only then is it composed into documents (recursive, like everything after it).
 */
import {
  Composer,
  type CST,
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  type YAMLError,
} from "yaml";
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
  /** Its position among the text's documents, from 0, whether or not the text holds several. */
  readonly ordinal: number;
  /** Where a path is in the text, as far as it can be followed. */
  readonly locate: (segments: readonly Segment[]) => Position | undefined;
}

type TextResult =
  | { readonly documents: readonly ParsedDocument[] }
  | { readonly errors: ImportError[] };

/**
 * The largest text accepted: a generous bound for real configs (a bootstrap with thousands of
 * clusters is a few MB), small enough that parsing it stays within a bounded time and memory.
 */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;

/**
 * The deepest nesting of maps and lists accepted. Protobuf parsers stop at 100 nested messages
 * (the default recursion limit of the C++ and Java runtimes, which Envoy uses); a message level
 * is one or two levels of maps and lists here (a repeated field adds its list).
 */
export const MAX_NESTING = 200;

interface Text {
  readonly text: string;
  readonly lines: LineCounter;
}

function positionAt(source: Text, offset: number): Position {
  const { line, col } = source.lines.linePos(offset);
  return { line, column: col };
}

/** Follows `segments` through the YAML node tree; a map entry is located at its key. */
function locateNode(root: unknown, segments: readonly Segment[], text: Text): Position | undefined {
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

function yamlError(text: Text, error: YAMLError, document: number | undefined): ImportError {
  return syntaxError("YAML", error.message, positionAt(text, error.pos[0]), document);
}

function parseYamlText(text: Text, tokens: readonly CST.Token[]): TextResult {
  const documents = compose(tokens, { merge: true });
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
        ordinal: i,
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

function compose(tokens: readonly CST.Token[], options: { merge?: boolean } = {}): Document[] {
  return [...new Composer({ prettyErrors: false, ...options }).compose(tokens)];
}

/** Strict JSON (JSON.parse), located through a YAML parse of the same text (JSON is YAML 1.2). */
function parseJsonText(text: Text, tokens: readonly CST.Token[]): TextResult {
  let value: unknown;
  try {
    value = JSON.parse(text.text);
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
  const [doc] = compose(tokens);
  if (!doc) return { documents: [] };
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
      {
        value,
        index: undefined,
        ordinal: 0,
        locate: (segments) => locateNode(doc.contents, segments, text),
      },
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
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_IMPORT_BYTES) {
    return {
      errors: [
        {
          severity: "error",
          path: "",
          message: `the text is ${bytes} bytes, more than the ${MAX_IMPORT_BYTES} bytes (${MAX_IMPORT_BYTES / 1024 / 1024} MiB) accepted: split it into several imports`,
        },
      ],
    };
  }
  const source: Text = { text, lines: new LineCounter() };
  const tokens = [...new Parser(source.lines.addNewLine).parse(text)];
  const deepest = deepestNode(tokens);
  if (deepest.depth > MAX_NESTING) {
    const at = positionAt(source, deepest.offset);
    return {
      errors: [
        {
          severity: "error",
          path: "",
          message: `the text nests maps and lists more than ${MAX_NESTING} deep (at line ${at.line}, column ${at.column}); no Envoy config does`,
          line: at.line,
          column: at.column,
        },
      ],
    };
  }
  return isJson(text, filename) ? parseJsonText(source, tokens) : parseYamlText(source, tokens);
}

/**
 * How deep the maps and lists of a concrete syntax tree nest, and where the first node past
 * MAX_NESTING starts: iterative, so that any depth is measured without a stack overflow.
 */
function deepestNode(tokens: readonly CST.Token[]): { depth: number; offset: number } {
  const pending: Array<{ token: CST.Token | undefined; depth: number }> = tokens.map((token) => ({
    token,
    depth: 0,
  }));
  let deepest = { depth: 0, offset: 0 };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token === undefined) continue;
    if (depth > deepest.depth) {
      deepest = { depth, offset: "offset" in token ? token.offset : 0 };
      if (depth > MAX_NESTING) return deepest;
    }
    if (token.type === "document") pending.push({ token: token.value, depth });
    else if (
      token.type === "block-map" ||
      token.type === "block-seq" ||
      token.type === "flow-collection"
    ) {
      for (const item of token.items) {
        pending.push({
          token: ("key" in item ? item.key : undefined) ?? undefined,
          depth: depth + 1,
        });
        pending.push({ token: item.value, depth: depth + 1 });
      }
    }
  }
  return deepest;
}
