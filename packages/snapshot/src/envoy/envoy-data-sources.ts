/**
 * Where Envoy config makes a proxy read data, by `envoy.config.core.v3.DataSource` (a certificate,
 * a key, a Lua script, a direct response body, a Wasm module, ...), wherever the walk reaches
 * (envoy-walk.ts: every filter and extension whose type the registry knows):
 *
 * - secrets written inline: a field Envoy's protos mark `(udpa.annotations.sensitive) = true` (a
 *   TLS private key, a key password, a generic secret, basic auth users, ...) holding its data
 *   inline (`inline_string`, `inline_bytes`). Stored that way in a listener, cluster or route, a
 *   secret would be shown back by every read of the object; it belongs in an SDS secret, whose key
 *   is sealed at rest (an import moves inline TLS certificates there itself,
 *   envoy-import-secrets.ts).
 *
 * (A `filename` or an `environment_variable`, which the proxy reads on its own host, is one of
 * the proxy-local fields: proxy-local/proxy-local-fields.ts.)
 */
import { type DescField, type DescMessage, getOption, type Message } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { type Segment, walkEnvoy } from "./envoy-walk.js";

const SENSITIVE = registry.getExtension("udpa.annotations.sensitive");
const sensitiveFields = new WeakMap<DescField, boolean>();

/** A field Envoy's protos mark `(udpa.annotations.sensitive) = true`: a key, a password, ... */
function isSensitive(field: DescField): boolean {
  let sensitive = sensitiveFields.get(field);
  if (sensitive === undefined) {
    sensitive = SENSITIVE !== undefined && getOption(field, SENSITIVE) === true;
    sensitiveFields.set(field, sensitive);
  }
  return sensitive;
}

/** The paths in `message` (of type `desc`) where a sensitive field holds its data inline. */
export function inlineSecretsIn(desc: DescMessage, message: Message): (readonly Segment[])[] {
  const found: (readonly Segment[])[] = [];
  walkEnvoy(desc, message, {
    value(field, value, at) {
      if (!isSensitive(field)) return true;
      const specifier = (value as { specifier?: { case?: string } } | undefined)?.specifier;
      if (specifier?.case === "inlineString" || specifier?.case === "inlineBytes") {
        found.push([...at]);
      }
      return false;
    },
  });
  return found;
}

/**
 * What Envoy's admin API shows in place of a sensitive field's text or bytes (the config_dump
 * page: "sensitive fields are redacted"), a file name or variable name under it included.
 */
export const REDACTED = "[redacted]";
const REDACTED_BYTES = new TextEncoder().encode(REDACTED);

function holdsRedacted(value: unknown, depth = 0): boolean {
  if (value === REDACTED) return true;
  if (value instanceof Uint8Array) {
    return value.length === REDACTED_BYTES.length && value.every((b, i) => b === REDACTED_BYTES[i]);
  }
  if (typeof value !== "object" || value === null || depth > 32) return false;
  return Object.values(value).some((inner) => holdsRedacted(inner, depth + 1));
}

/**
 * The paths in `message` (of type `desc`) where a sensitive field holds what a config dump put in
 * place of the secret: it cannot be imported, the secret is not there.
 */
export function redactedSecretsIn(desc: DescMessage, message: Message): (readonly Segment[])[] {
  const found: (readonly Segment[])[] = [];
  walkEnvoy(desc, message, {
    value(field, value, at) {
      if (!isSensitive(field)) return true;
      if (holdsRedacted(value)) found.push([...at]);
      return false;
    },
  });
  return found;
}
