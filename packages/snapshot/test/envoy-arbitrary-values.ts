/**
 * Arbitraries of single proto3 JSON values that satisfy a field's protoc-gen-validate rule set
 * (envoy-arbitrary-rules.ts): scalars and enums, strings (lengths, affixes, `in`, the known
 * patterns, the well-known formats and header regexes), durations, timestamps, and the
 * well-known types with a JSON form of their own (the protobuf JSON mapping:
 * https://protobuf.dev/programming-guides/json/). Values lean small and plain, so cases stay
 * readable, with the edges (bounds, empty, unusual characters) now and then.
 */
import { type DescEnum, ScalarType } from "@bufbuild/protobuf";
import fc from "fast-check";
import type { JsonObject, JsonValue } from "../src/model.js";
import { type Rules, rulesFields, type TypedRules } from "./envoy-arbitrary-rules.js";

const INT_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

const SCALAR_KIND: Readonly<Record<number, string>> = {
  [ScalarType.DOUBLE]: "double",
  [ScalarType.FLOAT]: "float",
  [ScalarType.INT32]: "int32",
  [ScalarType.INT64]: "int64",
  [ScalarType.UINT32]: "uint32",
  [ScalarType.UINT64]: "uint64",
  [ScalarType.SINT32]: "sint32",
  [ScalarType.SINT64]: "sint64",
  [ScalarType.FIXED32]: "fixed32",
  [ScalarType.FIXED64]: "fixed64",
  [ScalarType.SFIXED32]: "sfixed32",
  [ScalarType.SFIXED64]: "sfixed64",
  [ScalarType.BOOL]: "bool",
  [ScalarType.STRING]: "string",
  [ScalarType.BYTES]: "bytes",
};

/** The rule-set kind of a scalar type (`uint32`, `string`, ...). */
export function scalarKind(scalar: ScalarType): string {
  return SCALAR_KIND[scalar] ?? "unknown";
}

const big = (v: unknown) => (typeof v === "bigint" ? v : BigInt(v as number));

/** The rules of `kind` when the field's rule set is of that kind, else none. */
function ruleSetOf(kind: string, rules: TypedRules | undefined): Rules {
  return rules?.kind === kind ? rules.rules : new Map();
}

/** An integer of `kind` within its PGV bounds, as proto3 JSON writes it (64-bit as a string). */
function integerArbitrary(kind: string, r: Rules): fc.Arbitrary<JsonValue> {
  const wide = kind.endsWith("64");
  const out = (n: bigint): JsonValue => (wide ? n.toString() : Number(n));
  if (r.has("const")) return fc.constant(out(big(r.get("const"))));
  const listed = (r.get("in") as readonly unknown[] | undefined) ?? [];
  if (listed.length > 0) return fc.constantFrom(...listed.map((v) => out(big(v))));
  const [typeMin, typeMax] = INT_RANGES[kind] ?? [0n, 0n];
  let min = typeMin;
  let max = typeMax;
  if (r.has("gt")) min = big(r.get("gt")) + 1n;
  if (r.has("gte")) min = big(r.get("gte"));
  if (r.has("lt")) max = big(r.get("lt")) - 1n;
  if (r.has("lte")) max = big(r.get("lte"));
  const excluded = new Set(((r.get("not_in") as readonly unknown[] | undefined) ?? []).map(big));
  const range = (lo: bigint, hi: bigint) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.bigInt({ min: lo, max: hi < lo + 100n ? hi : lo + 100n }) },
      { weight: 1, arbitrary: fc.constantFrom(lo, hi) },
      { weight: 1, arbitrary: fc.bigInt({ min: lo, max: hi }) },
    );
  // PGV: an upper bound at or below the lower one asks for a value outside the range.
  const arbitrary =
    max >= min ? range(min, max) : fc.oneof(range(typeMin, max), range(min, typeMax));
  return arbitrary.filter((n) => !excluded.has(n)).map(out);
}

