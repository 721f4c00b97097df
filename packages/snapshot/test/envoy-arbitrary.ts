/**
 * A fast-check arbitrary of any Envoy message's proto3 JSON, generated from its descriptor and
 * the protoc-gen-validate rules Envoy declares on its fields, so that what it makes is what Envoy
 * would take (envoy-arbitrary.spec.ts checks each case with the codebase's own `checkRules` and
 * `fromJson`, so the generator cannot drift into making invalid input unseen):
 *   - fields set per their rules (envoy-arbitrary-values.ts): a field that is required, or whose
 *     zero value breaks its rules (PGV checks a proto3 scalar even when zero), is always set; a
 *     required oneof (`validate.required`) always has a member; every other field and oneof is
 *     mostly unset, more so deeper down, so cases stay small;
 *   - lists and maps within their `min_items`/`max_items`, `min_pairs`/`max_pairs`, items unique
 *     where `unique` asks, each item, key and value under its own rules;
 *   - well-known types in their JSON form (Duration, Timestamp, Struct, Value, wrappers, ...);
 *   - `google.protobuf.Any` filled with an extension type of the category its place takes
 *     (envoy-extensions.ts), now and then wrapped in a TypedStruct, as Envoy accepts anywhere;
 *   - Envoy's rules its protos do not state, and shared resource names, by field
 *     (envoy-arbitrary-hints.ts);
 *   - deprecated fields and enum values left out (Envoy refuses many of them by default).
 * Size is bounded by a depth past which only what is required is set (the cheapest way: the
 * required oneof member and extension type needing least), and by a number of items per list.
 */
import type { DescField, DescMessage, DescOneof } from "@bufbuild/protobuf";
import { getOption, hasOption } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../src/model.js";
import {
  CHOICE,
  ENVOY_REQUIRED,
  FIELD_HINTS,
  type Generate,
  PRESENCE,
} from "./envoy-arbitrary-hints.js";
import { fieldRules, nestedRules, type TypedRules, zeroFails } from "./envoy-arbitrary-rules.js";
import {
  enumArbitrary,
  scalarArbitrary,
  stringArbitrary,
  textArbitrary,
  wellKnownArbitrary,
} from "./envoy-arbitrary-values.js";
import {
  ANY_FIELDS,
  CATEGORIES,
  type CategoryName,
  HOLDER_FIELDS,
  HOLDERS,
} from "./envoy-extensions.js";

export interface EnvoyArbitraryOptions {
  /** Message nesting past which only required fields are set. */
  readonly maxDepth?: number;
  /** Items a list or map gets beyond its minimum. */
  readonly maxItems?: number;
  /** About how many optional fields a message at the top has set; fewer each level down. */
  readonly fieldsPerMessage?: number;
}

const ANY = "google.protobuf.Any";
const TYPE_PREFIX = "type.googleapis.com/";
const TYPED_STRUCT = "xds.type.v3.TypedStruct";
const REQUIRED_ONEOF = registry.getExtension("validate.required");

/** Defers building an arbitrary until it first generates: messages nest, often in cycles. */
class Lazy<T> extends fc.Arbitrary<T> {
  #arbitrary: fc.Arbitrary<T> | undefined;
  readonly #make: () => fc.Arbitrary<T>;

  constructor(make: () => fc.Arbitrary<T>) {
    super();
    this.#make = make;
  }

  get #inner(): fc.Arbitrary<T> {
    this.#arbitrary ??= this.#make();
    return this.#arbitrary;
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    return this.#inner.generate(mrng, biasFactor);
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.#inner.canShrinkWithoutContext(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.#inner.shrink(value, context);
  }
}

const fullName = (desc: DescMessage, field: DescField) => `${desc.typeName}.${field.name}`;

