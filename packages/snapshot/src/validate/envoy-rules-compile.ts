/**
 * protoc-gen-validate's field rules (`validate.FieldRules`, validate/validate.proto) compiled into
 * checks of one field's value, with PGV's semantics: the rule set of each type, in the order and
 * with the meaning PGV's generated validators give them. Envoy validates its config with PGV's C++
 * validators, so where PGV's C++ and Go templates differ the C++ one is followed (a `pattern` must
 * match the whole string, RE2::FullMatch; `ipv6` accepts an IPv4-mapped address, like inet_pton).
 *
 * Presence (when a rule applies to an unset field) is envoy-rules.ts's job; a check here is given a
 * value that is there: a scalar, a wrapper (boxed or, as protobuf-es holds a singular one, plain),
 * a message, a list or a map.
 *
 * Left out on purpose: `timestamp.lt_now`, `gt_now` and `within` (they depend on the clock, so a
 * snapshot's verdict would change with time), and `map.no_sparse` (a decoded protobuf-es map
 * cannot hold an absent message value, so every map is dense).
 */
import {
  type DescEnum,
  type DescField,
  type DescMessage,
  isFieldSet,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import {
  anyCheck,
  boolCheck,
  durationCheck,
  enumCheck,
  fail,
  NUMERIC_KINDS,
  numericCheck,
  quoted,
  type RuleSink,
  timestampCheck,
  type ValueCheck,
} from "./envoy-rules-scalar.js";
import { base64, bytesCheck, lengthCheck, stringCheck } from "./envoy-rules-text.js";

/** A field's rules, compiled. */
export interface CompiledRules {
  /** The rule that requires the field to be set (`message.required`, `duration.required`, ...). */
  readonly required: string | undefined;
  /** `message.skip` (on the field, its items or its map values): its messages are not checked. */
  readonly skip: boolean;
  /** The check of the field's value when it is there (for a list or map: the whole of it). */
  readonly check: ValueCheck | undefined;
}

/** `rules` (a `validate.FieldRules`) compiled for `field`. */
export function compileFieldRules(rules: Message, field: DescField): CompiledRules {
  const top = fieldsOf(rules);
  const typed = typedRules(top);
  const messageRules = fieldsOf(top.get("message"));
  let required = messageRules.get("required") === true ? "message.required" : undefined;
  if (required === undefined && typed && typed.rules.get("required") === true) {
    required = `${typed.kind}.required`;
  }
  let skip = messageRules.get("skip") === true;
  let check: ValueCheck | undefined;
  if (field.fieldKind === "list") {
    if (typed?.kind === "repeated") {
      const items = fieldsOf(typed.rules.get("items"));
      skip ||= fieldsOf(items.get("message")).get("skip") === true;
      check = listCheck(typed.rules, listItemShape(field));
    }
  } else if (field.fieldKind === "map") {
    if (typed?.kind === "map") {
      const values = fieldsOf(typed.rules.get("values"));
      skip ||= fieldsOf(values.get("message")).get("skip") === true;
      check = mapCheck(typed.rules, field);
    }
  } else {
    check = valueCheck(top, singularShape(field), "");
  }
  return { required, skip, check };
}

/** How a single value looks. */
type Shape =
  | { readonly t: "scalar"; readonly scalar: ScalarType }
  | { readonly t: "enum"; readonly desc: DescEnum }
  | { readonly t: "message"; readonly desc: DescMessage };

function singularShape(field: DescField): Shape {
  if (field.fieldKind === "scalar") return { t: "scalar", scalar: field.scalar };
  if (field.fieldKind === "enum") return { t: "enum", desc: field.enum };
  if (field.fieldKind === "message") return { t: "message", desc: field.message };
  throw new Error(`${field.toString()} is not singular`);
}

function listItemShape(field: DescField & { fieldKind: "list" }): Shape {
  if (field.listKind === "scalar") return { t: "scalar", scalar: field.scalar };
  if (field.listKind === "enum") return { t: "enum", desc: field.enum };
  return { t: "message", desc: field.message };
}

function mapValueShape(field: DescField & { fieldKind: "map" }): Shape {
  if (field.mapKind === "scalar") return { t: "scalar", scalar: field.scalar };
  if (field.mapKind === "enum") return { t: "enum", desc: field.enum };
  return { t: "message", desc: field.message };
}

/** The set fields of a rules message, by proto name (`min_len`), as protobuf-es holds them. */
function fieldsOf(rules: unknown): ReadonlyMap<string, unknown> {
  const found = new Map<string, unknown>();
  if (typeof rules !== "object" || rules === null || !("$typeName" in rules)) return found;
  const message = rules as Message;
  const desc = registry.getMessage(message.$typeName);
  const local = rules as Record<string, unknown>;
  for (const field of desc?.fields ?? []) {
    // isFieldSet, not the property: validate.proto is proto2, whose unset fields read as defaults.
    if (!isFieldSet(message, field)) continue;
    const value = field.oneof
      ? (local[field.oneof.localName] as { value: unknown }).value
      : local[field.localName];
    found.set(field.name, value);
  }
  return found;
}

/** The rule set of FieldRules's `type` oneof: `{ kind: "uint32", rules: {lte: 8388608} }`. */
function typedRules(top: ReadonlyMap<string, unknown>) {
  for (const [kind, rules] of top) {
    if (kind !== "message") return { kind, rules: fieldsOf(rules) };
  }
  return undefined;
}

/** The check `rules` (a FieldRules) make of one value of `shape`; rule names start with `prefix`. */
function valueCheck(
  rules: ReadonlyMap<string, unknown>,
  shape: Shape,
  prefix: string,
): ValueCheck | undefined {
  const typed = typedRules(rules);
  if (typed === undefined) return undefined;
  const { kind, rules: r } = typed;
  const rule = (key: string, text?: string) =>
    text === undefined ? `${prefix}${kind}.${key}` : `${prefix}${kind}.${key} = ${text}`;
  if (NUMERIC_KINDS.has(kind)) return numericCheck(kind, r, rule);
  switch (kind) {
    case "bool":
      return boolCheck(r, rule);
    case "string":
      return stringCheck(r, rule);
    case "bytes":
      return bytesCheck(r, rule);
    case "enum":
      return shape.t === "enum" ? enumCheck(r, rule, shape.desc) : undefined;
    case "any":
      return anyCheck(r, rule);
    case "duration":
      return durationCheck(r, rule);
    case "timestamp":
      return timestampCheck(r, rule);
    default:
      return undefined;
  }
}

function listCheck(r: ReadonlyMap<string, unknown>, item: Shape): ValueCheck {
  const tests: ((items: readonly unknown[], sink: RuleSink) => void)[] = [];
  const count = lengthCheck(
    r,
    (key, text) => `repeated.${key} = ${text}`,
    { min: "min_items", max: "max_items" },
    ["item", "items"],
    (items: readonly unknown[]) => items.length,
    (_items, n) => `${n}`,
    (amount) => `must have ${amount}`,
  );
  if (count) tests.push(count);
  if (r.get("unique") === true && item.t !== "message") {
    tests.push((items, sink) => {
      const seen = new Map<unknown, number>();
      items.forEach((value, i) => {
        const key = value instanceof Uint8Array ? base64(value) : value;
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, i);
          return;
        }
        sink.push(i);
        const shown = typeof value === "string" ? quoted(value) : String(value);
        fail(sink, "repeated.unique", `must not repeat an item (the same as item ${first})`, shown);
        sink.pop();
      });
    });
  }
  const each = valueCheck(fieldsOf(r.get("items")), item, "repeated.items.");
  if (each) {
    tests.push((items, sink) => {
      for (let i = 0; i < items.length; i++) {
        sink.push(i);
        each(items[i], sink);
        sink.pop();
      }
    });
  }
  const ignoreEmpty = r.get("ignore_empty") === true;
  return (value, sink) => {
    const items = value as readonly unknown[];
    if (ignoreEmpty && items.length === 0) return;
    for (const test of tests) test(items, sink);
  };
}