/** A float or double within its PGV bounds: finite (Envoy's JSON has no NaN or infinities here). */
function floatArbitrary(kind: string, r: Rules): fc.Arbitrary<JsonValue> {
  const f32 = kind === "float";
  const num = (v: unknown) => (f32 ? Math.fround(Number(v)) : Number(v));
  if (r.has("const")) return fc.constant(num(r.get("const")));
  const lower = r.has("gt") ? num(r.get("gt")) : r.has("gte") ? num(r.get("gte")) : -1e6;
  const upper = r.has("lt") ? num(r.get("lt")) : r.has("lte") ? num(r.get("lte")) : 1e6;
  const constraints = {
    min: f32 ? Math.fround(lower) : lower,
    max: f32 ? Math.fround(upper) : upper,
    minExcluded: r.has("gt"),
    maxExcluded: r.has("lt"),
    noNaN: true,
    noDefaultInfinity: true,
  };
  const any = f32 ? fc.float(constraints) : fc.double(constraints);
  const small = fc
    .integer({ min: Math.ceil(lower), max: Math.floor(upper) })
    .filter((n) => (!r.has("gt") || n > lower) && (!r.has("lt") || n < upper));
  return fc.oneof(
    { weight: 3, arbitrary: Math.ceil(lower) <= Math.floor(upper) ? small : any },
    { weight: 1, arbitrary: any },
  );
}

const NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_.".split("");
/** Characters a user's text may hold that need care on the way through (quotes, spaces, non-ASCII). */
const ODD_CHARS = [" ", "/", ":", "*", '"', "\\", "é", "✓", "\t", "😀"];

/** Plain text of `min` to `max` code points: mostly names, now and then odd characters. */
export function textArbitrary(min = 0, max = 12): fc.Arbitrary<string> {
  const unit = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...NAME_CHARS) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_CHARS) },
  );
  return fc.string({ unit, minLength: min, maxLength: Math.max(min, max) });
}

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
/** A DNS host name as PGV's `hostname` reads one. */
export const hostname = fc
  .array(label, { minLength: 1, maxLength: 3 })
  .map((labels) => labels.join("."));
export const ipv4 = fc.ipV4();
/** IPv6 addresses in the forms Envoy writes; `::ffff:a.b.c.d` included. */
export const ipv6 = fc.oneof(
  fc.constantFrom("::", "::1", "2001:db8::1", "fe80::1", "::ffff:10.0.0.1"),
  fc.ipV6(),
);
const ip = fc.oneof({ weight: 3, arbitrary: ipv4 }, { weight: 1, arbitrary: ipv6 });
const path = fc
  .array(fc.stringMatching(/^[a-z0-9_.~-]{1,6}$/), { maxLength: 3 })
  .map((parts) => `/${parts.join("/")}`);
const HEADER_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-_".split("");
const headerName = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.string({
      unit: fc.constantFrom(...HEADER_NAME_CHARS),
      minLength: 1,
      maxLength: 10,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(":authority", ":path", "X-Request-ID", "a!#$%&'*+.^`|~"),
  },
);
/** No control character but tab (PGV's strict HTTP_HEADER_VALUE). */
const isHeaderValue = (s: string) =>
  [...s].every((c) => c === "\t" || (c.charCodeAt(0) > 0x1f && c.charCodeAt(0) !== 0x7f));
const headerValue = fc.oneof(
  {
    weight: 6,
    arbitrary: textArbitrary(0, 12).filter(isHeaderValue),
  },
  { weight: 1, arbitrary: fc.constantFrom("", "a b\tc", "ü") },
);
/** No NUL, CR or LF (a header's `strict: false` check). */
const headerString = textArbitrary(0, 12).filter((s) => !/[\0\r\n]/.test(s));

/**
 * Generators for the `pattern`s Envoy's protos declare, by pattern: a new pattern fails the
 * generator's own test (envoy-arbitrary.spec.ts) until it gets one here.
 */
