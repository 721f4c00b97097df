/**
 * Every place in an Envoy message that makes a proxy touch its own host (proxy-local-fields.ts),
 * found by one walk over it (envoy-walk.ts: every field, list item and map value, typed `Any`s
 * and TypedStructs of any depth, per-filter configs included):
 *
 *   - a field of the table, with what it makes the proxy do;
 *   - a candidate field the table and its lists do not classify (proxy-local-candidates.ts: a
 *     field of a newer Envoy API loaded at run time), which counts as proxy-local until it is;
 *   - in an extension Switchyard has no schema for (a contrib filter written as a TypedStruct),
 *     every key named like a candidate (`library_path`), since its type cannot say what it is;
 *     one packed as bytes of an unknown type cannot be read at all, and counts too;
 *   - in any string, Envoy's `%ENVIRONMENT(X)%` substitution command.
 *
 * Pure: what the caller may do about each is auth/local-sources.ts's business in the server.
 */
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import { quotedInput } from "../bounded-text.js";
import { typeNameOf } from "../envoy/envoy-proto-json.js";
import { type Segment, walkEnvoy } from "../envoy/envoy-walk.js";
import { classifyField, hasCandidateWord, qualifiedName } from "./proxy-local-candidates.js";
import {
  ENVIRONMENT_COMMAND,
  type ProxyLocalField,
  type ProxyLocalKind,
} from "./proxy-local-fields.js";

/** One place where a message makes its proxies touch their host. */
export interface ProxyLocalUse {
  /** Its path in the message's proto3 JSON; a DataSource's file or variable at the DataSource. */
  readonly at: readonly Segment[];
  /** The Envoy field (`envoy.config.core.v3.HealthCheck.event_log_path`) that holds it. */
  readonly field: string;
  /** `unclassified`: a candidate no one has classified yet, taken as proxy-local. */
  readonly kind: ProxyLocalKind | "unclassified";
  /** What the proxy does, after "makes proxies": `append health check events to the file "/x"`. */
  readonly does: string;
  /**
   * The host path the proxy only reads for it (a file, a directory, a config file, a script it
   * runs): what a directory allowed to members can cover. Null when reading is not all it does.
   */
  readonly reads: string | null;
  /** What to do instead, beyond asking an admin. */
  readonly instead: string | null;
}

const DATA_SOURCE = "envoy.config.core.v3.DataSource";
const ASYNC_DATA_SOURCE = "envoy.config.core.v3.AsyncDataSource";
const TYPED_STRUCT_TYPES = new Set(["xds.type.v3.TypedStruct", "udpa.type.v1.TypedStruct"]);
const JSON_VALUE_TYPES = new Set([
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
]);
const READING: ReadonlySet<ProxyLocalKind> = new Set(["reads-file", "loads-config"]);
const UNIX_TARGET = /^unix(-abstract)?:/;
const text = new TextDecoder();

interface Specified {
  readonly specifier?: { readonly case?: string; readonly value?: unknown };
}

/** Where the code a DataSource or AsyncDataSource holds comes from, and the file it reads. */
function codeSource(value: unknown): { from: string; reads: string | null } | undefined {
  const specifier = (value as Specified | undefined)?.specifier;
  switch (specifier?.case) {
    case "filename":
      return {
        from: ` in the file ${quotedInput(specifier.value)}`,
        reads: String(specifier.value),
      };
    case "environmentVariable":
      return {
        from: ` in the environment variable ${quotedInput(specifier.value)}`,
        reads: null,
      };
    case "inlineString":
    case "inlineBytes":
      return { from: " given inline", reads: null };
    case "local":
      return codeSource(specifier.value);
    case "remote": {
      const uri = (specifier.value as { httpUri?: { uri?: string } }).httpUri?.uri ?? "";
      return { from: ` fetched from ${quotedInput(uri)}`, reads: null };
    }
    default:
      return undefined;
  }
}

