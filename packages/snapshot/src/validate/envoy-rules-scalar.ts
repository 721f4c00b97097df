/**
 * Checks of one value against a protoc-gen-validate rule set (envoy-rules-compile.ts): numbers,
 * booleans, enums, durations, timestamps and Any type URLs, and the pieces every check shares (how
 * a violation is worded, how a wrapper's value is read).
 */
import { type DescEnum, toJson } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { quotedInput } from "../bounded-text.js";
import type { Segment } from "../envoy/envoy-walk.js";

/** Where a check reports: paths below the field (list indexes, map keys) are pushed and popped. */
export interface RuleSink {
  push(segment: Segment): void;
  pop(): void;
  report(rule: string, message: string): void;
}

export type ValueCheck = (value: unknown, sink: RuleSink) => void;

/** The name of a rule of the set being compiled: `uint32.lte = 128`, `repeated.unique`. */
export type RuleName = (key: string, text?: string) => string;

/** Reports `rule` broken: "must be at least 1, got 0 (uint32.gte = 1)". */
export function fail(sink: RuleSink, rule: string, expected: string, seen?: string): void {
  sink.report(
    rule,
    seen === undefined ? `${expected} (${rule})` : `${expected}, got ${seen} (${rule})`,
  );
}

/** A wrapper's value (protobuf-es boxes wrappers in a oneof, a list or a map), or the value. */
export function unwrap(value: unknown): unknown {
  return typeof value === "object" && value !== null && "$typeName" in value
    ? (value as unknown as { value: unknown }).value
    : value;
}

/** `s` for a message: quoted, escaped, cut short when long (bounded-text.ts quotedInput). */
export function quoted(s: string): string {
  return quotedInput(s);
}

export const NUMERIC_KINDS = new Set([
  "float",
  "double",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
]);
const INT64_KINDS = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);

type Comparable = number | bigint;

/** The rules of a numeric kind (`uint32`, `double`, ...): bounds, `const`, `in`, `not_in`. */
export function numericCheck(
  kind: string,
  r: ReadonlyMap<string, unknown>,
  rule: RuleName,
): ValueCheck {
  const big = INT64_KINDS.has(kind);
  // A float field is a float32: its value compares as one (0.1 as 0.100000001...), like its bounds.
  const comparable = big
    ? (raw: unknown): Comparable => (typeof raw === "bigint" ? raw : BigInt(raw as string))
    : kind === "float"
      ? (raw: unknown): Comparable => Math.fround(raw as number)
      : (raw: unknown): Comparable => raw as number;
  // Shown as written: a float32 0.1 reads back as 0.10000000149011612.
  const show =
    kind === "float"
      ? (raw: unknown) => String(Number((raw as number).toPrecision(7)))
      : (raw: unknown) => String(raw);
  const checks = orderedChecks(r, rule, comparable, show);
  const ignoreEmpty = r.get("ignore_empty") === true;
  return (value, sink) => {
    const raw = unwrap(value);
    const c = comparable(raw);
    if (ignoreEmpty && (c === 0 || c === 0n)) return;
    for (const check of checks) check(c, raw, sink);
  };
}

function orderedCheck(
  r: ReadonlyMap<string, unknown>,
  rule: RuleName,
  comparable: (raw: unknown) => Comparable,
  show: (raw: unknown) => string,
): ValueCheck {
  const checks = orderedChecks(r, rule, comparable, show);
  return (value, sink) => {
    const c = comparable(value);
    for (const check of checks) check(c, value, sink);
  };
}

type OrderedCheck = (c: Comparable, raw: unknown, sink: RuleSink) => void;

interface Bound {
  readonly key: string;
  readonly value: Comparable;
  readonly text: string;
}

/**
 * `const`, `lt`, `lte`, `gt`, `gte`, `in` and `not_in` over values that compare with `<`: numbers,
 * and durations and timestamps as nanoseconds. As in PGV (its templates/goshared/ltgt.go), `lt` wins
 * over `lte` and `gt` over `gte`; an upper bound above the lower one asks for a value inside the
 * range, one at or below it (`{lt: 10, gt: 20}`) for a value outside it.
 */
