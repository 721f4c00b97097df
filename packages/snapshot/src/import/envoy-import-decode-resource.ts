/**
 * One resource checked against its schema (envoy-import-schema.ts) and decoded with the generated
 * types, whether it names its "@type" or its document says what it is (a per-type list, a config
 * dump's `cluster` field); and a bootstrap's static_resources lists. What the document shapes
 * share: envoy-import-decode.ts (lists, DiscoveryResponses, bootstraps) and envoy-import-dump.ts
 * (Envoy's admin config dumps).
 */

import { newestSchema } from "@switchyard/proto";
import {
  Bootstrap_StaticResourcesSchema,
  BootstrapSchema,
} from "@switchyard/proto/envoy/config/bootstrap/v3/bootstrap_pb";
import { quotedInput } from "../bounded-text.js";
import { envoyFromJson, fieldByKey } from "../envoy/envoy-proto-json.js";
import type { JsonValue } from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import type { Problem } from "./envoy-import-issue.js";
import { describe, isRecord, type Segment } from "./envoy-import-json.js";
import { type LenientNote, readLenient, readList } from "./envoy-import-lenient.js";
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
  /** How Envoy's lenient forms were read (envoy-import-lenient.ts), and what was left out why. */
  readonly infos: Problem[];
  readonly resources: FoundResource[];
}

export function emptyFindings(): Findings {
  return { errors: [], warnings: [], infos: [], resources: [] };
}

/** A lenient reading's note, filed by its severity. */
export function addNote(findings: Findings, note: LenientNote | undefined): void {
  if (note === undefined) return;
  (note.severity === "warning"
    ? findings.warnings
    : note.severity === "error"
      ? findings.errors
      : findings.infos
  ).push(note);
}

/** The items of a document-level list, a single value read as a list of one (with its note). */
export function listItems(
  name: string,
  value: unknown,
  at: readonly Segment[],
  findings: Findings,
): readonly unknown[] {
  const { items, note } = readList(name, value, at);
  addNote(findings, note);
  return items;
}

const RESOURCE_TYPES = [...RESOURCE_SCHEMAS.keys()].map((url) => url.slice(url.indexOf("/") + 1));

/** `type.googleapis.com/<name>` for any prefix a type URL is written with. */
export function canonicalTypeUrl(typeUrl: string): string {
  return `type.googleapis.com/${typeUrl.slice(typeUrl.lastIndexOf("/") + 1)}`;
}

/** Checks then decodes one resource of a known type, given without its "@type". */
export function decodeResource(
  typeUrl: string,
  json: unknown,
  at: readonly Segment[],
  source: unknown,
  findings: Findings,
): void {
  if (!RESOURCE_SCHEMAS.has(typeUrl)) return;
  // The newest definition: the fields of a newer Envoy API loaded at run time are taken.
  const schema = resourceSchema(typeUrl as EnvoyResource["typeUrl"]);
  const lenient = readLenient(schema, json, at);
  for (const note of lenient.notes) addNote(findings, note);
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

/**
 * Why a Secret of a config dump is not imported, naming it and how to upload it: a dump has every
 * secret redacted (the admin API's config_dump page: sensitive fields are "[redacted]"). The
 * listeners and clusters that name the secret keep naming it. (A Secret written in a document is
 * imported, sealed: envoy-import-secret-resources.ts.)
 */
export function secretNote(json: unknown, at: readonly Segment[], findings: Findings): void {
  const secret = isRecord(json) ? json : {};
  const name = typeof secret.name === "string" ? secret.name : "";
  const has = (...keys: string[]) => keys.some((key) => key in secret);
  const [kind, upload] = has("tls_certificate", "tlsCertificate")
    ? ["a TLS certificate", `switchyard secret create tls ${name || "NAME"} --cert FILE --key FILE`]
    : has("validation_context", "validationContext")
      ? ["a validation context", `switchyard secret create validation ${name || "NAME"} --ca FILE`]
      : has("generic_secret", "genericSecret")
        ? [
            "a generic secret",
            `switchyard secret create generic ${name || "NAME"} --from-file FILE`,
          ]
        : has("session_ticket_keys", "sessionTicketKeys")
          ? [
              "session ticket keys",
              `switchyard secret create session-ticket-keys ${name || "NAME"} --from-file FILE...`,
            ]
          : ["empty", undefined];
  findings.warnings.push({
    at,
    message:
      upload === undefined
        ? `secret "${name}" is ${kind}, not imported: a config dump shows no secret's content`
        : `secret "${name}" is ${kind}, not imported: a config dump shows it redacted. Upload it: ${upload}`,
  });
}

/**
 * A resource carrying its type: `{ "@type": "type.googleapis.com/...Cluster", ... }`. With
 * `expected`, the type its place in the document says (a per-type list, a config dump's
 * `cluster`): another "@type" is an error.
 */
export function decodeTypedResource(
  json: unknown,
  at: readonly Segment[],
  findings: Findings,
  expected?: string,
): void {
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
      message: `missing "@type": each resource names its type, e.g. "${expected ?? TypeUrl.Cluster}"`,
    });
    return;
  }
  const canonical = canonicalTypeUrl(typeUrl);
  if (expected !== undefined && canonical !== expected) {
    findings.errors.push({
      at: [...at, "@type"],
      message: `"@type" ${quotedInput(typeUrl)} is not the type this place holds, ${quotedInput(expected)}`,
    });
    return;
  }
  if (!RESOURCE_SCHEMAS.has(canonical)) {
    findings.errors.push({
      at: [...at, "@type"],
      message: messageForTypeUrl(typeUrl)
        ? `unsupported resource @type ${quotedInput(typeUrl)}: expected one of ${RESOURCE_TYPES.join(", ")}`
        : `unknown @type ${quotedInput(typeUrl)}: not one of the Envoy types Switchyard knows`,
    });
    return;
  }
  const { "@type": _, ...fields } = json;
  decodeResource(canonical, fields, at, json, findings);
}

