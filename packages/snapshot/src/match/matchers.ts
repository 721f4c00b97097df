/**
 * Envoy's generic matchers (envoy.type.matcher.v3: StringMatcher, ValueMatcher, StructMatcher,
 * NodeMatcher) as Envoy evaluates them, on plain values: a node's id and its metadata as JSON.
 * Regular expressions are RE2, as Envoy's `safe_regex` (google_re2), and must match the whole
 * input. Pure: a matcher Switchyard cannot evaluate (a `custom` string matcher, an empty
 * oneof, an invalid regex) throws MatcherError naming the field, before anything is matched.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { NodeMatcher } from "@switchyard/proto/envoy/type/matcher/v3/node_pb";
import type { StringMatcher } from "@switchyard/proto/envoy/type/matcher/v3/string_pb";
import type { StructMatcher } from "@switchyard/proto/envoy/type/matcher/v3/struct_pb";
import type { ValueMatcher } from "@switchyard/proto/envoy/type/matcher/v3/value_pb";
import type { RE2JS } from "re2js";
import { compileBoundedRegex } from "./regex-limit.js";

/** A matcher that cannot be evaluated; `path` is its field path, as in the request's JSON. */
export class MatcherError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

/** A predicate on strings, compiled once from a StringMatcher (its regex included). */
export function stringMatcher(matcher: StringMatcher, path: string): (value: string) => boolean {
  const fold = matcher.ignoreCase ? (s: string) => s.toLowerCase() : (s: string) => s;
  const pattern = matcher.matchPattern;
  switch (pattern.case) {
    case "exact": {
      const exact = fold(pattern.value);
      return (value) => fold(value) === exact;
    }
    case "prefix": {
      const prefix = fold(pattern.value);
      return (value) => fold(value).startsWith(prefix);
    }
    case "suffix": {
      const suffix = fold(pattern.value);
      return (value) => fold(value).endsWith(suffix);
    }
    case "contains": {
      const part = fold(pattern.value);
      return (value) => fold(value).includes(part);
    }
    case "safeRegex": {
      // ignore_case does not apply to safe_regex (string.proto): RE2 has (?i) for that.
      let re: RE2JS;
      try {
        re = compileBoundedRegex(pattern.value.regex);
      } catch (error) {
        throw new MatcherError(
          `${path}.safe_regex.regex`,
          error instanceof Error ? error.message : String(error),
        );
      }
      return (value) => re.matches(value);
    }
    case "custom":
      throw new MatcherError(`${path}.custom`, "custom string matchers are not supported");
    case undefined:
      throw new MatcherError(
        path,
        "one of exact, prefix, suffix, safe_regex or contains is required",
      );
  }
}

/** A predicate on a JSON value (undefined: the path led nowhere), compiled from a ValueMatcher. */
export function valueMatcher(
  matcher: ValueMatcher,
  path: string,
): (value: JsonValue | undefined) => boolean {
  const pattern = matcher.matchPattern;
  switch (pattern.case) {
    case "nullMatch":
      return (value) => value === null;
    case "doubleMatch": {
      const double = pattern.value.matchPattern;
      if (double.case === "exact") {
        const exact = double.value;
        return (value) => typeof value === "number" && value === exact;
      }
      if (double.case === "range") {
        const { start, end } = double.value;
        // [start, end): start inclusive, end exclusive (envoy.type.v3.DoubleRange).
        return (value) => typeof value === "number" && value >= start && value < end;
      }
      throw new MatcherError(`${path}.double_match`, "one of range or exact is required");
    }
    case "stringMatch": {
      const matches = stringMatcher(pattern.value, `${path}.string_match`);
      return (value) => typeof value === "string" && matches(value);
    }
    case "boolMatch": {
      const expected = pattern.value;
      return (value) => value === expected;
    }
    case "presentMatch": {
      // As Envoy: true matches any value the path reaches (null included); false matches nothing.
      const present = pattern.value;
      return (value) => present && value !== undefined;
    }
    case "listMatch": {
      const oneOf = pattern.value.matchPattern;
      if (oneOf.case !== "oneOf")
        throw new MatcherError(`${path}.list_match`, "one_of is required");
      const element = valueMatcher(oneOf.value, `${path}.list_match.one_of`);
      return (value) => Array.isArray(value) && value.some((item) => element(item));
    }
    case "orMatch": {
      const any = pattern.value.valueMatchers.map((m, i) =>
        valueMatcher(m, `${path}.or_match.value_matchers[${i}]`),
      );
      if (any.length < 2)
        throw new MatcherError(
          `${path}.or_match.value_matchers`,
          "at least 2 matchers are required",
        );
      return (value) => any.some((m) => m(value));
    }
    case undefined:
      throw new MatcherError(path, "a match pattern is required");
  }
}

/** A predicate on a JSON object (a Struct), compiled from a StructMatcher. */
export function structMatcher(
  matcher: StructMatcher,
  path: string,
): (struct: JsonValue | undefined) => boolean {
  const keys = matcher.path.map((segment, i) => {
    if (segment.segment.case !== "key" || segment.segment.value === "")
      throw new MatcherError(`${path}.path[${i}]`, "a non-empty key is required");
    return segment.segment.value;
  });
  if (keys.length === 0) throw new MatcherError(`${path}.path`, "at least one key is required");
  if (matcher.value === undefined) throw new MatcherError(`${path}.value`, "a value is required");
  const value = valueMatcher(matcher.value, `${path}.value`);
  return (struct) => {
    let at: JsonValue | undefined = struct;
    for (const key of keys) {
      if (at === null || typeof at !== "object" || Array.isArray(at)) return value(undefined);
      at = at[key];
    }
    return value(at);
  };
}

/** A node as node matchers see it. */
export interface MatchedNode {
  readonly id: string;
  /** Node.metadata as JSON (undefined or null when the node sent none). */
  readonly metadata: JsonValue | undefined;
}

/**
 * A predicate on nodes from NodeMatchers, which match by OR (csds.proto, ClientStatusRequest
 * `node_matchers`); none matches every node. In one NodeMatcher, `node_id` (when set) and every
 * `node_metadatas` entry must match.
 */
export function nodeMatcher(
  matchers: readonly NodeMatcher[],
  path = "node_matchers",
): (node: MatchedNode) => boolean {
  const compiled = matchers.map((m, i) => {
    const id =
      m.nodeId === undefined ? undefined : stringMatcher(m.nodeId, `${path}[${i}].node_id`);
    const metadata = m.nodeMetadatas.map((s, j) =>
      structMatcher(s, `${path}[${i}].node_metadatas[${j}]`),
    );
    return (node: MatchedNode) =>
      (id === undefined || id(node.id)) && metadata.every((s) => s(node.metadata ?? undefined));
  });
  if (compiled.length === 0) return () => true;
  return (node) => compiled.some((m) => m(node));
}