function isRequiredOneof(oneof: DescOneof): boolean {
  return (
    ENVOY_REQUIRED.has(`${oneof.parent.typeName}.${oneof.name}`) ||
    (REQUIRED_ONEOF !== undefined &&
      hasOption(oneof, REQUIRED_ONEOF) &&
      getOption(oneof, REQUIRED_ONEOF) === true)
  );
}

/** Whether a field outside a oneof must be set for its message to pass Envoy's rules. */
function isRequired(field: DescField): boolean {
  if (ENVOY_REQUIRED.has(`${field.parent.typeName}.${field.name}`)) return true;
  const rules = fieldRules(field);
  if (field.fieldKind === "list") {
    return rules?.typed?.kind === "repeated" && Number(rules.typed.rules.get("min_items") ?? 0) > 0;
  }
  if (field.fieldKind === "map") {
    return rules?.typed?.kind === "map" && Number(rules.typed.rules.get("min_pairs") ?? 0) > 0;
  }
  if (field.fieldKind === "message") return rules?.required === true;
  return zeroFails(field);
}

/** The generator of one configuration: arbitraries are built once per type, depth and place. */
class Generator {
  readonly #maxDepth: number;
  readonly #maxItems: number;
  readonly #fieldsPerMessage: number;
  readonly #messages = new Map<string, fc.Arbitrary<JsonObject>>();
  readonly #costs = new Map<string, number>();
  readonly #costing = new Set<string>();

  constructor(options: EnvoyArbitraryOptions) {
    this.#maxDepth = options.maxDepth ?? 6;
    this.#maxItems = options.maxItems ?? 2;
    this.#fieldsPerMessage = options.fieldsPerMessage ?? 2.5;
  }

