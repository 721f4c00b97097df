/**
 * The JSON forms Envoy reads beyond canonical proto3 JSON, rewritten into canonical form before a
 * document is checked, each with a note saying what changed.
 *
 * Envoy loads YAML and JSON config with protobuf's JSON parser in its legacy mode
 * (`allow_legacy_syntax`) and with case-insensitive enum parsing, so real configs rely on:
 *   - enum names in any case (`codec_type: auto`, `lb_policy: round_robin`);
 *   - a single value where a list is expected ("The original ESF parser permits a single element
 *     in place of an array thereof", protobuf's json/internal/parser.cc), in a resource and in
 *     the document around it (readList: `static_resources.clusters`, `resources`, ...);
 *   - booleans written as the strings "true" and "false";
 *   - a wrapper (`UInt32Value`, ...) written as its message, `{ value: 5 }`, and a Duration as
 *     `{ seconds, nanos }`.
 * And an extension whose type the registry lacks (Envoy's contrib filters) is left as written with
 * a warning: it is carried through as a TypedStruct (envoy-proto-json.ts), which Envoy converts
 * itself, and Switchyard cannot check it.
 */
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { quotedInput } from "../bounded-text.js";
import { fieldByKey, isOpaqueType, typeNameOf } from "../envoy/envoy-proto-json.js";
import type { ImportSeverity } from "./envoy-import-issue.js";
import { isRecord, type Segment } from "./envoy-import-json.js";

/** A note about one rewrite, at the path of the value rewritten. */
export interface LenientNote {
  readonly at: readonly Segment[];
  readonly severity: ImportSeverity;
  readonly message: string;
}

interface Reader {
  readonly notes: LenientNote[];
  /** Notes already made, by message: one per kind of rewrite is enough to read. */
  readonly said: Set<string>;
}

function note(reader: Reader, at: readonly Segment[], severity: ImportSeverity, message: string) {
  const key = `${severity}\u0000${message}`;
  if (reader.said.has(key)) return;
  reader.said.add(key);
  reader.notes.push({ at, severity, message });
}

function enumValue(desc: DescEnum, value: unknown): unknown {
  if (typeof value !== "string" || desc.values.some((v) => v.name === value)) return value;
  const upper = value.toUpperCase();
  return desc.values.find((v) => v.name.toUpperCase() === upper)?.name ?? value;
}

function scalarValue(field: DescField, value: unknown): unknown {
  if (field.scalar === ScalarType.BOOL && (value === "true" || value === "false")) {
    return value === "true";
  }
  return value;
}

/** `{ seconds: 1, nanos: 500000000 }` as "1.500s"; undefined when it is not that shape. */
function durationText(value: Record<string, unknown>): string | undefined {
  const keys = Object.keys(value);
  if (!keys.every((key) => key === "seconds" || key === "nanos")) return undefined;
  const seconds = Number(value.seconds ?? 0);
  const nanos = Number(value.nanos ?? 0);
  if (!Number.isInteger(seconds) || !Number.isInteger(nanos) || Math.abs(nanos) > 999_999_999) {
    return undefined;
  }
  if (nanos === 0) return `${seconds}s`;
  const sign = seconds < 0 || nanos < 0 ? "-" : "";
  const fraction = String(Math.abs(nanos)).padStart(9, "0").replace(/0+$/, "");
  return `${sign}${Math.abs(seconds)}.${fraction}s`;
}

function readMessage(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
  reader: Reader,
): unknown {
  if (desc.typeName === "google.protobuf.Any") return readAny(json, at, reader);
  if (desc.typeName === "google.protobuf.Duration" && isRecord(json)) {
    const text = durationText(json);
    if (text === undefined) return json;
    note(reader, at, "info", `a Duration written as { seconds, nanos } is stored as "${text}"`);
    return text;
  }
  if (isWrapperDesc(desc) && isRecord(json) && Object.keys(json).length === 1 && "value" in json) {
    note(reader, at, "info", `a ${desc.name} written as { value: ... } is stored as its value`);
    const [valueField] = desc.fields;
    return valueField ? scalarValue(valueField, json.value) : json.value;
  }
  if (desc.typeName.startsWith("google.protobuf.") && hasCustomJsonRepresentation(desc)) {
    return json;
  }
  if (!isRecord(json)) return json;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByKey(desc, key);
    if (!field || value === null) continue;
    const read = readField(field, value, [...at, key], reader);
    if (read !== value) {
      out ??= { ...json };
      out[key] = read;
    }
  }
  return out ?? json;
}

