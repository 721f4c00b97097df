/**
 * Secrets written inline: where a field Envoy's protos mark `(udpa.annotations.sensitive) = true`
 * (a TLS private key, a key password, a generic secret, basic auth users, ...) holds its data
 * inline (a `DataSource` with `inline_string` or `inline_bytes`). Stored that way in a listener,
 * cluster or route, a secret would be shown back by every read of the object; it belongs in an
 * SDS secret, whose key is sealed at rest (an import moves inline TLS certificates there itself,
 * envoy-import-secrets.ts).
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
