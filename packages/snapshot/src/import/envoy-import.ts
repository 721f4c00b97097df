/**
 * Envoy-native configuration in: text → decoded Envoy v3 messages → the stored model. Pure: no
 * I/O, the same input always gives the same output.
 *
 * `parseEnvoyConfig` accepts what people already run (JSON or YAML, one or several YAML documents):
 * a list of resources with "@type" (or `{ resources: [...] }`), a DiscoveryResponse, a bootstrap or
 * just its `static_resources`, an Envoy admin config dump (`/config_dump`, what `istioctl
 * proxy-config all -o json` prints: its active resources, envoy-import-dump.ts), and lists of one
 * type without "@type" (Envoy Gateway's `listeners.yaml`, ...) when the caller names the type
 * (ParseOptions.resourceType). Every resource is decoded with the generated Envoy types, typed
 * configs in `Any` fields included. protobuf-es stops at the first problem and says nothing of
 * where it is, so the document is first checked against the message descriptors here, and every
 * unknown field, wrong type, bad enum value and unknown "@type" is reported with its JSON path in
 * the user's own key spelling (`resources[2].filter_chains[0].filters[0].typed_config.stat_prefx`).
 *
 * `importEnvoyConfig` maps the decoded messages onto ClusterSpec, ListenerSpec,
 * RouteConfigurationSpec, RuntimeLayerSpec and SecretSpec. Every modelled field is extracted;
 * every other field is kept in the matching `extra` as canonical proto3 JSON. Nothing is dropped
 * silently: each imported object is compiled back (envoy-json.ts) and compared with the input, and
 * an object that would not come back equal is rejected with an error instead of being stored
 * changed. A Secret has no `extra`: a field of it that a stored secret does not hold is refused at
 * the field (envoy-import-secret-resources.ts), and its material is sealed, never stored as given.
 *
 * The normalizations, the only differences allowed between an imported resource and what
 * Switchyard serves and exports for it (each one is reported as an issue, and the round-trip tests
 * in envoy-export.spec.ts check that nothing else differs):
 *   1. A cluster without `type` or `connect_timeout` gets Envoy's defaults, STATIC and 5s (the
 *      model always holds both, and `type` is a oneof member, so set and unset differ).
 *   2. An EDS cluster's `eds_config`, an HTTP connection manager's `rds.config_source` and a route
 *      configuration's `vhds.config_source` become `{ ads: {}, resource_api_version: V3 }`:
 *      Switchyard itself serves the endpoints, routes and on-demand virtual hosts.
 *   3. A STATIC/STRICT_DNS/LOGICAL_DNS cluster without `load_assignment` gets an empty one; an
 *      ORIGINAL_DST or extension cluster (which finds its hosts itself) loses one that has no
 *      endpoints and names the cluster itself.
 *   4. A locality without `locality` gets `locality: {}`, in every assignment (inline in any
 *      cluster, or a ClusterLoadAssignment): proxyless gRPC rejects an assignment with an unset
 *      locality, so the compiler always sets it (envoy-json.ts, localityJson).
 *   5. The HTTP connection manager's network filter is named
 *      `envoy.filters.network.http_connection_manager` (Envoy picks the factory by "@type"), in
 *      every filter chain, the `default_filter_chain` included (as are 2, 6 and 7).
 *   6. HTTP filters without a router get `envoy.filters.http.router` appended (the compiler's rule),
 *      and a chain loading over RDS a route configuration of the document with on-demand virtual
 *      hosts gets `envoy.filters.http.on_demand` before its router (the compiler adds it too).
 *   7. An inline `route_config` without a name is named `<listener>-routes` (`-<chain index>` when
 *      the listener has several); one whose name another route configuration with different
 *      content already uses is renamed the same way. Stored route configuration names are unique.
 *   8. An explicit `case_sensitive: true` in a route match is dropped: it is the default.
 *   9. A Runtime layer's nested keys are stored flat, joined with "." as Envoy's runtime joins
 *      them (a FractionalPercent value is not nesting, and is refused: the model holds strings,
 *      numbers and booleans); a Runtime without `layer` gets an empty one.
 *  10. A listener without a name (Envoy names it itself, with a random UUID) is named from its
 *      address, Istio's way: `0.0.0.0_10000`, `_udp` added for a UDP socket, `-2` on a clash.
 *  11. A TLS certificate written inline with its private key, in a listener's or a cluster's TLS
 *      context, is moved to an SDS secret (`<resource>-tls`), its key sealed at rest; the context
 *      names the secret over ADS instead (envoy-import-secrets.ts). Needs the server's secrets key.
 *  12. The forms Envoy's own JSON reading accepts are read into canonical proto3 JSON: enum names
 *      in any case, a single value for a list (in a resource, and for a document's own lists:
 *      `static_resources.clusters`, `resources`, a config dump's `configs`, ...), booleans as
 *      strings, a wrapper as `{ value }`, a Duration as `{ seconds, nanos }`
 *      (envoy-import-lenient.ts).
 *  13. An extension whose proto Switchyard does not have (Envoy's contrib filters) is kept as
 *      written, with a warning that it is not validated, and sent as the TypedStruct Envoy
 *      converts itself (envoy-proto-json.ts); an explicit TypedStruct of such a type reads back
 *      as the type it names. An HTTP connection manager written as a TypedStruct is read as the
 *      message it names (it is the chain's modelled part).
 *  14. A TLS certificate whose private key a config dump redacted (`"[redacted]"`, the admin
 *      API's config_dump page) is replaced by the SDS reference normalization 11 would give it
 *      (`<resource>-tls`), with a warning naming the secret to upload; nothing redacted is
 *      stored (any other redacted secret is refused at its field).
 * On export (envoy-export.ts): an EDS cluster with no endpoints and no assignment settings has no
 * ClusterLoadAssignment, and a route configuration used only inline is not listed on its own.
 *
 * This file is the public entry; the stages live beside it, one per file: envoy-import-parse.ts
 * (text → documents, syntax errors with line and column), envoy-import-decode.ts (document shapes
 * → decoded resources), envoy-import-dump.ts (Envoy's admin config dumps: what is taken, what is
 * left out and why; envoy-import-dump-read.ts reads their shape), envoy-import-decode-resource.ts (one resource checked and decoded, what the
 * shapes share), envoy-import-lenient.ts (Envoy's lenient JSON forms), envoy-import-schema.ts
 * (JSON checked against the descriptors, with paths), envoy-import-normalize.ts (the
 * normalizations above), envoy-import-secrets.ts (inline certificates to SDS secrets),
 * envoy-import-secret-resources.ts (Secret resources to sealed secrets, of all four kinds),
 * envoy-import-map.ts (normalized JSON → the stored specs and their `extra`) and
 * envoy-import-assemble.ts (the compile-back check, EDS assignments joined to their clusters,
 * unique names); envoy-import-issue.ts, -resource.ts and -json.ts hold what they share.
 */

