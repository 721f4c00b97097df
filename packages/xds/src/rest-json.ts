import {
  type DescMessage,
  fromJson,
  type JsonValue,
  type MessageShape,
  type Registry,
} from "@bufbuild/protobuf";

/** What is wrong with a JSON request body, and where: a JSONPath such as `$.node.locality.zone`. */
export interface JsonProblem {
  readonly message: string;
  readonly path: string;
}

export type JsonDecodeResult<Desc extends DescMessage> =
  | { readonly t: "ok"; readonly message: MessageShape<Desc>; readonly json: JsonValue }
  | { readonly t: "invalid"; readonly problem: JsonProblem };

/**
 * Decodes a proto3 JSON document as a `schema` message, rejecting unknown fields. On failure, says
 * what is wrong (protobuf-es's message) and where: the path of the innermost member that does not
 * decode, in the keys the client wrote (`type_url` or `typeUrl`).
 */
export function decodeJson<Desc extends DescMessage>(
  schema: Desc,
  text: string,
  registry: Registry,
): JsonDecodeResult<Desc> {
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (error) {
    return {
      t: "invalid",
      problem: { message: `the body is not JSON: ${messageOf(error)}`, path: "$" },
    };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return {
      t: "invalid",
      problem: {
        message: `the body must be a JSON object (a ${schema.name}), not ${Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`}`,
        path: "$",
      },
    };
  }
  try {
    return { t: "ok", message: fromJson(schema, json, { registry }), json };
  } catch (error) {
    return {
      t: "invalid",
      problem: { message: messageOf(error), path: locate(schema, json, "$", registry) },
    };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function decodes(schema: DescMessage, json: JsonValue, registry: Registry): boolean {
  try {
    fromJson(schema, json, { registry });
    return true;
  } catch {
    return false;
  }
}

function member(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

/**
 * The path, under `path`, of the innermost part of `json` that does not decode as `schema`. Each
 * member is decoded alone, so the search needs no copy of protobuf-es's JSON rules; messages with
 * a special JSON form (google.protobuf.*: Any, Struct, Duration, ...) are not entered.
 */
function locate(schema: DescMessage, json: JsonValue, path: string, registry: Registry): string {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return path;
  if (schema.typeName.startsWith("google.protobuf.")) return path;
  for (const [key, value] of Object.entries(json)) {
    const here = member(path, key);
    const field = schema.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field) return here;
    if (decodes(schema, { [key]: value }, registry)) continue;
    if (value === null) return here;
    switch (field.fieldKind) {
      case "message":
        return locate(field.message, value, here, registry);
      case "list": {
        if (!Array.isArray(value)) return here;
        for (const [index, item] of value.entries()) {
          if (decodes(schema, { [key]: [item] }, registry)) continue;
          const at = `${here}[${index}]`;
          return field.listKind === "message" ? locate(field.message, item, at, registry) : at;
        }
        return here;
      }
      case "map": {
        if (typeof value !== "object" || Array.isArray(value)) return here;
        for (const [entryKey, entryValue] of Object.entries(value)) {
          if (decodes(schema, { [key]: { [entryKey]: entryValue } }, registry)) continue;
          const at = member(here, entryKey);
          return field.mapKind === "message" ? locate(field.message, entryValue, at, registry) : at;
        }
        return here;
      }
      default:
        return here;
    }
  }
  // Every member decodes alone, but not together (say, two members of one oneof).
  return path;
}
