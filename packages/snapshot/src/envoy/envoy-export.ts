/**
 * The stored configuration out as Envoy-native config: the resources Switchyard serves, as a list
 * of resources with "@type" in canonical proto3 JSON (or YAML of it) that `parseEnvoyConfig`
 * reads back. Pure: the same spec gives the same text.
 *
 * The resources are the compiler's own (compile.ts), so an export is exactly what proxies receive,
 * in a stable order: clusters, cluster load assignments, listeners, route configurations (the
 * make-before-break order, resource-snapshot.ts TYPE_ORDER), each sorted by name. Secrets are never
 * exported (their private keys are never shown back). Two things are
 * left out, both listed with the import normalizations in envoy-import.ts: a route configuration
 * used only inline by listeners (it is inside them), and the assignment of an EDS cluster with no
 * endpoints and no assignment settings (it says nothing). On-demand virtual hosts (VHDS) are not
 * resources of their own here: they are listed in their route configuration, next to its `vhds`.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { RouteConfigurationSchema } from "@switchyard/proto/envoy/config/route/v3/route_pb";
import { stringify } from "yaml";
import { shownPath } from "../bounded-text.js";
import { type ConfigIssue, compile } from "../compile.js";
import { type EnvoyResource, resourceSchema } from "../import/envoy-import.js";
import type { ConfigSpec, JsonObject } from "../model.js";
import { TYPE_ORDER, TypeUrl } from "../serving/resource-snapshot.js";
import { edsResourceName, routeConfigurationFormJson } from "./envoy-json.js";
import { envoyFromJson, envoyToJson, withProtoFieldNames } from "./envoy-proto-json.js";

export interface ExportOptions {
  readonly format: "yaml" | "json";
}

/** The spec does not compile: nothing is exported. `issues` says what and where. */
export class EnvoyExportError extends Error {
  constructor(readonly issues: readonly ConfigIssue[]) {
    super(
      `the configuration does not compile: ${issues.map((i) => `${shownPath(i.path)}: ${i.message}`).join("; ")}`,
    );
    this.name = "EnvoyExportError";
  }
}

/** Route configurations that listeners hold inline and none loads over RDS. */
function inlineOnly(spec: ConfigSpec): ReadonlySet<string> {
  const chains = spec.listeners.flatMap((listener) => listener.filterChains);
  const rds = new Set(chains.map((chain) => chain.rdsRouteConfigName));
  return new Set(
    chains
      .map((chain) => chain.inlineRouteConfigName)
      .filter((name): name is string => name !== null && !rds.has(name)),
  );
}

/** Names of the assignments that carry endpoints or assignment settings. */
function assignmentsWithContent(spec: ConfigSpec): ReadonlySet<string> {
  return new Set(
    spec.clusters
      .filter(
        (cluster) =>
          cluster.discoveryType === "EDS" &&
          (cluster.localities.length > 0 || Object.keys(cluster.assignmentExtra).length > 0),
      )
      .map(edsResourceName),
  );
}

function decode(typeUrl: EnvoyResource["typeUrl"], body: Uint8Array): EnvoyResource {
  return { typeUrl, message: fromBinary(resourceSchema(typeUrl), body) } as EnvoyResource;
}

/**
 * The decoded messages an export prints, in export order; for equality checks against imported
 * resources. Throws EnvoyExportError when the spec does not compile.
 */
export function exportEnvoyResources(spec: ConfigSpec): EnvoyResource[] {
  // Secrets are never exported: a private key is never shown back (model.ts SecretSpec). The
  // clusters and listeners that name them are, with their SDS references.
  const compiled = compile({ ...spec, secrets: [] });
  if (compiled.issues.length > 0) throw new EnvoyExportError(compiled.issues);
  // The default group holds every stored object (compile.ts groupSnapshot).
  const snapshot = compiled.groups.find((group) => group.isDefault)?.snapshot;
  if (!snapshot) return [];
  const skipRoutes = inlineOnly(spec);
  const keepAssignments = assignmentsWithContent(spec);
  const onDemand = new Map(
    spec.routeConfigurations.filter((rc) => rc.vhds).map((rc) => [rc.name, rc]),
  );
  const out: EnvoyResource[] = [];
  for (const typeUrl of TYPE_ORDER) {
    for (const resource of snapshot.resources(typeUrl).values()) {
      if (typeUrl === TypeUrl.Secret) continue;
      if (typeUrl === TypeUrl.RouteConfiguration && skipRoutes.has(resource.name)) continue;
      // On-demand virtual hosts go inside their route configuration, with its `vhds`
      // (routeConfigurationFormJson): what import reads back.
      if (typeUrl === TypeUrl.VirtualHost) continue;
      const vhds = typeUrl === TypeUrl.RouteConfiguration && onDemand.get(resource.name);
      if (vhds) {
        out.push({
          typeUrl: TypeUrl.RouteConfiguration,
          message: envoyFromJson(RouteConfigurationSchema, routeConfigurationFormJson(vhds)),
        });
        continue;
      }
      if (typeUrl === TypeUrl.ClusterLoadAssignment && !keepAssignments.has(resource.name))
        continue;
      out.push(decode(typeUrl, resource.body));
    }
  }
  return out;
}

/**
 * One resource as Envoy reads it in a list: canonical proto3 JSON under Envoy's field names
 * (`stat_prefix`, as its docs and config_dump write them) with its "@type" first.
 */
export function envoyResourceJson(resource: EnvoyResource): JsonObject {
  const schema = resourceSchema(resource.typeUrl);
  return {
    "@type": resource.typeUrl,
    ...(withProtoFieldNames(schema, envoyToJson(schema, resource.message)) as JsonObject),
  };
}

/**
 * YAML 1.1 quoting: Envoy reads YAML with yaml-cpp, which takes `yes`, `on` and friends for
 * booleans, so such strings are quoted. No anchors: every resource reads on its own.
 */
const YAML_OPTIONS = { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false } as const;

/**
 * The stored configuration as Envoy v3 config text: a list of resources with "@type" (see the top
 * of this file). Throws EnvoyExportError when the spec does not compile.
 */
export function exportEnvoyConfig(spec: ConfigSpec, options: ExportOptions): string {
  const list = exportEnvoyResources(spec).map(envoyResourceJson);
  return options.format === "json"
    ? `${JSON.stringify(list, null, 2)}\n`
    : stringify(list, YAML_OPTIONS);
}
