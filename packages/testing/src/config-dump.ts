/**
 * A builder of Envoy admin config dumps for the import tests, shaped as `GET /config_dump` writes
 * them (the admin API's config_dump page; envoy/admin/v3/config_dump.proto and
 * config_dump_shared.proto): one `configs` entry per part, each with its "@type", in the order
 * Envoy dumps them, every resource an Any with its own "@type", beside the metadata Envoy adds
 * (`version_info`, `last_updated`, `client_status`). Resources are given as Envoy JSON with their
 * "@type" (envoyResourceJson of an export).
 */

type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
/** A JSON object, as Envoy's JSON mapping of a message reads it. */
export type JsonObject = { readonly [key: string]: JsonValue };

const ADMIN = "type.googleapis.com/envoy.admin.v3.";
const UPDATED = "2026-01-29T10:00:00.000Z";

/** One dynamic listener's states, as ListenersConfigDump.DynamicListener holds them. */
export interface DumpListener {
  readonly name: string;
  readonly active?: JsonObject;
  readonly warming?: JsonObject;
  readonly draining?: JsonObject;
  /** The refused update: its details, and the listener Envoy refused. */
  readonly error?: { readonly details: string; readonly failed?: JsonObject };
}

/** A dynamic cluster or route configuration, and an update Envoy refused beside it. */
export interface DumpDynamic {
  readonly resource?: JsonObject;
  readonly error?: { readonly details: string; readonly failed?: JsonObject };
}

export interface DumpContent {
  readonly bootstrap?: JsonObject;
  readonly staticClusters?: readonly JsonObject[];
  readonly activeClusters?: readonly (JsonObject | DumpDynamic)[];
  readonly warmingClusters?: readonly JsonObject[];
  /** ClusterLoadAssignments: present only in a dump made with `?include_eds`. */
  readonly endpoints?: {
    readonly static?: readonly JsonObject[];
    readonly dynamic?: readonly JsonObject[];
  };
  readonly staticListeners?: readonly JsonObject[];
  readonly listeners?: readonly DumpListener[];
  readonly staticRoutes?: readonly JsonObject[];
  readonly dynamicRoutes?: readonly (JsonObject | DumpDynamic)[];
  readonly secrets?: {
    readonly static?: readonly JsonObject[];
    readonly active?: readonly JsonObject[];
    readonly warming?: readonly JsonObject[];
  };
  /** Parts Switchyard does not store, as they are (a ScopedRoutesConfigDump, ...). */
  readonly other?: readonly JsonObject[];
}

function failure(error: { readonly details: string; readonly failed?: JsonObject }): JsonObject {
  return {
    ...(error.failed ? { failed_configuration: error.failed } : {}),
    last_update_attempt: UPDATED,
    details: error.details,
  };
}

function dynamic(entry: JsonObject | DumpDynamic, field: string): JsonObject {
  const { resource, error } =
    "resource" in entry || "error" in entry
      ? (entry as DumpDynamic)
      : { resource: entry as JsonObject, error: undefined };
  return {
    version_info: "7",
    ...(resource ? { [field]: resource } : {}),
    last_updated: UPDATED,
    ...(error ? { error_state: failure(error) } : {}),
    client_status: error ? "NACKED" : "ACKED",
  };
}

function state(listener: JsonObject): JsonObject {
  return { version_info: "7", listener, last_updated: UPDATED };
}

function secretEntry(secret: JsonObject): JsonObject {
  const name = typeof secret.name === "string" ? secret.name : "";
  return { name, version_info: "3", last_updated: UPDATED, secret };
}

/** An `envoy.admin.v3.ConfigDump` of `content`, as Envoy's admin API writes it. */
export function configDump(content: DumpContent): JsonObject {
  const configs: JsonObject[] = [];
  if (content.bootstrap) {
    configs.push({
      "@type": `${ADMIN}BootstrapConfigDump`,
      bootstrap: content.bootstrap,
      last_updated: UPDATED,
    });
  }
  if (content.staticClusters || content.activeClusters || content.warmingClusters) {
    configs.push({
      "@type": `${ADMIN}ClustersConfigDump`,
      version_info: "7",
      static_clusters: (content.staticClusters ?? []).map((cluster) => ({
        cluster,
        last_updated: UPDATED,
      })),
      dynamic_active_clusters: (content.activeClusters ?? []).map((c) => dynamic(c, "cluster")),
      dynamic_warming_clusters: (content.warmingClusters ?? []).map((c) => dynamic(c, "cluster")),
    });
  }
  if (content.endpoints) {
    configs.push({
      "@type": `${ADMIN}EndpointsConfigDump`,
      static_endpoint_configs: (content.endpoints.static ?? []).map((endpoint_config) => ({
        endpoint_config,
      })),
      dynamic_endpoint_configs: (content.endpoints.dynamic ?? []).map((endpoint_config) => ({
        endpoint_config,
      })),
    });
  }
  if (content.staticListeners || content.listeners) {
    configs.push({
      "@type": `${ADMIN}ListenersConfigDump`,
      version_info: "7",
      static_listeners: (content.staticListeners ?? []).map((listener) => ({
        listener,
        last_updated: UPDATED,
      })),
      dynamic_listeners: (content.listeners ?? []).map((entry) => ({
        name: entry.name,
        ...(entry.active ? { active_state: state(entry.active) } : {}),
        ...(entry.warming ? { warming_state: state(entry.warming) } : {}),
        ...(entry.draining ? { draining_state: state(entry.draining) } : {}),
        ...(entry.error ? { error_state: failure(entry.error) } : {}),
        client_status: entry.error ? "NACKED" : "ACKED",
      })),
    });
  }
  configs.push(...(content.other ?? []));
  if (content.staticRoutes || content.dynamicRoutes) {
    configs.push({
      "@type": `${ADMIN}RoutesConfigDump`,
      static_route_configs: (content.staticRoutes ?? []).map((route_config) => ({
        route_config,
        last_updated: UPDATED,
      })),
      dynamic_route_configs: (content.dynamicRoutes ?? []).map((r) => dynamic(r, "route_config")),
    });
  }
  if (content.secrets) {
    configs.push({
      "@type": `${ADMIN}SecretsConfigDump`,
      static_secrets: (content.secrets.static ?? []).map((s) => {
        const { version_info: _, ...entry } = secretEntry(s);
        return entry;
      }),
      dynamic_active_secrets: (content.secrets.active ?? []).map((s) => secretEntry(s)),
      dynamic_warming_secrets: (content.secrets.warming ?? []).map((s) => secretEntry(s)),
    });
  }
  return { configs };
}

/** A `?resource=` dump: `configs` holds the entries of one of a dump's lists themselves. */
export function resourceDump(entryType: string, entries: readonly JsonObject[]): JsonObject {
  return { configs: entries.map((entry) => ({ "@type": `${ADMIN}${entryType}`, ...entry })) };
}

/** A TLS certificate Secret as a config dump shows it: its private key redacted. */
export function redactedTlsSecret(name: string, certificatePem: string): JsonObject {
  return {
    "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret",
    name,
    tls_certificate: {
      certificate_chain: { inline_string: certificatePem },
      private_key: { inline_string: "[redacted]" },
    },
  };
}