import { inlineSecretsIn, redactedSecretsIn } from "../envoy/envoy-data-sources.js";
import {
  type ImportedAssignment,
  importClusters,
  importListeners,
  importRouteConfigurations,
  importRuntimeLayers,
  uniqueByName,
} from "./envoy-import-assemble.js";

export type { ImportedAssignment } from "./envoy-import-assemble.js";

import type {
  ClusterSpec,
  ListenerSpec,
  RouteConfigurationSpec,
  RuntimeLayerSpec,
  SecretSpec,
} from "../model.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import { checkRules } from "../validate/envoy-rules.js";
import { decodeDocument, emptyFindings, SHAPES } from "./envoy-import-decode.js";
import { formatPath, type ImportError, issueAt } from "./envoy-import-issue.js";
import type { Normalized } from "./envoy-import-normalize.js";
import { decodeNormalized, normalizeAll } from "./envoy-import-normalize.js";
import { located, parseText } from "./envoy-import-parse.js";
import type { DecodedResource, ResourceListType } from "./envoy-import-resource.js";
import { importSecretResource } from "./envoy-import-secret-resources.js";
import { sealCertificates } from "./envoy-import-secrets.js";

export type { ImportError, ImportSeverity } from "./envoy-import-issue.js";
export type {
  DecodedResource,
  EnvoyResource,
  ResourceListType,
} from "./envoy-import-resource.js";
export {
  RESOURCE_LIST_TYPE_NAMES,
  RESOURCE_LIST_TYPES,
  resourceJson,
  resourceListTypeOfFile,
  resourceName,
  resourceSchema,
} from "./envoy-import-resource.js";

import { resourceSchema } from "./envoy-import-resource.js";

/** Either every decoded resource (with notes that did not stop the import) or every error. */
export type ParseResult =
  | { readonly resources: readonly DecodedResource[]; readonly warnings: readonly ImportError[] }
  | { readonly errors: readonly ImportError[] };

