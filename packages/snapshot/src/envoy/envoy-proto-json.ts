/**
 * Envoy resources between proto3 JSON and protobuf-es messages, with the extensions Switchyard has
 * no schema for carried through.
 *
 * Envoy's contrib filters (Kafka, MySQL, Postgres, Golang, ...) and the few extensions whose protos
 * import files the pinned proto package does not ship are not in the registry, so protobuf-es
 * cannot encode them. Envoy itself accepts any extension as a `TypedStruct` (xds.type.v3): "a
 * Struct with a type URL", which it converts to the type the URL names before use (the xDS
 * "Extension configuration" docs: "TypedStruct ... can be used to specify the configuration of an
 * extension when its protobuf type is not available"). So:
 *
 *   - stored and shown JSON keeps such an extension as the user wrote it, `{"@type": URL, ...}`;
 *   - `envoyFromJson` turns each into `{"@type": TypedStruct, type_url: URL, value: {...}}` on the
 *     way to a message (what is encoded and served);
 *   - `envoyToJson` turns it back on the way out, so an export or a diff shows what was written.
 *
 * An explicit TypedStruct whose type the registry knows stays a TypedStruct both ways (it is
 * validated as the type it names, envoy-walk.ts). One whose type it does not know reads back as
 * the type it names: the same configuration for Envoy.
 */