/**
 * One resource of `typeUrl` whose document says its type: given without "@type" (Envoy
 * Gateway's listeners.yaml, `istioctl proxy-config cluster -o json`), or with the same one.
 */
export function decodeAs(
  typeUrl: string,
  json: unknown,
  at: readonly Segment[],
  findings: Findings,
): void {
  if (isRecord(json) && "@type" in json) {
    decodeTypedResource(json, at, findings, typeUrl);
  } else if (!isRecord(json)) {
    findings.errors.push({ at, message: `expected a resource, got ${describe(json)}` });
  } else decodeResource(typeUrl, json, at, json, findings);
}

/** The kinds of Bootstrap.StaticResources, each with the type of its resources. */
const STATIC_KINDS = {
  listeners: TypeUrl.Listener,
  clusters: TypeUrl.Cluster,
  secrets: TypeUrl.Secret,
} as const;

export type StaticKind = keyof typeof STATIC_KINDS;

/**
 * Bootstrap.StaticResources: `{ clusters: [...], listeners: [...], secrets: [...] }`, the kinds
 * in `kinds` only (a config dump reads the others from its own lists). A dump's bootstrap has its
 * secrets redacted: `fromDump` names them instead of importing them (secretNote).
 */
export function decodeStaticResources(
  json: unknown,
  at: readonly Segment[],
  findings: Findings,
  kinds: ReadonlySet<StaticKind> = new Set(["listeners", "clusters", "secrets"]),
  fromDump = false,
): void {
  if (!isRecord(json)) {
    findings.errors.push({ at, message: `expected an object, got ${describe(json)}` });
    return;
  }
  for (const [key, value] of Object.entries(json)) {
    const field = fieldByKey(newestSchema(Bootstrap_StaticResourcesSchema), key);
    if (!field) {
      findings.errors.push({
        at: [...at, key],
        message: unknownField(newestSchema(Bootstrap_StaticResourcesSchema), key),
      });
      continue;
    }
    const kind = field.name in STATIC_KINDS ? (field.name as StaticKind) : undefined;
    if (kind === undefined) {
      checkField(field, value, [...at, key], findings.errors);
      findings.warnings.push({
        at: [...at, key],
        message: `not imported: Switchyard does not store ${field.name}`,
      });
      continue;
    }
    if (!kinds.has(kind)) continue;
    for (const [i, item] of listItems(field.name, value, [...at, key], findings).entries()) {
      if (fromDump && kind === "secrets") secretNote(item, [...at, key, i], findings);
      else decodeAs(STATIC_KINDS[kind], item, [...at, key, i], findings);
    }
  }
}

/** A bootstrap: its static_resources are imported, its other parts are named in warnings. */
export function decodeBootstrap(json: Record<string, unknown>, findings: Findings): void {
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
          "not imported: Switchyard takes only static_resources (clusters, listeners and secrets) from a bootstrap",
      });
    }
  }
}
