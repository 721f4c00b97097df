/**
 * Structured resource names: `xdstp://AUTHORITY/TYPE/ID?CONTEXT_PARAMS` (the xDS transport
 * design doc "xDS transport next steps", "Logical resource naming", "URI encoding", "Context
 * parameters": https://docs.google.com/document/d/1zZav-IYxMO0mP2A7y5XHBa9v0eXyirw1CxrLLSUqWR8,
 * the original design document of xDS proposal TP1,
 * https://github.com/cncf/xds/blob/main/proposals/TP1-xds-transport-next.md; `udpa://` in the
 * doc, `xdstp://` in TP1 and as Envoy and gRPC implement it). Section names quoted below are the
 * design doc's.
 *
 * Switchyard stores plain names; every resource it serves is also addressable by its xdstp://
 * name under the authorities the server is configured with (SWITCHYARD_XDS_AUTHORITY): the
 * cluster `backend` is `xdstp://AUTHORITY/envoy.config.cluster.v3.Cluster/backend`. The ID is the
 * stored name, so names with slashes (`team-a/api`) form directories, and a glob collection
 * (`.../envoy.config.listener.v3.Listener/team-a/*`, "Glob") is every resource of the type
 * directly in that directory that the node's group holds.
 *
 * Encoding and comparison follow Envoy's (source/common/config/xds_resource.cc): the authority,
 * ID and each context parameter are percent-decoded; the canonical form percent-encodes `%/?#` in
 * the authority, `%:?#[]` in the ID, `%#[]&=` in parameter keys and values, and any byte that is
 * not printable ASCII, and sorts the parameters. Two names are the same resource when their
 * canonical forms are equal, whatever order or encoding the client used.
 */

import { quotedInput } from "../bounded-text.js";
import type { JsonObject, JsonValue } from "../model.js";

export const XDSTP_PREFIX = "xdstp:";

const TYPE_URL_PREFIX = "type.googleapis.com/";

export interface XdstpName {
  readonly authority: string;
  /** The resource type: the type URL without `type.googleapis.com/`. */
  readonly resourceType: string;
  /** The resource ID, decoded: the stored name, or a glob (`*`, `dir/*`). */
  readonly id: string;
  /** Context parameters, decoded, sorted by key. */
  readonly params: readonly (readonly [string, string])[];
}

export type XdstpParse =
  | { readonly ok: true; readonly name: XdstpName }
  | { readonly ok: false; readonly problem: string };

/** Whether `name` uses the xdstp scheme (then it must parse, or the request is malformed). */
export function isXdstp(name: string): boolean {
  return name.startsWith(XDSTP_PREFIX);
}

/** The type URL of an xdstp:// name's resource type. */
export function typeUrlOf(name: XdstpName): string {
  return TYPE_URL_PREFIX + name.resourceType;
}

function decode(part: string, what: string): string | { problem: string } {
  try {
    return decodeURIComponent(part);
  } catch {
    return { problem: `has malformed percent-encoding in its ${what} (${quotedInput(part)})` };
  }
}

/**
 * Parses an xdstp:// resource name. A name with a fragment (`#alt=…`, `#entry=…`) is refused:
 * directives belong to resource locators inside resources and "are never sent to servers when
 * requesting resources" ("Resource locators").
 */