/** The stored objects an import produces, each list sorted by name. */
export interface ConfigSpecFragment {
  readonly clusters: readonly ClusterSpec[];
  readonly listeners: readonly ListenerSpec[];
  readonly routeConfigurations: readonly RouteConfigurationSpec[];
  readonly runtimeLayers: readonly RuntimeLayerSpec[];
  /**
   * The document's Secret resources (envoy-import-secret-resources.ts) and the inline certificates
   * moved to SDS secrets (normalization 11), their keys and values sealed.
   */
  readonly secrets: readonly SecretSpec[];
}

export interface ImportOptions {
  /**
   * Seals secret material with the server's secrets key (SecretBox.seal): a private key (PKCS#8
   * PEM), a generic secret's value or a session ticket key (its bytes as base64, secret-values.ts
   * sealValue). Without it, an inline private key or value is an error: it can only be stored
   * sealed.
   */
  readonly seal?: (plaintext: string) => string;
}

export interface ImportResult {
  readonly spec: ConfigSpecFragment;
  /** Errors (the object named by the path is left out of `spec`), warnings and infos. */
  readonly issues: readonly ImportError[];
  /**
   * ClusterLoadAssignments whose cluster is not in the document: new endpoints for stored EDS
   * clusters (CDS and EDS are separate in Envoy). The server applies them, or refuses each with
   * its `missing` error.
   */
  readonly assignments: readonly ImportedAssignment[];
  /** EDS clusters of the document without their assignment: they keep the stored endpoints. */
  readonly withoutAssignment: readonly string[];
}

export interface ParseOptions {
  /** Says whether the text is JSON or YAML (`.json`, `.yaml`); else the text itself does. */
  readonly filename?: string;
  /**
   * The type of the resources that carry no "@type" (a list of one type, as Envoy Gateway writes
   * `listeners.yaml`): without it, such a list is refused, saying how to name its type.
   */
  readonly resourceType?: ResourceListType;
  /** Per document (by its position, from 0), over `resourceType`: a file's type in a set of files. */
  readonly documentTypes?: ReadonlyMap<number, ResourceListType>;
}

/**
 * Parses Envoy v3 config (JSON or YAML, detected from `filename` or the text) and decodes every
 * Cluster, ClusterLoadAssignment, Listener, RouteConfiguration, Runtime and Secret in it with the
 * generated types.
 * Returns every error in the document, or the resources in document order.
 */
