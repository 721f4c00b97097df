/**
 * Syntax predicates shared by the checks: names, addresses, domains, regular expressions, JSON
 * objects.
 */
import { isIP } from "node:net";
import { RE2JS } from "re2js";
import { quotedInput } from "../bounded-text.js";
import { regexMaxProgramSize, regexSizeProblem } from "../match/regex-limit.js";
import type { JsonObject, JsonValue } from "../model.js";

const NAME = /^[^\s\p{Cc}]+$/u;

/**
 * The longest object name, in UTF-16 units (so at most 1,536 bytes of UTF-8): far beyond any real
 * name, and short enough for the database to index (a Postgres btree key holds ~2.7 kB).
 */
export const MAX_NAME_LENGTH = 512;

/**
 * Why `name` cannot name a part of a resource that is no xDS resource of its own (a virtual host
 * of a route configuration loaded whole, a route, a filter chain), or undefined when it can.
 * Envoy asks only for a non-empty name (`string.min_len = 1`); Switchyard's policy adds a length a
 * database index can hold and no control characters (they cannot be typed, shown or logged as
 * written). Spaces, "*" and "/" are Envoy's to allow: a gateway names its virtual hosts
 * `listener/*` or `*`.
 */
export function partNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (/\p{Cc}/u.test(name)) return "contains control characters";
  if (name.length > MAX_NAME_LENGTH) {
    return `is ${name.length} characters long, more than the ${MAX_NAME_LENGTH} allowed`;
  }
  return undefined;
}

/**
 * Why `name` cannot name an xDS resource (a cluster, listener, route configuration, secret,
 * runtime layer, an on-demand virtual host) or a node group, or undefined when it can. Envoy
 * accepts almost any string; these are Switchyard's policies, listed in the README:
 *   - no whitespace or control characters: names travel in xDS requests, URLs (`xds:///NAME`),
 *     logs and the CLI, where they would only cause trouble;
 *   - not "*" nor ending in "/*": the xDS protocol reads "*" as the wildcard subscription
 *     ("How the client specifies what resources to return"), and the xDS transport design reads a
 *     name ending in "/*" as a glob collection, and every resource is also served under
 *     xdstp://AUTHORITY/TYPE/NAME (xdstp.ts);
 *   - not starting with "xdstp:": such a name would read as a structured name itself.
 */
export function nameProblem(name: string): string | undefined {
  const part = partNameProblem(name);
  if (part) return part;
  if (!NAME.test(name)) return "contains whitespace or control characters";
  if (name.startsWith("xdstp:")) {
    return 'starts with "xdstp:", the scheme Switchyard serves every resource under (xdstp://AUTHORITY/TYPE/NAME): give the plain name';
  }
  if (name === "*" || name.endsWith("/*")) {
    return 'is "*" or ends in "/*", which xDS reads as a wildcard or a glob collection';
  }
  return undefined;
}

/** `name` quoted for a message, cut when long (bounded-text.ts quotedInput). */
export function quotedName(name: string): string {
  return quotedInput(name);
}

/** A TCP/UDP port a socket can use: an integer from 1 to 65535. */
export function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/**
 * A port a listener can bind: 0 to 65535 (SocketAddress.port_value `uint32.lte = 65535`); 0 asks
 * the kernel for a free port.
 */
export function isListenerPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65535;
}

export const UINT32_MAX = 0xffff_ffff;

/** An integer weight from 1 to 2^32 - 1 (Envoy's `uint32 {gte: 1}` weights). */
export function isPositiveWeight(weight: number): boolean {
  return Number.isInteger(weight) && weight >= 1 && weight <= UINT32_MAX;
}

/** 4 or 6 for an IP literal (no brackets, no port), 0 otherwise. */
export function ipFamily(address: string): 0 | 4 | 6 {
  return isIP(address) as 0 | 4 | 6;
}

const LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/**
 * A DNS host name: dot-separated labels of letters, digits, "-" and "_" (SRV-style names use it),
 * no label starting or ending with "-", at most 63 characters a label and 253 in all, an optional
 * final dot, and a last label that is not all digits (so "10.0.0.300" is a bad IP, not a name).
 */
export function isHostname(address: string): boolean {
  const name = address.endsWith(".") ? address.slice(0, -1) : address;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split(".");
  return labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1) ?? "");
}

/** Why `address` is neither an IP literal nor a host name, or undefined when it is one. */
export function addressProblem(address: string): string | undefined {
  if (address === "") return "is empty";
  if (ipFamily(address) !== 0 || isHostname(address)) return undefined;
  if (address.startsWith("[") && address.endsWith("]") && ipFamily(address.slice(1, -1)) === 6) {
    return "has brackets: write an IPv6 address without them";
  }
  if (/:\d+$/.test(address) && ipFamily(address) === 0) {
    return "holds a port: put the port in its own field";
  }
  return "is neither an IP address nor a host name";
}

/**
 * Why `domain` cannot be a virtual host domain, or undefined when it can. Envoy's rule is the
 * domain list's `well_known_regex: HTTP_HEADER_VALUE, strict: false`: no NUL, CR or LF. An empty
 * domain and whitespace or other control characters are Switchyard's policy: a Host header never
 * holds them, so such a domain is a typo that matches nothing.
 */
