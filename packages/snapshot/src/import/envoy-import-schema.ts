/**
 * Checking JSON against the generated Envoy message descriptors, the way protobuf-es `fromJson`
 * reads it, but collecting every problem (unknown field, wrong type, bad enum value, unknown
 * "@type") with its path instead of stopping at the first one without saying where it is.
 */

import {
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescOneof,
  ScalarType,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { envoyApisInUse, registry } from "@switchyard/proto";
import { quotedInput } from "../bounded-text.js";
import { fieldByKey } from "../envoy/envoy-proto-json.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { Problem } from "./envoy-import-issue.js";
import { describe, isRecord, type Segment } from "./envoy-import-json.js";
import { readLenient } from "./envoy-import-lenient.js";

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

export function unknownField(desc: DescMessage, key: string): string {
  const camel = /[A-Z]/.test(key);
  const names = desc.fields.map((field) => (camel ? field.jsonName : field.name));
  const nearest = names
    .map((name) => ({ name, distance: editDistance(key.toLowerCase(), name.toLowerCase()) }))
    .filter(({ distance }) => distance <= Math.max(2, Math.floor(key.length / 4)))
    .sort((a, b) => a.distance - b.distance)[0];
  const hint = nearest ? ` (did you mean "${nearest.name}"?)` : "";
  // A typo, or a field of a newer Envoy: say which API definitions were looked in.
  return `unknown field "${key}" in ${desc.typeName}${hint}: not in ${envoyApisInUse()}; a field of a newer Envoy release is taken once that release's API is loaded (switchyard schema add)`;
}

const INT32_RANGE = [-2147483648, 2147483647] as const;
const UINT32_RANGE = [0, 4294967295] as const;
const INT64_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64_RANGE = [0n, 2n ** 64n - 1n] as const;
const FLOAT_MAX = 3.4028234663852886e38;

/** A 32-bit integer given as a number or a decimal string (proto3 JSON accepts both). */
function checkInt32(value: unknown, [min, max]: readonly [number, number]): string | undefined {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() === value && value !== ""
        ? Number(value)
        : Number.NaN;
  if (typeof value !== "number" && typeof value !== "string") {
    return `expected a number, got ${describe(value)}`;
  }
  if (Number.isNaN(number)) return `expected a number, got ${describe(value)}`;
  if (!Number.isInteger(number)) return `expected an integer, got ${describe(value)}`;
  if (number < min || number > max) {
    return `expected an integer from ${min} to ${max}, got ${describe(value)}`;
  }
  return undefined;
}

function checkInt64(value: unknown, [min, max]: readonly [bigint, bigint]): string | undefined {
  let big: bigint | undefined;
  if (typeof value === "number" && Number.isInteger(value)) big = BigInt(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) big = BigInt(value);
  if (big === undefined) {
    return typeof value === "number"
      ? `expected an integer, got ${describe(value)}`
      : `expected a number, got ${describe(value)}`;
  }
  return big < min || big > max
    ? `expected an integer from ${min} to ${max}, got ${describe(value)}`
    : undefined;
}

function checkFloat(value: unknown, max: number): string | undefined {
  if (value === "NaN" || value === "Infinity" || value === "-Infinity") return undefined;
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() === value && value !== ""
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(number)) return `expected a number, got ${describe(value)}`;
  return Math.abs(number) > max ? `${number} is out of range` : undefined;
}

function checkScalar(scalar: ScalarType, value: unknown): string | undefined {
  switch (scalar) {
    case ScalarType.STRING:
      return typeof value === "string" ? undefined : `expected a string, got ${describe(value)}`;
    case ScalarType.BOOL:
      return typeof value === "boolean"
        ? undefined
        : `expected true or false, got ${describe(value)}`;
    case ScalarType.BYTES:
      return typeof value === "string" && /^[A-Za-z0-9+/\-_]*={0,2}$/.test(value)
        ? undefined
        : `expected base64 bytes, got ${describe(value)}`;
    case ScalarType.DOUBLE:
      return checkFloat(value, Number.MAX_VALUE);
    case ScalarType.FLOAT:
      return checkFloat(value, FLOAT_MAX);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return checkInt32(value, INT32_RANGE);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return checkInt32(value, UINT32_RANGE);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return checkInt64(value, INT64_RANGE);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return checkInt64(value, UINT64_RANGE);
  }
}