const PATTERNS: Readonly<Record<string, fc.Arbitrary<string>>> = {
  // envoy.type.matcher.v3... path-like values without query or fragment, not ending in "/".
  "^[^?#]+[^?#/]$": path.filter((p) => p.length >= 2 && !p.endsWith("/")),
  "^[0-9a-zA-Z_\\-\\./~:]+$": fc.stringMatching(/^[0-9a-zA-Z_\-./~:]{1,12}$/),
  "^[0-9a-zA-Z_\\-\\.~:]+$": fc.stringMatching(/^[0-9a-zA-Z_\-.~:]{1,12}$/),
  "^$|^.*\\.mmdb$": fc.oneof(fc.constant(""), fc.stringMatching(/^\/[a-z]{1,6}\.mmdb$/)),
};

function codePoints(s: string): number {
  return [...s].length;
}

/** A string that satisfies StringRules `r`. */
export function stringArbitrary(r: Rules): fc.Arbitrary<string> {
  if (typeof r.get("const") === "string") return fc.constant(r.get("const") as string);
  const listed = (r.get("in") as readonly string[] | undefined) ?? [];
  if (listed.length > 0) return fc.constantFrom(...listed);
  const num = (key: string) => (r.has(key) ? Number(r.get(key)) : undefined);
  const minLen = num("len") ?? num("min_len") ?? 0;
  const maxLen = num("len") ?? num("max_len") ?? Math.max(minLen, 12);
  const pattern = r.get("pattern");
  let base: fc.Arbitrary<string>;
  if (typeof pattern === "string") {
    const known = PATTERNS[pattern];
    if (!known) throw new Error(`no generator for string pattern ${JSON.stringify(pattern)}`);
    base = known;
  } else if (r.get("ip") === true) base = ip;
  else if (r.get("ipv4") === true) base = ipv4;
  else if (r.get("ipv6") === true) base = ipv6;
  else if (r.get("hostname") === true) base = hostname;
  else if (r.get("address") === true) base = fc.oneof(ip, hostname);
  else if (r.get("email") === true) base = fc.tuple(label, hostname).map(([l, h]) => `${l}@${h}`);
  else if (r.get("uri") === true)
    base = fc.tuple(hostname, path).map(([h, p]) => `https://${h}${p}`);
  else if (r.get("uri_ref") === true) base = path;
  else if (r.get("uuid") === true) base = fc.uuid();
  else if (typeof r.get("well_known_regex") === "number") {
    const strict = r.get("strict") !== false;
    const known = r.get("well_known_regex");
    base = !strict
      ? headerString
      : known === 1
        ? headerName
        : known === 2
          ? headerValue
          : textArbitrary();
  } else base = textArbitrary(minLen, Math.min(maxLen, minLen + 12));
  const prefix = typeof r.get("prefix") === "string" ? (r.get("prefix") as string) : "";
  const suffix = typeof r.get("suffix") === "string" ? (r.get("suffix") as string) : "";
  const contains = typeof r.get("contains") === "string" ? (r.get("contains") as string) : "";
  const notContains = r.get("not_contains");
  const excluded = new Set((r.get("not_in") as readonly string[] | undefined) ?? []);
  const minBytes = num("len_bytes") ?? num("min_bytes") ?? 0;
  const maxBytes = num("len_bytes") ?? num("max_bytes") ?? Number.POSITIVE_INFINITY;
  let out = base.map((s) => `${prefix}${s}${contains}${suffix}`);
  // Pad with "a" up to the least length (names and free text take it; formats set no minimum).
  out = out.map((s) => {
    const short = Math.max(minLen - codePoints(s), minBytes - Buffer.byteLength(s));
    return short > 0 ? `${prefix}${s.slice(prefix.length)}${"a".repeat(short)}` : s;
  });
  out = out.filter(
    (s) =>
      codePoints(s) <= maxLen + prefix.length + suffix.length + contains.length &&
      codePoints(s) >= minLen &&
      Buffer.byteLength(s) <= maxBytes &&
      !excluded.has(s) &&
      (typeof notContains !== "string" || !s.includes(notContains)),
  );
  return r.get("ignore_empty") === true
    ? fc.oneof({ weight: 1, arbitrary: fc.constant("") }, { weight: 4, arbitrary: out })
    : out;
}

