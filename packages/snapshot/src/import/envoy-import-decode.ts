/**
 * Document shapes → decoded resources: recognizes what a parsed document is (a list of resources
 * with "@type", a DiscoveryResponse or `{ resources: [...] }`, a bootstrap or its
 * static_resources), checks each resource against its schema (envoy-import-schema.ts) and decodes
 * it with the generated types.
 */
import type { DescMessage } from "@bufbuild/protobuf";
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
import { type EnvoyResource, RESOURCE_SCHEMAS, toResource } from "./envoy-import-resource.js";
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
  const schema = RESOURCE_SCHEMAS.get(typeUrl);
  if (!schema) return;
  const lenient = readLenient(schema, json, at);
  for (const note of lenient.notes) {
    (note.severity === "warning" ? findings.warnings : findings.infos).push(note);
  }
  const problems: Problem[] = [];
  checkMessage(schema, lenient.json, at, problems);
  // A Secret's fields are its private key and values: a problem never quotes what one holds.
  const shown = typeUrl === TypeUrl.Secret ? withoutValues : (problem: Problem) => problem;
  if (problems.length > 0) {
    findings.errors.push(...problems.map(shown));
    return;
  }
  try {
    const message = envoyFromJson(schema, lenient.json as JsonValue);
    findings.resources.push({ resource: toResource(typeUrl, message), at, source });
  } catch (error) {
    // The check above mirrors fromJson; this only catches a case it does not know yet.
    const message = error instanceof Error ? error.message : String(error);
    findings.errors.push(
      typeUrl === TypeUrl.Secret
        ? {
            at,
            message:
              "the Secret does not decode as envoy.extensions.transport_sockets.tls.v3.Secret",
          }
        : { at, message },
    );
  }
}

/** `problem` without the value it quotes (describe() writes `got string "..."`). */
function withoutValues(problem: Problem): Problem {
  return {
    ...problem,
    message: problem.message.replace(/got string ".*$/s, "got a string (not shown)"),
  };
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

/** The Bootstrap.StaticResources lists Switchyard stores, and the type of their items. */
const STATIC_RESOURCE_TYPES: Readonly<Record<string, string>> = {
  clusters: TypeUrl.Cluster,
  listeners: TypeUrl.Listener,
  secrets: TypeUrl.Secret,
};

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
    const typeUrl = STATIC_RESOURCE_TYPES[field.name];
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
          "not imported: Switchyard takes only static_resources (clusters, listeners and secrets) from a bootstrap",
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
  } else if (keys.some((key) => fieldByKey(BootstrapSchema, key))) decodeBootstrap(value, findings);
  else if (keys.some((key) => fieldByKey(Bootstrap_StaticResourcesSchema, key))) {
    decodeStaticResources(value, [], findings);
  } else {
    findings.errors.push({ at: [], message: `unrecognized document: expected ${SHAPES}` });
  }
}
