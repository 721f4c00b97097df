/**
 * Document shapes → decoded resources: recognizes what a parsed document is (a list of resources
 * with "@type", a DiscoveryResponse or `{ resources: [...] }`, a bootstrap or its
 * static_resources, an Envoy admin config dump (envoy-import-dump.ts), or resources of one type
 * without "@type" when the caller names the type) and decodes each resource in it
 * (envoy-import-decode-resource.ts).
 */
import { newestSchema, registry } from "@switchyard/proto";
import {
  Bootstrap_StaticResourcesSchema,
  BootstrapSchema,
} from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { quotedInput } from "../bounded-text.js";
import { fieldByKey } from "../envoy/envoy-proto-json.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import {
  canonicalTypeUrl,
  decodeAs,
  decodeBootstrap,
  decodeStaticResources,
  decodeTypedResource,
  type Findings,
  listItems,
} from "./envoy-import-decode-resource.js";
import { decodeDump } from "./envoy-import-dump.js";
import { dumpShapeOf, isAdminTypeUrl, wrappedDumps } from "./envoy-import-dump-read.js";
import { describe, isRecord, type Segment } from "./envoy-import-json.js";
import {
  type EnvoyResource,
  RESOURCE_LIST_TYPE_NAMES,
  RESOURCE_LIST_TYPES,
  RESOURCE_SCHEMAS,
  type ResourceListType,
  resourceSchema,
} from "./envoy-import-resource.js";
import { checkMessage } from "./envoy-import-schema.js";

export { emptyFindings, type Findings } from "./envoy-import-decode-resource.js";

export const SHAPES =
  'a list of resources with "@type" (or of one named type), a DiscoveryResponse, a bootstrap or its static_resources, or an Envoy admin config dump';

/** Why resources without "@type" cannot be read when nobody said what they are. */
const UNTYPED = `these resources have no "@type": name their type (switchyard apply --type, ImportRequest.resource_type, the console's "Resource type"), one of ${RESOURCE_LIST_TYPE_NAMES}`;

function keyFor(json: Record<string, unknown>, fieldName: string): string | undefined {
  return Object.keys(json).find(
    (key) => fieldByKey(DiscoveryResponseSchema, key)?.name === fieldName,
  );
}

const hasType = (item: unknown) => isRecord(item) && "@type" in item;

/**
 * The items of a list of resources: of type `typeUrl` when they carry no "@type" (each one that
 * does is read as its own type). Without a type, a list none of whose items names its "@type" is
 * one error saying how to name the type, not one per item.
 */
function decodeItems(
  items: readonly unknown[],
  at: readonly Segment[],
  findings: Findings,
  typeUrl: string | undefined,
): void {
  if (typeUrl === undefined && items.length > 0 && items.every((i) => isRecord(i) && !hasType(i))) {
    findings.errors.push({ at, message: UNTYPED });
    return;
  }
  for (const [i, item] of items.entries()) {
    // An item naming its own "@type" is read as that type; as the list's own (a typed Secret in
    // a list of secrets) it is read as the list's items are.
    const own = isRecord(item) && typeof item["@type"] === "string" ? item["@type"] : undefined;
    if (typeUrl !== undefined && (own === undefined || canonicalTypeUrl(own) === typeUrl)) {
      decodeAs(typeUrl, item, [...at, i], findings);
    } else decodeTypedResource(item, [...at, i], findings);
  }
}

/**
 * `{ version_info, resources: [Any...], type_url }`, or just `{ resources: [...] }`. Resources
 * without "@type" are of the response's type_url, or else of `typeUrl`.
 */
