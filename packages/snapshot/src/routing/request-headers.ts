/**
 * A request's headers as Envoy's router reads them, and Envoy's header and query parameter
 * matchers on them. Pure.
 *
 * HeaderMatcher (https://www.envoyproxy.io/docs/envoy/latest/api-v3/config/route/v3/route_components.proto,
 * "config.route.v3.HeaderMatcher"), as Envoy's HeaderUtility::matchHeaders evaluates it: the
 * values of a header present several times are joined with "," before matching; a missing header
 * matches nothing, inverted or not, except `present_match: false` (and `present_match: true` with
 * `invert_match`), unless `treat_missing_header_as_empty` makes it "".
 */
import type {
  HeaderMatcher,
  QueryParameterMatcher,
} from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import type { RE2JS } from "re2js";
import { quotedInput } from "../bounded-text.js";
import { stringMatcher } from "../match/matchers.js";
import { compileBoundedRegex, regexMaxProgramSize } from "../match/regex-limit.js";

/** An ordered, case-insensitive multimap of headers; pseudo-headers (":path") included. */
export class HeaderMap {
  readonly #entries: [string, string][];

  constructor(entries: Iterable<readonly [string, string]> = []) {
    this.#entries = [...entries].map(([name, value]) => [name.toLowerCase(), value]);
  }