function enumNames(desc: DescEnum): string {
  return desc.values
    .filter((value) => !value.deprecated && !value.name.includes("DEPRECATED"))
    .map((value) => value.name)
    .join(", ");
}

function checkEnum(desc: DescEnum, value: unknown): string | undefined {
  if (typeof value === "string") {
    return desc.values.some((v) => v.name === value)
      ? undefined
      : `unknown enum value ${quotedInput(value)} for ${desc.typeName} (expected one of ${enumNames(desc)})`;
  }
  if (typeof value === "number") return checkInt32(value, INT32_RANGE);
  return `expected one of ${enumNames(desc)}, got ${describe(value)}`;
}

const DURATION = /^-?\d+(\.\d{1,9})?s$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Type names resolve through the registry: "type.googleapis.com/envoy.config.cluster.v3.Cluster". */
export function messageForTypeUrl(typeUrl: string): DescMessage | undefined {
  return registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
}

function checkAny(json: unknown, at: readonly Segment[], out: Problem[]): void {
  if (!isRecord(json)) {
    out.push({ at, message: `expected an object with "@type", got ${describe(json)}` });
    return;
  }
  if (Object.keys(json).length === 0) return;
  const typeUrl = json["@type"];
  if (typeof typeUrl !== "string" || typeUrl === "") {
    out.push({
      at,
      message: `missing "@type": a typed config names its type, e.g. "${TypeUrl.Cluster}"`,
    });
    return;
  }
  const desc = messageForTypeUrl(typeUrl);
  // A type without a schema here is carried as written (envoy-proto-json.ts); the import says so.
  if (!desc) return;
  if (hasCustomJsonRepresentation(desc) && "value" in json) {
    checkMessage(desc, json.value, [...at, "value"], out);
    return;
  }
  const { "@type": _, ...fields } = json;
  checkMessage(desc, fields, at, out);
  if (TYPED_STRUCT_TYPES.has(desc.typeName)) checkTypedStruct(json, at, out);
}

const TYPED_STRUCT_TYPES = new Set(["xds.type.v3.TypedStruct", "udpa.type.v1.TypedStruct"]);

/**
 * A TypedStruct's `value` read as the type its `type_url` names, as Envoy converts it (through
 * its lenient JSON reading, envoy-import-lenient.ts): unknown fields and wrong types are found
 * here, at their path under `value`, rather than by the proxy.
 */
function checkTypedStruct(json: Record<string, unknown>, at: readonly Segment[], out: Problem[]) {
  const named = json.typeUrl ?? json.type_url;
  if (typeof named !== "string" || named === "" || !isRecord(json.value)) return;
  const desc = messageForTypeUrl(named);
  if (!desc) return;
  const valueAt = [...at, "value"];
  checkMessage(desc, readLenient(desc, json.value, valueAt).json, valueAt, out);
}

/** Well-known types with a JSON form of their own; false for the others. */
function checkWellKnown(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
  out: Problem[],
): boolean {
  const expect = (ok: boolean, what: string) => {
    if (!ok) out.push({ at, message: `expected ${what}, got ${describe(json)}` });
  };
  switch (desc.typeName) {
    case "google.protobuf.Any":
      checkAny(json, at, out);
      return true;
    case "google.protobuf.Duration":
      expect(
        typeof json === "string" &&
          DURATION.test(json) &&
          Math.abs(Number.parseFloat(json)) <= 315576000000,
        'a duration such as "1.5s"',
      );
      return true;
    case "google.protobuf.Timestamp":
      expect(
        typeof json === "string" && TIMESTAMP.test(json),
        'an RFC 3339 time such as "2024-01-02T03:04:05Z"',
      );
      return true;
    case "google.protobuf.FieldMask":
      expect(typeof json === "string", "a comma-separated field mask");
      return true;
    case "google.protobuf.Struct":
      expect(isRecord(json), "an object");
      return true;
    case "google.protobuf.ListValue":
      expect(Array.isArray(json), "a list");
      return true;
    case "google.protobuf.Value":
      return true;
  }
  if (isWrapperDesc(desc)) {
    const [valueField] = desc.fields;
    const problem =
      valueField?.scalar === undefined ? undefined : checkScalar(valueField.scalar, json);
    if (problem) out.push({ at, message: problem });
    return true;
  }
  return false;
}

