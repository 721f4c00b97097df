/**
 * Envoy-native configuration in: text → decoded Envoy v3 messages → the stored model. Pure: no
 * I/O, the same input always gives the same output.
 *
 * `parseEnvoyConfig` accepts what people already run (JSON or YAML, one or several YAML documents):
 * a list of resources with "@type" (or `{ resources: [...] }`), a DiscoveryResponse, a bootstrap or
 * just its `static_resources`. Every resource is decoded with the generated Envoy types, typed
 * configs in `Any` fields included. protobuf-es stops at the first problem and says nothing of
 * where it is, so the document is first checked against the message descriptors here, and every
 * unknown field, wrong type, bad enum value and unknown "@type" is reported with its JSON path in
 * the user's own key spelling (`resources[2].filter_chains[0].filters[0].typed_config.stat_prefx`).
 *
 * `importEnvoyConfig` maps the decoded messages onto ClusterSpec, ListenerSpec and
 * RouteConfigurationSpec. Every modelled field is extracted; every other field is kept in the
 * matching `extra` as canonical proto3 JSON. Nothing is dropped silently: each imported object is
 * compiled back (envoy-json.ts) and compared with the input, and an object that would not come
 * back equal is rejected with an error instead of being stored changed.
 *
 * The normalizations, the only differences allowed between an imported resource and what
 * Switchyard serves and exports for it (each one is reported as an issue, and the round-trip tests
 * in envoy-export.spec.ts check that nothing else differs):
 *   1. A cluster without `type` or `connect_timeout` gets Envoy's defaults, STATIC and 5s (the
 *      model always holds both, and `type` is a oneof member, so set and unset differ).
 *   2. An EDS cluster's `eds_config` and an HTTP connection manager's `rds.config_source` become
 *      `{ ads: {}, resource_api_version: V3 }`: Switchyard itself serves the endpoints and routes.
 *   3. A STATIC/STRICT_DNS/LOGICAL_DNS cluster without `load_assignment` gets an empty one.
 *   4. A locality without `locality` gets `locality: {}`: proxyless gRPC rejects an assignment with
 *      an unset locality, so the compiler always sets it (envoy-json.ts, localityJson).
 *   5. The HTTP connection manager's network filter is named
 *      `envoy.filters.network.http_connection_manager` (Envoy picks the factory by "@type").
 *   6. HTTP filters without a router get `envoy.filters.http.router` appended (the compiler's rule).
 *   7. An inline `route_config` without a name is named `<listener>-routes` (`-<chain index>` when
 *      the listener has several); one whose name another route configuration with different
 *      content already uses is renamed the same way. Stored route configuration names are unique.
 *   8. An explicit `case_sensitive: true` in a route match is dropped: it is the default.
 * On export (envoy-export.ts): an EDS cluster with no endpoints and no assignment settings has no
 * ClusterLoadAssignment, and a route configuration used only inline is not listed on its own.
 */
import {
  type DescEnum,
  type DescField,
  type DescMessage,
  type DescOneof,
  equals,
  fromJson,
  type JsonValue as ProtoJson,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { registry } from "@switchyard/proto";
import {
  Bootstrap_StaticResourcesSchema,
  BootstrapSchema,
} from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { type Cluster, ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import {
  type ClusterLoadAssignment,
  ClusterLoadAssignmentSchema,
} from "@switchyard/proto/envoy/config/endpoint/v3/endpoint_pb";
import {
  type Listener,
  ListenerSchema,
} from "@switchyard/proto/envoy/config/listener/v3/listener_pb";
import {
  type RouteConfiguration,
  RouteConfigurationSchema,
} from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument, type YAMLError } from "yaml";
import {
  clusterJson,
  clusterLoadAssignmentJson,
  edsResourceName,
  HCM_FILTER_NAME,
  listenerJson,
  ROUTER_FILTER_NAME,
  routeConfigurationJson,
} from "./envoy-json.js";
import type {
  ClusterSpec,
  DiscoveryType,
  EndpointSpec,
  FilterChainSpec,
  HealthStatus,
  JsonObject,
  JsonValue,
  LbPolicy,
  ListenerSpec,
  LocalitySpec,
  RouteConfigurationSpec,
  RouteSpec,
  VirtualHostSpec,
  WeightedClusterSpec,
} from "./model.js";
import { TypeUrl } from "./resource-snapshot.js";

// ---------------------------------------------------------------------------------------------
// Public types

export type ImportSeverity = "error" | "warning" | "info";

/** A problem (or a note) about imported config, located in the user's own document. */
export interface ImportError {
  readonly severity: ImportSeverity;
  /**
   * JSON path into the user's document, in the key spelling the user used:
   * `resources[2].filter_chains[0].filters[0].typed_config.stat_prefx`. "" is the whole document.
   */
  readonly path: string;
  readonly message: string;
  /** Index (from 0) of the YAML document the path is in, when the file holds several. */
  readonly document?: number;
  /** Position (from 1) in the text, when known. */
  readonly line?: number;
  readonly column?: number;
}

/** One Envoy resource of a type Switchyard stores, decoded with the generated types. */
export type EnvoyResource =
  | { readonly typeUrl: typeof TypeUrl.Cluster; readonly message: Cluster }
  | {
      readonly typeUrl: typeof TypeUrl.ClusterLoadAssignment;
      readonly message: ClusterLoadAssignment;
    }
  | { readonly typeUrl: typeof TypeUrl.Listener; readonly message: Listener }
  | { readonly typeUrl: typeof TypeUrl.RouteConfiguration; readonly message: RouteConfiguration };

/** A resource as found in a user's document. */
export type DecodedResource = EnvoyResource & {
  /** Where the resource is in the document (see ImportError.path). */
  readonly path: string;
  readonly document?: number;
  /** The resource as the user wrote it: later issues are reported in the user's key spelling. */
  readonly source?: unknown;
};

/** Either every decoded resource (with notes that did not stop the import) or every error. */
export type ParseResult =
  | { readonly resources: readonly DecodedResource[]; readonly warnings: readonly ImportError[] }
  | { readonly errors: readonly ImportError[] };

/** The stored objects an import produces, each list sorted by name. */
export interface ConfigSpecFragment {
  readonly clusters: readonly ClusterSpec[];
  readonly listeners: readonly ListenerSpec[];
  readonly routeConfigurations: readonly RouteConfigurationSpec[];
}

export interface ImportResult {
  readonly spec: ConfigSpecFragment;
  /** Errors (the object named by the path is left out of `spec`), warnings and infos. */
  readonly issues: readonly ImportError[];
}

const RESOURCE_SCHEMAS: ReadonlyMap<string, DescMessage> = new Map<string, DescMessage>([
  [TypeUrl.Cluster, ClusterSchema],
  [TypeUrl.ClusterLoadAssignment, ClusterLoadAssignmentSchema],
  [TypeUrl.Listener, ListenerSchema],
  [TypeUrl.RouteConfiguration, RouteConfigurationSchema],
]);

/** The generated schema of a resource type Switchyard stores. */
export function resourceSchema(typeUrl: EnvoyResource["typeUrl"]): DescMessage {
  const schema = RESOURCE_SCHEMAS.get(typeUrl);
  if (!schema) throw new Error(`not a stored resource type: ${typeUrl}`);
  return schema;
}

/** The name a resource is served under. */
export function resourceName(resource: EnvoyResource): string {
  return resource.typeUrl === TypeUrl.ClusterLoadAssignment
    ? resource.message.clusterName
    : resource.message.name;
}

/** Canonical proto3 JSON of a resource (camelCase keys, defaults left out, Any with "@type"). */
export function resourceJson(resource: EnvoyResource): JsonObject {
  return toJson(resourceSchema(resource.typeUrl), resource.message, { registry }) as JsonObject;
}

// ---------------------------------------------------------------------------------------------
// Paths

type Segment = string | number;

/** A located problem before it becomes an ImportError. */
interface Problem {
  readonly at: readonly Segment[];
  readonly message: string;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `base` followed by `segments` as a JSON path: `a.b[0]["@type"]`. */
function formatPath(base: string, segments: readonly Segment[]): string {
  let out = base;
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * `segments` (canonical camelCase keys) respelled as the keys in `source`, where the user wrote
 * `filter_chains` rather than `filterChains`.
 */
function userSegments(source: unknown, segments: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  let node = source;
  for (const segment of segments) {
    if (typeof segment === "string" && isRecord(node) && !(segment in node)) {
      const snake = snakeCase(segment);
      const key = snake in node ? snake : segment;
      out.push(key);
      node = node[key];
      continue;
    }
    out.push(segment);
    node = isRecord(node)
      ? node[segment]
      : Array.isArray(node)
        ? node[segment as number]
        : undefined;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON helpers

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return isRecord(value);
}

function asObject(value: JsonValue | undefined): JsonObject {
  return isObject(value) ? value : {};
}

function asArray(value: JsonValue | undefined): readonly JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function asString(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : "";
}

function asNumber(value: JsonValue | undefined): number | null {
  return typeof value === "number" ? value : null;
}

function nonEmpty(value: JsonObject): boolean {
  return Object.keys(value).length > 0;
}

/** The entries whose value is defined. */
function compact(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Structural equality of JSON values; object key order does not matter. */
function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return firstDifference(a, b) === undefined;
}

/** The path of the first place where `a` and `b` differ, or undefined when they are equal. */
function firstDifference(
  a: JsonValue | undefined,
  b: JsonValue | undefined,
  at: readonly Segment[] = [],
): Segment[] | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const difference = firstDifference(a[i], b[i], [...at, i]);
      if (difference) return difference;
    }
    return undefined;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const difference = firstDifference(a[key], b[key], [...at, key]);
      if (difference) return difference;
    }
    return undefined;
  }
  return a === b ? undefined : [...at];
}