export function parseXdstp(text: string): XdstpParse {
  const fail = (problem: string): XdstpParse => ({ ok: false, problem });
  if (!text.startsWith("xdstp://")) return fail('does not start with "xdstp://"');
  if (text.includes("#")) {
    return fail("has a fragment (#…): directives are never sent to servers in requests");
  }
  const rest = text.slice("xdstp://".length);
  const queryAt = rest.indexOf("?");
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? "" : rest.slice(queryAt + 1);
  const firstSlash = path.indexOf("/");
  if (firstSlash === -1) return fail("has no resource type (xdstp://AUTHORITY/TYPE/ID)");
  const authority = decode(path.slice(0, firstSlash), "authority");
  if (typeof authority !== "string") return fail(authority.problem);
  const typeAndId = path.slice(firstSlash + 1);
  const secondSlash = typeAndId.indexOf("/");
  const resourceType = secondSlash === -1 ? typeAndId : typeAndId.slice(0, secondSlash);
  if (resourceType === "") return fail("has no resource type (xdstp://AUTHORITY/TYPE/ID)");
  if (resourceType.includes("%") || `${resourceType}/` === TYPE_URL_PREFIX) {
    return fail(
      `has resource type ${quotedInput(resourceType)}: it is the type URL without "${TYPE_URL_PREFIX}" (envoy.config.cluster.v3.Cluster)`,
    );
  }
  const id = secondSlash === -1 ? "" : decode(typeAndId.slice(secondSlash + 1), "ID");
  if (typeof id !== "string") return fail(id.problem);
  if (id === "") return fail("has no resource ID (xdstp://AUTHORITY/TYPE/ID)");
  const params = new Map<string, string>();
  if (query !== "") {
    for (const pair of query.split("&")) {
      const equals = pair.indexOf("=");
      const key = decode(equals === -1 ? pair : pair.slice(0, equals), "context parameters");
      const value = decode(equals === -1 ? "" : pair.slice(equals + 1), "context parameters");
      if (typeof key !== "string") return fail(key.problem);
      if (typeof value !== "string") return fail(value.problem);
      if (key === "") return fail("has a context parameter with no name");
      if (params.has(key)) return fail(`repeats the context parameter ${quotedInput(key)}`);
      params.set(key, value);
    }
  }
  const sorted = [...params].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { ok: true, name: { authority, resourceType, id, params: sorted } };
}

const ENCODER = new TextEncoder();

/** Envoy's PercentEncoding::encode: `reserved`, `%`, and bytes outside printable ASCII. */
function percentEncode(value: string, reserved: string): string {
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e && !reserved.includes(char)) {
      out += char;
      continue;
    }
    for (const byte of ENCODER.encode(char)) {
      out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  return out;
}

/** The canonical text of a name: what Envoy's encodeUrn gives with sorted context parameters. */
export function formatXdstp(name: XdstpName): string {
  const params = name.params
    .map(([key, value]) => `${percentEncode(key, "%#[]&=")}=${percentEncode(value, "%#[]&=")}`)
    .sort();
  const query = params.length === 0 ? "" : `?${params.join("&")}`;
  return `xdstp://${percentEncode(name.authority, "%/?#")}/${name.resourceType}/${percentEncode(name.id, "%:?#[]")}${query}`;
}

/** The xdstp:// name of the stored resource `id` of `typeUrl` under `authority`, no parameters. */
export function xdstpNameOf(authority: string, typeUrl: string, id: string): string {
  const resourceType = typeUrl.startsWith(TYPE_URL_PREFIX)
    ? typeUrl.slice(TYPE_URL_PREFIX.length)
    : typeUrl;
  return formatXdstp({ authority, resourceType, id, params: [] });
}

/** Whether the name is a glob collection: its ID is `*` or ends in `/*` ("Glob"). */
export function isGlob(name: XdstpName): boolean {
  return name.id === "*" || name.id.endsWith("/*");
}

/** The directory a glob collects (`team-a` for `team-a/*`, "" for `*`). */
export function globDirectory(glob: XdstpName): string {
  return glob.id === "*" ? "" : glob.id.slice(0, -2);
}

/** The directory of a stored name: "" for a name without a slash. */
export function directoryOf(id: string): string {
  const slash = id.lastIndexOf("/");
  return slash === -1 ? "" : id.slice(0, slash);
}

/**
 * The canonical text of the glob collection `name` belongs to: its last ID segment replaced by
 * `*`, the same context parameters (Envoy matches a glob member to its subscription this way).
 */
export function globKeyOf(name: XdstpName): string {
  const directory = directoryOf(name.id);
  return formatXdstp({ ...name, id: directory === "" ? "*" : `${directory}/*` });
}

/** The plain (stored) name an xdstp:// name resolves to, or `name` itself when it is not one. */
export function storedNameOf(name: string): string {
  if (!isXdstp(name)) return name;
  const parsed = parseXdstp(name);
  return parsed.ok ? parsed.name.id : name;
}

/** What context parameters are checked against: the requesting node, as its Node message says. */
export interface NodeContext {
  readonly id: string;
  readonly cluster: string;
  readonly userAgentName: string;
  readonly userAgentVersion: string;
  /** `major.minor.patch` of user_agent_build_version, when it has one. */
  readonly buildVersion?: string | undefined;
  readonly buildMetadata?: JsonObject | undefined;
  readonly locality: { readonly region: string; readonly zone: string; readonly subZone: string };
  readonly metadata: JsonObject;
  readonly clientFeatures: readonly string[];
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(canonicalJson(a)) === JSON.stringify(canonicalJson(b));
}

