/**
 * One descriptor-driven walk over an Envoy message, shared by every check that reads compiled
 * resources (envoy-rules.ts, envoy-references.ts).
 *
 * The walk is depth first and sees the message as its canonical proto3 JSON shows it:
 *   - every set field, each list item and each map value, at a path of JSON names (`field.jsonName`,
 *     camelCase), list indexes and map keys: `["filterChains", 0, "filters", 0, "typedConfig"]`;
 *   - a `google.protobuf.Any` is unpacked through the registry and walked under the Any's own path,
 *     since proto3 JSON writes a packed message's fields inline next to "@type" (the protobuf JSON
 *     mapping, "Any" row: https://protobuf.dev/programming-guides/json/);
 *   - an `xds.type.v3.TypedStruct` / `udpa.type.v1.TypedStruct` whose `type_url` names a type the
 *     registry knows is converted to that type, the way Envoy converts it before use ("TypedStruct
 *     ... can be used to specify the configuration of an extension when its protobuf type is not
 *     available", xds/type/v3/typed_struct.proto), and walked under `value`;
 *   - an Any or TypedStruct of a type the registry lacks (Envoy's contrib extensions) is reported
 *     as opaque and not entered; one whose content cannot be read as its type is reported with the
 *     error;
 *   - the well-known types with a JSON form of their own (Duration, Timestamp, wrappers, Struct,
 *     FieldMask, ...) are values, not entered: their fields have no JSON path.
 *
 * Descriptors are taken from the registry by type name, so a message made with a generated schema
 * (`ClusterSchema`) and one made from the registry are walked alike, and the per-type plans below
 * are built once per type.
 *
 * The walk allocates almost nothing per field: one path array is pushed and popped throughout.
 * Callers that keep a path must copy it (`[...at]`).
 */
import { type DescField, type DescMessage, fromJson, type Message } from "@bufbuild/protobuf";
import {
  type Any,
  anyUnpack,
  FeatureSet_FieldPresence,
  hasCustomJsonRepresentation,
} from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import type { Segment } from "../import/envoy-import-json.js";
import { typeNameOf } from "./envoy-proto-json.js";

export type { Segment };

/**
 * An extension the walk could not enter: its type is not in the registry, or its content does not
 * read as that type (`via` says whether it came as an Any or as a TypedStruct).
 */
export type OpaqueExtension =
  | { readonly t: "unknown-type"; readonly via: ExtensionForm; readonly typeUrl: string }
  | {
      readonly t: "unconvertible";
      readonly via: ExtensionForm;
      readonly typeUrl: string;
      readonly error: Error;
    };

export type ExtensionForm = "any" | "typed-struct";

/**
 * What a walk calls back. Every `at` is the walk's own path array, valid only during the call:
 * copy it to keep it.
 */
export interface EnvoyVisitor {
  /**
   * A message is entered (the root, a sub-message, the content of an Any or TypedStruct), before
   * its fields. Returning false leaves its fields unvisited.
   */
  enter?(desc: DescMessage, message: Message, at: readonly Segment[]): boolean | undefined;
  /**
   * A set singular field, a list item (`at` ends with its index) or a map value (`at` ends with its
   * key), before the walk goes into it. `value` is protobuf-es's own representation: a wrapper
   * outside a oneof or list is its plain value, a Struct a JSON object. Returning false keeps the
   * walk out of the value.
   */
  value?(field: DescField, value: unknown, at: readonly Segment[]): boolean | undefined;
  /** An Any or TypedStruct the walk does not enter, at the path of the Any or TypedStruct. */
  opaque?(at: readonly Segment[], extension: OpaqueExtension): void;
}

/**
 * Walks `message` (of type `desc`) depth first, calling `visitor` as described above. `at` is the
 * path of `message` itself (empty for a resource).
 */