function valueAt(json: JsonValue | undefined, at: readonly Segment[]): JsonValue | undefined {
  let node = json;
  for (const segment of at) {
    if (Array.isArray(node) && typeof segment === "number") node = node[segment];
    else if (isObject(node) && typeof segment === "string") node = node[segment];
    else return undefined;
  }
  return node;
}

/** How a value reads in a message: `string "abc"`, `number 5`, `a list`. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case "number":
    case "boolean":
      return `${typeof value} ${String(value)}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

// ---------------------------------------------------------------------------------------------
// Checking JSON against the generated descriptors, with paths

const fieldsByKey = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>();

/** The field a JSON key names: its proto name (`stat_prefix`) or JSON name (`statPrefix`). */
function fieldByKey(desc: DescMessage, key: string): DescField | undefined {
  let fields = fieldsByKey.get(desc);
  if (!fields) {
    fields = new Map(
      desc.fields.flatMap((field) => [
        [field.name, field] as const,
        [field.jsonName, field] as const,
      ]),
    );
    fieldsByKey.set(desc, fields);
  }
  return fields.get(key);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function unknownField(desc: DescMessage, key: string): string {
  const camel = /[A-Z]/.test(key);
  const names = desc.fields.map((field) => (camel ? field.jsonName : field.name));
  const nearest = names
    .map((name) => ({ name, distance: editDistance(key.toLowerCase(), name.toLowerCase()) }))
    .filter(({ distance }) => distance <= Math.max(2, Math.floor(key.length / 4)))
    .sort((a, b) => a.distance - b.distance)[0];
  const hint = nearest ? ` (did you mean "${nearest.name}"?)` : "";
  return `unknown field "${key}" in ${desc.typeName}${hint}`;
}

const INT32_RANGE = [-2147483648, 2147483647] as const;
const UINT32_RANGE = [0, 4294967295] as const;
const INT64_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64_RANGE = [0n, 2n ** 64n - 1n] as const;
const FLOAT_MAX = 3.4028234663852886e38;

/** A 32-bit integer given as a number or a decimal string (proto3 JSON accepts both). */
function checkInt32(value: unknown, [min, max]: readonly [number, number]): string | undefined {
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() === value && value !== ""
        ? Number(value)
        : Number.NaN;
  if (typeof value !== "number" && typeof value !== "string") {
    return `expected a number, got ${describe(value)}`;
  }
  if (Number.isNaN(number)) return `expected a number, got ${describe(value)}`;
  if (!Number.isInteger(number)) return `expected an integer, got ${describe(value)}`;
  if (number < min || number > max) {
    return `expected an integer from ${min} to ${max}, got ${describe(value)}`;
  }
  return undefined;
}

function checkInt64(value: unknown, [min, max]: readonly [bigint, bigint]): string | undefined {
  let big: bigint | undefined;
  if (typeof value === "number" && Number.isInteger(value)) big = BigInt(value);
  if (typeof value === "string" && /^-?\d+$/.test(value)) big = BigInt(value);
  if (big === undefined) {
    return typeof value === "number"
      ? `expected an integer, got ${describe(value)}`
      : `expected a number, got ${describe(value)}`;
  }
  return big < min || big > max
    ? `expected an integer from ${min} to ${max}, got ${describe(value)}`
    : undefined;
}

function checkFloat(value: unknown, max: number): string | undefined {
  if (value === "NaN" || value === "Infinity" || value === "-Infinity") return undefined;
  const number =
    typeof value === "number"
      ? value
      : typeof value === "string" && value.trim() === value && value !== ""
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(number)) return `expected a number, got ${describe(value)}`;
  return Math.abs(number) > max ? `${number} is out of range` : undefined;
}

function checkScalar(scalar: ScalarType, value: unknown): string | undefined {
  switch (scalar) {
    case ScalarType.STRING:
      return typeof value === "string" ? undefined : `expected a string, got ${describe(value)}`;
    case ScalarType.BOOL:
      return typeof value === "boolean"
        ? undefined
        : `expected true or false, got ${describe(value)}`;
    case ScalarType.BYTES:
      return typeof value === "string" && /^[A-Za-z0-9+/\-_]*={0,2}$/.test(value)
        ? undefined
        : `expected base64 bytes, got ${describe(value)}`;
    case ScalarType.DOUBLE:
      return checkFloat(value, Number.MAX_VALUE);
    case ScalarType.FLOAT:
      return checkFloat(value, FLOAT_MAX);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return checkInt32(value, INT32_RANGE);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return checkInt32(value, UINT32_RANGE);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return checkInt64(value, INT64_RANGE);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return checkInt64(value, UINT64_RANGE);
  }
}

function enumNames(desc: DescEnum): string {
  return desc.values
    .filter((value) => !value.deprecated && !value.name.includes("DEPRECATED"))
    .map((value) => value.name)
    .join(", ");
}

function checkEnum(desc: DescEnum, value: unknown): string | undefined {
  if (typeof value === "string") {
    return desc.values.some((v) => v.name === value)
      ? undefined
      : `unknown enum value ${JSON.stringify(value)} for ${desc.typeName} (expected one of ${enumNames(desc)})`;
  }
  if (typeof value === "number") return checkInt32(value, INT32_RANGE);
  return `expected one of ${enumNames(desc)}, got ${describe(value)}`;
}

const DURATION = /^-?\d+(\.\d{1,9})?s$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Type names resolve through the registry: "type.googleapis.com/envoy.config.cluster.v3.Cluster". */
function messageForTypeUrl(typeUrl: string): DescMessage | undefined {
  return registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
}

function checkAny(json: unknown, at: readonly Segment[], out: Problem[]): void {
  if (!isRecord(json)) {
    out.push({ at, message: `expected an object with "@type", got ${describe(json)}` });
    return;
  }
  if (Object.keys(json).length === 0) return;
  const typeUrl = json["@type"];
  if (typeof typeUrl !== "string" || typeUrl === "") {
    out.push({
      at,
      message: `missing "@type": a typed config names its type, e.g. "${TypeUrl.Cluster}"`,
    });
    return;
  }
  const desc = messageForTypeUrl(typeUrl);
  if (!desc) {
    out.push({
      at: [...at, "@type"],
      message: `unknown @type ${JSON.stringify(typeUrl)}: not one of the Envoy types Switchyard knows`,
    });
    return;
  }
  if (hasCustomJsonRepresentation(desc) && "value" in json) {
    checkMessage(desc, json.value, [...at, "value"], out);
    return;
  }
  const { "@type": _, ...fields } = json;
  checkMessage(desc, fields, at, out);
}

/** Well-known types with a JSON form of their own; false for the others. */
function checkWellKnown(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
  out: Problem[],
): boolean {
  const expect = (ok: boolean, what: string) => {
    if (!ok) out.push({ at, message: `expected ${what}, got ${describe(json)}` });
  };
  switch (desc.typeName) {
    case "google.protobuf.Any":
      checkAny(json, at, out);
      return true;
    case "google.protobuf.Duration":
      expect(
        typeof json === "string" &&
          DURATION.test(json) &&
          Math.abs(Number.parseFloat(json)) <= 315576000000,
        'a duration such as "1.5s"',
      );
      return true;
    case "google.protobuf.Timestamp":
      expect(
        typeof json === "string" && TIMESTAMP.test(json),
        'an RFC 3339 time such as "2024-01-02T03:04:05Z"',
      );
      return true;
    case "google.protobuf.FieldMask":
      expect(typeof json === "string", "a comma-separated field mask");
      return true;
    case "google.protobuf.Struct":
      expect(isRecord(json), "an object");
      return true;
    case "google.protobuf.ListValue":
      expect(Array.isArray(json), "a list");
      return true;
    case "google.protobuf.Value":
      return true;
  }
  if (isWrapperDesc(desc)) {
    const [valueField] = desc.fields;
    const problem =
      valueField?.scalar === undefined ? undefined : checkScalar(valueField.scalar, json);
    if (problem) out.push({ at, message: problem });
    return true;
  }
  return false;
}

/** A list item or map value: never null, except for google.protobuf.Value and NullValue. */
function checkItem(field: DescField, json: unknown, at: readonly Segment[], out: Problem[]): void {
  if (json === null) {
    if (field.message?.typeName === "google.protobuf.Value") return;
    if (field.enum?.typeName === "google.protobuf.NullValue") return;
    out.push({
      at,
      message: `a ${field.fieldKind === "map" ? "map value" : "list item"} must not be null`,
    });
    return;
  }
  if (field.message) checkMessage(field.message, json, at, out);
  else if (field.enum) pushProblem(out, at, checkEnum(field.enum, json));
  else if (field.scalar !== undefined) pushProblem(out, at, checkScalar(field.scalar, json));
}

function pushProblem(out: Problem[], at: readonly Segment[], message: string | undefined): void {
  if (message !== undefined) out.push({ at, message });
}

function checkMapKey(field: DescField, key: string): string | undefined {
  if (field.fieldKind !== "map") return undefined;
  switch (field.mapKey) {
    case ScalarType.BOOL:
      return key === "true" || key === "false"
        ? undefined
        : `map key ${JSON.stringify(key)} is not true or false`;
    case ScalarType.STRING:
      return undefined;
    default: {
      const problem = checkScalar(field.mapKey, key);
      return problem && `map key ${JSON.stringify(key)}: ${problem}`;
    }
  }
}