function canonicalJson(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((item) => canonicalJson(item) ?? null);
  if (value !== null && typeof value === "object") {
    const object = value as JsonObject;
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, canonicalJson(object[key]) ?? null]),
    );
  }
  return value;
}

/**
 * Whether `text` names `value`: its JSON (as Envoy renders node metadata into context parameters,
 * `"prod"` for a string) or, for a string, the string itself.
 */
function matchesValue(text: string, value: JsonValue | undefined): boolean {
  if (value === undefined) return false;
  if (typeof value === "string" && text === value) return true;
  try {
    return sameJson(JSON.parse(text) as JsonValue, value);
  } catch {
    return false;
  }
}

const NODE_FIELDS: Readonly<Record<string, (node: NodeContext) => string | undefined>> = {
  id: (node) => node.id,
  cluster: (node) => node.cluster,
  user_agent_name: (node) => node.userAgentName,
  user_agent_version: (node) => node.userAgentVersion,
  "locality.region": (node) => node.locality.region,
  "locality.zone": (node) => node.locality.zone,
  "locality.sub_zone": (node) => node.locality.subZone,
  "user_agent_build_version.version": (node) => node.buildVersion,
};

/**
 * Why the context parameters of a requested name do not match the node asking, or undefined when
 * they do ("Context parameters", "Per-node resource qualification"). The name qualifies the
 * resource for a node; Switchyard serves a node only what its own group holds, so a name that
 * qualifies it for another node resolves to nothing rather than to another group's resources
 * (which could include another group's secrets). The rules:
 *
 * - `xds.node.<field>` (Envoy's node_context_params: id, cluster, user_agent_name,
 *   user_agent_version, locality.region|zone|sub_zone, user_agent_build_version.version) must
 *   equal that field of the node; `xds.node.metadata.<key>` (and
 *   `xds.node.user_agent_build_version.metadata.<key>`) the JSON of that metadata value.
 * - `xds.client_feature.<feature>=true` needs the node to declare the client feature.
 * - `xds.resource.<attribute>` are per-request attributes of on-demand loads: accepted as part of
 *   the name, they select nothing.
 * - Any other parameter (`node_type=ingress`, "Glob collection" example) is matched against the
 *   node's metadata key of that name: a node whose metadata says `node_type: ingress`.
 */
export function contextMismatch(
  params: readonly (readonly [string, string])[],
  node: NodeContext,
): string | undefined {
  for (const [key, value] of params) {
    const problem = paramMismatch(key, value, node);
    if (problem) return problem;
  }
  return undefined;
}

function paramMismatch(key: string, value: string, node: NodeContext): string | undefined {
  const quoted = `${key}=${value}`;
  if (key.startsWith("xds.resource.")) return undefined;
  if (key.startsWith("xds.client_feature.")) {
    const feature = key.slice("xds.client_feature.".length);
    if (value !== "true" || node.clientFeatures.includes(feature)) return undefined;
    return `${quoted}: the node does not declare the client feature ${feature}`;
  }
  if (key.startsWith("xds.node.metadata.")) {
    const field = key.slice("xds.node.metadata.".length);
    if (matchesValue(value, node.metadata[field])) return undefined;
    return `${quoted}: the node's metadata ${field} is ${node.metadata[field] === undefined ? "not set" : quotedInput(node.metadata[field])}`;
  }
  if (key.startsWith("xds.node.user_agent_build_version.metadata.")) {
    const field = key.slice("xds.node.user_agent_build_version.metadata.".length);
    if (matchesValue(value, node.buildMetadata?.[field])) return undefined;
    return `${quoted}: the node's user_agent_build_version metadata ${field} differs`;
  }
  if (key.startsWith("xds.node.")) {
    const field = key.slice("xds.node.".length);
    const read = NODE_FIELDS[field];
    if (!read) return `${quoted}: xds.node.${field} is no node field Switchyard can check`;
    const actual = read(node);
    if (actual === value) return undefined;
    return `${quoted}: the node's ${field} is ${quotedInput(actual ?? "")}`;
  }
  if (matchesValue(value, node.metadata[key])) return undefined;
  return `${quoted}: the node's metadata ${key} is ${node.metadata[key] === undefined ? "not set" : quotedInput(node.metadata[key])}`;
}
