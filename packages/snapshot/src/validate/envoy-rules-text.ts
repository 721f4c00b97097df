/**
 * Checks of one string or bytes value against a protoc-gen-validate rule set
 * (envoy-rules-compile.ts): lengths in code points and bytes, affixes, RE2 patterns, the
 * well-known formats (envoy-rules-formats.ts); and the length check lists and maps share.
 */
import { RE2JS } from "re2js";
import {
  isEmail,
  isHostname,
  isIp,
  isIpv4,
  isIpv6,
  isUri,
  isUriRef,
  isUuid,
  knownRegex,
} from "./envoy-rules-formats.js";
import {
  fail,
  quoted,
  type RuleName,
  type RuleSink,
  unwrap,
  type ValueCheck,
} from "./envoy-rules-scalar.js";

/** Unicode code points in `s` (what PGV's `len`, `min_len` and `max_len` count). */
function codePoints(s: string): number {
  let count = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const unit = s.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/**
 * The length check PGV makes of `len`, `min_*` and `max_*` (its templates/cc/string.go,
 * repeated.go, map.go): an exact length when `len` is set or the minimum equals the maximum, else the bounds.
 */
export function lengthCheck<V>(
  r: ReadonlyMap<string, unknown>,
  rule: RuleName,
  keys: { readonly exact?: string; readonly min: string; readonly max: string },
  unit: readonly [string, string],
  measure: (value: V) => number,
  seen: (value: V, length: number) => string,
  expect: (amount: string) => string = (amount) => `must be ${amount} long`,
): ((value: V, sink: RuleSink) => void) | undefined {
  const get = (key: string | undefined) => {
    const v = key === undefined ? undefined : r.get(key);
    return v === undefined ? undefined : Number(v);
  };
  const exact = get(keys.exact);
  const min = get(keys.min);
  const max = get(keys.max);
  const units = (n: number) => `${n} ${n === 1 ? unit[0] : unit[1]}`;
  if (exact !== undefined || (min !== undefined && min === max)) {
    const length = exact ?? (min as number);
    const name = rule(exact !== undefined ? (keys.exact as string) : keys.min, String(length));
    return (value, sink) => {
      const n = measure(value);
      if (n !== length) fail(sink, name, expect(units(length)), seen(value, n));
    };
  }
  if (min === undefined && max === undefined) return undefined;
  const range = min !== undefined && max !== undefined ? `from ${min} to ${units(max)}` : undefined;
  const short = min === undefined ? "" : rule(keys.min, String(min));
  const long = max === undefined ? "" : rule(keys.max, String(max));
  return (value, sink) => {
    const n = measure(value);
    if (min !== undefined && n < min) {
      fail(sink, short, expect(range ?? `at least ${units(min)}`), seen(value, n));
    } else if (max !== undefined && n > max) {
      fail(sink, long, expect(range ?? `at most ${units(max)}`), seen(value, n));
    }
  };
}

/** A pattern from the rules, compiled with RE2; undefined (and unchecked) if RE2 refuses it. */
function rulePattern(pattern: unknown): RE2JS | undefined {
  if (typeof pattern !== "string") return undefined;
  try {
    return RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
}

type StringTest = (s: string, sink: RuleSink) => void;

/**
 * StringRules, in PGV's order: `const`, `in`, `not_in`, lengths, affixes, `pattern`, the
 * `well_known` format; `ignore_empty` skips them all for "".
 */
export function stringCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck {
  const tests: StringTest[] = [];
  const constant = r.get("const");
  if (typeof constant === "string") {
    const name = rule("const", quoted(constant));
    tests.push((s, sink) => {
      if (s !== constant) fail(sink, name, `must equal ${quoted(constant)}`, quoted(s));
    });
  }
  for (const key of ["in", "not_in"] as const) {
    const list = (r.get(key) as readonly string[] | undefined) ?? [];
    if (list.length === 0) continue;
    const values = new Set(list);
    const text = `[${list.map(quoted).join(", ")}]`;
    const wanted = key === "in";
    tests.push((s, sink) => {
      if (values.has(s) !== wanted)
        fail(sink, rule(key), `must ${wanted ? "" : "not "}be one of ${text}`, quoted(s));
    });
  }
  const runes = lengthCheck(
    r,
    rule,
    { exact: "len", min: "min_len", max: "max_len" },
    ["character", "characters"],
    codePoints,
    (s, n) => `${quoted(s)} (${n} character${n === 1 ? "" : "s"})`,
  );
  if (runes) tests.push(runes);
  const bytes = lengthCheck(
    r,
    rule,
    { exact: "len_bytes", min: "min_bytes", max: "max_bytes" },
    ["byte", "bytes"],
    (s: string) => Buffer.byteLength(s, "utf8"),
    (s, n) => `${quoted(s)} (${n} byte${n === 1 ? "" : "s"} of UTF-8)`,
  );
  if (bytes) tests.push(bytes);
  const affixes = [
    ["prefix", (s: string, a: string) => s.startsWith(a), "must start with"],
    ["suffix", (s: string, a: string) => s.endsWith(a), "must end with"],
    ["contains", (s: string, a: string) => s.includes(a), "must contain"],
    ["not_contains", (s: string, a: string) => !s.includes(a), "must not contain"],
  ] as const;
  for (const [key, holds, expected] of affixes) {
    const affix = r.get(key);
    if (typeof affix !== "string") continue;
    const name = rule(key, quoted(affix));
    tests.push((s, sink) => {
      if (!holds(s, affix)) fail(sink, name, `${expected} ${quoted(affix)}`, quoted(s));
    });
  }
  const pattern = rulePattern(r.get("pattern"));
  if (pattern) {
    const name = rule("pattern", quoted(pattern.pattern()));
    tests.push((s, sink) => {
      if (!pattern.matches(s))
        fail(
          sink,
          name,
          `must match the regular expression ${quoted(pattern.pattern())} in full`,
          quoted(s),
        );
    });
  }
  const format = stringFormat(r, rule);
  if (format) tests.push(format);
  const ignoreEmpty = r.get("ignore_empty") === true;
  return (value, sink) => {
    const s = unwrap(value) as string;
    if (ignoreEmpty && s === "") return;
    for (const test of tests) test(s, sink);
  };
}

/** The `well_known` oneof of StringRules: a format the string must have. */
function stringFormat(r: ReadonlyMap<string, unknown>, rule: RuleName): StringTest | undefined {
  const formats = [
    ["ip", isIp, "must be an IP address"],
    ["ipv4", isIpv4, "must be an IPv4 address"],
    ["ipv6", isIpv6, "must be an IPv6 address"],
    ["email", isEmail, "must be an email address"],
    ["address", (s: string) => isHostname(s) || isIp(s), "must be an IP address or a host name"],
    ["hostname", isHostname, "must be a host name"],
    ["uri", isUri, "must be an absolute URI"],
    ["uri_ref", isUriRef, "must be a URI reference"],
    ["uuid", isUuid, "must be a UUID"],
  ] as const;
  for (const [key, holds, expected] of formats) {
    if (r.get(key) !== true) continue;
    const name = rule(key);
    return (s, sink) => {
      if (!holds(s)) fail(sink, name, expected, quoted(s));
    };
  }
  const known = r.get("well_known_regex");
  if (typeof known !== "number") return undefined;
  // `strict` defaults to true (validate.proto: `optional bool strict = 25 [default = true]`).
  const regex = knownRegex(known, r.get("strict") !== false);
  if (regex === undefined) return undefined;
  const name = rule("well_known_regex", regex.name);
  return (s, sink) => {
    if (!regex.test(s)) fail(sink, name, regex.expected, quoted(s));
  };
}

/** Bytes for a message, as proto3 JSON writes them. */
export function base64(bytes: Uint8Array): string {
  return JSON.stringify(Buffer.from(bytes).toString("base64"));
}

function bytesStartWith(bytes: Uint8Array, start: Uint8Array, at = 0): boolean {
  if (at < 0 || at + start.length > bytes.length) return false;
  for (let i = 0; i < start.length; i++) if (bytes[at + i] !== start[i]) return false;
  return true;
}

function bytesContain(bytes: Uint8Array, part: Uint8Array): boolean {
  for (let at = 0; at + part.length <= bytes.length; at++) {
    if (bytesStartWith(bytes, part, at)) return true;
  }
  return false;
}

type BytesTest = (b: Uint8Array, sink: RuleSink) => void;

/** BytesRules: `const`, `in`, `not_in`, lengths, `pattern`, affixes, `ip`/`ipv4`/`ipv6` sizes. */
export function bytesCheck(r: ReadonlyMap<string, unknown>, rule: RuleName): ValueCheck {
  const tests: BytesTest[] = [];
  const constant = r.get("const");
  if (constant instanceof Uint8Array) {
    const name = rule("const", base64(constant));
    tests.push((b, sink) => {
      if (b.length !== constant.length || !bytesStartWith(b, constant))
        fail(sink, name, `must equal ${base64(constant)}`, base64(b));
    });
  }
  for (const key of ["in", "not_in"] as const) {
    const list = (r.get(key) as readonly Uint8Array[] | undefined) ?? [];
    if (list.length === 0) continue;
    const values = new Set(list.map(base64));
    const text = `[${[...values].join(", ")}]`;
    const wanted = key === "in";
    tests.push((b, sink) => {
      if (values.has(base64(b)) !== wanted)
        fail(sink, rule(key), `must ${wanted ? "" : "not "}be one of ${text}`, base64(b));
    });
  }
  const length = lengthCheck(
    r,
    rule,
    { exact: "len", min: "min_len", max: "max_len" },
    ["byte", "bytes"],
    (b: Uint8Array) => b.length,
    (b, n) => `${base64(b)} (${n} byte${n === 1 ? "" : "s"})`,
  );
  if (length) tests.push(length);
  const pattern = rulePattern(r.get("pattern"));
  if (pattern) {
    const name = rule("pattern", quoted(pattern.pattern()));
    tests.push((b, sink) => {
      if (!pattern.matches(b))
        fail(
          sink,
          name,
          `must match the regular expression ${quoted(pattern.pattern())} in full`,
          base64(b),
        );
    });
  }
  const affixes = [
    ["prefix", (b: Uint8Array, a: Uint8Array) => bytesStartWith(b, a), "must start with"],
    [
      "suffix",
      (b: Uint8Array, a: Uint8Array) => bytesStartWith(b, a, b.length - a.length),
      "must end with",
    ],
    ["contains", bytesContain, "must contain"],
  ] as const;
  for (const [key, holds, expected] of affixes) {
    const affix = r.get(key);
    if (!(affix instanceof Uint8Array)) continue;
    const name = rule(key, base64(affix));
    tests.push((b, sink) => {
      if (!holds(b, affix)) fail(sink, name, `${expected} ${base64(affix)}`, base64(b));
    });
  }
  // An IP address in bytes is its 4 or 16 octets (PGV's bytes `ip`, `ipv4`, `ipv6`).
  const sizes = [
    ["ip", [4, 16], "must be an IP address (4 or 16 bytes)"],
    ["ipv4", [4], "must be an IPv4 address (4 bytes)"],
    ["ipv6", [16], "must be an IPv6 address (16 bytes)"],
  ] as const;
  for (const [key, allowed, expected] of sizes) {
    if (r.get(key) !== true) continue;
    const name = rule(key);
    const sizesAllowed: readonly number[] = allowed;
    tests.push((b, sink) => {
      if (!sizesAllowed.includes(b.length)) fail(sink, name, expected, `${b.length} bytes`);
    });
  }
  const ignoreEmpty = r.get("ignore_empty") === true;
  return (value, sink) => {
    const b = unwrap(value) as Uint8Array;
    if (ignoreEmpty && b.length === 0) return;
    for (const test of tests) test(b, sink);
  };
}