  /** A message of `desc` at `depth`; `category` is that of its Any when it is a holder. */
  message(desc: DescMessage, depth: number, category?: CategoryName): fc.Arbitrary<JsonObject> {
    const minimal = depth >= this.#maxDepth;
    const key = `${desc.typeName}|${minimal ? "min" : depth}|${category ?? ""}`;
    let arbitrary = this.#messages.get(key);
    if (arbitrary === undefined) {
      arbitrary = new Lazy(() => this.#build(desc, depth, minimal, category));
      this.#messages.set(key, arbitrary);
    }
    return arbitrary;
  }

  #build(
    desc: DescMessage,
    depth: number,
    minimal: boolean,
    category: CategoryName | undefined,
  ): fc.Arbitrary<JsonObject> {
    const known = wellKnownArbitrary(desc.typeName, undefined);
    if (known) return known as fc.Arbitrary<JsonObject>;
    const parts: fc.Arbitrary<readonly (readonly [string, JsonValue])[]>[] = [];
    const optional = desc.fields.filter((f) => !f.oneof && !f.deprecated && !isRequired(f));
    const share = (this.#fieldsPerMessage * 0.7 ** depth) / Math.max(1, optional.length);
    const present = Math.round(1000 * Math.min(0.5, Math.max(0.01, share)));
    const maybe = (
      name: string,
      arbitrary: fc.Arbitrary<readonly (readonly [string, JsonValue])[]>,
    ) => {
      const emphasis = PRESENCE[`${desc.typeName}.${name}`];
      const weight = emphasis === undefined ? present : Math.round(1000 * emphasis);
      return fc.oneof({ weight: 1000 - weight, arbitrary: fc.constant([]) }, { weight, arbitrary });
    };
    for (const field of desc.fields) {
      if (field.oneof || field.deprecated) continue;
      const required = isRequired(field);
      if (!required && minimal) continue;
      const value = this.#field(desc, field, depth, minimal, category);
      if (value === undefined) {
        if (required) throw new Error(`cannot generate required field ${fullName(desc, field)}`);
        continue;
      }
      const entry = value.map((v) => [[field.jsonName, v] as const]);
      parts.push(required ? entry : maybe(field.name, entry));
    }
    for (const oneof of desc.oneofs) {
      const members = oneof.fields.filter((f) => !f.deprecated);
      const required = isRequiredOneof(oneof);
      if (minimal || (required && depth >= this.#maxDepth)) {
        if (!required) continue;
        const cheapest = this.#cheapest(desc, members, category);
        if (!cheapest)
          throw new Error(`cannot generate required oneof ${desc.typeName}.${oneof.name}`);
        const value = this.#field(desc, cheapest, depth, true, category);
        if (value) parts.push(value.map((v) => [[cheapest.jsonName, v] as const]));
        continue;
      }
      const choices = members.flatMap((member) => {
        if (this.#fieldCost(desc, member, category) === Number.POSITIVE_INFINITY) return [];
        const value = this.#field(desc, member, depth, false, category);
        if (!value) return [];
        const weight = CHOICE[fullName(desc, member)] ?? 1;
        if (weight === 0) return [];
        return [{ weight, arbitrary: value.map((v) => [[member.jsonName, v] as const]) }];
      });
      if (choices.length === 0) {
        if (required)
          throw new Error(`cannot generate required oneof ${desc.typeName}.${oneof.name}`);
        continue;
      }
      const chosen = fc.oneof(...choices);
      parts.push(required ? chosen : maybe(oneof.name, chosen));
    }
    return fc.tuple(...parts).map((entries) => Object.fromEntries(entries.flat()) as JsonObject);
  }

  /** The value of one field (a list, map or single value), or undefined when it cannot be made. */
  #field(
    desc: DescMessage,
    field: DescField,
    depth: number,
    minimal: boolean,
    category: CategoryName | undefined,
  ): fc.Arbitrary<JsonValue> | undefined {
    const name = fullName(desc, field);
    const hint = FIELD_HINTS[name];
    if (hint) return hint(this.#tools(depth));
    if (this.#fieldCost(desc, field, category) === Number.POSITIVE_INFINITY) return undefined;
    const rules = fieldRules(field)?.typed;
    if (field.fieldKind === "list") {
      // A list that is set has an item (an empty one is the list unset, in proto3).
      const least = rules?.kind === "repeated" ? Number(rules.rules.get("min_items") ?? 0) : 0;
      const ceiling =
        rules?.kind === "repeated" ? Number(rules.rules.get("max_items") ?? 1e9) : 1e9;
      const min = minimal ? least : Math.min(ceiling, Math.max(least, 1));
      const max = minimal ? min : Math.min(ceiling, Math.max(min, 1) + this.#maxItems - 1);
      const item = this.#single(
        desc,
        field,
        rules?.kind === "repeated" ? nestedRules(rules, "items") : undefined,
        depth,
        minimal,
        category,
      );
      if (!item) return undefined;
      const unique = rules?.kind === "repeated" && rules.rules.get("unique") === true;
      return unique
        ? fc.uniqueArray(item, {
            minLength: min,
            maxLength: max,
            selector: (v) => JSON.stringify(v),
          })
        : fc.array(item, { minLength: min, maxLength: max });
    }
    if (field.fieldKind === "map") {
      const min = rules?.kind === "map" ? Number(rules.rules.get("min_pairs") ?? 0) : 0;
      const ceiling = rules?.kind === "map" ? Number(rules.rules.get("max_pairs") ?? 1e9) : 1e9;
      const max = minimal ? min : Math.min(ceiling, Math.max(min, 1) + this.#maxItems - 1);
      const keyRules = rules?.kind === "map" ? nestedRules(rules, "keys") : undefined;
      const key =
        field.mapKey === 9 // ScalarType.STRING
          ? keyRules?.kind === "string"
            ? stringArbitrary(keyRules.rules)
            : textArbitrary(1, 8)
          : scalarArbitrary(field.mapKey, keyRules).map(String);
      const value = this.#single(
        desc,
        field,
        rules?.kind === "map" ? nestedRules(rules, "values") : undefined,
        depth,
        minimal,
        category,
      );
      if (!value) return undefined;
      return fc.dictionary(key as fc.Arbitrary<string>, value, {
        minKeys: min,
        maxKeys: max,
        noNullPrototype: true,
      });
    }
    return this.#single(desc, field, rules, depth, minimal, category);
  }

  /** One value of a field (a list's item, a map's value): scalar, enum or message. */
  #single(
    desc: DescMessage,
    field: DescField,
    rules: TypedRules | undefined,
    depth: number,
    minimal: boolean,
    category: CategoryName | undefined,
  ): fc.Arbitrary<JsonValue> | undefined {
    if (field.scalar !== undefined) return scalarArbitrary(field.scalar, rules);
    if (field.enum !== undefined) {
      if (field.enum.typeName === "google.protobuf.NullValue") return fc.constant(null);
      return enumArbitrary(field.enum, rules);
    }
    const target = field.message;
    if (target === undefined) return undefined;
    if (target.typeName === ANY) {
      const place = this.#anyCategory(desc, field, category);
      const allowed =
        rules?.kind === "any" ? (rules.rules.get("in") as string[] | undefined) : undefined;
      return this.#any(place, allowed, depth, minimal);
    }
    const known = wellKnownArbitrary(target.typeName, rules);
    if (known) return known;
    const holds =
      HOLDERS[target.typeName] !== undefined ? HOLDER_FIELDS[fullName(desc, field)] : undefined;
    if (HOLDERS[target.typeName] !== undefined && holds === undefined) return undefined;
    return this.message(target, minimal ? this.#maxDepth : depth + 1, holds);
  }

  #anyCategory(
    desc: DescMessage,
    field: DescField,
    category: CategoryName | undefined,
  ): CategoryName | undefined {
    const direct = ANY_FIELDS[fullName(desc, field)];
    if (direct) return direct;
    return HOLDERS[desc.typeName] === field.name ? category : undefined;
  }

  /** The types an Any may hold here: its category's, or those its `any.in` rule lists. */
  #anyTypes(category: CategoryName | undefined, allowed: readonly string[] | undefined) {
    const listed: readonly (readonly [string, number])[] =
      category !== undefined
        ? CATEGORIES[category]
        : (allowed ?? []).map((url) => [url.slice(url.lastIndexOf("/") + 1), 1] as const);
    return listed.filter(
      ([name]) =>
        (allowed === undefined || allowed.includes(TYPE_PREFIX + name)) &&
        registry.getMessage(name) !== undefined &&
        this.#messageCost(name, undefined) < Number.POSITIVE_INFINITY,
    );
  }

  #any(
    category: CategoryName | undefined,
    allowed: readonly string[] | undefined,
    depth: number,
    minimal: boolean,
  ): fc.Arbitrary<JsonObject> | undefined {
    const types = this.#anyTypes(category, allowed);
    if (types.length === 0) return undefined;
    const packed = (name: string, nested: number) => {
      const desc = registry.getMessage(name) as DescMessage;
      const url = TYPE_PREFIX + name;
      const body = this.message(desc, nested);
      const plain = body.map((json) => ({ "@type": url, ...json }) as JsonObject);
      // Envoy takes a TypedStruct of the type in any typed config, and converts it.
      const typed = body.map((json) => ({
        "@type": TYPE_PREFIX + TYPED_STRUCT,
        typeUrl: url,
        value: json,
      }));
      // Not an api_listener: Envoy unpacks that one as an HttpConnectionManager itself.
      return category === undefined || category === "api_listener"
        ? plain
        : fc.oneof({ weight: 9, arbitrary: plain }, { weight: 1, arbitrary: typed });
    };
    if (minimal) {
      const [cheapest] = [...types].sort(
        (a, b) => this.#messageCost(a[0], undefined) - this.#messageCost(b[0], undefined),
      );
      return cheapest ? packed(cheapest[0], this.#maxDepth) : undefined;
    }
    return fc.oneof(
      ...types.map(([name, weight]) => ({ weight, arbitrary: packed(name, depth + 1) })),
    );
  }

  #tools(depth: number): Generate {
    return {
      message: (typeName, category) => {
        const desc = registry.getMessage(typeName);
        if (!desc) throw new Error(`no message type ${typeName} in the registry`);
        return this.message(desc, depth + 1, category);
      },
      any: (category) => {
        const any = this.#any(category, undefined, depth, depth >= this.#maxDepth);
        if (!any) throw new Error(`no type of category ${category} can be generated`);
        return any;
      },
    };
  }

  /** The least number of messages a valid value of this type needs: Infinity when none can be made. */
  #messageCost(typeName: string, category: CategoryName | undefined): number {
    const key = `${typeName}|${category ?? ""}`;
    const known = this.#costs.get(key);
    if (known !== undefined) return known;
    if (this.#costing.has(key)) return Number.POSITIVE_INFINITY;
    const desc = registry.getMessage(typeName);
    if (!desc) return Number.POSITIVE_INFINITY;
    if (wellKnownArbitrary(typeName, undefined)) return 1;
    this.#costing.add(key);
    let cost = 1;
    for (const field of desc.fields) {
      if (field.oneof || field.deprecated || !isRequired(field)) continue;
      cost += this.#fieldCost(desc, field, category);
    }
    for (const oneof of desc.oneofs) {
      if (!isRequiredOneof(oneof)) continue;
      const cheapest = this.#cheapest(desc, oneof.fields, category);
      cost += cheapest ? this.#fieldCost(desc, cheapest, category) : Number.POSITIVE_INFINITY;
    }
    this.#costing.delete(key);
    this.#costs.set(key, cost);
    return cost;
  }

  #cheapest(
    desc: DescMessage,
    members: readonly DescField[],
    category: CategoryName | undefined,
  ): DescField | undefined {
    let best: DescField | undefined;
    let bestCost = Number.POSITIVE_INFINITY;
    for (const member of members) {
      if (member.deprecated) continue;
      const cost = this.#fieldCost(desc, member, category);
      if (cost < bestCost) [best, bestCost] = [member, cost];
    }
    return best;
  }

