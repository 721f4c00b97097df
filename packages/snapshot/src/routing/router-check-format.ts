/**
 * Envoy's router_check_tool test files (https://www.envoyproxy.io/docs/envoy/latest/operations/tools/route_table_check_tool;
 * the schema is the tool's validation.proto, envoy.RouterCheckToolSchema.Validation), read from
 * YAML or JSON: `tests: [{test_name, input: {...}, validate: {...}}]`. Field names may be written
 * as in the proto (`cluster_name`) or in proto3 JSON (`clusterName`), as the tool's proto parsing
 * accepts; unknown fields are refused, as the tool's strict parsing refuses them. Pure.
 *
 * A refusal names the test and field: `tests[3].validate.cluster_name: expected a string`.
 */
import type { HeaderMatcher } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { HeaderMatcherSchema } from "@switchyard/proto/envoy/config/route/v3/route_components_pb";
import { parseDocument } from "yaml";
import { quotedInput } from "../bounded-text.js";
import { envoyFromJson } from "../envoy/envoy-proto-json.js";
import { MatcherError } from "../match/matchers.js";
import type { JsonValue } from "../model.js";
import { compileHeaderMatcher, RoutingConfigError } from "./request-headers.js";

/** Limits on what is read: a test file is small; larger input is refused before parsing. */
export const ROUTER_CHECK_LIMITS = {
  maxBytes: 1_048_576,
  maxTests: 5_000,
  maxListItems: 200,
} as const;

export interface RouterCheckInput {
  readonly authority: string;
  readonly path: string;
  readonly method: string;
  readonly randomValue: bigint;
  readonly ssl: boolean;
  readonly internal: boolean;
  /** The runtime key the test enables ("" for none). */
  readonly runtime: string;
  readonly additionalRequestHeaders: readonly (readonly [string, string])[];
  readonly additionalResponseHeaders: readonly (readonly [string, string])[];
  readonly dynamicMetadata?: { readonly [namespace: string]: JsonValue };
}

/** What a test expects; an absent field is not checked, "" expects nothing (no route, no cluster). */
export interface RouterCheckExpectations {
  readonly clusterName?: string;
  readonly virtualClusterName?: string;
  readonly virtualHostName?: string;
  readonly hostRewrite?: string;
  readonly pathRewrite?: string;
  readonly pathRedirect?: string;
  readonly codeRedirect?: number;
  /** The route's timeout in ms (from a Duration such as "120s"). */
  readonly timeoutMs?: number;
  readonly requestHeaderMatches: readonly HeaderMatcher[];
  readonly responseHeaderMatches: readonly HeaderMatcher[];
  readonly requestHeaderFields: readonly (readonly [string, string])[];
  readonly responseHeaderFields: readonly (readonly [string, string])[];
  readonly routeMetadata: readonly {
    readonly namespace: string;
    readonly key: string;
    readonly value: string;
  }[];
}

export interface RouterCheckTest {
  readonly name: string;
  readonly input: RouterCheckInput;
  readonly validate: RouterCheckExpectations;
}

export interface RouterCheckProblem {
  readonly path: string;
  readonly message: string;
}

export type RouterCheckParse =
  | { readonly t: "tests"; readonly tests: readonly RouterCheckTest[] }
  | { readonly t: "invalid"; readonly problems: readonly RouterCheckProblem[] };

type Obj = { readonly [key: string]: unknown };
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Reads one object's fields by proto name, refusing unknown ones. */
class Reader {
  constructor(
    readonly at: string,
    readonly fields: Obj,
    readonly problems: RouterCheckProblem[],
    names: readonly string[],
  ) {
    const known = new Set(names.flatMap((f) => [f, camel(f)]));
    for (const key of Object.keys(fields)) {
      if (!known.has(key))
        problems.push({
          path: `${at}.${key}`,
          message: `unknown field (known: ${names.join(", ")})`,
        });
    }
  }

  /** [path, value] of a field written either way; undefined when absent (or null). */
  get(field: string): [string, unknown] | undefined {
    for (const key of [field, camel(field)]) {
      const value = this.fields[key];
      if (value !== undefined && value !== null) return [`${this.at}.${key}`, value];
    }
    return undefined;
  }

