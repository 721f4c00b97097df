import { RE2JS } from "re2js";
import { afterEach, describe, expect, it } from "vitest";
import {
  compileBoundedRegex,
  DEFAULT_REGEX_MAX_PROGRAM_SIZE,
  RegexRefusedError,
  regexMaxProgramSize,
  regexSizeProblem,
  runtimeRegexLimit,
  setRegexMaxProgramSize,
  withRegexLimit,
} from "./regex-limit.js";
import { regexProgramSize } from "./regex-program-size.js";

/**
 * Patterns and the program size RE2 (C++, release 2022-06-01, RE2::ProgramSize as Envoy's
 * CompiledGoogleReMatcher reads it) reports for each: literals, classes, anchors, the required
 * prefix, repeats, captures, alternations RE2's parser factors, UTF-8 classes, case folding.
 */
const RE2_SIZES: readonly (readonly [string, number])[] = [
  ["$", 4],
  ["(?:foo|bar|baz)", 11],
  ["(?i)^bearer .+$", 13],
  ["(?i)abc", 7],
  ["(?m)^a$", 7],
  ["(?s).", 11],
  ["(a)", 7],
  ["(foo|foobar|foobaz)", 14],
  [".", 12],
  [".*", 12],
  [".*\\.envoyproxy\\.io", 26],
  ["/asdf/.*", 18],
  ["0[a-z]{0,1000}|1[a-z]{0,1000}", 4006],
  ["[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", 72],
  ["[\\x{80}-\\x{10FFFF}]", 10],
  ["[^a]", 12],
  ["[a-z]", 5],
  ["[a-z]{0,1000}", 2004],
  ["\\*", 5],
  ["\\d+", 6],
  ["\\d{3}", 7],
  ["\\w+", 8],
  ["^", 2],
  ["^(?:)", 2],
  ["^(?:/v1|/v2)/.*", 14],
  ["^(?:ab)*", 4],
  ["^(?:ab)+", 5],
  ["^(?:ab)?", 5],
  ["^(?:ab){2}", 6],
  ["^(?:abc|abd|xyz)", 8],
  ["^(?:a|)", 4],
  ["^(?:a|b)", 3],
  ["^(?:a|bc)*", 5],
  ["^(?:foo|bar)", 8],
  ["^(?:foo|bar)$", 8],
  ["^(?:foo|bar|baz)", 9],
  ["^(?:foo|bar|baz)$", 9],
  ["^(?:|a)", 4],
  ["^(?P<name>a)", 5],
  ["^(?U)a+", 4],
  ["^(?i)[a-z]", 8],
  ["^(?i)[k]", 6],
  ["^(?i)k", 6],
  ["^(?i)s", 5],
  ["^(?i)\u00e9", 5],
  ["^(GET|POST|PUT)$", 13],
  ["^(a)", 5],
  ["^(ab)*", 6],
  ["^(x|y){3,}", 12],
  ["^.", 10],
  ["^.*?", 10],
  ["^.+?", 11],
  ["^/(.+)/.+$", 25],
  ["^/([^/]+)/.*$", 24],
  ["^/api/.*", 12],
  ["^/assets/[0-9a-f]{8}/.+", 30],
  ["^/hub/(.*)", 14],
  ["^/old/(.*)$", 14],
  ["^/other/(.*)", 14],
  ["^/service/([^/]+)(/.*)$", 26],
  ["^/users/[^/]+/orders/[0-9]+$", 23],
  ["^/v[0-9]+/.*", 15],
  ["^/v[12]/", 6],
  ["^/v[12]/orders/[0-9]+$", 15],
  ["^[[:^alpha:]]", 11],
  ["^[[:alpha:]]", 3],
  ["^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", 17],
  ["^[\\x{10000}-\\x{10FFFF}]", 10],
  ["^[\\x{100}-\\x{200}]", 6],
  ["^[\\x{800}-\\x{FFFF}]", 7],
  ["^[^/]+", 11],
  ["^[^a-z]", 10],
  ["^[a-c]|[x-z]", 7],
  ["^[a-zA-Z0-9_-]", 6],
  ["^[a-z]+$", 4],
  ["^[\u00e9]", 4],
  ["^[\u03b1-\u03c9]", 6],
  ["^\\.", 4],
  ["^\\C", 3],
  ["^\\D", 10],
  ["^\\Qa.b\\E", 4],
  ["^\\S", 12],
  ["^\\W", 13],
  ["^\\bfoo\\b", 7],
  ["^\\p{Greek}", 64],
  ["^\\s", 5],
  ["^\\w", 5],
  ["^a", 4],
  ["^a$", 4],
  ["^a(?:b|)c", 7],
  ["^a*", 3],
  ["^a.b", 13],
  ["^ab", 4],
  ["^abc|abd|xyz", 14],
  ["^ab|ac", 9],
  ["^a|b", 7],
  ["^cluster\\.((.+?)\\.)", 18],
  ["^http\\.((.*?)\\.)", 17],
  ["^x(?:[a-z]*)*y", 6],
  ["^x(?:a|bc)*y", 8],
  ["^x[a-z]*y", 6],
  ["^x{2,5}", 10],
  ["^x{3}y{2}", 7],
  ["^|a", 6],
  ["^\u00e9", 4],
  ["a", 5],
  ["a$", 5],
  ["a*", 5],
  ["a+", 6],
  ["a?", 6],
  ["ab", 6],
  ["a{4}", 8],
  ["a|c", 6],
  ["envoy-[2-9]", 11],
  ["foo|bar|baz", 11],
  ["https://[a-z]+\\.example\\.com", 26],
  ["https?://(www.)?envoyproxy.io/docs/envoy.*", 66],
];