import {
  type DescField,
  type DescMessage,
  fromBinary,
  fromJson,
  type MessageShape,
  type JsonValue as ProtoJson,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { newestSchema, registry } from "@switchyard/proto";
import type { JsonObject, JsonValue } from "../model.js";

const fieldsByKey = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>();

/** The field a JSON key names: its proto name (`stat_prefix`) or JSON name (`statPrefix`). */
export function fieldByKey(desc: DescMessage, key: string): DescField | undefined {
  let fields = fieldsByKey.get(desc);
  if (!fields) {
    fields = new Map(
      desc.fields.flatMap((field) => [
        [field.name, field] as const,
        [field.jsonName, field] as const,
      ]),
    );
    fieldsByKey.set(desc, fields);
  }
  return fields.get(key);
}

export const TYPED_STRUCT_TYPE = "xds.type.v3.TypedStruct";
const TYPED_STRUCT_TYPES = new Set([TYPED_STRUCT_TYPE, "udpa.type.v1.TypedStruct"]);
const TYPED_STRUCT_URL = `type.googleapis.com/${TYPED_STRUCT_TYPE}`;

/** The message type a type URL names: what follows its last "/". */
export function typeNameOf(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
}

/**
 * The message type of a filter's (or any extension's) `typedConfig`, seen through a TypedStruct,
 * or undefined when it has none: what Envoy picks the extension's factory by.
 */
export function typedConfigType(extension: JsonValue | undefined): string | undefined {
  const typedConfig = isJsonObject(extension) ? extension.typedConfig : undefined;
  if (!isJsonObject(typedConfig)) return undefined;
  const url = typedConfig["@type"];
  if (typeof url !== "string") return undefined;
  const name = typeNameOf(url);
  if (TYPED_STRUCT_TYPES.has(name)) {
    const named = typedConfig.typeUrl;
    return typeof named === "string" ? typeNameOf(named) : undefined;
  }
  return name;
}

/** True when the registry has no schema for the type a type URL names. */
export function isOpaqueType(typeUrl: string): boolean {
  return registry.getMessage(typeNameOf(typeUrl)) === undefined;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Called with each message of a proto3 JSON document after its own sub-messages were mapped: its
 * descriptor (for an Any, `google.protobuf.Any`), its JSON and where it is (JSON keys and list
 * indexes from the document's root). Returns the JSON to keep.
 */
export type MessageMapper = (
  desc: DescMessage,
  json: JsonObject,
  at: readonly (string | number)[],
) => JsonValue;

/**
 * `json` (proto3 JSON of `desc`) with `map` applied to every message in it, inner ones first: the
 * contents of Anys of known types are entered by their schema, Struct values never (their keys
 * are data, not fields), and the well-known types with a JSON form of their own (Duration,
 * wrappers, ...) are not messages here. Parts that do not change are shared, and `json` itself is
 * returned when nothing does.
 */
export function mapMessages(
  desc: DescMessage,
  json: JsonValue,
  map: MessageMapper,
  at: readonly (string | number)[] = [],
): JsonValue {
  if (!isJsonObject(json)) return json;
  if (desc.typeName === "google.protobuf.Any") {
    const typeUrl = json["@type"];
    const inner =
      typeof typeUrl === "string" ? registry.getMessage(typeNameOf(typeUrl)) : undefined;
    let entered = json;
    if (inner && hasCustomJsonRepresentation(inner)) {
      if ("value" in json) {
        const value = mapMessages(inner, json.value as JsonValue, map, [...at, "value"]);
        if (value !== json.value) entered = { ...json, value };
      }
    } else if (inner) {
      entered = mapFields(inner, json, map, at);
      const mapped = map(inner, entered, at);
      if (mapped !== entered) entered = mapped as JsonObject;
    }
    return map(desc, entered, at);
  }
  if (desc.typeName.startsWith("google.protobuf.")) return json;
  return map(desc, mapFields(desc, json, map, at), at);
}

function mapFields(
  desc: DescMessage,
  json: JsonObject,
  map: MessageMapper,
  at: readonly (string | number)[],
): JsonObject {
  let out: Record<string, JsonValue> | undefined;
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByKey(desc, key);
    const message = field?.message;
    if (!message || value === null) continue;
    let mapped: JsonValue = value;
    if (field.fieldKind === "list" && Array.isArray(value)) {
      const items = value.map((item, i) => mapMessages(message, item, map, [...at, key, i]));
      if (items.some((item, i) => item !== value[i])) mapped = items;
    } else if (field.fieldKind === "map" && isJsonObject(value)) {
      const entries = Object.entries(value).map(
        ([k, v]) => [k, mapMessages(message, v, map, [...at, key, k])] as const,
      );
      if (entries.some(([k, v]) => v !== value[k])) mapped = Object.fromEntries(entries);
    } else if (field.fieldKind === "message") {
      mapped = mapMessages(message, value, map, [...at, key]);
    }
    if (mapped !== value) {
      out ??= { ...json };
      out[key] = mapped;
    }
  }
  return out ?? json;
}

const ANY = "google.protobuf.Any";

/** An Any of a type the registry lacks, as the TypedStruct Envoy converts to that type. */
function carry(desc: DescMessage, any: JsonObject): JsonValue {
  if (desc.typeName !== ANY) return any;
  const typeUrl = any["@type"];
  if (typeof typeUrl !== "string" || !isOpaqueType(typeUrl)) return any;
  const { "@type": _, ...value } = any;
  return { "@type": TYPED_STRUCT_URL, typeUrl, value };
}

/** A TypedStruct of a type the registry lacks, as the Any the user wrote. */
function uncarry(desc: DescMessage, any: JsonObject): JsonValue {
  if (desc.typeName !== ANY) return any;
  const typeUrl = any["@type"];
  if (typeof typeUrl !== "string") return any;
  const named = any.typeUrl;
  if (
    TYPED_STRUCT_TYPES.has(typeNameOf(typeUrl)) &&
    typeof named === "string" &&
    named !== "" &&
    isOpaqueType(named)
  ) {
    return { "@type": named, ...(isJsonObject(any.value) ? any.value : {}) };
  }
  // "@type" first, as Envoy's docs and users write it (protobuf-es writes it last).
  if (Object.keys(any)[0] === "@type") return any;
  const { "@type": _, ...fields } = any;
  return { "@type": typeUrl, ...fields };
}

/**
 * `fromJson` with the registry and the newest definition of `given` (newestSchema: the fields of a
 * newer Envoy API loaded at run time are read), carrying extensions the registry lacks as
 * TypedStruct (see the top of this file). Throws what `fromJson` throws for anything else.
 */
export function envoyFromJson<Desc extends DescMessage>(
  given: Desc,
  json: JsonValue,
): MessageShape<Desc> {
  const schema = newestSchema(given);
  try {
    return fromJson(schema, json as ProtoJson, { registry });
  } catch (error) {
    // Only configs that name an unknown type pay for the walk, and only once they fail.
    const carried = mapMessages(schema, json, carry);
    if (carried === json) throw error;
    return fromJson(schema, carried as ProtoJson, { registry });
  }
}

/**
 * `toJson` with the registry and the newest definition of `given`, extensions carried as
 * TypedStruct shown as they were written, and each Any's "@type" first.
 */
export function envoyToJson<Desc extends DescMessage>(
  given: Desc,
  message: MessageShape<Desc>,
): JsonValue {
  const schema = newestSchema(given);
  const json = toJson(schema, message, { registry }) as JsonValue;
  return mapMessages(schema, json, uncarry);
}

/**
 * `json` (proto3 JSON of `given`) with every field under Envoy's own name for it, the proto field
 * name (`stat_prefix`, not protobuf's JSON name `statPrefix`): what Envoy's API reference and its
 * config_dump write, and what users write. For everything shown, exported or diffed (envoy-form.ts,
 * envoy-export.ts); the stored model keeps proto3 JSON names. Walked by the schema (mapMessages):
 * map keys and Struct contents are data and stay as they are, and so do the extensions the
 * registry has no schema for (kept as they were written). Either name is read back by import.
 */
export function withProtoFieldNames(given: DescMessage, json: JsonValue): JsonValue {
  return mapMessages(newestSchema(given), json, protoFieldNames);
}

function protoFieldNames(desc: DescMessage, json: JsonObject): JsonValue {
  // An Any's own keys are "@type" and its message's fields, renamed by that message's schema.
  if (desc.typeName === ANY) return json;
  let renamed = false;
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(json)) {
    const name = fieldByKey(desc, key)?.name ?? key;
    if (name !== key) renamed = true;
    out[name] = value;
  }
  return renamed ? out : json;
}

/**
 * A resource's bytes decoded with the newest definition of `given`, so that fields of a newer
 * Envoy API are fields, not unknown bytes that a later `toJson` would drop.
 */
export function envoyFromBinary<Desc extends DescMessage>(
  given: Desc,
  bytes: Uint8Array,
  options?: Parameters<typeof fromBinary>[2],
): MessageShape<Desc> {
  return fromBinary(newestSchema(given), bytes, options);
}

/** `message` encoded with the newest definition of `given` (see envoyFromBinary). */
export function envoyToBinary<Desc extends DescMessage>(
  given: Desc,
  message: MessageShape<Desc>,
): Uint8Array {
  return toBinary(newestSchema(given), message);
}