function checkField(field: DescField, json: unknown, at: readonly Segment[], out: Problem[]): void {
  switch (field.fieldKind) {
    case "scalar":
      pushProblem(out, at, checkScalar(field.scalar, json));
      return;
    case "enum":
      pushProblem(out, at, checkEnum(field.enum, json));
      return;
    case "message":
      checkMessage(field.message, json, at, out);
      return;
    case "list":
      if (!Array.isArray(json)) {
        out.push({ at, message: `expected a list, got ${describe(json)}` });
        return;
      }
      for (const [i, item] of json.entries()) checkItem(field, item, [...at, i], out);
      return;
    case "map":
      if (!isRecord(json)) {
        out.push({ at, message: `expected an object, got ${describe(json)}` });
        return;
      }
      for (const [key, value] of Object.entries(json)) {
        pushProblem(out, [...at, key], checkMapKey(field, key));
        checkItem(field, value, [...at, key], out);
      }
      return;
  }
}

/**
 * Checks `json` against message `desc` the way protobuf-es `fromJson` reads it (proto and JSON
 * field names, null as "unset", one member per oneof, well-known types' own JSON, Any resolved
 * through the registry), collecting every problem with its path instead of stopping at the first.
 */
function checkMessage(
  desc: DescMessage,
  json: unknown,
  at: readonly Segment[],
  out: Problem[],
): void {
  if (desc.typeName.startsWith("google.protobuf.") && checkWellKnown(desc, json, at, out)) return;
  if (!isRecord(json)) {
    out.push({ at, message: `expected an object (${desc.typeName}), got ${describe(json)}` });
    return;
  }
  const seen = new Map<DescField, string>();
  const oneofs = new Map<DescOneof, string>();
  for (const [key, value] of Object.entries(json)) {
    const here = [...at, key];
    const field = fieldByKey(desc, key);
    if (!field) {
      out.push({ at: here, message: unknownField(desc, key) });
      continue;
    }
    const twice = seen.get(field);
    if (twice !== undefined) {
      out.push({ at: here, message: `"${key}" and "${twice}" both set ${field.name}: keep one` });
      continue;
    }
    seen.set(field, key);
    if (value === null && (field.fieldKind === "scalar" || !field.oneof)) continue;
    if (field.oneof) {
      const other = oneofs.get(field.oneof);
      if (other !== undefined) {
        out.push({
          at: here,
          message: `"${key}" and "${other}" are alternatives (oneof ${field.oneof.name} of ${desc.typeName}): set only one`,
        });
        continue;
      }
      oneofs.set(field.oneof, key);
      if (value === null) continue;
    }
    checkField(field, value, here, out);
  }
}

// ---------------------------------------------------------------------------------------------
// Document shapes → decoded resources

interface FoundResource {
  readonly resource: EnvoyResource;
  readonly at: readonly Segment[];
  readonly source: unknown;
}

/** What decoding one document found. Local to one parse. */
interface Findings {
  readonly errors: Problem[];
  readonly warnings: Problem[];
  readonly resources: FoundResource[];
}

const SHAPES =
  'a list of resources with "@type", a DiscoveryResponse, a bootstrap or its static_resources';
const RESOURCE_TYPES = [...RESOURCE_SCHEMAS.keys()].map((url) => url.slice(url.indexOf("/") + 1));

function toResource(typeUrl: string, message: unknown): EnvoyResource {
  return { typeUrl, message } as EnvoyResource;
}

/** Checks then decodes one resource of a known type. */
function decodeResource(
  typeUrl: string,
  json: unknown,
  at: readonly Segment[],
  source: unknown,
  findings: Findings,
): void {
  const schema = RESOURCE_SCHEMAS.get(typeUrl);
  if (!schema) return;
  const problems: Problem[] = [];
  checkMessage(schema, json, at, problems);
  if (problems.length > 0) {
    findings.errors.push(...problems);
    return;
  }
  try {
    const message = fromJson(schema, json as ProtoJson, { registry });
    findings.resources.push({ resource: toResource(typeUrl, message), at, source });
  } catch (error) {
    // The check above mirrors fromJson; this only catches a case it does not know yet.
    findings.errors.push({ at, message: error instanceof Error ? error.message : String(error) });
  }
}

/** A resource carrying its type: `{ "@type": "type.googleapis.com/...Cluster", ... }`. */
function decodeTypedResource(json: unknown, at: readonly Segment[], findings: Findings): void {
  if (!isRecord(json)) {
    findings.errors.push({
      at,
      message: `expected a resource with "@type", got ${describe(json)}`,
    });
    return;
  }
  const typeUrl = json["@type"];
  if (typeof typeUrl !== "string" || typeUrl === "") {
    findings.errors.push({
      at,
      message: `missing "@type": each resource names its type, e.g. "${TypeUrl.Cluster}"`,
    });
    return;
  }
  const typeName = typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
  const canonical = `type.googleapis.com/${typeName}`;
  if (!RESOURCE_SCHEMAS.has(canonical)) {
    findings.errors.push({
      at: [...at, "@type"],
      message: messageForTypeUrl(typeUrl)
        ? `unsupported resource @type ${JSON.stringify(typeUrl)}: expected one of ${RESOURCE_TYPES.join(", ")}`
        : `unknown @type ${JSON.stringify(typeUrl)}: not one of the Envoy types Switchyard knows`,
    });
    return;
  }
  const { "@type": _, ...fields } = json;
  decodeResource(canonical, fields, at, json, findings);
}

function keyFor(
  json: Record<string, unknown>,
  desc: DescMessage,
  fieldName: string,
): string | undefined {
  return Object.keys(json).find((key) => fieldByKey(desc, key)?.name === fieldName);
}

/** `{ version_info, resources: [Any...], type_url }`, or just `{ resources: [...] }`. */
function decodeDiscoveryResponse(json: Record<string, unknown>, findings: Findings): void {
  const resourcesKey = keyFor(json, DiscoveryResponseSchema, "resources") ?? "resources";
  const { [resourcesKey]: resources, ...rest } = json;
  checkMessage(DiscoveryResponseSchema, rest, [], findings.errors);
  const typeUrlKey = keyFor(json, DiscoveryResponseSchema, "type_url");
  const typeUrl = typeUrlKey === undefined ? undefined : json[typeUrlKey];
  if (!Array.isArray(resources)) {
    findings.errors.push({
      at: [resourcesKey],
      message: `expected a list, got ${describe(resources)}`,
    });
    return;
  }
  resources.forEach((item, i) => {
    const type = isRecord(item) ? item["@type"] : undefined;
    if (
      typeof typeUrl === "string" &&
      typeUrl !== "" &&
      typeof type === "string" &&
      type !== typeUrl
    ) {
      findings.errors.push({
        at: [resourcesKey, i, "@type"],
        message: `"@type" ${JSON.stringify(type)} differs from the response's type_url ${JSON.stringify(typeUrl)}`,
      });
      return;
    }
    decodeTypedResource(item, [resourcesKey, i], findings);
  });
}

/** Bootstrap.StaticResources: `{ clusters: [...], listeners: [...], secrets: [...] }`. */
function decodeStaticResources(json: unknown, at: readonly Segment[], findings: Findings): void {
  if (!isRecord(json)) {
    findings.errors.push({ at, message: `expected an object, got ${describe(json)}` });
    return;
  }
  for (const [key, list] of Object.entries(json)) {
    const field = fieldByKey(Bootstrap_StaticResourcesSchema, key);
    if (!field) {
      findings.errors.push({
        at: [...at, key],
        message: unknownField(Bootstrap_StaticResourcesSchema, key),
      });
      continue;
    }
    if (list === null) continue;
    if (!Array.isArray(list)) {
      findings.errors.push({ at: [...at, key], message: `expected a list, got ${describe(list)}` });
      continue;
    }
    const typeUrl =
      field.name === "clusters"
        ? TypeUrl.Cluster
        : field.name === "listeners"
          ? TypeUrl.Listener
          : undefined;
    if (typeUrl === undefined) {
      checkField(field, list, [...at, key], findings.errors);
      findings.warnings.push({
        at: [...at, key],
        message: `not imported: Switchyard does not store ${field.name}`,
      });
      continue;
    }
    for (const [i, item] of list.entries())
      decodeResource(typeUrl, item, [...at, key, i], item, findings);
  }
}

/** A bootstrap: its static_resources are imported, its other parts are named in warnings. */
function decodeBootstrap(json: Record<string, unknown>, findings: Findings): void {
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByKey(BootstrapSchema, key);
    if (!field) {
      findings.errors.push({ at: [key], message: unknownField(BootstrapSchema, key) });
    } else if (field.name === "static_resources") {
      decodeStaticResources(value, [key], findings);
    } else {
      findings.warnings.push({
        at: [key],
        message:
          "not imported: Switchyard takes only static_resources (clusters and listeners) from a bootstrap",
      });
    }
  }
}

function decodeDocument(value: unknown, findings: Findings): void {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) decodeTypedResource(item, [i], findings);
    return;
  }
  if (!isRecord(value)) {
    findings.errors.push({ at: [], message: `expected ${SHAPES}, got ${describe(value)}` });
    return;
  }
  const keys = Object.keys(value);
  if ("@type" in value) decodeTypedResource(value, [], findings);
  else if (keyFor(value, DiscoveryResponseSchema, "resources") !== undefined) {
    decodeDiscoveryResponse(value, findings);
  } else if (keys.some((key) => fieldByKey(BootstrapSchema, key))) decodeBootstrap(value, findings);
  else if (keys.some((key) => fieldByKey(Bootstrap_StaticResourcesSchema, key))) {
    decodeStaticResources(value, [], findings);
  } else {
    findings.errors.push({ at: [], message: `unrecognized document: expected ${SHAPES}` });
  }
}

