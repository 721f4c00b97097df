/**
 * Renaming objects of a document before they are stored: an import that meets a stored object of
 * the same kind and name with other content stores the incoming one under a free name (the
 * server's default for such a clash, ImportRequest.on_clash), and every reference the document
 * holds to it follows. The references are the ones validation and access control read
 * (envoy-references.ts, one table of every field that names a cluster, secret, route
 * configuration or internal listener, inside typed configs too), so a kind of reference added
 * there is renamed here the day it is added. Pure.
 *
 * The rename is made on each resource's canonical proto3 JSON, at the paths the walk reports
 * (an Any's fields sit inline next to "@type", as in that JSON), and read back with the schema.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { envoyFromJson } from "../envoy/envoy-proto-json.js";
import { findReferences, type ReferenceKind } from "../envoy/envoy-references.js";
import { walkEnvoy } from "../envoy/envoy-walk.js";
import type { JsonObject, JsonValue } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { Segment } from "./envoy-import-json.js";
import {
  type DecodedResource,
  resourceJson,
  resourceSchema,
  toResource,
} from "./envoy-import-resource.js";

/** The kinds a document names its objects by: the reference kinds, and runtime layers. */
export type RenamedKind = ReferenceKind | "runtimeLayer";

export interface ImportRename {
  readonly kind: RenamedKind;
  readonly from: string;
  readonly to: string;
}

const KIND_OF_TYPE: ReadonlyMap<string, RenamedKind> = new Map([
  [TypeUrl.Cluster, "cluster"],
  [TypeUrl.Listener, "listener"],
  [TypeUrl.RouteConfiguration, "routeConfiguration"],
  [TypeUrl.Secret, "secret"],
  [TypeUrl.Runtime, "runtimeLayer"],
]);

const ROUTE_CONFIGURATION = "envoy.config.route.v3.RouteConfiguration";

/**
 * `resources` with every object `renames` names stored under its new name, and every reference to
 * it in them renamed: the resource's own name; a ClusterLoadAssignment's `cluster_name` with its
 * cluster; an inline route configuration's `name` (an HTTP connection manager's `route_config`);
 * and each field of the reference table naming it. Resources with nothing to rename are returned
 * as they were.
 */
export function renameResources(
  resources: readonly DecodedResource[],
  renames: readonly ImportRename[],
): DecodedResource[] {
  if (renames.length === 0) return [...resources];
  const to = new Map(renames.map((r) => [`${r.kind}\u0000${r.from}`, r.to]));
  const renamed = (kind: RenamedKind, name: string) => to.get(`${kind}\u0000${name}`);
  return resources.map((resource) => {
    const schema = resourceSchema(resource.typeUrl);
    const edits: { at: readonly Segment[]; name: string }[] = [];
    const own = KIND_OF_TYPE.get(resource.typeUrl);
    if (resource.typeUrl === TypeUrl.ClusterLoadAssignment) {
      const name = renamed("cluster", resource.message.clusterName);
      if (name !== undefined) edits.push({ at: ["clusterName"], name });
    } else if (own !== undefined) {
      const name = renamed(own, resource.message.name);
      if (name !== undefined) edits.push({ at: ["name"], name });
    }
    for (const reference of findReferences(schema, resource.message)) {
      const name = renamed(reference.kind, reference.name);
      if (name !== undefined) edits.push({ at: reference.at, name });
    }
    // A route configuration written inline (HttpConnectionManager.route_config) is stored as one
    // of its own, under its name.
    walkEnvoy(schema, resource.message, {
      enter(desc: DescMessage, message, at) {
        if (desc.typeName !== ROUTE_CONFIGURATION || at.length === 0) return true;
        const name = renamed("routeConfiguration", (message as unknown as { name: string }).name);
        if (name !== undefined) edits.push({ at: [...at, "name"], name });
        return true;
      },
    });
    if (edits.length === 0) return resource;
    const json = resourceJson(resource);
    for (const edit of edits) setAt(json, edit.at, edit.name);
    return { ...resource, ...toResource(resource.typeUrl, envoyFromJson(schema, json)) };
  });
}

/**
 * Sets the string at `at` in canonical JSON. A TypedStruct's `value` keeps the keys as written
 * (a Struct), which may be the proto name (snake_case) rather than the JSON name the walk reports.
 */
function setAt(json: JsonObject, at: readonly Segment[], value: string): void {
  let node: JsonValue = json;
  for (let i = 0; i < at.length; i++) {
    const segment = at[i] as Segment;
    const last = i === at.length - 1;
    if (typeof segment === "number") {
      if (!Array.isArray(node)) return;
      if (last) node[segment] = value;
      else node = node[segment] as JsonValue;
      continue;
    }
    if (node === null || typeof node !== "object" || Array.isArray(node)) return;
    const object = node as { [key: string]: JsonValue };
    const key = segment in object ? segment : snakeCase(segment);
    if (last) object[key in object ? key : segment] = value;
    else node = object[key] as JsonValue;
  }
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
