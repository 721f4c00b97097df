/**
 * The constraints Envoy's protos declare with protoc-gen-validate (`validate.rules` on fields,
 * `validate.required` on oneofs, `validate.disabled` on messages: validate/validate.proto), checked
 * over a whole message the way Envoy checks a config it is given, through every Any and TypedStruct
 * the registry can read (envoy-walk.ts). Also: every regular expression Envoy compiles with RE2
 * (`envoy.type.matcher.v3.RegexMatcher.regex`, `xds.type.matcher.v3.RegexMatcher.regex`: route
 * `safe_regex`, header, query parameter and string matchers, `RegexMatchAndSubstitute`) must compile.
 *
 * Presence follows PGV: a proto3 scalar or enum without `optional` is checked even when zero (Envoy
 * reads it as zero); an `optional` one, a message and a oneof member only when set, except that
 * `required` asks for it; lists and maps always. What one rule set checks of a value is in
 * envoy-rules-compile.ts.
 */
import {
  type DescExtension,
  type DescField,
  type DescMessage,
  type DescOneof,
  getOption,
  hasOption,
  isFieldSet,
  type Message,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import {
  type EnvoyVisitor,
  type OpaqueExtension,
  type Segment,
  walkEnvoy,
} from "../envoy/envoy-walk.js";
import { regexSizeProblem } from "../match/regex-limit.js";
import { type CompiledRules, compileFieldRules } from "./envoy-rules-compile.js";
import { quoted, type RuleSink } from "./envoy-rules-scalar.js";
import { regexProblem } from "./validate-syntax.js";

/** One broken constraint. */
export interface RuleViolation {
  /** Where: JSON names, list indexes and map keys from the checked message. */
  readonly at: readonly Segment[];
  /**
   * The constraint as the proto writes it: `string.min_len = 1`, `duration.gt = 0s`,
   * `message.required`, `repeated.items.string.min_len = 1`, `oneof required`,
   * `regex: RE2 syntax`, `TypedStruct conversion`.
   */
  readonly rule: string;
  /** What is wrong, with the value seen: "must be greater than 0s, got 0s (duration.gt = 0s)". */
  readonly message: string;
}

export interface CheckRulesOptions {
  /** The path of the message checked, prefixed to every violation's `at`. */
  readonly at?: readonly Segment[];
  /** Told about each extension not checked because the registry lacks its type. */
  readonly opaque?: (at: readonly Segment[], extension: OpaqueExtension) => void;
}

/**
 * Every violation in `message` (of type `desc`) and everything it holds of the rules declared in
 * Envoy's protos. A TypedStruct whose content does not read as its type is one too (Envoy refuses
 * it); an extension of a type the registry lacks is not checked (see `options.opaque`).
 */
export function checkRules(
  desc: DescMessage,
  message: Message,
  options: CheckRulesOptions = {},
): RuleViolation[] {
  const out: RuleViolation[] = [];
  walkEnvoy(desc, message, rulesVisitor(out, options.opaque), options.at);
  return out;
}

/** The walk visitor `checkRules` uses, adding to `out`. */
export function rulesVisitor(
  out: RuleViolation[],
  opaque?: (at: readonly Segment[], extension: OpaqueExtension) => void,
): EnvoyVisitor {
  const sink = new Sink(out);
  return {
    enter(desc, message, at) {
      const plan = planOf(desc);
      if (plan.unchecked) return false;
      sink.base = at;
      checkMessage(plan, message, sink);
      return true;
    },
    value(field) {
      // message.skip: the value is not validated, nor anything in it.
      return field.message === undefined || rulesOf(field)?.skip !== true;
    },
    opaque(at, extension) {
      if (extension.t === "unconvertible") {
        const rule = extension.via === "any" ? "Any decoding" : "TypedStruct conversion";
        const expected = `must read as ${extension.typeUrl}`;
        out.push({
          at: [...at],
          rule,
          message: `${expected}: ${extension.error.message} (${rule})`,
        });
      }
      opaque?.(at, extension);
    },
  };
}

/** Reports under the walk's current path (`base`) and the segments checks push below it. */
class Sink implements RuleSink {
  base: readonly Segment[] = [];
  readonly #below: Segment[] = [];
  readonly #out: RuleViolation[];

  constructor(out: RuleViolation[]) {
    this.#out = out;
  }

  push(segment: Segment): void {
    this.#below.push(segment);
  }

  pop(): void {
    this.#below.pop();
  }

  report(rule: string, message: string): void {
    this.#out.push({ at: [...this.base, ...this.#below], rule, message });
  }
}

interface FieldPlan {
  readonly field: DescField;
  readonly rules: CompiledRules;
}

interface MessagePlan {
  /** `validate.disabled` or `validate.ignored`: PGV generates no check of the message. */
  readonly unchecked: boolean;
  readonly requiredOneofs: readonly DescOneof[];
  readonly fields: readonly FieldPlan[];
  /** The `regex` field of a RegexMatcher, which Envoy compiles with RE2. */
  readonly regex: DescField | undefined;
}

function extension(name: string): DescExtension | undefined {
  return registry.getExtension(name);
}

const RULES = extension("validate.rules");
const REQUIRED = extension("validate.required");
// validate.ignored (PGV 0.6.2+) is not in every validate.proto: used when the registry has it.
const UNCHECKED = ["validate.disabled", "validate.ignored"].flatMap(
  (name) => extension(name) ?? [],
);

const REGEX_MATCHERS = new Set([
  "envoy.type.matcher.v3.RegexMatcher",
  "xds.type.matcher.v3.RegexMatcher",
]);

const fieldRules = new WeakMap<DescField, CompiledRules | null>();
const messagePlans = new WeakMap<DescMessage, MessagePlan>();

/** A field's compiled rules (cached per field), or undefined when it has none. */
function rulesOf(field: DescField): CompiledRules | undefined {
  let rules = fieldRules.get(field);
  if (rules === undefined) {
    rules =
      RULES && hasOption(field, RULES)
        ? compileFieldRules(getOption(field, RULES) as Message, field)
        : null;
    fieldRules.set(field, rules);
  }
  return rules ?? undefined;
}

function planOf(desc: DescMessage): MessagePlan {
  let plan = messagePlans.get(desc);
  if (plan === undefined) {
    plan = {
      unchecked: UNCHECKED.some((ext) => hasOption(desc, ext) && getOption(desc, ext) === true),
      requiredOneofs: desc.oneofs.filter(
        (oneof) =>
          REQUIRED !== undefined &&
          hasOption(oneof, REQUIRED) &&
          getOption(oneof, REQUIRED) === true,
      ),
      fields: desc.fields.flatMap((field) => {
        const rules = rulesOf(field);
        return rules ? [{ field, rules }] : [];
      }),
      regex: REGEX_MATCHERS.has(desc.typeName)
        ? desc.fields.find((f) => f.name === "regex")
        : undefined,
    };
    messagePlans.set(desc, plan);
  }
  return plan;
}

type Fields = Record<string, unknown>;

function checkMessage(plan: MessagePlan, message: Message, sink: Sink): void {
  const fields = message as unknown as Fields;
  for (const oneof of plan.requiredOneofs) {
    if ((fields[oneof.localName] as { case: unknown }).case !== undefined) continue;
    const names = oneof.fields.map((f) => f.jsonName).join(", ");
    sink.report("oneof required", `must set one of ${names} (oneof ${oneof.name} required)`);
  }
  for (const { field, rules } of plan.fields) {
    let value: unknown;
    let present: boolean;
    if (field.oneof) {
      const chosen = fields[field.oneof.localName] as { case: unknown; value: unknown };
      if (chosen.case !== field.localName) continue; // PGV checks only the member that is set
      value = chosen.value;
      present = true;
    } else {
      value = fields[field.localName];
      present =
        field.fieldKind === "message"
          ? value !== undefined
          : field.fieldKind === "list" ||
            field.fieldKind === "map" ||
            field.presence === FeatureSet_FieldPresence.IMPLICIT ||
            isFieldSet(message, field);
    }
    sink.push(field.jsonName);
    if (!present) {
      if (rules.required) sink.report(rules.required, `is required (${rules.required})`);
    } else {
      rules.check?.(value, sink);
    }
    sink.pop();
  }
  if (plan.regex) checkRegex(fields[plan.regex.localName], plan.regex, sink);
}

/**
 * A RegexMatcher's `regex` compiles with RE2 to a program within the limit (match/regex-limit.ts;
 * an empty one is `string.min_len = 1`'s job).
 */
function checkRegex(regex: unknown, field: DescField, sink: Sink): void {
  if (typeof regex !== "string" || regex === "") return;
  const tooLarge = regexSizeProblem(regex);
  const problem = tooLarge ?? regexProblem(regex);
  if (problem === undefined) return;
  sink.push(field.jsonName);
  if (tooLarge !== undefined) {
    const rule = "regex: RE2 program size";
    sink.report(rule, `${quoted(regex)} ${problem} (${rule})`);
  } else {
    const rule = "regex: RE2 syntax";
    sink.report(
      rule,
      `must be an RE2 regular expression, got ${quoted(regex)}: ${problem} (${rule})`,
    );
  }
  sink.pop();
}