// ---------------------------------------------------------------------------------------------
// Text → documents

interface Position {
  readonly line: number;
  readonly column: number;
}

interface ParsedDocument {
  readonly value: unknown;
  readonly index: number | undefined;
  /** Where a path is in the text, as far as it can be followed. */
  readonly locate: (segments: readonly Segment[]) => Position | undefined;
}

type TextResult =
  | { readonly documents: readonly ParsedDocument[] }
  | { readonly errors: ImportError[] };

function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/** Follows `segments` through the YAML node tree; a map entry is located at its key. */
function locateNode(
  root: unknown,
  segments: readonly Segment[],
  text: string,
): Position | undefined {
  let node = root;
  let offset: number | undefined;
  const start = (n: unknown) =>
    isRecord(n) && Array.isArray(n.range) && typeof n.range[0] === "number"
      ? n.range[0]
      : undefined;
  offset = start(node);
  for (const segment of segments) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      offset = start(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
      node = node.items[segment];
      offset = start(node) ?? offset;
    } else break;
  }
  return offset === undefined ? undefined : positionAt(text, offset);
}

function syntaxError(
  kind: string,
  message: string,
  at: Position | undefined,
  document?: number,
): ImportError {
  return {
    severity: "error",
    path: "",
    message: `${kind} syntax error${at ? ` at line ${at.line}, column ${at.column}` : ""}: ${message}`,
    ...(document === undefined ? {} : { document }),
    ...(at ? { line: at.line, column: at.column } : {}),
  };
}

function yamlError(text: string, error: YAMLError, document: number | undefined): ImportError {
  return syntaxError("YAML", error.message, positionAt(text, error.pos[0]), document);
}

function parseYamlText(text: string): TextResult {
  const documents = parseAllDocuments(text, { prettyErrors: false, merge: true });
  const several = documents.length > 1;
  const errors = documents.flatMap((doc, i) =>
    doc.errors.map((error) => yamlError(text, error, several ? i : undefined)),
  );
  if (errors.length > 0) return { errors };
  const parsed: ParsedDocument[] = [];
  for (const [i, doc] of documents.entries()) {
    try {
      const value: unknown = doc.toJS({ maxAliasCount: 1000 });
      if (value === null || value === undefined) continue;
      parsed.push({
        value,
        index: several ? i : undefined,
        locate: (segments) => locateNode(doc.contents, segments, text),
      });
    } catch (error) {
      errors.push(
        syntaxError("YAML", error instanceof Error ? error.message : String(error), undefined),
      );
    }
  }
  return errors.length > 0 ? { errors } : { documents: parsed };
}

/** Strict JSON (JSON.parse), located through a YAML parse of the same text (JSON is YAML 1.2). */
function parseJsonText(text: string): TextResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = /at position (\d+)/.exec(message)?.[1];
    return {
      errors: [
        syntaxError(
          "JSON",
          message,
          offset === undefined ? undefined : positionAt(text, Number(offset)),
        ),
      ],
    };
  }
  const doc = parseDocument(text, { prettyErrors: false });
  // JSON.parse keeps the last of duplicate keys without a word; Envoy and protobuf reject them.
  const duplicates = doc.errors.filter((error) => error.code === "DUPLICATE_KEY");
  if (duplicates.length > 0) {
    return {
      errors: duplicates.map((error) =>
        syntaxError("JSON", "duplicate key", positionAt(text, error.pos[0])),
      ),
    };
  }
  return {
    documents: [
      { value, index: undefined, locate: (segments) => locateNode(doc.contents, segments, text) },
    ],
  };
}