/** A list item or map value: never null, except for google.protobuf.Value and NullValue. */
function checkItem(field: DescField, json: unknown, at: readonly Segment[], out: Problem[]): void {
  if (json === null) {
    if (field.message?.typeName === "google.protobuf.Value") return;
    if (field.enum?.typeName === "google.protobuf.NullValue") return;
    out.push({
      at,
      message: `a ${field.fieldKind === "map" ? "map value" : "list item"} must not be null`,
    });
    return;
  }
  if (field.message) checkMessage(field.message, json, at, out);
  else if (field.enum) pushProblem(out, at, checkEnum(field.enum, json));
  else if (field.scalar !== undefined) pushProblem(out, at, checkScalar(field.scalar, json));
}

function pushProblem(out: Problem[], at: readonly Segment[], message: string | undefined): void {
  if (message !== undefined) out.push({ at, message });
}

function checkMapKey(field: DescField, key: string): string | undefined {
  if (field.fieldKind !== "map") return undefined;
  switch (field.mapKey) {
    case ScalarType.BOOL:
      return key === "true" || key === "false"
        ? undefined
        : `map key ${quotedInput(key)} is not true or false`;
    case ScalarType.STRING:
      return undefined;
    default: {
      const problem = checkScalar(field.mapKey, key);
      return problem && `map key ${quotedInput(key)}: ${problem}`;
    }
  }
}

export function checkField(
  field: DescField,
  json: unknown,
  at: readonly Segment[],
  out: Problem[],
): void {
  switch (field.fieldKind) {
    case "scalar":
      pushProblem(out, at, checkScalar(field.scalar, json));
      return;
    case "enum":
      pushProblem(out, at, checkEnum(field.enum, json));
      return;
    case "message":
      checkMessage(field.message, json, at, out);
      return;
    case "list":
      if (!Array.isArray(json)) {
        out.push({ at, message: `expected a list, got ${describe(json)}` });
        return;
      }
      for (const [i, item] of json.entries()) checkItem(field, item, [...at, i], out);
      return;
    case "map":
      if (!isRecord(json)) {
        out.push({ at, message: `expected an object, got ${describe(json)}` });
        return;
      }
      for (const [key, value] of Object.entries(json)) {
        pushProblem(out, [...at, key], checkMapKey(field, key));
        checkItem(field, value, [...at, key], out);
      }
      return;
  }
}

/**
 * Checks `json` against message `desc` the way protobuf-es `fromJson` reads it (proto and JSON
 * field names, null as "unset", one member per oneof, well-known types' own JSON, Any resolved
 * through the registry), collecting every problem with its path instead of stopping at the first.
 */
export function checkMessage(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
  out: Problem[],
): void {
  if (desc.typeName.startsWith("google.protobuf.") && checkWellKnown(desc, json, at, out)) return;
  if (!isRecord(json)) {
    out.push({ at, message: `expected an object (${desc.typeName}), got ${describe(json)}` });
    return;
  }
  const seen = new Map<DescField, string>();
  const oneofs = new Map<DescOneof, string>();
  for (const [key, value] of Object.entries(json)) {
    const here = [...at, key];
    const field = fieldByKey(desc, key);
    if (!field) {
      out.push({ at: here, message: unknownField(desc, key) });
      continue;
    }
    const twice = seen.get(field);
    if (twice !== undefined) {
      out.push({ at: here, message: `"${key}" and "${twice}" both set ${field.name}: keep one` });
      continue;
    }
    seen.set(field, key);
    if (value === null && (field.fieldKind === "scalar" || !field.oneof)) continue;
    if (field.oneof) {
      const other = oneofs.get(field.oneof);
      if (other !== undefined) {
        out.push({
          at: here,
          message: `"${key}" and "${other}" are alternatives (oneof ${field.oneof.name} of ${desc.typeName}): set only one`,
        });
        continue;
      }
      oneofs.set(field.oneof, key);
      if (value === null) continue;
    }
    checkField(field, value, here, out);
  }
}