export function walkEnvoy(
  desc: DescMessage,
  message: Message,
  visitor: EnvoyVisitor,
  at: readonly Segment[] = [],
): void {
  walkMessage(registry.getMessage(desc.typeName) ?? desc, message, { visitor, path: [...at] });
}

interface Walk {
  readonly visitor: EnvoyVisitor;
  readonly path: Segment[];
}

/** What the walk does with a field's values once visited: nothing, walk a message, unpack an Any. */
type Into = "value" | "message" | "any";

/**
 * How a field's presence shows (the rules `isFieldSet` applies, read without a call per field):
 * a oneof member by its group's case, a list or map by its size, a message or an explicit-presence
 * scalar by its own property, an implicit-presence scalar or enum by a value other than zero.
 */
type Presence = "oneof" | "list" | "map" | "own" | "nonzero";

interface Step {
  readonly field: DescField;
  readonly into: Into;
  readonly presence: Presence;
  /** The property holding the value: the field's, or its oneof group's. */
  readonly property: string;
}

const TYPED_STRUCT_TYPES = new Set(["xds.type.v3.TypedStruct", "udpa.type.v1.TypedStruct"]);
const ANY_TYPE = "google.protobuf.Any";

const plans = new WeakMap<DescMessage, readonly Step[]>();

function stepsOf(desc: DescMessage): readonly Step[] {
  let steps = plans.get(desc);
  if (steps === undefined) {
    steps = desc.fields.map((field) => ({
      field,
      into: intoOf(field),
      presence: presenceOf(field),
      property: field.oneof ? field.oneof.localName : field.localName,
    }));
    plans.set(desc, steps);
  }
  return steps;
}

function intoOf(field: DescField): Into {
  const target =
    field.fieldKind === "scalar" || field.fieldKind === "enum" ? undefined : field.message;
  if (target === undefined) return "value";
  if (target.typeName === ANY_TYPE) return "any";
  return hasCustomJsonRepresentation(target) ? "value" : "message";
}

function presenceOf(field: DescField): Presence {
  if (field.oneof) return "oneof";
  if (field.fieldKind === "list" || field.fieldKind === "map") return field.fieldKind;
  if (field.fieldKind === "message") return "own";
  return field.presence === FeatureSet_FieldPresence.IMPLICIT ? "nonzero" : "own";
}

type Fields = Record<string, unknown>;

/** The value of the field `step` reads when it is set, or `UNSET`. */
function setValue(step: Step, fields: Fields): unknown {
  const value = fields[step.property];
  switch (step.presence) {
    case "oneof": {
      const chosen = value as { case: unknown; value: unknown };
      return chosen.case === step.field.localName ? chosen.value : UNSET;
    }
    case "list":
      return (value as readonly unknown[]).length > 0 ? value : UNSET;
    case "map":
      for (const _ in value as Fields) return value;
      return UNSET;
    case "own":
      return value !== undefined && Object.hasOwn(fields, step.property) ? value : UNSET;
    case "nonzero":
      return value === 0 ||
        value === "" ||
        value === false ||
        value === 0n ||
        (value instanceof Uint8Array && value.length === 0)
        ? UNSET
        : value;
  }
}

const UNSET = Symbol("unset");

function walkMessage(desc: DescMessage, message: Message, walk: Walk): void {
  if (walk.visitor.enter?.(desc, message, walk.path) === false) return;
  const fields = message as unknown as Fields;
  const steps = stepsOf(desc);
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s] as Step;
    const value = setValue(step, fields);
    if (value === UNSET) continue;
    walk.path.push(step.field.jsonName);
    if (step.presence === "list") {
      const items = value as readonly unknown[];
      for (let i = 0; i < items.length; i++) {
        walk.path.push(i);
        visitValue(step, items[i], walk);
        walk.path.pop();
      }
    } else if (step.presence === "map") {
      const entries = value as Fields;
      for (const key in entries) {
        walk.path.push(key);
        visitValue(step, entries[key], walk);
        walk.path.pop();
      }
    } else {
      visitValue(step, value, walk);
    }
    walk.path.pop();
  }
  if (TYPED_STRUCT_TYPES.has(desc.typeName)) walkTypedStruct(fields, walk);
}