/** A map key as its field type reads it: JSON keys are strings, the rules compare typed values. */
function mapKey(scalar: ScalarType, key: string): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return key;
    case ScalarType.BOOL:
      return key === "true";
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return BigInt(key);
    default:
      return Number(key);
  }
}

function mapCheck(
  r: ReadonlyMap<string, unknown>,
  field: DescField & { fieldKind: "map" },
): ValueCheck {
  const tests: ((entries: Record<string, unknown>, size: number, sink: RuleSink) => void)[] = [];
  const count = lengthCheck(
    r,
    (key, text) => `map.${key} = ${text}`,
    { min: "min_pairs", max: "max_pairs" },
    ["entry", "entries"],
    (size: number) => size,
    (_size, n) => `${n}`,
    (amount) => `must have ${amount}`,
  );
  if (count) tests.push((_entries, size, sink) => count(size, sink));
  // no_sparse is left out: see the top of the file.
  const keys = valueCheck(
    fieldsOf(r.get("keys")),
    { t: "scalar", scalar: field.mapKey },
    "map.keys.",
  );
  const values = valueCheck(fieldsOf(r.get("values")), mapValueShape(field), "map.values.");
  if (keys || values) {
    tests.push((entries, _size, sink) => {
      for (const key in entries) {
        sink.push(key);
        keys?.(mapKey(field.mapKey, key), sink);
        values?.(entries[key], sink);
        sink.pop();
      }
    });
  }
  const ignoreEmpty = r.get("ignore_empty") === true;
  return (value, sink) => {
    const entries = value as Record<string, unknown>;
    let size = 0;
    for (const _ in entries) size++;
    if (ignoreEmpty && size === 0) return;
    for (const test of tests) test(entries, size, sink);
  };
}
