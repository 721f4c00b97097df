import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";

/** A string of a request that the server cannot keep, and where it is. */
export interface TextProblem {
  /** From the message's name, in proto field names: `Cluster.localities[0].endpoints[1].address`. */
  readonly path: string;
  readonly reason: string;
}

/**
 * Why `text` cannot be stored, or undefined. Postgres text and jsonb refuse U+0000, so a request
 * holding one would fail deep in a write as an INTERNAL error. (Text that is no UTF-8, or an
 * unpaired surrogate in JSON, never gets this far: protobuf-es refuses it while decoding.)
 */
export function textReason(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul === -1) return undefined;
  return `holds the character U+0000 (NUL) at position ${nul}, which cannot be stored: remove it`;
}

/**
 * The first string of a plain value (objects, arrays; keys included) that cannot be stored, with
 * its path under `path` (`clusters[0].name`), or undefined. For what is not a request message:
 * a config imported from YAML, where `"\0"` is U+0000.
 */
export function valueTextProblem(value: unknown, path: string): TextProblem | undefined {
  if (typeof value === "string") return check(value, path);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = valueTextProblem(item, `${path}[${index}]`);
      if (problem) return problem;
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const problem = check(key, `${path} (a key)`) ?? valueTextProblem(item, `${path}.${key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/**
 * The first string of `message` (map keys included) that cannot be stored, or undefined. Pure;
 * pinned by text-problem.spec.ts.
 */
export function textProblem<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): TextProblem | undefined {
  return walk(reflect(schema, message), schema.name);
}

function walk(message: ReflectMessage, path: string): TextProblem | undefined {
  for (const field of message.fields) {
    if (!message.isSet(field)) continue;
    const here = `${path}.${field.name}`;
    switch (field.fieldKind) {
      case "scalar": {
        const problem = check(message.get(field), here);
        if (problem) return problem;
        break;
      }
      case "message": {
        const problem = walk(message.get(field), here);
        if (problem) return problem;
        break;
      }
      case "list": {
        let index = 0;
        for (const item of message.get(field)) {
          const at = `${here}[${index}]`;
          const problem =
            field.listKind === "message" ? walk(item as ReflectMessage, at) : check(item, at);
          if (problem) return problem;
          index += 1;
        }
        break;
      }
      case "map":
        for (const [key, value] of message.get(field)) {
          const at = `${here}[${JSON.stringify(String(key))}]`;
          const problem =
            check(key, `${here} (a key)`) ??
            (field.mapKind === "message" ? walk(value as ReflectMessage, at) : check(value, at));
          if (problem) return problem;
        }
        break;
      case "enum":
        break;
    }
  }
  return undefined;
}

function check(value: unknown, path: string): TextProblem | undefined {
  if (typeof value !== "string") return undefined;
  const reason = textReason(value);
  return reason === undefined ? undefined : { path, reason };
}