function orderedChecks(
  r: ReadonlyMap<string, unknown>,
  rule: RuleName,
  comparable: (raw: unknown) => Comparable,
  show: (raw: unknown) => string,
): OrderedCheck[] {
  const bound = (key: string): Bound | undefined => {
    const raw = r.get(key);
    return raw === undefined ? undefined : { key, value: comparable(raw), text: show(raw) };
  };
  const checks: OrderedCheck[] = [];
  const constant = bound("const");
  if (constant) {
    const name = rule("const", constant.text);
    checks.push((c, raw, sink) => {
      if (c !== constant.value) fail(sink, name, `must equal ${constant.text}`, show(raw));
    });
  }
  const lt = bound("lt");
  const lte = bound("lte");
  const gt = bound("gt");
  const gte = bound("gte");
  const upper = lt ?? lte;
  const lower = gt ?? gte;
  const above = (c: Comparable) => (lt ? c >= lt.value : lte ? c > lte.value : false);
  const below = (c: Comparable) => (gt ? c <= gt.value : gte ? c < gte.value : false);
  if (upper && lower && upper.value <= lower.value) {
    const name = `${rule(upper.key, upper.text)}, ${rule(lower.key, lower.text)}`;
    const range = `${lt ? "[" : "("}${upper.text}, ${lower.text}${gt ? "]" : ")"}`;
    checks.push((c, raw, sink) => {
      if (above(c) && below(c)) fail(sink, name, `must be outside the range ${range}`, show(raw));
    });
  } else {
    const range =
      upper && lower
        ? `must be in the range ${gt ? "(" : "["}${lower.text}, ${upper.text}${lt ? ")" : "]"}`
        : undefined;
    if (lower) {
      const name = rule(lower.key, lower.text);
      const expected =
        range ?? (gt ? `must be greater than ${lower.text}` : `must be at least ${lower.text}`);
      checks.push((c, raw, sink) => {
        if (below(c)) fail(sink, name, expected, show(raw));
      });
    }
    if (upper) {
      const name = rule(upper.key, upper.text);
      const expected =
        range ?? (lt ? `must be less than ${upper.text}` : `must be at most ${upper.text}`);
      checks.push((c, raw, sink) => {
        if (above(c)) fail(sink, name, expected, show(raw));
      });
    }
  }
  for (const key of ["in", "not_in"] as const) {
    const list = (r.get(key) as readonly unknown[] | undefined) ?? [];
    if (list.length === 0) continue;
    const values = new Set(list.map(comparable));
    const text = `[${list.map(show).join(", ")}]`;
    const wanted = key === "in";
    checks.push((c, raw, sink) => {
      if (values.has(c) !== wanted) {
        fail(sink, rule(key), `must ${wanted ? "" : "not "}be one of ${text}`, show(raw));
      }
    });
  }
  return checks;
}

/** BoolRules: `const`. */
export function boolCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck | undefined {
  const constant = r.get("const");
  if (typeof constant !== "boolean") return undefined;
  const name = rule("const", String(constant));
  return (value, sink) => {
    const v = unwrap(value);
    if (v !== constant) fail(sink, name, `must be ${constant}`, String(v));
  };
}

/** EnumRules: `const`, `defined_only`, `in`, `not_in`, on the enum's number. */
export function enumCheck(
  r: ReadonlyMap<string, unknown>,
  rule: RuleName,
  desc: DescEnum,
): ValueCheck {
  const show = (n: unknown) => {
    const value = desc.values.find((v) => v.number === n);
    return value ? `${value.name} (${String(n)})` : String(n);
  };
  const checks = orderedChecks(
    new Map([...r].filter(([key]) => key === "const" || key === "in" || key === "not_in")),
    rule,
    (raw) => raw as number,
    show,
  );
  if (r.get("defined_only") === true) {
    const defined = new Set(desc.values.map((v) => v.number));
    const name = rule("defined_only");
    const expected = `must be a value ${desc.typeName} defines`;
    checks.push((c, _raw, sink) => {
      if (!defined.has(c as number)) fail(sink, name, expected, String(c));
    });
  }
  return (value, sink) => {
    for (const check of checks) check(value as number, value, sink);
  };
}

/** AnyRules `in` and `not_in`, on the packed type URL (`required` is presence). */
export function anyCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck | undefined {
  const tests: ((typeUrl: string, sink: RuleSink) => void)[] = [];
  for (const key of ["in", "not_in"] as const) {
    const list = (r.get(key) as readonly string[] | undefined) ?? [];
    if (list.length === 0) continue;
    const values = new Set(list);
    const wanted = key === "in";
    const text = `[${list.map(quoted).join(", ")}]`;
    tests.push((typeUrl, sink) => {
      if (values.has(typeUrl) !== wanted)
        fail(
          sink,
          rule(key),
          `must have a type URL ${wanted ? "" : "not "}in ${text}`,
          quoted(typeUrl),
        );
    });
  }
  if (tests.length === 0) return undefined;
  return (value, sink) => {
    // `any` rules on a field of another message type (Envoy has one) only require presence.
    const typeUrl = (value as { typeUrl?: unknown }).typeUrl;
    if (typeof typeUrl !== "string") return;
    for (const test of tests) test(typeUrl, sink);
  };
}

/** A Duration's or Timestamp's nanoseconds. */
function durationNanos(raw: unknown): bigint {
  const { seconds, nanos } = raw as { seconds: bigint; nanos: number };
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
}

/** A Duration as proto3 JSON writes it: "0s", "1.500s", "-0.000001s". */
export function durationText(raw: unknown): string {
  const { seconds, nanos } = raw as { seconds: bigint; nanos: number };
  const negative = seconds < 0n || nanos < 0;
  const whole = (seconds < 0n ? -seconds : seconds).toString();
  let fraction = String(Math.abs(nanos)).padStart(9, "0");
  if (fraction.endsWith("000000")) fraction = fraction.slice(0, 3);
  else if (fraction.endsWith("000")) fraction = fraction.slice(0, 6);
  return `${negative ? "-" : ""}${whole}${nanos === 0 ? "" : `.${fraction}`}s`;
}

function timestampText(raw: unknown): string {
  try {
    return String(toJson(TimestampSchema, raw as never));
  } catch {
    return `${String((raw as { seconds: bigint }).seconds)}s after the epoch`;
  }
}

/** DurationRules: `const`, `lt`, `lte`, `gt`, `gte`, `in`, `not_in` (`required` is presence). */
export function durationCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck {
  return orderedCheck(r, rule, durationNanos, durationText);
}

/**
 * TimestampRules that do not depend on the clock: `const`, `lt`, `lte`, `gt`, `gte`. `lt_now`,
 * `gt_now` and `within` are left out: a snapshot's verdict must not change with the time it is
 * checked at.
 */
export function timestampCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck {
  return orderedCheck(r, rule, durationNanos, timestampText);
}