function isJson(text: string, filename: string | undefined): boolean {
  if (filename !== undefined && /\.json$/i.test(filename)) return true;
  if (filename !== undefined && /\.ya?ml$/i.test(filename)) return false;
  return /^\s*[[{]/.test(text);
}

function located(
  severity: ImportSeverity,
  problem: Problem,
  document: ParsedDocument,
): ImportError {
  const position = document.locate(problem.at);
  return {
    severity,
    path: formatPath("", problem.at),
    message: problem.message,
    ...(document.index === undefined ? {} : { document: document.index }),
    ...(position ? { line: position.line, column: position.column } : {}),
  };
}

/**
 * Parses Envoy v3 config (JSON or YAML, detected from `filename` or the text) and decodes every
 * Cluster, ClusterLoadAssignment, Listener and RouteConfiguration in it with the generated types.
 * Returns every error in the document, or the resources in document order.
 */
export function parseEnvoyConfig(text: string, options: { filename?: string } = {}): ParseResult {
  const parsed = isJson(text, options.filename) ? parseJsonText(text) : parseYamlText(text);
  if ("errors" in parsed) return { errors: parsed.errors };
  if (parsed.documents.length === 0) {
    return {
      errors: [
        {
          severity: "error",
          path: "",
          message: `the text holds no Envoy config: expected ${SHAPES}`,
        },
      ],
    };
  }
  const errors: ImportError[] = [];
  const warnings: ImportError[] = [];
  const resources: DecodedResource[] = [];
  for (const document of parsed.documents) {
    const findings: Findings = { errors: [], warnings: [], resources: [] };
    decodeDocument(document.value, findings);
    errors.push(...findings.errors.map((problem) => located("error", problem, document)));
    warnings.push(...findings.warnings.map((problem) => located("warning", problem, document)));
    for (const { resource, at, source } of findings.resources) {
      resources.push({
        ...resource,
        path: formatPath("", at),
        source,
        ...(document.index === undefined ? {} : { document: document.index }),
      });
    }
  }
  return errors.length > 0 ? { errors } : { resources, warnings };
}

// ---------------------------------------------------------------------------------------------
// Normalization (the list at the top of this file)

const TYPE_PREFIX = "type.googleapis.com/";
const HCM_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager`;
const ROUTER_TYPE = `${TYPE_PREFIX}envoy.extensions.filters.http.router.v3.Router`;
const DEFAULT_ROUTER: JsonObject = {
  name: ROUTER_FILTER_NAME,
  typedConfig: { "@type": ROUTER_TYPE },
};
const ADS: JsonObject = { ads: {}, resourceApiVersion: "V3" };
const ENVOY_DEFAULT_CONNECT_TIMEOUT = "5s";

interface Note {
  readonly at: readonly Segment[];
  readonly severity: ImportSeverity;
  readonly message: string;
}

/** A resource with its canonical JSON after normalization. */
interface Normalized {
  readonly resource: DecodedResource;
  readonly json: JsonObject;
  readonly notes: readonly Note[];
}

function withLocalities(assignment: JsonObject, at: readonly Segment[], notes: Note[]): JsonObject {
  const endpoints = asArray(assignment.endpoints);
  if (!endpoints.some((locality) => asObject(locality).locality === undefined)) return assignment;
  notes.push({
    at: [...at, "endpoints"],
    severity: "info",
    message:
      "a locality without `locality` gets `locality: {}` (proxyless gRPC rejects an unset locality)",
  });
  return {
    ...assignment,
    endpoints: endpoints.map((locality) => ({ locality: {}, ...asObject(locality) })),
  };
}

function normalizeCluster(json: JsonObject, notes: Note[]): JsonObject {
  let out = json;
  if (out.connectTimeout === undefined) {
    out = { ...out, connectTimeout: ENVOY_DEFAULT_CONNECT_TIMEOUT };
    notes.push({
      at: ["connectTimeout"],
      severity: "info",
      message: "connect_timeout is not set: stored as Envoy's default, 5s",
    });
  }
  if (out.type === undefined && out.clusterType === undefined) {
    out = { ...out, type: "STATIC" };
    notes.push({
      at: ["type"],
      severity: "info",
      message: "type is not set: stored as Envoy's default, STATIC",
    });
  }
  const type = out.type;
  if (type === "EDS") {
    const eds = asObject(out.edsClusterConfig);
    if (!jsonEqual(eds.edsConfig, ADS)) {
      out = { ...out, edsClusterConfig: { ...eds, edsConfig: ADS } };
      notes.push({
        at: ["edsClusterConfig", "edsConfig"],
        severity: "info",
        message:
          "Switchyard serves this cluster's endpoints: eds_config becomes { ads: {}, resource_api_version: V3 }",
      });
    }
  } else if (type === "STATIC" || type === "STRICT_DNS" || type === "LOGICAL_DNS") {
    if (out.loadAssignment === undefined) {
      out = { ...out, loadAssignment: compact({ clusterName: out.name }) };
      notes.push({
        at: ["loadAssignment"],
        severity: "info",
        message: "no load_assignment: stored with no endpoints",
      });
    }
    out = {
      ...out,
      loadAssignment: withLocalities(asObject(out.loadAssignment), ["loadAssignment"], notes),
    };
  }
  return out;
}

function normalizeRouteConfiguration(json: JsonObject): JsonObject {
  if (!Array.isArray(json.virtualHosts)) return json;
  return {
    ...json,
    virtualHosts: json.virtualHosts.map((virtualHost) => {
      const host = asObject(virtualHost);
      if (!Array.isArray(host.routes)) return host;
      return {
        ...host,
        routes: host.routes.map((route) => {
          const { match } = asObject(route);
          if (!isObject(match) || match.caseSensitive !== true) return route;
          const { caseSensitive: _, ...rest } = match;
          return { ...asObject(route), match: rest };
        }),
      };
    }),
  };
}

function isRouter(filter: JsonValue): boolean {
  const object = asObject(filter);
  return (
    object.name === ROUTER_FILTER_NAME || asObject(object.typedConfig)["@type"] === ROUTER_TYPE
  );
}

function normalizeHcm(hcm: JsonObject, at: readonly Segment[], notes: Note[]): JsonObject {
  let out = hcm;
  if (isObject(out.rds) && !jsonEqual(out.rds.configSource, ADS)) {
    out = { ...out, rds: { ...out.rds, configSource: ADS } };
    notes.push({
      at: [...at, "rds", "configSource"],
      severity: "info",
      message:
        "Switchyard serves this route configuration: config_source becomes { ads: {}, resource_api_version: V3 }",
    });
  }
  const filters = asArray(out.httpFilters);
  if (!filters.some(isRouter)) {
    out = { ...out, httpFilters: [...filters, DEFAULT_ROUTER] };
    notes.push({
      at: [...at, "httpFilters"],
      severity: "info",
      message: `no router filter: ${ROUTER_FILTER_NAME} is appended`,
    });
  }
  if (isObject(out.routeConfig))
    out = { ...out, routeConfig: normalizeRouteConfiguration(out.routeConfig) };
  return out;
}

/** Where a listener holds HTTP connection managers: each filter chain's filters, the api_listener. */
function mapHcms(
  listener: JsonObject,
  map: (hcm: JsonObject, at: readonly Segment[], index: number) => JsonObject,
): JsonObject {
  let index = 0;
  const apiListener = asObject(listener.apiListener);
  if (isObject(apiListener.apiListener) && apiListener.apiListener["@type"] === HCM_TYPE) {
    return {
      ...listener,
      apiListener: {
        ...apiListener,
        apiListener: map(apiListener.apiListener, ["apiListener", "apiListener"], 0),
      },
    };
  }
  if (!Array.isArray(listener.filterChains)) return listener;
  return {
    ...listener,
    filterChains: listener.filterChains.map((chain, c) => {
      const filters = asObject(chain).filters;
      if (!Array.isArray(filters)) return chain;
      return {
        ...asObject(chain),
        filters: filters.map((filter, f) => {
          const typedConfig = asObject(filter).typedConfig;
          if (!isObject(typedConfig) || typedConfig["@type"] !== HCM_TYPE) return filter;
          const at = ["filterChains", c, "filters", f, "typedConfig"];
          return { ...asObject(filter), typedConfig: map(typedConfig, at, index++) };
        }),
      };
    }),
  };
}

function normalizeListener(json: JsonObject, notes: Note[]): JsonObject {
  const named = Array.isArray(json.filterChains)
    ? {
        ...json,
        filterChains: json.filterChains.map((chain, c) => {
          const filters = asObject(chain).filters;
          if (!Array.isArray(filters)) return chain;
          return {
            ...asObject(chain),
            filters: filters.map((filter, f) => {
              const object = asObject(filter);
              if (
                asObject(object.typedConfig)["@type"] !== HCM_TYPE ||
                object.name === HCM_FILTER_NAME
              )
                return filter;
              notes.push({
                at: ["filterChains", c, "filters", f, "name"],
                severity: "info",
                message: `the HTTP connection manager filter is named ${HCM_FILTER_NAME}`,
              });
              return { ...object, name: HCM_FILTER_NAME };
            }),
          };
        }),
      }
    : json;
  return mapHcms(named, (hcm, at) => normalizeHcm(hcm, at, notes));
}

function inlineCount(listener: JsonObject): number {
  let count = 0;
  mapHcms(listener, (hcm) => {
    if (isObject(hcm.routeConfig)) count++;
    return hcm;
  });
  return count;
}

function uniqueName(base: string, taken: ReadonlyMap<string, JsonObject>): string {
  if (!taken.has(base)) return base;
  let i = 2;
  while (taken.has(`${base}-${i}`)) i++;
  return `${base}-${i}`;
}

/**
 * Normalization 7: every inline route configuration gets a name no route configuration with other
 * content uses. Standalone route configurations keep theirs.
 */
function nameInlineRoutes(items: readonly Normalized[]): Normalized[] {
  const taken = new Map<string, JsonObject>();
  for (const item of items) {
    if (
      item.resource.typeUrl === TypeUrl.RouteConfiguration &&
      typeof item.json.name === "string"
    ) {
      if (!taken.has(item.json.name)) taken.set(item.json.name, item.json);
    }
  }
  return items.map((item) => {
    if (item.resource.typeUrl !== TypeUrl.Listener) return item;
    const notes = [...item.notes];
    const several = inlineCount(item.json) > 1;
    const listenerName = asString(item.json.name);
    const json = mapHcms(item.json, (hcm, at, index) => {
      if (!isObject(hcm.routeConfig)) return hcm;
      const routes = hcm.routeConfig;
      const name = asString(routes.name);
      const holder = taken.get(name);
      if (name !== "" && (holder === undefined || jsonEqual(holder, routes))) {
        taken.set(name, routes);
        return hcm;
      }
      const derived = uniqueName(`${listenerName}-routes${several ? `-${index}` : ""}`, taken);
      const renamed = { ...routes, name: derived };
      taken.set(derived, renamed);
      notes.push({
        at: [...at, "routeConfig", "name"],
        severity: name === "" ? "info" : "warning",
        message:
          name === ""
            ? `the inline route_config has no name: stored as route configuration "${derived}"`
            : `another route configuration named "${name}" has different content: this inline one is stored as "${derived}"`,
      });
      return { ...hcm, routeConfig: renamed };
    });
    return { ...item, json, notes };
  });
}

function normalizeOne(resource: DecodedResource): Normalized {
  const notes: Note[] = [];
  const json = resourceJson(resource);
  switch (resource.typeUrl) {
    case TypeUrl.Cluster:
      return { resource, json: normalizeCluster(json, notes), notes };
    case TypeUrl.ClusterLoadAssignment:
      return { resource, json: withLocalities(json, [], notes), notes };
    case TypeUrl.Listener:
      return { resource, json: normalizeListener(json, notes), notes };
    case TypeUrl.RouteConfiguration:
      return { resource, json: normalizeRouteConfiguration(json), notes };
  }
}

function normalizeAll(resources: readonly DecodedResource[]): Normalized[] {
  return nameInlineRoutes(resources.map(normalizeOne));
}

/** An issue about `resource`, with `at` (canonical keys) respelled as the user wrote them. */
function issueAt(
  resource: DecodedResource,
  at: readonly Segment[],
  severity: ImportSeverity,
  message: string,
): ImportError {
  return {
    severity,
    path: formatPath(resource.path, userSegments(resource.source, at)),
    message,
    ...(resource.document === undefined ? {} : { document: resource.document }),
  };
}

function decodeNormalized(item: Normalized): DecodedResource {
  const message = fromJson(resourceSchema(item.resource.typeUrl), item.json as ProtoJson, {
    registry,
  });
  return { ...item.resource, ...toResource(item.resource.typeUrl, message) };
}

/**
 * The resources after the documented normalizations (the list at the top of this file), with a
 * note for each one applied: what importing and then exporting them gives back exactly.
 */
export function normalizeEnvoyResources(resources: readonly DecodedResource[]): {
  readonly resources: readonly DecodedResource[];
  readonly notes: readonly ImportError[];
} {
  const items = normalizeAll(resources);
  return {
    resources: items.map(decodeNormalized),
    notes: items.flatMap((item) =>
      item.notes.map((n) => issueAt(item.resource, n.at, n.severity, n.message)),
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Mapping normalized JSON onto the stored model

/** Thrown inside one resource's mapping: the resource cannot be stored as it is. */
class Unrepresentable extends Error {
  constructor(
    readonly at: readonly Segment[],
    message: string,
  ) {
    super(message);
  }
}

function reject(at: readonly Segment[], message: string): never {
  throw new Unrepresentable(at, message);
}

const DISCOVERY_TYPES: readonly DiscoveryType[] = ["EDS", "STATIC", "STRICT_DNS", "LOGICAL_DNS"];
const LB_POLICIES: readonly LbPolicy[] = [
  "ROUND_ROBIN",
  "LEAST_REQUEST",
  "RING_HASH",
  "RANDOM",
  "MAGLEV",
  "CLUSTER_PROVIDED",
];
const HEALTH_STATUSES: readonly HealthStatus[] = [
  "UNKNOWN",
  "HEALTHY",
  "UNHEALTHY",
  "DRAINING",
  "TIMEOUT",
  "DEGRADED",
];
const TLS_SOCKET_NAME = "envoy.transport_sockets.tls";
const TLS_CONTEXT_PREFIX = `${TYPE_PREFIX}envoy.extensions.transport_sockets.tls.v3.`;
const HTTP_PROTOCOL_OPTIONS = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions";
const MAX_MILLISECONDS = 2147483647;

function oneOf<T extends string>(
  value: JsonValue | undefined,
  allowed: readonly T[],
  fallback: T,
  at: readonly Segment[],
  what: string,
): T {
  const given = value ?? fallback;
  if (typeof given === "string" && (allowed as readonly string[]).includes(given))
    return given as T;
  return reject(
    at,
    `${what} ${JSON.stringify(given)} cannot be stored: Switchyard models ${allowed.join(", ")}`,
  );
}

/** A canonical Duration ("0.250s") in whole milliseconds, as the model stores it. */
function milliseconds(value: JsonValue | undefined, at: readonly Segment[]): number {
  const match = typeof value === "string" ? /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(value) : null;
  if (!match) return reject(at, `expected a duration, got ${describe(value)}`);
  const nanos = Number((match[3] ?? "").padEnd(9, "0"));
  if (nanos % 1_000_000 !== 0) {
    return reject(
      at,
      `${String(value)} cannot be stored: Switchyard keeps durations in whole milliseconds`,
    );
  }
  const ms = Number(match[2]) * 1000 + nanos / 1_000_000;
  if (ms > MAX_MILLISECONDS)
    return reject(at, `${String(value)} is longer than Switchyard can store`);
  return match[1] === "-" ? -ms : ms;
}

function objectOrNull(value: JsonValue | undefined): JsonObject | null {
  return isObject(value) ? value : null;
}

function strings(value: JsonValue | undefined): readonly string[] {
  return asArray(value).filter((item): item is string => typeof item === "string");
}

/** The secret name of an SDS config served over ADS: `{ name, sds_config: { ads: {}, ... V3 } }`. */
function adsSecretName(value: JsonValue | undefined): string | undefined {
  if (!isObject(value) || Object.keys(value).length !== 2 || !jsonEqual(value.sdsConfig, ADS))
    return undefined;
  return typeof value.name === "string" && value.name !== "" ? value.name : undefined;
}

/**
 * Splits a TLS transport socket into the modelled SDS secret name and the rest (kept in `extra`),
 * the inverse of envoy-json.ts tlsTransportSocketJson. A socket the model cannot describe is kept
 * whole in `extra`.
 */
function tlsFrom(
  socket: JsonValue | undefined,
  contextType: string,
  takeSecret: (commonTlsContext: JsonObject) => { name: string; rest: JsonObject } | undefined,
): { secretName: string | null; extra: JsonValue | undefined } {
  const whole = { secretName: null, extra: socket };
  if (!isObject(socket) || socket.name === undefined) return whole;
  const typedConfig = asObject(socket.typedConfig);
  if (typedConfig["@type"] !== TLS_CONTEXT_PREFIX + contextType) return whole;
  const { commonTlsContext, ...contextRest } = typedConfig;
  const taken = takeSecret(asObject(commonTlsContext));
  if (!taken) return whole;
  const typedExtra = {
    ...contextRest,
    ...(nonEmpty(taken.rest) ? { commonTlsContext: taken.rest } : {}),
  };
  const { name, typedConfig: _, ...socketRest } = socket;
  const extra = compact({
    ...socketRest,
    name: name === TLS_SOCKET_NAME ? undefined : name,
    typedConfig: Object.keys(typedExtra).length > 1 ? typedExtra : undefined,
  });
  return { secretName: taken.name, extra: nonEmpty(extra) ? extra : undefined };
}

function upstreamTlsFrom(socket: JsonValue | undefined) {
  return tlsFrom(socket, "UpstreamTlsContext", (context) => {
    const { validationContextSdsSecretConfig: sds, ...rest } = context;
    const name = adsSecretName(sds);
    return name === undefined ? undefined : { name, rest };
  });
}

function downstreamTlsFrom(socket: JsonValue | undefined) {
  return tlsFrom(socket, "DownstreamTlsContext", (context) => {
    const { tlsCertificateSdsSecretConfigs: configs, ...rest } = context;
    const [only, ...others] = asArray(configs);
    const name = others.length === 0 ? adsSecretName(only) : undefined;
    return name === undefined ? undefined : { name, rest };
  });
}

/** The inverse of envoy-json.ts http2ProtocolOptionsJson. */
function http2From(options: JsonValue | undefined): {
  enabled: boolean;
  extra: JsonValue | undefined;
} {
  const entry = asObject(asObject(options)[HTTP_PROTOCOL_OPTIONS]);
  const http2 = asObject(entry.explicitHttpConfig).http2ProtocolOptions;
  if (!isObject(options) || !isObject(http2)) return { enabled: false, extra: options };
  const { explicitHttpConfig: _, ...entryRest } = entry;
  const entryExtra = nonEmpty(http2)
    ? { ...entryRest, explicitHttpConfig: { http2ProtocolOptions: http2 } }
    : entryRest;
  const extra = compact({
    ...options,
    [HTTP_PROTOCOL_OPTIONS]: Object.keys(entryExtra).some((key) => key !== "@type")
      ? entryExtra
      : undefined,
  });
  return { enabled: true, extra: nonEmpty(extra) ? extra : undefined };
}

function endpointFrom(json: JsonObject, at: readonly Segment[]): EndpointSpec {
  const { endpoint, healthStatus, loadBalancingWeight, ...rest } = json;
  if (rest.endpointName !== undefined) {
    reject([...at, "endpointName"], "endpoint_name cannot be stored: give the endpoint's address");
  }
  const { address, ...endpointRest } = asObject(endpoint);
  const socket = asObject(address).socketAddress;
  if (!isObject(socket)) {
    reject(
      [...at, "endpoint", "address"],
      "only socket addresses can be stored (not pipe or internal addresses)",
    );
  }
  const { address: host, portValue, ...socketRest } = socket;
  if (socketRest.namedPort !== undefined) {
    reject(
      [...at, "endpoint", "address", "socketAddress", "namedPort"],
      "named_port cannot be stored: give port_value",
    );
  }
  const endpointExtra = compact({
    ...endpointRest,
    address: nonEmpty(socketRest) ? { socketAddress: socketRest } : undefined,
  });
  return {
    address: asString(host),
    port: asNumber(portValue) ?? 0,
    weight: asNumber(loadBalancingWeight),
    healthStatus: oneOf(
      healthStatus,
      HEALTH_STATUSES,
      "UNKNOWN",
      [...at, "healthStatus"],
      "health_status",
    ),
    extra: compact({ ...rest, endpoint: nonEmpty(endpointExtra) ? endpointExtra : undefined }),
  };
}

function localityFrom(json: JsonObject, at: readonly Segment[]): LocalitySpec {
  const { locality, lbEndpoints, loadBalancingWeight, priority, ...extra } = json;
  const { region, zone, subZone } = asObject(locality);
  return {
    region: asString(region),
    zone: asString(zone),
    subZone: asString(subZone),
    weight: asNumber(loadBalancingWeight),
    priority: asNumber(priority) ?? 0,
    extra,
    endpoints: asArray(lbEndpoints).map((e, i) =>
      endpointFrom(asObject(e), [...at, "lbEndpoints", i]),
    ),
  };
}

/** A ClusterLoadAssignment's localities and its unmodelled fields (policy, named endpoints). */
function assignmentFrom(json: JsonObject, at: readonly Segment[]) {
  const { clusterName, endpoints, ...extra } = json;
  return {
    clusterName: asString(clusterName),
    localities: asArray(endpoints).map((l, i) =>
      localityFrom(asObject(l), [...at, "endpoints", i]),
    ),
    extra,
  };
}

/** A cluster; an EDS cluster's localities come from its ClusterLoadAssignment (see importEnvoyConfig). */
function clusterFrom(json: JsonObject): ClusterSpec {
  const {
    name,
    type,
    connectTimeout,
    lbPolicy,
    edsClusterConfig,
    loadAssignment,
    healthChecks,
    circuitBreakers,
    outlierDetection,
    transportSocket,
    typedExtensionProtocolOptions,
    ...rest
  } = json;
  if (rest.clusterType !== undefined) {
    reject(
      ["clusterType"],
      "a custom cluster_type cannot be stored: Switchyard models EDS, STATIC, STRICT_DNS and LOGICAL_DNS clusters",
    );
  }
  const clusterName = asString(name);
  const tls = upstreamTlsFrom(transportSocket);
  const http2 = http2From(typedExtensionProtocolOptions);
  const common = {
    name: clusterName,
    discoveryType: oneOf(type, DISCOVERY_TYPES, "STATIC", ["type"], "cluster type"),
    lbPolicy: oneOf(lbPolicy, LB_POLICIES, "ROUND_ROBIN", ["lbPolicy"], "lb_policy"),
    connectTimeoutMs: milliseconds(connectTimeout, ["connectTimeout"]),
    http2: http2.enabled,
    healthChecks: asArray(healthChecks),
    circuitBreakers: objectOrNull(circuitBreakers),
    outlierDetection: objectOrNull(outlierDetection),
    tlsSecretName: tls.secretName,
    extra: compact({
      ...rest,
      transportSocket: tls.extra,
      typedExtensionProtocolOptions: http2.extra,
    }),
  };
  if (common.discoveryType === "EDS") {
    if (loadAssignment !== undefined) {
      reject(
        ["loadAssignment"],
        "an EDS cluster's load_assignment cannot be stored: send the endpoints as a ClusterLoadAssignment",
      );
    }
    const serviceName = asString(asObject(edsClusterConfig).serviceName);
    return { ...common, edsServiceName: serviceName || null, assignmentExtra: {}, localities: [] };
  }
  if (edsClusterConfig !== undefined) {
    reject(
      ["edsClusterConfig"],
      "eds_cluster_config belongs to EDS clusters: remove it or make the cluster EDS",
    );
  }
  const assignment = assignmentFrom(asObject(loadAssignment), ["loadAssignment"]);
  return {
    ...common,
    // The compiler names an inline assignment edsServiceName ?? name (envoy-json.ts).
    edsServiceName: assignment.clusterName === clusterName ? null : assignment.clusterName,
    assignmentExtra: assignment.extra,
    localities: assignment.localities,
  };
}

const PATH_MATCHERS = ["connectMatcher", "pathSeparatedPrefix", "pathMatchPolicy"];
const CLUSTER_SPECIFIERS = [
  "clusterHeader",
  "clusterSpecifierPlugin",
  "inlineClusterSpecifierPlugin",
];
const OTHER_ACTIONS = ["filterAction", "nonForwardingAction"];

function matchFrom(value: JsonValue | undefined, at: readonly Segment[]) {
  if (!isObject(value)) return reject(at, "a route without a match cannot be stored");
  const { prefix, path, safeRegex, caseSensitive, headers, queryParameters, ...extra } = value;
  let kind: RouteSpec["matchKind"];
  let matchValue: string;
  if (prefix !== undefined) [kind, matchValue] = ["PREFIX", asString(prefix)];
  else if (path !== undefined) [kind, matchValue] = ["PATH", asString(path)];
  else if (safeRegex !== undefined) {
    const { regex, ...regexRest } = asObject(safeRegex);
    const [other] = Object.keys(regexRest);
    if (other !== undefined) {
      reject(
        [...at, "safeRegex", other],
        `safe_regex.${snakeCase(other)} cannot be stored: Switchyard keeps only the regex`,
      );
    }
    [kind, matchValue] = ["SAFE_REGEX", asString(regex)];
  } else {
    const matcher = PATH_MATCHERS.find((key) => key in extra);
    return reject(
      matcher ? [...at, matcher] : at,
      matcher
        ? `${snakeCase(matcher)} cannot be stored: Switchyard matches on prefix, path or safe_regex`
        : "a route match needs a prefix, path or safe_regex",
    );
  }
  return {
    spec: {
      matchKind: kind,
      matchValue,
      caseSensitive: caseSensitive !== false,
      headers: asArray(headers),
      queryParameters: asArray(queryParameters),
    },
    extra,
  };
}

function weightedClusterFrom(value: JsonValue, at: readonly Segment[]): WeightedClusterSpec {
  const { name, weight, ...rest } = asObject(value);
  const [other] = Object.keys(rest);
  if (other !== undefined) {
    reject(
      [...at, other],
      `${snakeCase(other)} of a weighted cluster cannot be stored: Switchyard keeps each cluster's name and weight`,
    );
  }
  if (typeof weight !== "number")
    reject(at, "a weighted cluster without a weight cannot be stored: set its weight");
  return { name: asString(name), weight };
}

