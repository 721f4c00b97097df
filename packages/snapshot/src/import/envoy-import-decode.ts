/**
 * Document shapes → decoded resources: recognizes what a parsed document is (a list of resources
 * with "@type", a DiscoveryResponse or `{ resources: [...] }`, a bootstrap or its
 * static_resources), checks each resource against its schema (envoy-import-schema.ts) and decodes
 * it with the generated types.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { newestSchema } from "@switchyard/proto";
import {
  Bootstrap_StaticResourcesSchema,
  BootstrapSchema,
} from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { DiscoveryResponseSchema } from "@switchyard/proto/envoy/service/discovery/v3/discovery_pb";
import { envoyFromJson, fieldByKey } from "../envoy/envoy-proto-json.js";
import type { JsonValue } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { Problem } from "./envoy-import-issue.js";
import { describe, isRecord, type Segment } from "./envoy-import-json.js";
import { readLenient } from "./envoy-import-lenient.js";
import {
  type EnvoyResource,
  RESOURCE_SCHEMAS,
  resourceSchema,
  toResource,
} from "./envoy-import-resource.js";
import {
  checkField,
  checkMessage,
  messageForTypeUrl,
  unknownField,
} from "./envoy-import-schema.js";

export interface FoundResource {
  readonly resource: EnvoyResource;
  readonly at: readonly Segment[];
  readonly source: unknown;
}

/** What decoding one document found. Local to one parse. */
export interface Findings {
  readonly errors: Problem[];
  readonly warnings: Problem[];
  /** How Envoy's lenient forms were read (envoy-import-lenient.ts). */
  readonly infos: Problem[];
  readonly resources: FoundResource[];
}

export const SHAPES =
  'a list of resources with "@type", a DiscoveryResponse, a bootstrap or its static_resources';
const RESOURCE_TYPES = [...RESOURCE_SCHEMAS.keys()].map((url) => url.slice(url.indexOf("/") + 1));

/** Checks then decodes one resource of a known type. */
function decodeResource(
  typeUrl: string,
  json: unknown,
  at: readonly Segment[],
  source: unknown,
  findings: Findings,
): void {
  if (!RESOURCE_SCHEMAS.has(typeUrl)) return;
  const schema = resourceSchema(typeUrl as EnvoyResource["typeUrl"]);
  const lenient = readLenient(schema, json, at);
  for (const note of lenient.notes) {
    (note.severity === "warning" ? findings.warnings : findings.infos).push(note);
  }
  const problems: Problem[] = [];
  checkMessage(schema, lenient.json, at, problems);
  if (problems.length > 0) {
    findings.errors.push(...problems);
    return;
  }
  try {
    const message = envoyFromJson(schema, lenient.json as JsonValue);
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
  if (canonical === TypeUrl.Secret) {
    // Secrets are uploaded on their own, so that their private keys are checked and sealed and
    // never travel in a config document that is also exported and diffed (model.ts SecretSpec).
    findings.errors.push({
      at: [...at, "@type"],
      message:
        "a Secret is not applied with the configuration: upload it with `switchyard secret create tls NAME --cert FILE --key FILE` (or `validation NAME --ca FILE`), or on the console's Secrets page, then apply the listeners and clusters that name it",
    });
    return;
  }
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
    const field = fieldByKey(newestSchema(Bootstrap_StaticResourcesSchema), key);
    if (!field) {
      findings.errors.push({
        at: [...at, key],
        message: unknownField(newestSchema(Bootstrap_StaticResourcesSchema), key),
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
    const field = fieldByKey(newestSchema(BootstrapSchema), key);
    if (!field) {
      findings.errors.push({
        at: [key],
        message: unknownField(newestSchema(BootstrapSchema), key),
      });
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

export function decodeDocument(value: unknown, findings: Findings): void {
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
  } else if (keys.some((key) => fieldByKey(newestSchema(BootstrapSchema), key)))
    decodeBootstrap(value, findings);
  else if (keys.some((key) => fieldByKey(newestSchema(Bootstrap_StaticResourcesSchema), key))) {
    decodeStaticResources(value, [], findings);
  } else {
    findings.errors.push({ at: [], message: `unrecognized document: expected ${SHAPES}` });
  }
}
