/**
 * protoc-gen-validate's semantics, rule by rule, on message types made for the purpose (Envoy's
 * protos use only some of PGV's rules, and none of its exclusive ranges): each case gives a field
 * with its rules, values it must accept, and values it must refuse with one named violation.
 *
 * Long because it is one case table (SEMANTICS), a few lines per PGV rule, all on the test types
 * built at the top of the file.
 */
import {
  createFileRegistry,
  type DescMessage,
  fromJson,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import { describe, expect, it } from "vitest";
import { checkRules } from "./envoy-rules.js";

const TYPE = "type.googleapis.com/";

const DEPENDENCIES: Record<string, string> = {
  "validate/validate.proto": "validate.FieldRules",
  "google/protobuf/any.proto": "google.protobuf.Any",
  "google/protobuf/duration.proto": "google.protobuf.Duration",
  "google/protobuf/timestamp.proto": "google.protobuf.Timestamp",
  "google/protobuf/wrappers.proto": "google.protobuf.UInt32Value",
};

let files = 0;

/**
 * A message type `T` made from DescriptorProto JSON (with "PKG." standing for its package), next
 * to an enum `E` { E_ZERO = 0, E_ONE = 1, E_TWO = 2 }. Field options carry PGV rules as
 * `"[validate.rules]"`, read through the registry's extension.
 */
function testType(messages: JsonObject[]): DescMessage {
  const pkg = `switchyard.rules_test${files++}`;
  const json = JSON.parse(JSON.stringify(messages).replaceAll("PKG.", `.${pkg}.`)) as JsonValue;
  const file = fromJson(
    FileDescriptorProtoSchema,
    {
      name: `${pkg}.proto`,
      package: pkg,
      syntax: "proto3",
      dependency: Object.keys(DEPENDENCIES),
      enumType: [
        {
          name: "E",
          value: [
            { name: "E_ZERO", number: 0 },
            { name: "E_ONE", number: 1 },
            { name: "E_TWO", number: 2 },
          ],
        },
      ],
      messageType: json,
    },
    { registry },
  );
  const found = createFileRegistry(file, (name) => {
    const typeName = DEPENDENCIES[name];
    return typeName === undefined ? undefined : registry.getMessage(typeName)?.file;
  }).getMessage(`${pkg}.T`);
  if (!found) throw new Error("no test type");
  return found;
}

const SCALARS = new Set([
  "double",
  "float",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "fixed64",
  "bool",
  "string",
  "bytes",
]);

/** A field `v` of `type` ("uint32", "E", ".google.protobuf.Duration") with PGV `rules`. */
function fieldJson(type: string, rules: JsonValue, label = "LABEL_OPTIONAL"): JsonObject {
  const kind = SCALARS.has(type)
    ? { type: `TYPE_${type.toUpperCase()}` }
    : type === "E"
      ? { type: "TYPE_ENUM", typeName: "PKG.E" }
      : { type: "TYPE_MESSAGE", typeName: type };
  return {
    name: "v",
    jsonName: "v",
    number: 1,
    label,
    ...kind,
    options: { "[validate.rules]": rules },
  };
}

interface SemanticsCase {
  readonly rule: string;
  readonly type: DescMessage;
  readonly valid: readonly JsonValue[];
  readonly invalid: readonly JsonValue[];
  /** The one "path rule" line each invalid value gives. */
  readonly expected: string;
}

const single = (type: string, rules: JsonValue) =>
  testType([{ name: "T", field: [fieldJson(type, rules)] }]);
const repeated = (type: string, rules: JsonValue) =>
  testType([{ name: "T", field: [fieldJson(type, rules, "LABEL_REPEATED")] }]);
const optional = (type: string, rules: JsonValue) =>
  testType([
    {
      name: "T",
      field: [{ ...fieldJson(type, rules), proto3Optional: true, oneofIndex: 0 }],
      oneofDecl: [{ name: "_v" }],
    },
  ]);
const mapOf = (rules: JsonValue) =>
  testType([
    {
      name: "T",
      field: [{ ...fieldJson("PKG.T.VEntry", rules, "LABEL_REPEATED") }],
      nestedType: [
        {
          name: "VEntry",
          options: { mapEntry: true },
          field: [
            {
              name: "key",
              jsonName: "key",
              number: 1,
              label: "LABEL_OPTIONAL",
              type: "TYPE_STRING",
            },
            {
              name: "value",
              jsonName: "value",
              number: 2,
              label: "LABEL_OPTIONAL",
              type: "TYPE_INT32",
            },
          ],
        },
      ],
    },
  ]);

const SEMANTICS: readonly SemanticsCase[] = [
  {
    rule: "PGV's exclusive range {lt: 10, gt: 20} refuses 10 to 20 and accepts what lies outside",
    type: single("int32", { int32: { lt: 10, gt: 20 } }),
    valid: [9, 21, -5],
    invalid: [10, 15, 20],
    expected: "v int32.lt = 10, int32.gt = 20",
  },
  {
    rule: "PGV's exclusive range {lte: 10, gte: 20} refuses 11 to 19 only",
    type: single("int32", { int32: { lte: 10, gte: 20 } }),
    valid: [10, 20, 0],
    invalid: [11, 19],
    expected: "v int32.lte = 10, int32.gte = 20",
  },
  {
    rule: "an inclusive range {gt: 0, lte: 65535} refuses what is below, by its lower bound",
    type: single("uint32", { uint32: { gt: 0, lte: 65535 } }),
    valid: [1, 65535],
    invalid: [0],
    expected: "v uint32.gt = 0",
  },
  {
    rule: "an inclusive range {gt: 0, lte: 65535} refuses what is above, by its upper bound",
    type: single("uint32", { uint32: { gt: 0, lte: 65535 } }),
    valid: [80],
    invalid: [65536],
    expected: "v uint32.lte = 65535",
  },
  {
    rule: "lt wins over lte when both are given, as in PGV",
    type: single("int32", { int32: { lt: 5, lte: 100 } }),
    valid: [4],
    invalid: [5, 50],
    expected: "v int32.lt = 5",
  },
  {
    rule: "64-bit bounds compare exactly beyond 2^53",
    type: single("uint64", { uint64: { lte: "18446744073709551614" } }),
    valid: ["18446744073709551614", "9007199254740993"],
    invalid: ["18446744073709551615"],
    expected: "v uint64.lte = 18446744073709551614",
  },
  {
    rule: "a float compares as the float32 it is, like its bound (float.gte = 0.1)",
    type: single("float", { float: { gte: 0.1 } }),
    valid: [0.1, 1],
    invalid: [0.05, 0.0999999],
    expected: "v float.gte = 0.1",
  },
  {
    rule: "numeric in: the value must be one of those listed",
    type: single("sint32", { sint32: { in: [1, 2, 3] } }),
    valid: [1, 3],
    invalid: [0, 4],
    expected: "v sint32.in",
  },
  {
    rule: "numeric not_in: the value must be none of those listed",
    type: single("fixed64", { fixed64: { notIn: ["0"] } }),
    valid: ["1"],
    invalid: ["0"],
    expected: "v fixed64.not_in",
  },
  {
    rule: "string lengths count code points, not UTF-16 units (string.max_len = 2)",
    type: single("string", { string: { maxLen: 2 } }),
    valid: ["ab", "😀😀", ""],
    invalid: ["abc", "😀😀😀"],
    expected: "v string.max_len = 2",
  },
  {
    rule: "string byte lengths count UTF-8 bytes (string.max_bytes = 4)",
    type: single("string", { string: { maxBytes: 4 } }),
    valid: ["abcd", "😀"],
    invalid: ["abcde", "é😀"],
    expected: "v string.max_bytes = 4",
  },
  {
    rule: "min_len equal to max_len asks for that exact length",
    type: single("string", { string: { minLen: 3, maxLen: 3 } }),
    valid: ["abc"],
    invalid: ["ab", "abcd"],
    expected: "v string.min_len = 3",
  },
  {
    rule: "string.len asks for an exact length",
    type: single("string", { string: { len: 2 } }),
    valid: ["ab"],
    invalid: ["a", ""],
    expected: "v string.len = 2",
  },
  {
    rule: "a string pattern must match the whole value, as RE2::FullMatch in Envoy's validators",
    type: single("string", { string: { pattern: "[a-z]+" } }),
    valid: ["abc"],
    invalid: ["abc1", "1abc", ""],
    expected: 'v string.pattern = "[a-z]+"',
  },
  {
    rule: "string prefix: the value must start with it",
    type: single("string", { string: { prefix: "/" } }),
    valid: ["/a", "/"],
    invalid: ["a/", ""],
    expected: 'v string.prefix = "/"',
  },
  {
    rule: "string suffix: the value must end with it",
    type: single("string", { string: { suffix: ".mmdb" } }),
    valid: ["geo.mmdb"],
    invalid: ["geo.db"],
    expected: 'v string.suffix = ".mmdb"',
  },
  {
    rule: "string not_contains",
    type: single("string", { string: { notContains: ".." } }),
    valid: ["a.b"],
    invalid: ["a..b"],
    expected: 'v string.not_contains = ".."',
  },
  {
    rule: "string in: the value must be one of those listed",
    type: single("string", { string: { in: ["http", "https"] } }),
    valid: ["http", "https"],
    invalid: ["ftp", ""],
    expected: "v string.in",
  },
  {
    rule: "string const: the value must be the one given",
    type: single("string", { string: { const: "v3" } }),
    valid: ["v3"],
    invalid: ["v2"],
    expected: 'v string.const = "v3"',
  },
  {
    rule: "ignore_empty skips every rule for the empty string",
    type: single("string", { string: { minLen: 3, ignoreEmpty: true } }),
    valid: ["", "abc"],
    invalid: ["ab"],
    expected: "v string.min_len = 3",
  },
  {
    rule: "string hostname: labels of letters, digits and hyphens, no underscore",
    type: single("string", { string: { hostname: true } }),
    valid: ["example.com", "a-b.example.com.", "localhost"],
    invalid: ["-a.example.com", "a_b.example.com", "a..b", ""],
    expected: "v string.hostname",
  },
  {
    rule: "string ipv6 as inet_pton reads it: IPv4-mapped accepted, no zone, no brackets",
    type: single("string", { string: { ipv6: true } }),
    valid: ["::1", "2001:db8::8a2e:370:7334", "::ffff:10.0.0.1"],
    invalid: ["10.0.0.1", "fe80::1%eth0", "[::1]"],
    expected: "v string.ipv6",
  },
  {
    rule: "string address: a host name or an IP",
    type: single("string", { string: { address: true } }),
    valid: ["10.0.0.1", "::1", "db.internal"],
    invalid: ["db.internal:5432", "a b"],
    expected: "v string.address",
  },
  {
    rule: "string uuid: 8-4-4-4-12 hexadecimal digits",
    type: single("string", { string: { uuid: true } }),
    valid: ["123e4567-e89b-12d3-a456-426614174000"],
    invalid: ["123e4567e89b12d3a456426614174000"],
    expected: "v string.uuid",
  },
  {
    rule: "string uri must be absolute, uri_ref need not",
    type: single("string", { string: { uri: true } }),
    valid: ["https://example.com/a?b=c", "urn:isbn:0451450523"],
    invalid: ["/relative", "https://example.com/%zz", "https://exa mple.com"],
    expected: "v string.uri",
  },
  {
    rule: 'string email: a local part, "@" and a host name',
    type: single("string", { string: { email: true } }),
    valid: ["ops@example.com"],
    invalid: ["ops", "ops@", "@example.com", "ops@exa_mple.com"],
    expected: "v string.email",
  },
  {
    rule: "HTTP_HEADER_NAME, strict: a token with an optional leading colon",
    type: single("string", { string: { wellKnownRegex: "HTTP_HEADER_NAME" } }),
    valid: [":authority", "x-request-id"],
    invalid: ["x request", "", "x:y"],
    expected: "v string.well_known_regex = HTTP_HEADER_NAME",
  },
  {
    rule: "HTTP_HEADER_VALUE, strict: no control character but tab",
    type: single("string", { string: { wellKnownRegex: "HTTP_HEADER_VALUE" } }),
    valid: ["text/html; q=0.9", "a\tb", ""],
    invalid: ["a\u0001b", "a\nb", "a\u007fb"],
    expected: "v string.well_known_regex = HTTP_HEADER_VALUE",
  },
  {
    rule: "HTTP_HEADER_VALUE, strict: false: only NUL, CR and LF are refused",
    type: single("string", { string: { wellKnownRegex: "HTTP_HEADER_VALUE", strict: false } }),
    valid: ["a\u0001b", "a\u007fb"],
    invalid: ["a\nb", "a\rb", "a\u0000b"],
    expected: "v string.well_known_regex = HTTP_HEADER_VALUE",
  },
  {
    rule: "bytes ipv4: exactly the 4 bytes of an IPv4 address",
    type: single("bytes", { bytes: { ipv4: true } }),
    valid: ["CgAAAQ=="],
    invalid: ["AAAAAAAAAAAAAAAAAAAAAA==", "AQ=="],
    expected: "v bytes.ipv4",
  },
  {
    rule: "bytes min_len counts bytes",
    type: single("bytes", { bytes: { minLen: 2 } }),
    valid: ["AAE="],
    invalid: ["AA==", ""],
    expected: "v bytes.min_len = 2",
  },
  {
    rule: "bool const: the value must be the one given",
    type: single("bool", { bool: { const: true } }),
    valid: [true],
    invalid: [false],
    expected: "v bool.const = true",
  },
  {
    rule: "enum defined_only refuses numbers the enum does not define",
    type: single("E", { enum: { definedOnly: true } }),
    valid: ["E_ONE", 2, 0],
    invalid: [3, -1],
    expected: "v enum.defined_only",
  },
  {
    rule: "enum not_in: the value must be none of those listed",
    type: single("E", { enum: { notIn: [0] } }),
    valid: ["E_ONE"],
    invalid: ["E_ZERO"],
    expected: "v enum.not_in",
  },
  {
    rule: "duration lt and gte, compared to the nanosecond",
    type: single(".google.protobuf.Duration", { duration: { lt: "1s", gte: "0.001s" } }),
    valid: ["0.001s", "0.999999999s"],
    invalid: ["0.000999999s", "-1s"],
    expected: "v duration.gte = 0.001s",
  },
  {
    rule: "duration lt refuses the bound itself",
    type: single(".google.protobuf.Duration", { duration: { lt: "1s", gte: "0.001s" } }),
    valid: ["0.5s"],
    invalid: ["1s", "1.000000001s"],
    expected: "v duration.lt = 1s",
  },
  {
    rule: "duration in: the value must be one of those listed",
    type: single(".google.protobuf.Duration", { duration: { in: ["1s", "2s"] } }),
    valid: ["1s", "2s"],
    invalid: ["1.500s"],
    expected: "v duration.in",
  },
  {
    rule: "timestamp gt (the clock-free timestamp rules)",
    type: single(".google.protobuf.Timestamp", { timestamp: { gt: "2020-01-01T00:00:00Z" } }),
    valid: ["2020-01-01T00:00:00.000000001Z"],
    invalid: ["2020-01-01T00:00:00Z", "1970-01-01T00:00:00Z"],
    expected: "v timestamp.gt = 2020-01-01T00:00:00Z",
  },
  {
    rule: "any in: the packed type must be one of those named",
    type: single(".google.protobuf.Any", {
      any: { in: [`${TYPE}google.protobuf.Duration`] },
    }),
    valid: [{ "@type": `${TYPE}google.protobuf.Duration`, value: "1s" }],
    invalid: [{ "@type": `${TYPE}google.protobuf.Timestamp`, value: "2020-01-01T00:00:00Z" }],
    expected: "v any.in",
  },
  {
    rule: "a wrapper's rules apply to the wrapped value when the wrapper is set",
    type: single(".google.protobuf.UInt32Value", { uint32: { gte: 1 } }),
    valid: [1, null],
    invalid: [0],
    expected: "v uint32.gte = 1",
  },
  {
    rule: "a proto3 optional scalar is checked only when set",
    type: optional("uint32", { uint32: { gte: 1 } }),
    valid: [1, null],
    invalid: [0],
    expected: "v uint32.gte = 1",
  },
  {
    rule: "repeated min_items equal to max_items asks for that exact count",
    type: repeated("string", { repeated: { minItems: 2, maxItems: 2 } }),
    valid: [["a", "b"]],
    invalid: [["a"], ["a", "b", "c"], []],
    expected: "v repeated.min_items = 2",
  },
  {
    rule: "repeated max_items",
    type: repeated("uint32", { repeated: { maxItems: 1 } }),
    valid: [[], [1]],
    invalid: [[1, 2]],
    expected: "v repeated.max_items = 1",
  },
  {
    rule: "repeated items rules apply to each item, at its index",
    type: repeated("uint32", { repeated: { items: { uint32: { lt: 10 } } } }),
    valid: [[1, 9]],
    invalid: [[1, 10]],
    expected: "v.1 repeated.items.uint32.lt = 10",
  },
  {
    rule: "map min_pairs: an empty map is refused",
    type: mapOf({ map: { minPairs: 1 } }),
    valid: [{ a: 1 }],
    invalid: [{}],
    expected: "v map.min_pairs = 1",
  },
  {
    rule: "map values rules apply to each value, at its key",
    type: mapOf({ map: { values: { int32: { gte: 0 } } } }),
    valid: [{ a: 0 }],
    invalid: [{ a: 1, b: -1 }],
    expected: "v.b map.values.int32.gte = 0",
  },
];

describe("checkRules follows protoc-gen-validate's semantics", () => {
  it.each(SEMANTICS)("$rule", ({ type, valid, invalid, expected }) => {
    const check = (v: JsonValue) =>
      checkRules(type, fromJson(type, v === null ? {} : { v }, { registry })).map(
        ({ at, rule }) => `${at.join(".")} ${rule}`,
      );
    for (const value of valid) expect(check(value), JSON.stringify(value)).toEqual([]);
    for (const value of invalid) expect(check(value), JSON.stringify(value)).toEqual([expected]);
  });

  it("a required oneof needs a member set, message.required a message, and message.skip checks nothing inside", () => {
    const type = testType([
      {
        name: "T",
        field: [
          {
            name: "a",
            jsonName: "a",
            number: 1,
            label: "LABEL_OPTIONAL",
            type: "TYPE_STRING",
            oneofIndex: 0,
          },
          {
            name: "b",
            jsonName: "b",
            number: 2,
            label: "LABEL_OPTIONAL",
            type: "TYPE_UINT32",
            oneofIndex: 0,
          },
          {
            name: "need",
            jsonName: "need",
            number: 3,
            label: "LABEL_OPTIONAL",
            type: "TYPE_MESSAGE",
            typeName: "PKG.Inner",
            options: { "[validate.rules]": { message: { required: true } } },
          },
          {
            name: "skipped",
            jsonName: "skipped",
            number: 4,
            label: "LABEL_OPTIONAL",
            type: "TYPE_MESSAGE",
            typeName: "PKG.Inner",
            options: { "[validate.rules]": { message: { skip: true } } },
          },
        ],
        oneofDecl: [{ name: "choice", options: { "[validate.required]": true } }],
      },
      {
        name: "Inner",
        field: [
          {
            name: "n",
            jsonName: "n",
            number: 1,
            label: "LABEL_OPTIONAL",
            type: "TYPE_UINT32",
            options: { "[validate.rules]": { uint32: { gt: 0 } } },
          },
        ],
      },
    ]);
    const check = (json: JsonValue) =>
      checkRules(type, fromJson(type, json)).map(({ at, rule }) => `${at.join(".")} ${rule}`);
    expect(check({ skipped: { n: 0 } })).toEqual([" oneof required", "need message.required"]);
    expect(check({ b: 0, need: { n: 0 } })).toEqual(["need.n uint32.gt = 0"]);
    expect(check({ a: "", need: { n: 1 } })).toEqual([]);
  });

  it("a message marked validate.disabled is not checked, nor anything in it", () => {
    const type = testType([
      {
        name: "T",
        options: { "[validate.disabled]": true },
        field: [fieldJson("uint32", { uint32: { gt: 0 } })],
      },
    ]);
    expect(checkRules(type, fromJson(type, {}) as Message)).toEqual([]);
  });
});