  clone(): HeaderMap {
    return new HeaderMap(this.#entries);
  }

  /** Every value of `name`, in order. */
  getAll(name: string): string[] {
    const key = name.toLowerCase();
    return this.#entries.filter(([n]) => n === key).map(([, v]) => v);
  }

  get(name: string): string | undefined {
    return this.getAll(name)[0];
  }

  has(name: string): boolean {
    return this.getAll(name).length > 0;
  }

  /** Envoy's getAllOfHeaderAsString: several values joined with ",", undefined when absent. */
  joined(name: string): string | undefined {
    const values = this.getAll(name);
    return values.length === 0 ? undefined : values.join(",");
  }

  add(name: string, value: string): void {
    this.#entries.push([name.toLowerCase(), value]);
  }

  /** Replaces every value of `name` with one, kept at the first one's place (or appended). */
  set(name: string, value: string): void {
    const key = name.toLowerCase();
    const at = this.#entries.findIndex(([n]) => n === key);
    if (at < 0) {
      this.#entries.push([key, value]);
      return;
    }
    this.#entries[at] = [key, value];
    for (let i = this.#entries.length - 1; i > at; i--) {
      if (this.#entries[i]?.[0] === key) this.#entries.splice(i, 1);
    }
  }

  remove(name: string): void {
    const key = name.toLowerCase();
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      if (this.#entries[i]?.[0] === key) this.#entries.splice(i, 1);
    }
  }

  entries(): (readonly [string, string])[] {
    return this.#entries.map(([n, v]) => [n, v] as const);
  }
}

/** The path without its query and fragment (Envoy's PathUtil::removeQueryAndFragment). */
export function pathOnly(path: string): string {
  const at = path.search(/[?#]/);
  return at < 0 ? path : path.slice(0, at);
}

/**
 * Where a host's port starts (its ":"), or -1: Envoy's HeaderUtility::getPortStart, which knows
 * that an IPv6 literal ("[::1]:8080") holds colons of its own.
 */
export function portStart(host: string): number {
  const colon = host.lastIndexOf(":");
  if (colon < 0) return -1;
  const v6End = host.lastIndexOf("]");
  return v6End < 0 || v6End < colon ? colon : -1;
}

/** absl::SimpleAtoi for int64 as Envoy's range_match reads a header: optional sign, digits, spaces around. */
function parseInt64(value: string): bigint | undefined {
  const trimmed = value.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) return undefined;
  const parsed = BigInt(trimmed);
  if (parsed > 9223372036854775807n || parsed < -9223372036854775808n) return undefined;
  return parsed;
}

/** A compiled HeaderMatcher with a sentence saying what it checks. */
export interface CompiledHeaderMatcher {
  readonly describe: string;
  readonly matches: (headers: HeaderMap) => boolean;
}

/** Compiles one HeaderMatcher; throws MatcherError (matchers.ts) for a bad regex. */
export function compileHeaderMatcher(matcher: HeaderMatcher, path: string): CompiledHeaderMatcher {
  const name = matcher.name.toLowerCase();
  const spec = matcher.headerMatchSpecifier;
  let test: (value: string) => boolean;
  let what: string;
  // Unset specifier: a presence match (Envoy's HeaderData constructor, HEADER_MATCH_SPECIFIER_NOT_SET).
  let present: boolean | undefined = spec.case === undefined ? true : undefined;
  switch (spec.case) {
    case "exactMatch": {
      const exact = spec.value;
      test = (value) => exact === "" || value === exact;
      what = `exact ${quotedInput(exact)}`;
      break;
    }
    case "safeRegexMatch": {
      const re = compileRegex(spec.value.regex, `${path}.safe_regex_match.regex`);
      test = (value) => re.matches(value);
      what = `matches /${spec.value.regex}/`;
      break;
    }
    case "rangeMatch": {
      const { start, end } = spec.value;
      test = (value) => {
        const n = parseInt64(value);
        return n !== undefined && n >= start && n < end;
      };
      what = `in [${start}, ${end})`;
      break;
    }
    case "presentMatch":
      present = spec.value;
      test = () => spec.value;
      what = spec.value ? "present" : "absent";
      break;
    case "prefixMatch": {
      const prefix = spec.value;
      test = (value) => value.startsWith(prefix);
      what = `prefix ${quotedInput(prefix)}`;
      break;
    }
    case "suffixMatch": {
      const suffix = spec.value;
      test = (value) => value.endsWith(suffix);
      what = `suffix ${quotedInput(suffix)}`;
      break;
    }
    case "containsMatch": {
      const part = spec.value;
      test = (value) => value.includes(part);
      what = `contains ${quotedInput(part)}`;
      break;
    }
    case "stringMatch":
      test = stringMatcher(spec.value, `${path}.string_match`);
      what = `string_match ${describeStringMatch(spec.value.matchPattern)}`;
      break;
    case undefined:
      test = () => true;
      what = "present";
      break;
  }
  const invert = matcher.invertMatch;
  const asEmpty = matcher.treatMissingHeaderAsEmpty;
  return {
    describe: `header ${name} ${invert ? "not " : ""}${what}${asEmpty ? " (missing as empty)" : ""}`,
    matches: (headers) => {
      const value = headers.joined(name);
      if (value === undefined && !asEmpty) {
        return invert ? present === true : present === false;
      }
      return test(value ?? "") !== invert;
    },
  };
}

function describeStringMatch(pattern: { case: string | undefined; value?: unknown }): string {
  const value = pattern.value;
  if (pattern.case === "safeRegex" && value && typeof value === "object" && "regex" in value) {
    return `safe_regex /${String(value.regex)}/`;
  }
  return `${pattern.case ?? "unset"} ${quotedInput(value)}`;
}

/** Compiled regexes by limit and source: route tests ask the same routes again and again. */
const compiled = new Map<string, RE2JS>();
const COMPILED_KEPT = 4_096;

/**
 * RE2, as Envoy's safe_regex (google_re2); the whole input must match when used with `matches`.
 * A regex whose program is larger than the limit is refused before it is compiled
 * (match/regex-limit.ts), as Envoy refuses it.
 */
export function compileRegex(regex: string, path: string): RE2JS {
  const key = `${regexMaxProgramSize()}:${regex}`;
  const known = compiled.get(key);
  if (known !== undefined) return known;
  try {
    const re = compileBoundedRegex(regex);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, re);
    return re;
  } catch (error) {
    throw new RoutingConfigError(path, error instanceof Error ? error.message : String(error));
  }
}

/**
 * Found while routing: a config Envoy would reject ("invalid-config"), or one this evaluation does
 * not cover ("unsupported-config"): where, and why.
 */
export class RoutingConfigError extends Error {
  constructor(
    readonly path: string,
    problem: string,
    readonly code: "invalid-config" | "unsupported-config" = "invalid-config",
  ) {
    super(`${path}: ${problem}`);
  }
}

/**
 * The query parameters of a :path, undecoded, in order (Envoy's QueryParamsMulti::parseQueryString
 * with decode_params false); a parameter without "=" has the value "".
 */
export function queryParameters(path: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  const start = path.indexOf("?");
  if (start < 0) return params;
  for (const part of path.slice(start + 1).split("&")) {
    if (part === "") continue;
    const equal = part.indexOf("=");
    const key = equal < 0 ? part : part.slice(0, equal);
    const value = equal < 0 ? "" : part.slice(equal + 1);
    params.set(key, [...(params.get(key) ?? []), value]);
  }
  return params;
}

/**
 * A compiled QueryParameterMatcher (route_components.proto, "config.route.v3.QueryParameterMatcher"),
 * as Envoy's ConfigUtility::QueryParameterMatcher: only a parameter's first value is matched; a
 * missing parameter never matches; `present_match` answers its own value when the parameter is
 * there; no specifier is a presence check.
 */
export function compileQueryParameterMatcher(
  matcher: QueryParameterMatcher,
  path: string,
): { readonly describe: string; readonly matches: (params: Map<string, string[]>) => boolean } {
  const spec = matcher.queryParameterMatchSpecifier;
  const name = matcher.name;
  if (spec.case === "stringMatch") {
    const test = stringMatcher(spec.value, `${path}.string_match`);
    return {
      describe: `query ${name} ${describeStringMatch(spec.value.matchPattern)}`,
      matches: (params) => {
        const first = params.get(name)?.[0];
        return first !== undefined && test(first);
      },
    };
  }
  const present = spec.case === "presentMatch" ? spec.value : true;
  return {
    describe: `query ${name} ${present ? "present" : "present_match false (never matches)"}`,
    matches: (params) => params.get(name)?.[0] !== undefined && present,
  };
}
