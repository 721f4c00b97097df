/**
 * The protoc-gen-validate rules Envoy declares on a field (`validate.rules`, validate/validate.proto),
 * read from the descriptors as plain maps for the generator (envoy-arbitrary.ts): the same option
 * the checker compiles (src/validate/envoy-rules-compile.ts), and the checker's own compiled check
 * to decide whether a proto3 scalar's zero value passes (PGV checks a scalar without `optional`
 * even when it is zero, so a field whose zero fails is one the generator must always set).
 */
import {
  type DescField,
  getOption,
  hasOption,
  isFieldSet,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { compileFieldRules } from "../src/validate/envoy-rules-compile.js";

/** A rules message's set fields by proto name; nested rule messages stay messages. */
export type Rules = ReadonlyMap<string, unknown>;

const NONE: Rules = new Map();

/** The set fields of a rules message (proto2: unset fields read as defaults, so isFieldSet). */
export function rulesFields(rules: unknown): Rules {
  if (typeof rules !== "object" || rules === null || !("$typeName" in rules)) return NONE;
  const message = rules as Message;
  const desc = registry.getMessage(message.$typeName);
  const local = rules as unknown as Record<string, unknown>;
  const found = new Map<string, unknown>();
  for (const field of desc?.fields ?? []) {
    if (!isFieldSet(message, field)) continue;
    found.set(
      field.name,
      field.oneof
        ? (local[field.oneof.localName] as { value: unknown }).value
        : local[field.localName],
    );
  }
  return found;
}

/** The typed part of a FieldRules (its `type` oneof): `{ kind: "uint32", rules: {lte: 65535} }`. */
export interface TypedRules {
  readonly kind: string;
  readonly rules: Rules;
}

export function typedRules(fieldRules: Rules): TypedRules | undefined {
  for (const [kind, rules] of fieldRules) {
    if (kind !== "message") return { kind, rules: rulesFields(rules) };
  }
  return undefined;
}

/** What the generator needs of a field's rules. */
export interface FieldRules {
  /** The whole FieldRules, by proto name. */
  readonly all: Rules;
  /** Its typed rule set, when it has one. */
  readonly typed: TypedRules | undefined;
  /** `message.required` or `<kind>.required`: the field must be set. */
  readonly required: boolean;
}

const RULES = registry.getExtension("validate.rules");
const cache = new WeakMap<DescField, FieldRules | null>();

/** A field's rules (cached), or undefined when it declares none. */
export function fieldRules(field: DescField): FieldRules | undefined {
  let found = cache.get(field);
  if (found === undefined) {
    found = null;
    if (RULES && hasOption(field, RULES)) {
      const all = rulesFields(getOption(field, RULES));
      const typed = typedRules(all);
      const required =
        rulesFields(all.get("message")).get("required") === true ||
        typed?.rules.get("required") === true;
      found = { all, typed, required };
    }
    cache.set(field, found);
  }
  return found ?? undefined;
}

/** The typed rules of a list's items, a map's keys or a map's values (`items`, `keys`, `values`). */
export function nestedRules(rules: TypedRules | undefined, key: string): TypedRules | undefined {
  return typedRules(rulesFields(rules?.rules.get(key)));
}

function zeroOf(field: DescField): unknown {
  if (field.fieldKind === "enum") return 0;
  if (field.fieldKind !== "scalar") return undefined;
  switch (field.scalar) {
    case ScalarType.STRING:
      return "";
    case ScalarType.BOOL:
      return false;
    case ScalarType.BYTES:
      return new Uint8Array(0);
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 0n;
    default:
      return 0;
  }
}

/**
 * Whether a singular scalar or enum field without explicit presence fails its rules when left
 * unset (zero): then it must be set. Asked of the checker's own compiled rules.
 */
export function zeroFails(field: DescField): boolean {
  if (field.fieldKind !== "scalar" && field.fieldKind !== "enum") return false;
  if (field.oneof || field.presence !== FeatureSet_FieldPresence.IMPLICIT) return false;
  if (!RULES || !hasOption(field, RULES)) return false;
  const compiled = compileFieldRules(getOption(field, RULES) as Message, field);
  let failed = false;
  compiled.check?.(zeroOf(field), {
    push() {},
    pop() {},
    report() {
      failed = true;
    },
  });
  return failed;
}