type ActionSpec = Pick<
  RouteSpec,
  | "actionKind"
  | "cluster"
  | "weightedClusters"
  | "redirect"
  | "directResponse"
  | "timeoutMs"
  | "retryPolicy"
  | "prefixRewrite"
>;

const NO_ACTION: ActionSpec = {
  actionKind: "CLUSTER",
  cluster: null,
  weightedClusters: [],
  redirect: null,
  directResponse: null,
  timeoutMs: null,
  retryPolicy: null,
  prefixRewrite: null,
};

function routeActionFrom(
  value: JsonObject,
  at: readonly Segment[],
): { spec: ActionSpec; extra: JsonObject } {
  const { cluster, weightedClusters, timeout, retryPolicy, prefixRewrite, ...rest } = value;
  const common = {
    ...NO_ACTION,
    timeoutMs: timeout === undefined ? null : milliseconds(timeout, [...at, "timeout"]),
    retryPolicy: objectOrNull(retryPolicy),
    prefixRewrite: prefixRewrite === undefined ? null : asString(prefixRewrite),
  };
  if (cluster !== undefined)
    return { spec: { ...common, cluster: asString(cluster) }, extra: rest };
  if (weightedClusters !== undefined) {
    const { clusters, ...weightedRest } = asObject(weightedClusters);
    const weighted = asArray(clusters).map((c, i) =>
      weightedClusterFrom(c, [...at, "weightedClusters", "clusters", i]),
    );
    return {
      spec: { ...common, actionKind: "WEIGHTED_CLUSTERS", weightedClusters: weighted },
      extra: compact({
        ...rest,
        weightedClusters: nonEmpty(weightedRest) ? weightedRest : undefined,
      }),
    };
  }
  const specifier = CLUSTER_SPECIFIERS.find((key) => key in rest);
  return reject(
    specifier ? [...at, specifier] : at,
    specifier
      ? `${snakeCase(specifier)} cannot be stored: Switchyard routes to a cluster or to weighted clusters`
      : "a route action needs a cluster or weighted_clusters",
  );
}