function visitValue(step: Step, value: unknown, walk: Walk): void {
  if (walk.visitor.value?.(step.field, value, walk.path) === false) return;
  if (step.into === "message") {
    walkMessage(step.field.message as DescMessage, value as Message, walk);
  } else if (step.into === "any") {
    walkAny(value as Any, walk);
  }
}

function walkAny(any: Any, walk: Walk): void {
  const typeUrl = any.typeUrl;
  if (typeUrl === "") return; // an empty Any packs nothing
  const desc = registry.getMessage(typeNameOf(typeUrl));
  if (desc === undefined) {
    walk.visitor.opaque?.(walk.path, { t: "unknown-type", via: "any", typeUrl });
    return;
  }
  const content = unpacked(any, desc);
  if (content instanceof Error) {
    walk.visitor.opaque?.(walk.path, { t: "unconvertible", via: "any", typeUrl, error: content });
    return;
  }
  // A well-known type packed in an Any is written {"@type", "value"}: a value, like elsewhere.
  if (!hasCustomJsonRepresentation(desc)) walkMessage(desc, content, walk);
}

/**
 * The TypedStruct's content read as the type it names. Its `value` is a Struct, which protobuf-es
 * holds as a JSON object: `fromJson` with the registry reads it as canonical proto3 JSON (field
 * names in either case, nested Anys by "@type"); a field it does not know is an error, as it is
 * for Envoy reading static config.
 */
function walkTypedStruct(typedStruct: Fields, walk: Walk): void {
  const typeUrl = typedStruct.typeUrl as string;
  if (typeUrl === "") return;
  const desc = registry.getMessage(typeNameOf(typeUrl));
  if (desc === undefined) {
    walk.visitor.opaque?.(walk.path, { t: "unknown-type", via: "typed-struct", typeUrl });
    return;
  }
  const content = converted(typedStruct, desc);
  if (content instanceof Error) {
    const error = { t: "unconvertible", via: "typed-struct", typeUrl, error: content } as const;
    walk.visitor.opaque?.(walk.path, error);
    return;
  }
  if (hasCustomJsonRepresentation(desc)) return;
  walk.path.push("value");
  walkMessage(desc, content, walk);
  walk.path.pop();
}

/*
 * Unpacked Anys and converted TypedStructs are remembered by the message that holds them, so the
 * several checks that walk one compiled resource decode each extension once. An entry is used only
 * while the holder still has the same type and content (the same bytes or JSON object), so a
 * holder changed in place is decoded again.
 */

interface Decoded {
  readonly desc: DescMessage;
  readonly source: unknown;
  readonly content: Message | Error;
}

const decodedAnys = new WeakMap<object, Decoded>();
const decodedStructs = new WeakMap<object, Decoded>();

function unpacked(any: Any, desc: DescMessage): Message | Error {
  const known = decodedAnys.get(any);
  if (known !== undefined && known.desc === desc && known.source === any.value) {
    return known.content;
  }
  const content = attempt(() => anyUnpack(any, desc) ?? new Error(`not a ${desc.typeName}`));
  decodedAnys.set(any, { desc, source: any.value, content });
  return content;
}

function converted(typedStruct: Fields, desc: DescMessage): Message | Error {
  const source = typedStruct.value ?? {};
  const known = decodedStructs.get(typedStruct);
  if (known !== undefined && known.desc === desc && known.source === source) return known.content;
  const content = attempt(() => fromJson(desc, source as never, { registry }));
  decodedStructs.set(typedStruct, { desc, source, content });
  return content;
}

function attempt(read: () => Message | Error): Message | Error {
  try {
    return read();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