function readItem(field: DescField, value: unknown, at: readonly Segment[], reader: Reader) {
  if (field.message) return readMessage(field.message, value, at, reader);
  if (field.enum) {
    const read = enumValue(field.enum, value);
    if (read !== value) {
      note(
        reader,
        at,
        "info",
        `enum values are read as Envoy reads them, in any case: ${quotedInput(value)} is stored as ${quotedInput(read)}`,
      );
    }
    return read;
  }
  const read = scalarValue(field, value);
  if (read !== value) {
    note(reader, at, "info", `a boolean written as a string is stored as ${String(read)}`);
  }
  return read;
}

/** The note of a single value read as a list of one, in a field or at a document's level. */
function singleValueNote(name: string): string {
  return `${name} is a list: a single value is read as a list of one, as Envoy reads it`;
}

function readField(
  field: DescField,
  value: unknown,
  at: readonly Segment[],
  reader: Reader,
): unknown {
  switch (field.fieldKind) {
    case "list": {
      let list = value;
      if (!Array.isArray(list)) {
        note(reader, at, "info", singleValueNote(field.name));
        list = [value];
      }
      const items = list as unknown[];
      const read = items.map((item, i) => readItem(field, item, [...at, i], reader));
      return read.some((item, i) => item !== items[i]) || list !== value ? read : value;
    }
    case "map": {
      if (!isRecord(value)) return value;
      const entries = Object.entries(value).map(
        ([key, item]) => [key, readItem(field, item, [...at, key], reader)] as const,
      );
      return entries.some(([key, item]) => item !== value[key])
        ? Object.fromEntries(entries)
        : value;
    }
    default:
      return readItem(field, value, at, reader);
  }
}

function readAny(json: unknown, at: readonly Segment[], reader: Reader): unknown {
  if (!isRecord(json)) return json;
  const typeUrl = json["@type"];
  if (typeof typeUrl !== "string" || typeUrl === "") return json;
  if (isOpaqueType(typeUrl)) {
    reader.notes.push({
      at: [...at, "@type"],
      severity: "warning",
      message: `${typeNameOf(typeUrl)} is not among the Envoy types Switchyard has a schema for (a contrib or third-party extension): it is kept as written and sent as a TypedStruct, which Envoy converts itself, but Switchyard cannot validate it`,
    });
    return json;
  }
  const desc = registry.getMessage(typeNameOf(typeUrl));
  if (!desc) return json;
  if (hasCustomJsonRepresentation(desc)) {
    if (!("value" in json)) return json;
    const value = readMessage(desc, json.value, [...at, "value"], reader);
    return value === json.value ? json : { ...json, value };
  }
  const { "@type": _, ...fields } = json;
  const read = readMessage(desc, fields, at, reader);
  return read === fields ? json : { "@type": typeUrl, ...(read as Record<string, unknown>) };
}

/**
 * `json` (a document's resource of type `desc`) with Envoy's lenient forms rewritten into
 * canonical proto3 JSON, and a note for each kind of rewrite. Unchanged parts are shared; what is
 * not a form Envoy reads is left for the schema check to report.
 */
export function readLenient(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
): { readonly json: unknown; readonly notes: readonly LenientNote[] } {
  const reader: Reader = { notes: [], said: new Set() };
  return { json: readMessage(desc, json, at, reader), notes: reader.notes };
}

/**
 * A list of a document's own shape (a bootstrap's `static_resources.clusters`, a DiscoveryResponse's
 * `resources`, a config dump's `configs` and its `dynamic_active_clusters`, ...) read as Envoy's
 * JSON reading reads every repeated field: a single value is a list of one, with the same note as
 * in a resource. `name` is the field's proto name; `undefined` and `null` are an empty list.
 */
export function readList(
  name: string,
  value: unknown,
  at: readonly Segment[],
): { readonly items: readonly unknown[]; readonly note?: LenientNote } {
  if (value === undefined || value === null) return { items: [] };
  if (Array.isArray(value)) return { items: value };
  return { items: [value], note: { at, severity: "info", message: singleValueNote(name) } };
}
