import { type DescField, type DescMessage, fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";

/** Why a binary protobuf message does not decode, and where. */
export interface BinaryProblem {
  /** The field that does not decode, from the message's name: `Cluster.localities[0].name`. */
  readonly path: string;
  /** protobuf-es's reason: "premature EOF", "invalid UTF-8", ... */
  readonly reason: string;
}

/**
 * Why `bytes` is not a binary `schema` message, or undefined when it decodes. protobuf-es says
 * only what went wrong ("premature EOF"); this also finds where, by decoding each field on its
 * own and descending into the first that fails: `Cluster.localities[1].endpoints[0].address`.
 * Pure; pinned by binary-problem.spec.ts.
 */
export function binaryProblem(schema: DescMessage, bytes: Uint8Array): BinaryProblem | undefined {
  try {
    fromBinary(schema, bytes);
    return undefined;
  } catch (error) {
    return { path: locate(schema, bytes, schema.name), reason: reasonOf(error) };
  }
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // TextDecoder's words for a string field holding bytes that are not UTF-8.
  return message.includes("not valid for encoding utf-8") ? "invalid UTF-8 in a string" : message;
}

function decodes(schema: DescMessage, bytes: Uint8Array): boolean {
  try {
    fromBinary(schema, bytes);
    return true;
  } catch {
    return false;
  }
}

/** A message field, or a list of them, whose payload can be searched in turn. */
function nestedMessage(field: DescField): DescMessage | undefined {
  if (field.fieldKind === "message") return field.message;
  if (field.fieldKind === "list" && field.listKind === "message") return field.message;
  return undefined;
}

/** The path, under `path`, of the first field of `bytes` that does not decode as `schema`. */
function locate(schema: DescMessage, bytes: Uint8Array, path: string): string {
  const reader = new BinaryReader(bytes);
  const seen = new Map<number, number>();
  while (reader.pos < reader.len) {
    const start = reader.pos;
    let fieldNo: number;
    let wireType: WireType;
    try {
      [fieldNo, wireType] = reader.tag();
    } catch {
      return path;
    }
    const field = schema.fields.find((f) => f.number === fieldNo);
    const index = seen.get(fieldNo) ?? 0;
    seen.set(fieldNo, index + 1);
    const here = field
      ? `${path}.${field.name}${field.fieldKind === "list" && field.listKind === "message" ? `[${index}]` : ""}`
      : `${path} (field ${fieldNo})`;
    let value: Uint8Array;
    try {
      value = reader.skip(wireType, fieldNo);
    } catch {
      return here;
    }
    if (!field || decodes(schema, bytes.subarray(start, reader.pos))) continue;
    const message = nestedMessage(field);
    if (message && wireType === WireType.LengthDelimited) {
      return locate(message, new BinaryReader(value).bytes(), here);
    }
    return here;
  }
  // Each field decodes alone: the message as a whole is what does not.
  return path;
}