export function domainProblem(domain: string): string | undefined {
  if (domain === "") return "is empty";
  if (/[\0\r\n]/.test(domain)) return "holds a NUL, CR or LF, which Envoy refuses in a domain";
  if (/[\s\p{Cc}]/u.test(domain)) return "contains whitespace or control characters";
  return undefined;
}

/**
 * Why a `*` in `domain` is matched literally, or undefined when it is not. Envoy files a domain by
 * its first and last character (`RouteMatcher::RouteMatcher`, source/common/router/config_impl.cc):
 * "*" alone, a leading "*" (a suffix match) or a trailing "*" (a prefix match); any other "*" is
 * part of an exact (or the remaining) match, so no Host header is likely to reach it.
 */
export function literalWildcard(domain: string): string | undefined {
  if (!domain.includes("*") || domain === "*") return undefined;
  // Envoy looks at the first character, then the last: that "*" is the wildcard.
  const rest = domain.startsWith("*")
    ? domain.slice(1)
    : domain.endsWith("*")
      ? domain.slice(0, -1)
      : undefined;
  if (rest === undefined)
    return 'has a "*" in the middle, which Envoy matches as the character "*"';
  if (rest.includes("*")) {
    return 'has more than one "*": Envoy reads the one at its start (else its end) as the wildcard and any other as the character "*"';
  }
  return undefined;
}

/** Lower case as Envoy folds Host headers and domains (`Http::LowerCaseString`): ASCII only. */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

/**
 * Why `pattern` is not a valid RE2 regular expression, or undefined when it is.
 *
 * Envoy compiles `safe_regex` with RE2 (C++). This uses re2js, a JavaScript port of RE2 (through
 * RE2/J) that parses the same syntax: it rejects what RE2 rejects and JS accepts (lookaround,
 * backreferences, `\u0041`) and accepts what RE2 accepts and JS rejects (`(?i)`, `\z`, `\Q..\E`,
 * `[[:alpha:]]`, `(?P<name>..)`). Envoy's limit on the compiled program's size is checked first,
 * before anything is compiled (regexSizeProblem, match/regex-limit.ts).
 * re2-wasm (what @grpc/grpc-js-xds uses) was measured and set aside: its RE2 objects are never
 * freed from a fixed 16 MB heap, so a long-running control plane would abort after some thousands
 * of compilations, and each one costs about 0.2 ms, seven times re2js.
 */
export function regexProblem(pattern: string): string | undefined {
  if (pattern === "") return "is empty";
  const key = `${regexMaxProgramSize()}:${pattern}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known === VALID ? undefined : known;
  let verdict = regexSizeProblem(pattern) ?? VALID;
  if (verdict === VALID) {
    try {
      RE2JS.compile(pattern);
    } catch (error) {
      verdict = error instanceof Error ? error.message : String(error);
    }
  }
  // Patterns rarely change between validations (each publish revalidates the whole draft), so
  // verdicts are remembered process-wide, by limit and pattern; the oldest are forgotten past a
  // bound.
  if (verdicts.size >= MAX_VERDICTS) verdicts.delete(verdicts.keys().next().value as string);
  verdicts.set(key, verdict);
  return verdict === VALID ? undefined : verdict;
}

const VALID = "";
const MAX_VERDICTS = 100_000;
const verdicts = new Map<string, string>();

/**
 * The known name closest to a misspelt one, for "did you mean" hints. Looks up a case-insensitive
 * match first, then the name within a small edit distance (1 for short names, up to 3 for long
 * ones). The search is linear in the number of names, so it only runs for a bounded number of
 * distinct misses per validation (`budget`): a config with thousands of dangling references still
 * validates in linear time, and the first ones get suggestions.
 */
export class NameSuggester {
  readonly #names: readonly string[];
  readonly #lowercase = new Map<string, string>();
  readonly #cache = new Map<string, string | undefined>();
  #budget: number;

  constructor(names: Iterable<string>, budget = 20) {
    this.#names = [...new Set(names)];
    for (const name of this.#names) {
      const lower = name.toLowerCase();
      if (!this.#lowercase.has(lower)) this.#lowercase.set(lower, name);
    }
    this.#budget = budget;
  }

  suggest(missing: string): string | undefined {
    if (this.#cache.has(missing)) return this.#cache.get(missing);
    let found = this.#lowercase.get(missing.toLowerCase());
    if (found === undefined && this.#budget > 0 && missing.length > 0) {
      this.#budget--;
      const limit = missing.length <= 4 ? 1 : missing.length <= 12 ? 2 : 3;
      let best = limit + 1;
      for (const name of this.#names) {
        if (Math.abs(name.length - missing.length) >= best) continue;
        const distance = boundedEditDistance(missing, name, best - 1);
        if (distance < best) {
          best = distance;
          found = name;
          if (best === 1) break; // 0 would have been the case-insensitive match
        }
      }
    }
    this.#cache.set(missing, found);
    return found;
  }
}

/** Levenshtein distance of `a` and `b`, or `limit + 1` as soon as it is known to exceed `limit`. */
export function boundedEditDistance(a: string, b: string, limit: number): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  const distance = previous[b.length] ?? limit + 1;
  return distance > limit ? limit + 1 : distance;
}

/** A JSON object (not an array, not null), to read a field of stored JSON (`extra`, ...). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