function decodeDiscoveryResponse(
  json: Record<string, unknown>,
  findings: Findings,
  typeUrl: string | undefined,
): void {
  const resourcesKey = keyFor(json, "resources") ?? "resources";
  const { [resourcesKey]: resources, ...rest } = json;
  checkMessage(DiscoveryResponseSchema, rest, [], findings.errors);
  const typeUrlKey = keyFor(json, "type_url");
  const responseType = typeUrlKey === undefined ? undefined : json[typeUrlKey];
  const named = typeof responseType === "string" && responseType !== "" ? responseType : undefined;
  const items = listItems("resources", resources, [resourcesKey], findings);
  const mismatched = items.flatMap((item, i) => {
    const type = isRecord(item) ? item["@type"] : undefined;
    return named !== undefined && typeof type === "string" && type !== named ? [i] : [];
  });
  for (const i of mismatched) {
    findings.errors.push({
      at: [resourcesKey, i, "@type"],
      message: `"@type" ${quotedInput((items[i] as Record<string, unknown>)["@type"])} differs from the response's type_url ${quotedInput(named)}`,
    });
  }
  if (mismatched.length > 0) return;
  const ofResponse = named === undefined ? undefined : canonicalTypeUrl(named);
  const itemType =
    ofResponse !== undefined && (RESOURCE_SCHEMAS.has(ofResponse) || ofResponse === TypeUrl.Secret)
      ? ofResponse
      : typeUrl;
  decodeItems(items, [resourcesKey], findings, itemType);
}

/** Whether every key of `json` is a field of the resource type `typeUrl`: one such resource. */
function isResourceOf(typeUrl: string, json: Record<string, unknown>): boolean {
  const desc =
    (RESOURCE_SCHEMAS.has(typeUrl)
      ? resourceSchema(typeUrl as EnvoyResource["typeUrl"])
      : undefined) ?? registry.getMessage(typeUrl.slice(typeUrl.indexOf("/") + 1));
  const keys = Object.keys(json);
  return desc !== undefined && keys.length > 0 && keys.every((key) => fieldByKey(desc, key));
}

/**
 * One parsed document. `listType`, when the caller gives it, is the type of the resources in it
 * that carry no "@type" (a list of one type, as gateways write them, or a single resource).
 */
export function decodeDocument(
  value: unknown,
  findings: Findings,
  listType?: ResourceListType,
): void {
  const typeUrl = listType === undefined ? undefined : RESOURCE_LIST_TYPES[listType];
  if (Array.isArray(value)) {
    decodeItems(value, [], findings, typeUrl);
    return;
  }
  if (!isRecord(value)) {
    findings.errors.push({ at: [], message: `expected ${SHAPES}, got ${describe(value)}` });
    return;
  }
  const keys = Object.keys(value);
  if ("@type" in value) {
    if (isAdminTypeUrl(value["@type"])) decodeDump(value, [], findings);
    else decodeTypedResource(value, [], findings);
  } else if (typeUrl !== undefined && isResourceOf(typeUrl, value)) {
    decodeAs(typeUrl, value, [], findings);
  } else if (keyFor(value, "resources") !== undefined) {
    decodeDiscoveryResponse(value, findings, typeUrl);
  } else if (dumpShapeOf(value)) {
    decodeDump(value, [], findings, dumpShapeOf(value));
  } else if (keys.some((key) => fieldByKey(newestSchema(BootstrapSchema), key)))
    decodeBootstrap(value, findings);
  else if (keys.some((key) => fieldByKey(newestSchema(Bootstrap_StaticResourcesSchema), key))) {
    decodeStaticResources(value, [], findings);
  } else decodeWrapped(value, findings, typeUrl);
}

/**
 * A document that is none of the shapes: a config dump wrapped in names (egctl's
 * `{ namespace: { pod: dump } }`) is read, one at a time; else, with a type given, it is checked
 * as one resource of that type (its errors say what is wrong with it).
 */
function decodeWrapped(
  value: Record<string, unknown>,
  findings: Findings,
  typeUrl: string | undefined,
): void {
  const dumps = wrappedDumps(value);
  const [only] = dumps;
  if (only && dumps.length === 1) {
    findings.infos.push({
      at: only.at,
      message: "the config dump wrapped in names here is read (as egctl prints one per pod)",
    });
    decodeDump(only.json, only.at, findings, dumpShapeOf(only.json));
  } else if (dumps.length > 1) {
    findings.errors.push({
      at: [],
      message: `the document holds the config dumps of ${dumps.length} proxies (${dumps
        .map((dump) => dump.at.join("/"))
        .join(", ")}): import one proxy's dump at a time`,
    });
  } else if (typeUrl !== undefined) decodeAs(typeUrl, value, [], findings);
  else findings.errors.push({ at: [], message: `unrecognized document: expected ${SHAPES}` });
}