/** ` "value"` for a string, ` "name"` for a message with a name, else nothing. */
function shown(value: unknown): string {
  if (typeof value === "string") return ` ${quotedInput(value)}`;
  if (value instanceof Uint8Array) return ` ${quotedInput(text.decode(value))}`;
  const name = (value as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" ? ` ${quotedInput(name)}` : "";
}

/** The use a table row's field makes with `value`, or undefined when this value does not. */
function rowUse(
  row: ProxyLocalField,
  field: DescField,
  value: unknown,
  at: readonly Segment[],
): ProxyLocalUse | undefined {
  if (row.only === "unix-target" && !(typeof value === "string" && UNIX_TARGET.test(value))) {
    return undefined;
  }
  const instead = row.instead ?? null;
  const holder = field.parent.typeName;
  // A DataSource's file or variable is shown where the DataSource is (`directResponse.body`).
  const where = holder === DATA_SOURCE ? at.slice(0, -1) : [...at];
  if (row.kind === "runs-code") {
    const source =
      field.message?.typeName === DATA_SOURCE || field.message?.typeName === ASYNC_DATA_SOURCE
        ? codeSource(value)
        : row.inline
          ? { from: " given inline", reads: null }
          : { from: shown(value), reads: null };
    if (source === undefined) return undefined; // an empty source runs nothing
    return {
      at: where,
      field: row.field,
      kind: row.kind,
      does: `${row.does}${source.from}`,
      reads: source.reads,
      instead,
    };
  }
  const reads = READING.has(row.kind) && typeof value === "string" ? value : null;
  return {
    at: where,
    field: row.field,
    kind: row.kind,
    does: `${row.does}${shown(value)}`,
    reads,
    instead,
  };
}

function unclassified(field: string, does: string, at: readonly Segment[]): ProxyLocalUse {
  return { at: [...at], field, kind: "unclassified", does, reads: null, instead: null };
}

const NOT_CLASSIFIED =
  "not yet classified by Switchyard, and named or typed like a file, a directory, code or an environment variable";

/** `%ENVIRONMENT(X)%` in a string, as a use of the field holding it. */
function environmentCommand(
  field: DescField | string,
  value: string,
  at: readonly Segment[],
): ProxyLocalUse | undefined {
  const command = value.includes("%ENVIRONMENT(") ? ENVIRONMENT_COMMAND.exec(value) : null;
  if (command === null) return undefined;
  return {
    at: [...at],
    field: typeof field === "string" ? field : qualifiedName(field),
    kind: "reads-env",
    does: `put the environment variable ${quotedInput(command[1])} into what it formats (%ENVIRONMENT(${command[1]})%)`,
    reads: null,
    instead: null,
  };
}

/** Every use in `message` (of type `desc`), in the order the walk meets them, one per path. */
export function proxyLocalIn(desc: DescMessage, message: Message): ProxyLocalUse[] {
  const found: ProxyLocalUse[] = [];
  const seen = new Set<string>();
  const add = (use: ProxyLocalUse | undefined) => {
    if (use === undefined) return;
    const key = use.at.join("\u0000");
    if (seen.has(key)) return;
    seen.add(key);
    found.push(use);
  };
  /** Strings in a JSON value (a Struct, a TypedStruct's content): the command, and candidate keys. */
  const scanJson = (
    json: unknown,
    at: Segment[],
    field: string,
    keysOf: string | null,
    depth = 0,
  ): void => {
    if (depth > 64) return;
    if (typeof json === "string") {
      add(environmentCommand(field, json, at));
      return;
    }
    if (typeof json !== "object" || json === null) return;
    const entries: [Segment, unknown][] = Array.isArray(json)
      ? json.map((item, index) => [index, item])
      : Object.entries(json);
    for (const [key, inner] of entries) {
      at.push(key);
      if (keysOf !== null && typeof key === "string" && key !== "@type" && hasCandidateWord(key)) {
        add(
          unclassified(
            `${keysOf}.${key}`,
            `follow ${keysOf} ${key}${shown(inner)} (an extension Switchyard has no schema for, so its key is ${NOT_CLASSIFIED})`,
            at,
          ),
        );
      }
      scanJson(inner, at, field, keysOf, depth + 1);
      at.pop();
    }
  };
  let lastTypedStruct: { typeUrl: string; value: unknown } | undefined;
  walkEnvoy(desc, message, {
    enter(entered, value) {
      if (TYPED_STRUCT_TYPES.has(entered.typeName)) {
        lastTypedStruct = value as unknown as { typeUrl: string; value: unknown };
      }
      return true;
    },
    value(field, value, at) {
      const known = classifyField(field);
      if (known.t === "proxy-local") add(rowUse(known.row, field, value, at));
      else if (known.t === "unclassified") {
        const name = qualifiedName(field);
        add(unclassified(name, `follow ${name}${shown(value)} (${NOT_CLASSIFIED})`, at));
      }
      if (typeof value === "string") add(environmentCommand(field, value, at));
      else if (value instanceof Uint8Array) add(environmentCommand(field, text.decode(value), at));
      else if (field.message !== undefined && JSON_VALUE_TYPES.has(field.message.typeName)) {
        scanJson(value, [...at], qualifiedName(field), null);
      }
      return true;
    },
    opaque(at, extension) {
      if (extension.via === "typed-struct" && lastTypedStruct !== undefined) {
        const type = typeNameOf(extension.typeUrl);
        scanJson(lastTypedStruct.value, [...at, "value"], type, type);
        return;
      }
      if (extension.t === "unknown-type") {
        add(
          unclassified(
            extension.typeUrl,
            `run the extension ${extension.typeUrl}, which Switchyard has no schema for and cannot look into`,
            at,
          ),
        );
      }
    },
  });
  return found;
}