/** The attack of issue 44: alternatives of counted repeats, ~10 KB; RE2 counts 1.4 million. */
const ATTACK = Array.from({ length: 700 }, (_, i) => `${i}[a-z]{0,1000}`).join("|");

describe("regexProgramSize counts the program as RE2 compiles it", () => {
  it.each(RE2_SIZES)("%j is %i instructions, as RE2 reports", (pattern, size) => {
    expect(regexProgramSize(pattern)).toBe(size);
  });

  it("counts Unicode classes within a few percent of RE2 (its tables are of its own release)", () => {
    for (const [pattern, size] of [
      ["\\pL", 1197],
      ["^[\\p{Greek}\\p{Cyrillic}]", 90],
      ["[\\p{L}\\p{N}]+", 1344],
    ] as const) {
      const counted = regexProgramSize(pattern);
      expect(Math.abs(counted - size) / size).toBeLessThan(0.06);
    }
  });

  it("counts the largest repeats without building them, and stops past the limit it is given", () => {
    expect(regexProgramSize(ATTACK)).toBeGreaterThan(1_000_000);
    expect(regexProgramSize(ATTACK, 100)).toBeGreaterThan(100);
    expect(regexProgramSize("(((a{1000}){1000}){1000})")).toBeGreaterThan(1e9);
  });

  it("counts a pattern nested deeper than RE2 allows as Infinity, without overflowing the stack", () => {
    expect(regexProgramSize(`${"(".repeat(5000)}a${")".repeat(5000)}`)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it("reads malformed patterns without throwing (re2js then says what is wrong)", () => {
    for (const pattern of ["(", ")", "[", "[a", "\\", "a{", "(?", "(?P<x", "\\p{", "\\x{zz}"])
      expect(Number.isFinite(regexProgramSize(pattern))).toBe(true);
  });
});

describe("a regex past the program size limit is refused before it is compiled", () => {
  afterEach(() => setRegexMaxProgramSize(DEFAULT_REGEX_MAX_PROGRAM_SIZE));

  it("the default limit is Envoy's error level, 100", () => {
    expect(regexMaxProgramSize()).toBe(100);
    expect(regexSizeProblem("[a-z]{0,47}")).toBeUndefined(); // 98
    expect(regexSizeProblem("[a-z]{0,48}")).toBeUndefined(); // 100
    expect(regexSizeProblem("[a-z]{0,49}")).toMatch(/more than 100 instructions/); // 102
  });

  it("refuses the attack pattern with a problem naming the limit, not an RE2 error", () => {
    expect(() => compileBoundedRegex(ATTACK)).toThrow(RegexRefusedError);
    expect(() => compileBoundedRegex(ATTACK)).toThrow(
      /more than 100 instructions.*SWITCHYARD_REGEX_MAX_PROGRAM_SIZE/,
    );
  });

  it("compiles a regex within the limit, and gives RE2's error for a malformed one", () => {
    expect(compileBoundedRegex("^/v[12]/orders/[0-9]+$").matches("/v1/orders/7")).toBe(true);
    expect(() => compileBoundedRegex("(a")).toThrow(
      /not an RE2 regular expression: .*missing closing \)/,
    );
  });

  it("takes a configured limit, and a runtime layer's error level lowers it, never raises it", () => {
    setRegexMaxProgramSize(3000);
    expect(regexSizeProblem("[a-z]{0,1000}")).toBeUndefined();
    withRegexLimit(50, () =>
      expect(regexSizeProblem("[a-z]{0,30}")).toMatch(/re2\.max_program_size\.error_level/),
    );
    withRegexLimit(1e6, () => expect(regexMaxProgramSize()).toBe(3000));
    expect(() => setRegexMaxProgramSize(0)).toThrow(RangeError);
  });

  it("reads re2.max_program_size.error_level from runtime entries as Envoy does: an integer", () => {
    expect(runtimeRegexLimit([{ key: "re2.max_program_size.error_level", value: 200 }])).toBe(200);
    expect(runtimeRegexLimit([{ key: "re2.max_program_size.error_level", value: "150" }])).toBe(
      150,
    );
    expect(
      runtimeRegexLimit([{ key: "re2.max_program_size.error_level", value: true }]),
    ).toBeUndefined();
    expect(runtimeRegexLimit([{ key: "other", value: 1 }])).toBeUndefined();
  });

  it("re2js's own count stays below the limit for what the limit lets through (its compile cost is bounded)", () => {
    for (const [pattern, size] of RE2_SIZES) {
      if (size > DEFAULT_REGEX_MAX_PROGRAM_SIZE) continue;
      let compiled: RE2JS;
      try {
        compiled = RE2JS.compile(pattern);
      } catch {
        continue; // \C: RE2 takes it, re2js does not
      }
      expect(compiled.programSize()).toBeLessThanOrEqual(size * 2);
    }
  });
});