/** Bytes as proto3 JSON writes them (base64), of the lengths BytesRules `r` allow. */
function bytesArbitrary(r: Rules): fc.Arbitrary<JsonValue> {
  const num = (key: string) => (r.has(key) ? Number(r.get(key)) : undefined);
  const minLength = num("len") ?? num("min_len") ?? 0;
  const maxLength = num("len") ?? num("max_len") ?? Math.max(minLength, 8);
  return fc
    .uint8Array({ minLength, maxLength })
    .map((bytes) => Buffer.from(bytes).toString("base64"));
}

/** A value of a scalar field under its rule set. */
export function scalarArbitrary(
  scalar: ScalarType,
  rules: TypedRules | undefined,
): fc.Arbitrary<JsonValue> {
  const kind = scalarKind(scalar);
  const r = ruleSetOf(kind, rules);
  if (kind === "bool")
    return r.has("const") ? fc.constant(r.get("const") as boolean) : fc.boolean();
  if (kind === "string") return stringArbitrary(r);
  if (kind === "bytes") return bytesArbitrary(r);
  if (kind === "double" || kind === "float") return floatArbitrary(kind, r);
  return integerArbitrary(kind, r);
}

/** An enum value by name, of those EnumRules `r` allow (deprecated values left out). */
export function enumArbitrary(desc: DescEnum, rules: TypedRules | undefined): fc.Arbitrary<string> {
  const r = ruleSetOf("enum", rules);
  const listed = new Set(((r.get("in") as readonly number[] | undefined) ?? []).map(Number));
  const excluded = new Set(((r.get("not_in") as readonly number[] | undefined) ?? []).map(Number));
  const values = desc.values.filter(
    (v) =>
      !v.deprecated &&
      (!r.has("const") || v.number === Number(r.get("const"))) &&
      (listed.size === 0 || listed.has(v.number)) &&
      !excluded.has(v.number),
  );
  return fc.constantFrom(...values.map((v) => v.name));
}

const MAX_DURATION_NANOS = 315_576_000_000n * 1_000_000_000n;
const nanosOf = (d: unknown) => {
  const { seconds, nanos } = rulesFieldsOfDuration(d);
  return seconds * 1_000_000_000n + BigInt(nanos);
};

function rulesFieldsOfDuration(d: unknown): { seconds: bigint; nanos: number } {
  const fields = rulesFields(d);
  return { seconds: big(fields.get("seconds") ?? 0n), nanos: Number(fields.get("nanos") ?? 0) };
}

/** A Duration as proto3 JSON writes it: "5s", "0.250s", "0.000001500s". */
export function durationText(nanos: bigint): string {
  const seconds = nanos / 1_000_000_000n;
  const rest = nanos % 1_000_000_000n;
  if (rest === 0n) return `${seconds}s`;
  let fraction = rest.toString().padStart(9, "0");
  if (fraction.endsWith("000000")) fraction = fraction.slice(0, 3);
  else if (fraction.endsWith("000")) fraction = fraction.slice(0, 6);
  return `${seconds}.${fraction}s`;
}

/**
 * A Duration within DurationRules `r`, never negative: Envoy refuses a negative duration anywhere
 * in its config (MessageUtil::validateDurationFields, "Invalid duration: Expected positive
 * duration"). Mostly whole seconds or milliseconds; now and then finer.
 */