function routeFrom(json: JsonObject, at: readonly Segment[]): RouteSpec {
  const { name, match, route, redirect, directResponse, ...rest } = json;
  const matched = matchFrom(match, [...at, "match"]);
  let action: { spec: ActionSpec; extra: JsonObject | undefined };
  if (isObject(route)) action = routeActionFrom(route, [...at, "route"]);
  else if (isObject(redirect))
    action = { spec: { ...NO_ACTION, actionKind: "REDIRECT", redirect }, extra: undefined };
  else if (isObject(directResponse)) {
    action = {
      spec: { ...NO_ACTION, actionKind: "DIRECT_RESPONSE", directResponse },
      extra: undefined,
    };
  } else {
    const other = OTHER_ACTIONS.find((key) => key in rest);
    return reject(
      other ? [...at, other] : at,
      other
        ? `${snakeCase(other)} cannot be stored: Switchyard models route, redirect and direct_response actions`
        : "a route without an action cannot be stored",
    );
  }
  return {
    name: asString(name),
    ...matched.spec,
    ...action.spec,
    extra: compact({
      ...rest,
      match: nonEmpty(matched.extra) ? matched.extra : undefined,
      route: action.extra && nonEmpty(action.extra) ? action.extra : undefined,
    }),
  };
}

function virtualHostFrom(json: JsonObject, at: readonly Segment[]): VirtualHostSpec {
  const { name, domains, routes, ...extra } = json;
  return {
    name: asString(name),
    domains: strings(domains),
    extra,
    routes: asArray(routes).map((r, i) => routeFrom(asObject(r), [...at, "routes", i])),
  };
}

function routeConfigurationFrom(json: JsonObject, at: readonly Segment[]): RouteConfigurationSpec {
  const { name, virtualHosts, ...extra } = json;
  return {
    name: asString(name),
    extra,
    virtualHosts: asArray(virtualHosts).map((v, i) =>
      virtualHostFrom(asObject(v), [...at, "virtualHosts", i]),
    ),
  };
}

type HcmParts = Pick<
  FilterChainSpec,
  | "statPrefix"
  | "rdsRouteConfigName"
  | "inlineRouteConfigName"
  | "httpFilters"
  | "accessLog"
  | "hcmExtra"
>;

/** The router the compiler appends when the stored list has none (envoy-json.ts httpFiltersJson). */
function withoutDefaultRouter(filters: readonly JsonValue[]): readonly JsonValue[] {
  const last = filters.at(-1);
  return last !== undefined && jsonEqual(last, DEFAULT_ROUTER) ? filters.slice(0, -1) : filters;
}

function hcmFrom(
  value: JsonValue | undefined,
  at: readonly Segment[],
  routes: RouteConfigurationSpec[],
): HcmParts {
  if (!isObject(value) || value["@type"] !== HCM_TYPE) {
    return reject(at, "expected an HttpConnectionManager: Switchyard models HTTP listeners");
  }
  const {
    "@type": _,
    statPrefix,
    rds,
    routeConfig,
    scopedRoutes,
    httpFilters,
    accessLog,
    ...hcmExtra
  } = value;
  if (scopedRoutes !== undefined) {
    reject(
      [...at, "scopedRoutes"],
      "scoped_routes cannot be stored: use rds or an inline route_config",
    );
  }
  let inlineRouteConfigName: string | null = null;
  if (isObject(routeConfig)) {
    const inline = routeConfigurationFrom(routeConfig, [...at, "routeConfig"]);
    routes.push(inline);
    inlineRouteConfigName = inline.name;
  }
  return {
    statPrefix: asString(statPrefix),
    rdsRouteConfigName: isObject(rds) ? asString(rds.routeConfigName) : null,
    inlineRouteConfigName,
    httpFilters: withoutDefaultRouter(asArray(httpFilters)),
    accessLog: asArray(accessLog),
    hcmExtra,
  };
}

/** The one HTTP connection manager a stored filter chain is made of. */
function onlyHcm(filters: readonly JsonValue[], at: readonly Segment[]): JsonValue | undefined {
  if (filters.length === 0)
    return reject(at, "a filter chain without an HTTP connection manager cannot be stored");
  filters.forEach((filter, i) => {
    const { name, typedConfig } = asObject(filter);
    const type = asObject(typedConfig)["@type"];
    if (type !== HCM_TYPE) {
      reject(
        [...at, i],
        `network filter ${JSON.stringify(asString(name))}${typeof type === "string" ? ` (${type})` : ""} cannot be stored: Switchyard models filter chains made of one HTTP connection manager`,
      );
    }
  });
  if (filters.length > 1)
    reject([...at, 1], "several HTTP connection managers in one filter chain cannot be stored");
  return asObject(filters[0]).typedConfig;
}