  problem(path: string, message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  string(field: string, required?: { minLength: number }): string | undefined {
    const found = this.get(field);
    if (!found) {
      return required
        ? this.problem(
            `${this.at}.${field}`,
            `required (at least ${required.minLength} characters)`,
          )
        : undefined;
    }
    const [path, value] = found;
    if (typeof value !== "string") return this.problem(path, "expected a string");
    if (required && value.length < required.minLength)
      return this.problem(path, `expected at least ${required.minLength} characters`);
    return value;
  }

  boolean(field: string): boolean {
    const found = this.get(field);
    if (!found) return false;
    if (typeof found[1] !== "boolean")
      return this.problem(found[0], "expected true or false") ?? false;
    return found[1];
  }

  uint(field: string, max: bigint): bigint | undefined {
    const found = this.get(field);
    if (!found) return undefined;
    const [path, value] = found;
    const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
    if (typeof text !== "string" || !/^\d+$/.test(text) || BigInt(text) > max) {
      return this.problem(path, `expected an unsigned integer up to ${max}`);
    }
    return BigInt(text);
  }

  list(field: string): [string, unknown][] {
    const found = this.get(field);
    if (!found) return [];
    const [path, value] = found;
    if (!Array.isArray(value)) return this.problem(path, "expected a list") ?? [];
    if (value.length > ROUTER_CHECK_LIMITS.maxListItems) {
      return this.problem(path, `at most ${ROUTER_CHECK_LIMITS.maxListItems} items`) ?? [];
    }
    return value.map((item, i) => [`${path}[${i}]`, item]);
  }

  object(field: string, required: boolean): [string, Obj] | undefined {
    const found = this.get(field);
    if (!found) return required ? this.problem(`${this.at}.${field}`, "required") : undefined;
    if (!isObject(found[1])) return this.problem(found[0], "expected an object");
    return [found[0], found[1]];
  }
}

/** HeaderValue lists ({key, value}). */
function headerValues(reader: Reader, field: string): [string, string][] {
  return reader.list(field).flatMap(([path, item]) => {
    if (!isObject(item)) return reader.problem(path, "expected {key, value}") ?? [];
    const r = new Reader(path, item, reader.problems, ["key", "value"]);
    const key = r.string("key", { minLength: 1 });
    const value = r.string("value") ?? "";
    return key === undefined ? [] : [[key, value] as [string, string]];
  });
}

/**
 * HeaderMatcher lists, each compiled once here so that a regex Envoy would refuse (RE2 syntax, or
 * a program past the size limit: match/regex-limit.ts) is refused with the file, naming its field,
 * before any case runs.
 */
function headerMatchers(reader: Reader, field: string): HeaderMatcher[] {
  return reader.list(field).flatMap(([path, item]) => {
    let matcher: HeaderMatcher;
    try {
      matcher = envoyFromJson(HeaderMatcherSchema, item as JsonValue);
    } catch (error) {
      return (
        reader.problem(
          path,
          `not a HeaderMatcher: ${error instanceof Error ? error.message : String(error)}`,
        ) ?? []
      );
    }
    try {
      compileHeaderMatcher(matcher, path);
    } catch (error) {
      if (!(error instanceof RoutingConfigError || error instanceof MatcherError)) throw error;
      return reader.problem(error.path, error.message.slice(error.path.length + 2)) ?? [];
    }
    return [matcher];
  });
}

function durationMs(reader: Reader, field: string): number | undefined {
  const text = reader.string(field);
  if (text === undefined) return undefined;
  const m = /^(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m)
    return reader.problem(`${reader.at}.${field}`, `expected a duration such as "15s" or "0.250s"`);
  return Number(m[1]) * 1000 + Math.round(Number(`0.${m[2] ?? "0"}`) * 1000);
}

function readInput(at: string, object: Obj, problems: RouterCheckProblem[]): RouterCheckInput {
  const r = new Reader(at, object, problems, [
    "authority",
    "path",
    "method",
    "random_value",
    "ssl",
    "internal",
    "runtime",
    "additional_request_headers",
    "additional_response_headers",
    "dynamic_metadata",
  ]);
  const additionalRequestHeaders = headerValues(r, "additional_request_headers");
  for (const [i, [name]] of additionalRequestHeaders.entries()) {
    if (
      name.startsWith(":") ||
      ["x-forwarded-proto", "x-envoy-internal", "host"].includes(name.toLowerCase())
    ) {
      r.problem(
        `${at}.additional_request_headers[${i}]`,
        `${quotedInput(name)} comes from authority, path, method, ssl or internal`,
      );
    }
  }
  const metadata: { [namespace: string]: JsonValue } = {};
  const dynamic = r.list("dynamic_metadata");
  for (const [path, item] of dynamic) {
    if (!isObject(item)) {
      r.problem(path, "expected {metadata_namespace, value, allow_overwrite}");
      continue;
    }
    const m = new Reader(path, item, problems, ["metadata_namespace", "value", "allow_overwrite"]);
    const namespace = m.string("metadata_namespace", { minLength: 1 });
    const value = m.object("value", true);
    if (namespace === undefined || value === undefined) continue;
    const existing = metadata[namespace];
    if (existing === undefined) metadata[namespace] = value[1] as JsonValue;
    else if (m.boolean("allow_overwrite") && isObject(existing))
      metadata[namespace] = { ...existing, ...value[1] } as JsonValue;
  }
  return {
    authority: r.string("authority", { minLength: 1 }) ?? "",
    path: r.string("path", { minLength: 1 }) ?? "",
    method: r.string("method", { minLength: 3 }) ?? "",
    randomValue: r.uint("random_value", 2n ** 64n - 1n) ?? 0n,
    ssl: r.boolean("ssl"),
    internal: r.boolean("internal"),
    runtime: r.string("runtime") ?? "",
    additionalRequestHeaders,
    additionalResponseHeaders: headerValues(r, "additional_response_headers"),
    ...(dynamic.length > 0 ? { dynamicMetadata: metadata } : {}),
  };
}

function readValidate(
  at: string,
  object: Obj,
  problems: RouterCheckProblem[],
): RouterCheckExpectations {
  const r = new Reader(at, object, problems, [
    "cluster_name",
    "virtual_cluster_name",
    "virtual_host_name",
    "host_rewrite",
    "path_rewrite",
    "path_redirect",
    "code_redirect",
    "timeout",
    "request_header_matches",
    "response_header_matches",
    "request_header_fields",
    "response_header_fields",
    "route_metadata",
  ]);
  const strings = [
    "cluster_name",
    "virtual_cluster_name",
    "virtual_host_name",
    "host_rewrite",
    "path_rewrite",
    "path_redirect",
  ] as const;
  const read = Object.fromEntries(
    strings.flatMap((f) => {
      const value = r.string(f);
      return value === undefined ? [] : [[camel(f), value]];
    }),
  );
  const code = r.uint("code_redirect", 2n ** 32n - 1n);
  const timeoutMs = durationMs(r, "timeout");
  const routeMetadata = r.list("route_metadata").flatMap(([path, item]) => {
    if (!isObject(item)) return r.problem(path, "expected {namespace, key, value}") ?? [];
    const m = new Reader(path, item, problems, ["namespace", "key", "value"]);
    const [namespace, key, value] = [
      m.string("namespace", { minLength: 1 }),
      m.string("key", { minLength: 1 }),
      m.string("value") ?? "",
    ];
    return namespace === undefined || key === undefined ? [] : [{ namespace, key, value }];
  });
  return {
    ...read,
    ...(code === undefined ? {} : { codeRedirect: Number(code) }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    requestHeaderMatches: headerMatchers(r, "request_header_matches"),
    responseHeaderMatches: headerMatchers(r, "response_header_matches"),
    requestHeaderFields: headerValues(r, "request_header_fields"),
    responseHeaderFields: headerValues(r, "response_header_fields"),
    routeMetadata,
  };
}

/** Parses a router_check_tool test file (YAML, of which JSON is a subset). */
export function parseRouterCheckTests(text: string): RouterCheckParse {
  if (new TextEncoder().encode(text).length > ROUTER_CHECK_LIMITS.maxBytes) {
    return {
      t: "invalid",
      problems: [{ path: "", message: `the file is over ${ROUTER_CHECK_LIMITS.maxBytes} bytes` }],
    };
  }
  const document = parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: false,
  });
  if (document.errors.length > 0) {
    return {
      t: "invalid",
      problems: document.errors.map((e) => ({
        path: `line ${e.linePos?.[0]?.line ?? "?"}`,
        message: e.message,
      })),
    };
  }
  let root: unknown;
  try {
    root = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return {
      t: "invalid",
      problems: [{ path: "", message: error instanceof Error ? error.message : String(error) }],
    };
  }
  if (!isObject(root))
    return {
      t: "invalid",
      problems: [{ path: "", message: "expected an object with tests: [...]" }],
    };
  const problems: RouterCheckProblem[] = [];
  new Reader("", root, problems, ["tests"]);
  const list = root.tests;
  if (!Array.isArray(list) || list.length === 0) {
    return {
      t: "invalid",
      problems: [...problems, { path: "tests", message: "expected a list of at least one test" }],
    };
  }
  if (list.length > ROUTER_CHECK_LIMITS.maxTests) {
    return {
      t: "invalid",
      problems: [{ path: "tests", message: `at most ${ROUTER_CHECK_LIMITS.maxTests} tests` }],
    };
  }
  const tests = list.flatMap((item, i): RouterCheckTest[] => {
    const at = `tests[${i}]`;
    if (!isObject(item)) {
      problems.push({ path: at, message: "expected {test_name, input, validate}" });
      return [];
    }
    const r = new Reader(at, item, problems, ["test_name", "input", "validate"]);
    const name = r.string("test_name", { minLength: 1 });
    const input = r.object("input", true);
    const validate = r.object("validate", true);
    if (name === undefined || !input || !validate) return [];
    return [
      {
        name,
        input: readInput(input[0], input[1], problems),
        validate: readValidate(validate[0], validate[1], problems),
      },
    ];
  });
  return problems.length > 0 ? { t: "invalid", problems } : { t: "tests", tests };
}