export function durationArbitrary(rules: TypedRules | undefined): fc.Arbitrary<string> {
  const r = ruleSetOf("duration", rules);
  if (r.has("const")) return fc.constant(durationText(nanosOf(r.get("const"))));
  const listed = (r.get("in") as readonly unknown[] | undefined) ?? [];
  if (listed.length > 0) return fc.constantFrom(...listed.map((d) => durationText(nanosOf(d))));
  let min = 0n;
  let max = MAX_DURATION_NANOS;
  if (r.has("gt")) min = nanosOf(r.get("gt")) + 1n;
  if (r.has("gte")) min = nanosOf(r.get("gte"));
  if (r.has("lt")) max = nanosOf(r.get("lt")) - 1n;
  if (r.has("lte")) max = nanosOf(r.get("lte"));
  if (min < 0n) min = 0n;
  const within = (n: bigint) => n >= min && n <= max;
  const ms = 1_000_000n;
  const s = 1_000_000_000n;
  const candidates = fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 60n }).map((n) => n * s) },
    { weight: 3, arbitrary: fc.bigInt({ min: 0n, max: 10_000n }).map((n) => n * ms) },
    { weight: 1, arbitrary: fc.bigInt({ min: 0n, max: 10n * s }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
  return candidates.map((n) => (within(n) ? n : min + (n % (max - min + 1n)))).map(durationText);
}

/** A Timestamp in RFC 3339, between 1970 and 2100. */
export const timestampArbitrary = fc
  .tuple(
    fc.integer({ min: 0, max: 4_102_444_799 }),
    fc.constantFrom(0, 0, 500_000_000, 123_456_789),
  )
  .map(([seconds, nanos]) => {
    const text = new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
    return nanos === 0 ? text : text.replace("Z", `.${String(nanos).padStart(9, "0")}Z`);
  });

const structKey = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z][a-z_]{0,5}$/) },
  { weight: 1, arbitrary: textArbitrary(0, 6) },
);

/** A google.protobuf.Value: any JSON value, nested a little. */
export const jsonValueArbitrary: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>(
  (tie) => ({
    value: fc.oneof(
      { maxDepth: 2, depthIdentifier: "json" },
      textArbitrary(),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }),
      fc.integer({ min: -1000, max: 1000 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(structKey, tie("value"), { maxKeys: 3 }),
    ),
  }),
).value;

/** A google.protobuf.Struct. */
export const structArbitrary: fc.Arbitrary<JsonObject> = fc.dictionary(
  structKey,
  jsonValueArbitrary,
  { maxKeys: 3 },
);

/** The JSON of a well-known type with a JSON form of its own, under the field's rules. */
export function wellKnownArbitrary(
  typeName: string,
  rules: TypedRules | undefined,
): fc.Arbitrary<JsonValue> | undefined {
  switch (typeName) {
    case "google.protobuf.Duration":
      return durationArbitrary(rules);
    case "google.protobuf.Timestamp":
      return timestampArbitrary;
    case "google.protobuf.Struct":
      return structArbitrary;
    case "google.protobuf.Value":
      return jsonValueArbitrary;
    case "google.protobuf.ListValue":
      return fc.array(jsonValueArbitrary, { maxLength: 3 });
    case "google.protobuf.Empty":
      return fc.constant({});
    case "google.protobuf.FieldMask":
      return fc
        .array(fc.stringMatching(/^[a-z][a-zA-Z]{0,5}$/), { maxLength: 2 })
        .map((paths) => paths.join(","));
    case "google.protobuf.DoubleValue":
      return scalarArbitrary(ScalarType.DOUBLE, rules);
    case "google.protobuf.FloatValue":
      return scalarArbitrary(ScalarType.FLOAT, rules);
    case "google.protobuf.Int64Value":
      return scalarArbitrary(ScalarType.INT64, rules);
    case "google.protobuf.UInt64Value":
      return scalarArbitrary(ScalarType.UINT64, rules);
    case "google.protobuf.Int32Value":
      return scalarArbitrary(ScalarType.INT32, rules);
    case "google.protobuf.UInt32Value":
      return scalarArbitrary(ScalarType.UINT32, rules);
    case "google.protobuf.BoolValue":
      return scalarArbitrary(ScalarType.BOOL, rules);
    case "google.protobuf.StringValue":
      return scalarArbitrary(ScalarType.STRING, rules);
    case "google.protobuf.BytesValue":
      return scalarArbitrary(ScalarType.BYTES, rules);
    default:
      return undefined;
  }
}