function filterChainFrom(
  json: JsonObject,
  at: readonly Segment[],
  routes: RouteConfigurationSpec[],
): FilterChainSpec {
  const { name, filterChainMatch, filters, transportSocket, ...rest } = json;
  const hcm = onlyHcm(asArray(filters), [...at, "filters"]);
  const { serverNames, ...matchRest } = asObject(filterChainMatch);
  const names = strings(serverNames);
  const tls = downstreamTlsFrom(transportSocket);
  return {
    name: asString(name),
    serverNames: names,
    tlsSecretName: tls.secretName,
    ...hcmFrom(hcm, [...at, "filters", 0, "typedConfig"], routes),
    extra: compact({
      ...rest,
      filterChainMatch:
        names.length === 0 ? filterChainMatch : nonEmpty(matchRest) ? matchRest : undefined,
      transportSocket: tls.extra,
    }),
  };
}

/** A listener and the route configurations it holds inline. */
function listenerFrom(json: JsonObject): {
  listener: ListenerSpec;
  routes: RouteConfigurationSpec[];
} {
  const routes: RouteConfigurationSpec[] = [];
  const { name, apiListener, ...rest } = json;
  if (apiListener !== undefined) {
    const at = ["apiListener", "apiListener"];
    const chain: FilterChainSpec = {
      name: "",
      serverNames: [],
      tlsSecretName: null,
      extra: {},
      ...hcmFrom(asObject(apiListener).apiListener, at, routes),
    };
    return {
      listener: {
        name: asString(name),
        apiListener: true,
        address: null,
        port: null,
        extra: rest,
        filterChains: [chain],
      },
      routes,
    };
  }
  const { address, filterChains, ...extra } = rest;
  const socket = asObject(address).socketAddress;
  if (!isObject(socket)) {
    reject(
      ["address"],
      "a listener needs a socket address (pipe and internal addresses cannot be stored) or an api_listener",
    );
  }
  const { address: host, portValue, ...socketRest } = socket;
  if (socketRest.namedPort !== undefined) {
    reject(
      ["address", "socketAddress", "namedPort"],
      "named_port cannot be stored: give port_value",
    );
  }
  return {
    listener: {
      name: asString(name),
      apiListener: false,
      address: asString(host),
      port: asNumber(portValue) ?? 0,
      extra: compact({
        ...extra,
        address: nonEmpty(socketRest) ? { socketAddress: socketRest } : undefined,
      }),
      filterChains: asArray(filterChains).map((c, i) =>
        filterChainFrom(asObject(c), ["filterChains", i], routes),
      ),
    },
    routes,
  };
}

// ---------------------------------------------------------------------------------------------
// Import

/**
 * `compiled` (what Switchyard would serve for the stored object) decoded and compared with the
 * normalized input; a difference is an Unrepresentable at its first differing path.
 */
function verify(
  schema: DescMessage,
  compiled: JsonObject,
  input: JsonObject,
): Unrepresentable | undefined {
  try {
    const stored = fromJson(schema, compiled as ProtoJson, { registry });
    const given = fromJson(schema, input as ProtoJson, { registry });
    if (equals(schema, stored, given, { registry, unpackAny: true })) return undefined;
    const storedJson = toJson(schema, stored, { registry }) as JsonValue;
    const at = firstDifference(storedJson, input) ?? [];
    const [served, givenValue] = [valueAt(storedJson, at), valueAt(input, at)].map((v) =>
      v === undefined ? "unset" : describe(v),
    );
    return new Unrepresentable(
      at,
      `cannot be stored exactly: Switchyard would serve ${served} here instead of ${givenValue}`,
    );
  } catch (error) {
    return new Unrepresentable(
      [],
      `cannot be stored: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function byName<T extends { readonly name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Runs one resource's mapping; an Unrepresentable becomes an error issue and `undefined`. */
function attempt<T>(item: Normalized, issues: ImportError[], map: () => T): T | undefined {
  try {
    return map();
  } catch (error) {
    if (!(error instanceof Unrepresentable)) throw error;
    issues.push(issueAt(item.resource, error.at, "error", error.message));
    return undefined;
  }
}

function edsNameOf(json: JsonObject): string | undefined {
  if ((json.type ?? "STATIC") !== "EDS") return undefined;
  return asString(asObject(json.edsClusterConfig).serviceName) || asString(json.name);
}

/** A stored object and the resource it came from. */
interface Imported<T> {
  readonly object: T;
  readonly item: Normalized | undefined;
}

function importClusters(
  items: readonly Normalized[],
  issues: ImportError[],
): Imported<ClusterSpec>[] {
  const clusters = items.filter((item) => item.resource.typeUrl === TypeUrl.Cluster);
  const assignments = items.filter(
    (item) => item.resource.typeUrl === TypeUrl.ClusterLoadAssignment,
  );
  const edsNames = new Set(clusters.map((item) => edsNameOf(item.json)));
  const byEdsName = new Map<string, Normalized>();
  for (const assignment of assignments) {
    const name = asString(assignment.json.clusterName);
    if (!edsNames.has(name)) {
      const plain = clusters.some((c) => asString(c.json.name) === name);
      issues.push(
        issueAt(
          assignment.resource,
          ["clusterName"],
          "error",
          plain
            ? `cluster "${name}" is not an EDS cluster: its endpoints belong in its load_assignment`
            : `no EDS cluster is named "${name}" or has it as eds_cluster_config.service_name: a ClusterLoadAssignment needs its cluster`,
        ),
      );
    } else if (byEdsName.has(name)) {
      issues.push(
        issueAt(
          assignment.resource,
          ["clusterName"],
          "error",
          `a second ClusterLoadAssignment for "${name}"`,
        ),
      );
    } else byEdsName.set(name, assignment);
  }
  const out: Imported<ClusterSpec>[] = [];
  for (const item of clusters) {
    const mapped = attempt(item, issues, () => clusterFrom(item.json));
    if (!mapped) continue;
    const assignment =
      mapped.discoveryType === "EDS" ? byEdsName.get(edsResourceName(mapped)) : undefined;
    const cluster = assignment
      ? attempt(assignment, issues, () => {
          const { localities, extra } = assignmentFrom(assignment.json, []);
          return { ...mapped, localities, assignmentExtra: extra };
        })
      : mapped;
    if (!cluster) continue;
    const problem = verify(ClusterSchema, clusterJson(cluster), item.json);
    if (problem) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
      continue;
    }
    if (assignment) {
      const assignmentProblem = verify(
        ClusterLoadAssignmentSchema,
        clusterLoadAssignmentJson(cluster),
        assignment.json,
      );
      if (assignmentProblem) {
        issues.push(
          issueAt(assignment.resource, assignmentProblem.at, "error", assignmentProblem.message),
        );
        continue;
      }
    }
    out.push({ object: cluster, item });
  }
  return out;
}

function importRouteConfigurations(
  items: readonly Normalized[],
  issues: ImportError[],
): Imported<RouteConfigurationSpec>[] {
  const out: Imported<RouteConfigurationSpec>[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.RouteConfiguration) continue;
    const mapped = attempt(item, issues, () => routeConfigurationFrom(item.json, []));
    if (!mapped) continue;
    const problem = verify(RouteConfigurationSchema, routeConfigurationJson(mapped), item.json);
    if (problem) issues.push(issueAt(item.resource, problem.at, "error", problem.message));
    else out.push({ object: mapped, item });
  }
  return out;
}

function importListeners(
  items: readonly Normalized[],
  issues: ImportError[],
): { listeners: Imported<ListenerSpec>[]; routes: RouteConfigurationSpec[] } {
  const listeners: Imported<ListenerSpec>[] = [];
  const routes: RouteConfigurationSpec[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.Listener) continue;
    const mapped = attempt(item, issues, () => listenerFrom(item.json));
    if (!mapped) continue;
    const inline = new Map(mapped.routes.map((rc) => [rc.name, rc]));
    const problem = verify(
      ListenerSchema,
      listenerJson(mapped.listener, (name) => inline.get(name)),
      item.json,
    );
    if (problem) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
      continue;
    }
    listeners.push({ object: mapped.listener, item });
    routes.push(...mapped.routes);
  }
  return { listeners, routes };
}

/** Objects of one kind with unique names: a repeated name is an error at the later resource. */
function uniqueByName<T extends { readonly name: string }>(
  objects: readonly Imported<T>[],
  kind: string,
  issues: ImportError[],
): T[] {
  const seen = new Map<string, T>();
  for (const { object, item } of objects) {
    if (!seen.has(object.name)) seen.set(object.name, object);
    else if (item)
      issues.push(
        issueAt(item.resource, ["name"], "error", `another ${kind} is named "${object.name}"`),
      );
  }
  return [...seen.values()].sort(byName);
}

/**
 * Maps decoded Envoy resources onto the stored model (see the top of this file). An object that
 * cannot be stored exactly is left out with an error; the documented normalizations are reported
 * as infos or warnings. ClusterLoadAssignments fill the localities of their EDS cluster; inline
 * route configurations become stored route configurations named by `inlineRouteConfigName`.
 */
export function importEnvoyConfig(resources: readonly DecodedResource[]): ImportResult {
  const items = normalizeAll(resources);
  const issues: ImportError[] = items.flatMap((item) =>
    item.notes.map((note) => issueAt(item.resource, note.at, note.severity, note.message)),
  );
  const clusters = importClusters(items, issues);
  const standalone = importRouteConfigurations(items, issues);
  const { listeners, routes } = importListeners(items, issues);
  // Inline configurations share a name only with equal content (normalization 7): keep one.
  const inline = routes.map((object) => ({ object, item: undefined }));
  return {
    spec: {
      clusters: uniqueByName(clusters, "cluster", issues),
      listeners: uniqueByName(listeners, "listener", issues),
      routeConfigurations: uniqueByName([...standalone, ...inline], "route configuration", issues),
    },
    issues,
  };
}
