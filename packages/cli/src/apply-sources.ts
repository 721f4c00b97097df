import { readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { CliError } from "./client.js";
import { cliIo } from "./io.js";

/** One file (or standard input) `apply -f` reads. */
export interface ApplySource {
  /** As the user named it: a path, or "stdin". */
  readonly name: string;
  readonly content: string;
}

/** What `apply -f DIR` reads in a directory: the files Envoy configuration is kept in. */
const CONFIG_FILE = /\.(ya?ml|json)$/i;

function read(file: string): string {
  try {
    if (file === "-") return cliIo().stdin ?? readFileSync(0, "utf8");
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(
      `cannot read ${file === "-" ? "standard input" : file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The configuration files in `dir` (and below it when `recursive`), sorted by path. */
function filesIn(dir: string, recursive: boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive) found.push(...filesIn(full, true));
    } else if (CONFIG_FILE.test(entry.name)) found.push(full);
  }
  return found.sort();
}

/**
 * The sources `apply -f` names, in order: each file as it is, each directory's .yaml, .yml and
 * .json files (below it too with `recursive`, as `kubectl apply -R`), and `-` for standard input
 * (which may hold several YAML documents separated by `---`).
 */
export function readApplySources(paths: readonly string[], recursive: boolean): ApplySource[] {
  const sources: ApplySource[] = [];
  for (const given of paths) {
    if (given === "-") {
      sources.push({ name: "stdin", content: read("-") });
      continue;
    }
    let directory: boolean;
    try {
      directory = statSync(given).isDirectory();
    } catch (error) {
      throw new CliError(
        `cannot read ${given}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!directory) {
      sources.push({ name: given, content: read(given) });
      continue;
    }
    const files = filesIn(given, recursive);
    if (files.length === 0)
      throw new CliError(
        `no .yaml, .yml or .json file in ${given}${recursive ? " or below it" : " (-R reads the directories below it too)"}`,
      );
    for (const file of files) sources.push({ name: file, content: read(file) });
  }
  return sources;
}

/**
 * Several sources as one YAML text of several documents (JSON is YAML), so one import sees them
 * together (a route in one file may name a cluster in another), with where each source starts:
 * `locate` turns a line of the whole back into the file and line it came from.
 */
export function joinSources(sources: readonly ApplySource[]): {
  readonly content: string;
  readonly locate: (line: number) => string | undefined;
  /** The index in `sources` of the source a line of the whole is in. */
  readonly sourceOf: (line: number) => number | undefined;
} {
  if (sources.length === 1) {
    const only = sources[0] as ApplySource;
    return {
      content: only.content,
      locate: (line) => (line > 0 ? `${only.name}:${line}` : undefined),
      sourceOf: (line) => (line > 0 ? 0 : undefined),
    };
  }
  const starts: Array<{ readonly name: string; readonly line: number }> = [];
  const parts: string[] = [];
  let line = 1;
  for (const source of sources) {
    // Each file begins a document of its own: the separator line, then the file (its own
    // leading separator, if any, kept as a comment line, so its lines keep their numbers).
    const text = source.content.replace(/\s+$/, "").replace(/^---[^\n]*/, "#");
    parts.push(`--- # ${source.name}\n${text}\n`);
    starts.push({ name: source.name, line: line + 1 });
    line += 1 + text.split("\n").length;
  }
  const indexOf = (at: number) => {
    if (at <= 0) return undefined;
    for (let i = starts.length - 1; i >= 0; i--) if ((starts[i]?.line ?? 0) - 1 <= at) return i;
    return undefined;
  };
  return {
    content: parts.join(""),
    locate: (at) => {
      if (at <= 0) return undefined;
      const source = [...starts].reverse().find((s) => s.line <= at);
      return source && `${source.name}:${at - source.line + 1}`;
    },
    // A source's separator line (the line before its first) begins its first document.
    sourceOf: indexOf,
  };
}