export function parseEnvoyConfig(text: string, options: ParseOptions = {}): ParseResult {
  const parsed = parseText(text, options.filename);
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
  const last = Math.max(...parsed.documents.map((document) => document.ordinal));
  for (const position of options.documentTypes?.keys() ?? []) {
    if (position > last) {
      errors.push({
        severity: "error",
        path: "",
        message: `a type is given for document ${position} (from 0), but the text holds ${last + 1} document${last === 0 ? "" : "s"}`,
      });
    }
  }
  for (const document of parsed.documents) {
    const findings = emptyFindings();
    decodeDocument(
      document.value,
      findings,
      options.documentTypes?.get(document.ordinal) ?? options.resourceType,
    );
    errors.push(...findings.errors.map((problem) => located("error", problem, document)));
    warnings.push(...findings.warnings.map((problem) => located("warning", problem, document)));
    warnings.push(...findings.infos.map((problem) => located("info", problem, document)));
    for (const { resource, at, source } of findings.resources) {
      resources.push({
        ...resource,
        path: formatPath("", at),
        source,
        locate: (segments) => document.locate([...at, ...segments]),
        ...(document.index === undefined ? {} : { document: document.index }),
      });
    }
  }
  return errors.length > 0 ? { errors } : { resources, warnings };
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

/**
 * Maps decoded Envoy resources onto the stored model (see the top of this file). An object that
 * cannot be stored exactly is left out with an error; the documented normalizations are reported
 * as infos or warnings. ClusterLoadAssignments fill the localities of their EDS cluster; inline
 * route configurations become stored route configurations named by `inlineRouteConfigName`.
 */
export function importEnvoyConfig(
  resources: readonly DecodedResource[],
  options: ImportOptions = {},
): ImportResult {
  const normalized = normalizeAll(resources);
  const issues: ImportError[] = normalized.flatMap((item) =>
    item.notes.map((note) => issueAt(item.resource, note.at, note.severity, note.message)),
  );
  // Envoy's own constraints (validate.rules, RE2): a resource that breaks one is left out, each
  // violation reported at its field, as the proxy would refuse it. So is one holding a secret
  // inline that the import could not move to an SDS secret: it would be shown back. A Secret
  // resource holds its material inline by design: it is stored sealed.
  const items = normalized.filter((item) => {
    const decoded = decodeNormalized(item);
    const schema = resourceSchema(decoded.typeUrl);
    const violations = checkRules(schema, decoded.message);
    for (const violation of violations) {
      issues.push(
        issueAt(
          item.resource,
          violation.at,
          "error",
          `Envoy refuses this value: ${violation.message}`,
        ),
      );
    }
    // A secret a config dump redacted is not there to import, in whatever form it was given.
    const redacted = redactedSecretsIn(schema, decoded.message);
    for (const at of redacted) {
      issues.push(
        issueAt(
          item.resource,
          at,
          "error",
          'this secret is "[redacted]" (Envoy\'s config dump hides every sensitive field): it cannot be imported; give it again here, as a file or over SDS',
        ),
      );
    }
    const seen = new Set(redacted.map((at) => at.join("\u0000")));
    // A Secret resource holds its secret by design: it is stored sealed (envoy-import-secret-resources.ts).
    const inline =
      decoded.typeUrl === TypeUrl.Secret
        ? []
        : inlineSecretsIn(schema, decoded.message).filter((at) => !seen.has(at.join("\u0000")));
    for (const at of inline) {
      issues.push(
        issueAt(
          item.resource,
          at,
          "error",
          "a secret written inline here cannot be stored (it would be shown back): upload it as a secret and name it over SDS, or give it as a file",
        ),
      );
    }
    return violations.length === 0 && inline.length === 0 && redacted.length === 0;
  });
  const sealed = items.map((item) => ({
    item,
    ...sealCertificates(item.certificates ?? [], options.seal),
  }));
  for (const { item, problems } of sealed) {
    for (const problem of problems) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
    }
  }
  const secretResources = importSecretResources(items, issues, options.seal);
  const { clusters, assignments, withoutAssignment } = importClusters(items, issues);
  const standalone = importRouteConfigurations(items, issues);
  const { listeners, routes } = importListeners(items, issues);
  // Inline configurations share a name only with equal content (normalization 7): keep one.
  const inline = routes.map((object) => ({ object, item: undefined }));
  return {
    spec: {
      clusters: uniqueByName(clusters, "cluster", issues),
      listeners: uniqueByName(listeners, "listener", issues),
      routeConfigurations: uniqueByName([...standalone, ...inline], "route configuration", issues),
      runtimeLayers: uniqueByName(importRuntimeLayers(items, issues), "runtime layer", issues),
      secrets: uniqueByName(
        [
          ...secretResources,
          ...sealed.flatMap(({ secrets }) =>
            secrets.map((object) => ({ object, item: undefined })),
          ),
        ],
        "secret",
        issues,
      ),
    },
    issues,
    assignments,
    withoutAssignment,
  };
}

/**
 * The document's Secret resources as stored secrets (envoy-import-secret-resources.ts): a TLS
 * certificate's key checked against its chain and sealed as an inline one is, values sealed with
 * `seal`. A resource that cannot be stored is left out, with an error at its field.
 */
function importSecretResources(
  items: readonly Normalized[],
  issues: ImportError[],
  seal: ((plaintext: string) => string) | undefined,
): { readonly object: SecretSpec; readonly item: Normalized }[] {
  const out: { object: SecretSpec; item: Normalized }[] = [];
  for (const item of items) {
    if (item.resource.typeUrl !== TypeUrl.Secret) continue;
    const imported = importSecretResource(item.json, seal);
    for (const note of imported.notes) {
      issues.push(issueAt(item.resource, note.at, note.severity, note.message));
    }
    if (imported.secret) out.push({ object: imported.secret, item });
    if (!imported.certificate) continue;
    const { secrets, problems } = sealCertificates([imported.certificate], seal);
    for (const problem of problems) {
      issues.push(issueAt(item.resource, problem.at, "error", problem.message));
    }
    for (const object of secrets) {
      issues.push(
        issueAt(
          item.resource,
          imported.certificate.at,
          "info",
          `stored as TLS certificate secret "${object.name}": its private key is sealed at rest and never shown back`,
        ),
      );
      out.push({ object, item });
    }
  }
  return out;
}