  #fieldCost(desc: DescMessage, field: DescField, category: CategoryName | undefined): number {
    if (FIELD_HINTS[fullName(desc, field)]) return 1;
    const target = field.message;
    if (target === undefined) return 0;
    const rules = fieldRules(field)?.typed;
    const count =
      field.fieldKind === "list" && rules?.kind === "repeated"
        ? Math.max(1, Number(rules.rules.get("min_items") ?? 0))
        : 1;
    if (target.typeName === ANY) {
      const allowed =
        rules?.kind === "any" ? (rules.rules.get("in") as string[] | undefined) : undefined;
      const types = this.#anyTypes(this.#anyCategory(desc, field, category), allowed);
      if (types.length === 0) return Number.POSITIVE_INFINITY;
      return count * (1 + Math.min(...types.map(([name]) => this.#messageCost(name, undefined))));
    }
    if (HOLDERS[target.typeName] !== undefined) {
      const holds = HOLDER_FIELDS[fullName(desc, field)];
      if (holds === undefined) return Number.POSITIVE_INFINITY;
      return count * this.#messageCost(target.typeName, holds);
    }
    return count * this.#messageCost(target.typeName, undefined);
  }
}

/**
 * An arbitrary of the proto3 JSON of Envoy messages of type `typeName` (without "@type"), valid
 * by Envoy's declared rules; see the top of this file.
 */
export function envoyArbitrary(
  typeName: string,
  options: EnvoyArbitraryOptions = {},
): fc.Arbitrary<JsonObject> {
  const desc = registry.getMessage(typeName);
  if (!desc) throw new Error(`no message type ${typeName} in the registry`);
  return new Generator(options).message(desc, 0);
}
