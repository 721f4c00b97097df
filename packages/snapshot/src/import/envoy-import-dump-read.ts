/**
 * What an Envoy admin config dump holds, read off its shape before anything is decoded
 * (envoy-import-dump.ts decides what of it is imported): its parts (ClustersConfigDump,
 * ListenersConfigDump, ...), their lists and each entry's state (static, active, warming,
 * draining, refused), from the admin API's descriptors (envoy/admin/v3/config_dump*.proto). Also
 * how to tell a dump from the other document shapes, with or without "@type", wrapped or not.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { registry } from "@switchyard/proto";
import { quotedInput } from "../bounded-text.js";
import { fieldByKey } from "../envoy/envoy-proto-json.js";
import { TypeUrl } from "../serving/resource-snapshot.js";
import {
  canonicalTypeUrl,
  type Findings,
  listItems,
  secretNote,
} from "./envoy-import-decode-resource.js";
import { describe, isRecord, type Segment } from "./envoy-import-json.js";

const ADMIN = "envoy.admin.v3.";

function adminMessage(name: string): DescMessage {
  const desc = registry.getMessage(`${ADMIN}${name}`);
  if (!desc) throw new Error(`the registry lacks ${ADMIN}${name}`);
  return desc;
}

const CONFIG_DUMP = adminMessage("ConfigDump");

export type Kind = "clusters" | "listeners" | "routes" | "endpoints" | "secrets";

/** How the entries of one list of a dump are read. */
interface ListRule {
  readonly kind: Kind | "scoped routes" | "ECDS filters";
  /** The entry's field holding the resource: `cluster`, `route_config`, ... */
  readonly holds?: string;
  readonly state: "static" | "active" | "warming" | "listener states";
}

/** The lists of each part of a dump that hold resources, by part and field name. */
const LISTS: Readonly<Record<string, Readonly<Record<string, ListRule>>>> = {
  ClustersConfigDump: {
    static_clusters: { kind: "clusters", holds: "cluster", state: "static" },
    dynamic_active_clusters: { kind: "clusters", holds: "cluster", state: "active" },
    dynamic_warming_clusters: { kind: "clusters", holds: "cluster", state: "warming" },
  },
  ListenersConfigDump: {
    static_listeners: { kind: "listeners", holds: "listener", state: "static" },
    dynamic_listeners: { kind: "listeners", state: "listener states" },
  },
  RoutesConfigDump: {
    static_route_configs: { kind: "routes", holds: "route_config", state: "static" },
    dynamic_route_configs: { kind: "routes", holds: "route_config", state: "active" },
  },
  EndpointsConfigDump: {
    static_endpoint_configs: { kind: "endpoints", holds: "endpoint_config", state: "static" },
    dynamic_endpoint_configs: { kind: "endpoints", holds: "endpoint_config", state: "active" },
  },
  SecretsConfigDump: {
    static_secrets: { kind: "secrets", holds: "secret", state: "static" },
    dynamic_active_secrets: { kind: "secrets", holds: "secret", state: "active" },
    dynamic_warming_secrets: { kind: "secrets", holds: "secret", state: "warming" },
  },
  ScopedRoutesConfigDump: {
    inline_scoped_route_configs: { kind: "scoped routes", state: "static" },
    dynamic_scoped_route_configs: { kind: "scoped routes", state: "active" },
  },
  EcdsConfigDump: { ecds_filters: { kind: "ECDS filters", state: "active" } },
};

/** The type of each resource kind's entries. */
export const TYPE_OF: Readonly<Record<Exclude<Kind, "secrets">, string>> = {
  clusters: TypeUrl.Cluster,
  listeners: TypeUrl.Listener,
  routes: TypeUrl.RouteConfiguration,
  endpoints: TypeUrl.ClusterLoadAssignment,
};

const PARTS = new Map(Object.keys(LISTS).map((name) => [name, adminMessage(name)]));

/**
 * The entry types of a dump filtered with `?resource=` (`ClustersConfigDump.DynamicCluster`, ...),
 * each with the list it comes from. A DynamicCluster (or DynamicSecret) may be active or warming:
 * the entry does not say which, and is taken as active.
 */
const ENTRIES: ReadonlyMap<string, { readonly part: string; readonly list: string }> = (() => {
  const entries = new Map<string, { part: string; list: string }>();
  for (const [part, lists] of Object.entries(LISTS)) {
    const desc = PARTS.get(part) as DescMessage;
    for (const list of Object.keys(lists)) {
      const entry = desc.fields.find((f) => f.name === list)?.message?.typeName;
      if (entry !== undefined && !entries.has(entry)) entries.set(entry, { part, list });
    }
  }
  return entries;
})();

/** Metadata of a dump's entries: ignored. */
const METADATA = new Set(["version_info", "last_updated", "client_status", "name"]);

/** A resource a dump holds, found while reading it and decoded once all of it is read. */
export interface Taken {
  readonly kind: Kind;
  readonly json: unknown;
  readonly at: readonly Segment[];
  readonly state: "static" | "active" | "warming";
}

/** What a dump holds, gathered before anything is decoded (which lists it has decides). */
export interface Gathered {
  readonly taken: Taken[];
  /** The kinds the dump has a list of (whether empty or not). */
  readonly kinds: Set<Kind>;
  readonly bootstraps: { readonly json: unknown; readonly at: readonly Segment[] }[];
  /** Where the dump's static route configurations are, if it has any. */
  staticRoutes: readonly Segment[] | undefined;
  /** Where the dump's EndpointsConfigDump is (its lists), if it has one. */
  endpoints: readonly Segment[] | undefined;
}

function typeNameOf(json: unknown): string | undefined {
  if (!isRecord(json) || typeof json["@type"] !== "string") return undefined;
  return canonicalTypeUrl(json["@type"]).slice("type.googleapis.com/".length);
}

/** Whether `typeUrl` names a message of Envoy's admin API (a dump, a part, an entry). */
export function isAdminTypeUrl(typeUrl: unknown): boolean {
  return typeof typeUrl === "string" && canonicalTypeUrl(typeUrl).includes(`/${ADMIN}`);
}

function isShapeOf(desc: DescMessage, json: Record<string, unknown>): boolean {
  const keys = Object.keys(json).filter((key) => key !== "@type");
  const fields = keys.map((key) => fieldByKey(desc, key)?.name);
  return (
    fields.every((name) => name !== undefined) &&
    fields.some((name) => name !== "version_info" && name !== "last_updated")
  );
}

/**
 * The admin message a document without "@type" is, when every key of it is a field of one:
 * a ConfigDump (`{ configs: [...] }`) or one of its parts alone (a SecretsConfigDump, a
 * BootstrapConfigDump `{ bootstrap: {...} }`, ...).
 */
export function dumpShapeOf(json: Record<string, unknown>): DescMessage | undefined {
  if (isShapeOf(CONFIG_DUMP, json)) return CONFIG_DUMP;
  const bootstrapDump = adminMessage("BootstrapConfigDump");
  if (isShapeOf(bootstrapDump, json)) return bootstrapDump;
  for (const desc of PARTS.values()) if (isShapeOf(desc, json)) return desc;
  return undefined;
}

/**
 * The config dumps under one or two levels of names (`{ namespace: { pod: dump } }`), with where
 * each is: a document that is none of the other shapes may be such a wrapper.
 */
export function wrappedDumps(
  json: Record<string, unknown>,
  at: readonly Segment[] = [],
  depth = 2,
): { readonly json: Record<string, unknown>; readonly at: readonly Segment[] }[] {
  const found: { json: Record<string, unknown>; at: readonly Segment[] }[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (!isRecord(value)) continue;
    if (isShapeOf(CONFIG_DUMP, value) || isAdminTypeUrl(value["@type"])) {
      found.push({ json: value, at: [...at, key] });
    } else if (depth > 1) found.push(...wrappedDumps(value, [...at, key], depth - 1));
  }
  return found;
}

/**
 * What a config dump, one of its parts, or one of its entries holds: `desc` says which when the
 * document has no "@type". Secrets are named as they are met (secretNote); problems and notes
 * join `findings`.
 */
export function gatherDump(
  json: Record<string, unknown>,
  at: readonly Segment[],
  findings: Findings,
  desc?: DescMessage,
): Gathered {
  const gathered: Gathered = {
    taken: [],
    kinds: new Set(),
    bootstraps: [],
    staticRoutes: undefined,
    endpoints: undefined,
  };
  const name = desc?.typeName.slice(ADMIN.length) ?? typeNameOf(json)?.slice(ADMIN.length);
  if (name === "ConfigDump") {
    for (const [key, value] of Object.entries(json)) {
      if (key === "@type") continue;
      if (fieldByKey(CONFIG_DUMP, key)?.name !== "configs") {
        findings.warnings.push({ at: [...at, key], message: notAField(key, CONFIG_DUMP) });
        continue;
      }
      for (const [i, config] of listItems("configs", value, [...at, key], findings).entries()) {
        gatherConfig(config, [...at, key, i], gathered, findings);
      }
    }
  } else gatherConfig(json, at, gathered, findings, name);
  return gathered;
}

function notAField(key: string, desc: DescMessage): string {
  return `not read: ${quotedInput(key)} is not a field of ${desc.typeName} (added by the tool that wrote the dump, or by an Envoy newer than Switchyard's API)`;
}

/** One element of `configs` (or the whole document, named `name`): a part or an entry. */
function gatherConfig(
  config: unknown,
  at: readonly Segment[],
  gathered: Gathered,
  findings: Findings,
  name = typeNameOf(config)?.slice(ADMIN.length),
): void {
  if (!isRecord(config)) {
    findings.errors.push({
      at,
      message: `expected a config with "@type", got ${describe(config)}`,
    });
    return;
  }
  const typeName = typeNameOf(config);
  if (name === "BootstrapConfigDump") {
    const bootstrap = Object.entries(config).find(
      ([key]) => fieldByKey(adminMessage("BootstrapConfigDump"), key)?.name === "bootstrap",
    );
    if (bootstrap) gathered.bootstraps.push({ json: bootstrap[1], at: [...at, bootstrap[0]] });
    return;
  }
  const part = name === undefined ? undefined : PARTS.get(name);
  if (name !== undefined && part) {
    const lists = LISTS[name] ?? {};
    for (const rule of Object.values(lists)) {
      if (rule.kind !== "scoped routes" && rule.kind !== "ECDS filters") {
        gathered.kinds.add(rule.kind);
      }
    }
    for (const [key, value] of Object.entries(config)) {
      if (key === "@type") continue;
      const field = fieldByKey(part, key);
      if (!field) {
        findings.warnings.push({ at: [...at, key], message: notAField(key, part) });
        continue;
      }
      const rule = lists[field.name];
      if (!rule) continue;
      gatherList(rule, field, value, [...at, key], gathered, findings);
    }
    return;
  }
  const entry = typeName === undefined ? undefined : ENTRIES.get(`${ADMIN}${name}`);
  if (entry) {
    const rule = LISTS[entry.part]?.[entry.list] as ListRule;
    const desc = registry.getMessage(`${ADMIN}${name}`) as DescMessage;
    gatherEntry(rule, desc, config, at, gathered, findings);
    return;
  }
  const canonical = `type.googleapis.com/${typeName ?? ""}`;
  const kind = Object.entries(TYPE_OF).find(([, url]) => url === canonical)?.[0] as
    | Exclude<Kind, "secrets">
    | undefined;
  if (kind !== undefined) {
    // Not something Envoy writes, but unambiguous: a resource of a stored type, as it is.
    gathered.kinds.add(kind);
    gathered.taken.push({ kind, json: config, at, state: "active" });
    return;
  }
  findings.warnings.push({
    at,
    message: `not imported: Switchyard reads listeners, clusters, route configurations, endpoints and secrets from a config dump, not ${typeName ?? "a config without @type"}`,
  });
}

function gatherList(
  rule: ListRule,
  field: DescField,
  value: unknown,
  at: readonly Segment[],
  gathered: Gathered,
  findings: Findings,
): void {
  const items = listItems(field.name, value, at, findings);
  if (rule.kind === "scoped routes" || rule.kind === "ECDS filters") {
    if (items.length > 0) {
      findings.warnings.push({
        at,
        message: `not imported: Switchyard does not store ${rule.kind} (${items.length} here); the listeners that use them are imported as they are`,
      });
    }
    return;
  }
  gathered.kinds.add(rule.kind);
  if (rule.kind === "routes" && rule.state === "static" && items.length > 0) {
    gathered.staticRoutes = at;
  }
  if (rule.kind === "endpoints") gathered.endpoints ??= at.slice(0, -1);
  const desc = field.message;
  if (!desc) return;
  for (const [i, item] of items.entries()) {
    gatherEntry(rule, desc, item, [...at, i], gathered, findings);
  }
}

/** The `details` of an UpdateFailureState, for a note. */
function failureDetails(state: unknown): string {
  const details = isRecord(state) ? state.details : undefined;
  return typeof details === "string" && details !== "" ? `: ${details}` : "";
}

/** One entry of a dump's list: a StaticCluster, a DynamicListener, ... */
function gatherEntry(
  rule: ListRule,
  desc: DescMessage,
  entry: unknown,
  at: readonly Segment[],
  gathered: Gathered,
  findings: Findings,
): void {
  if (rule.kind === "scoped routes" || rule.kind === "ECDS filters") {
    findings.warnings.push({ at, message: `not imported: Switchyard does not store ${rule.kind}` });
    return;
  }
  const kind = rule.kind;
  gathered.kinds.add(kind);
  if (!isRecord(entry)) {
    findings.errors.push({
      at,
      message: `expected an entry of ${desc.name}, got ${describe(entry)}`,
    });
    return;
  }
  const named = typeof entry.name === "string" && entry.name !== "" ? ` "${entry.name}"` : "";
  const what = {
    clusters: "cluster",
    listeners: "listener",
    routes: "route configuration",
    endpoints: "endpoint configuration",
    secrets: "secret",
  }[kind];
  let holding: { readonly at: readonly Segment[]; readonly value: unknown } | undefined;
  const states: { state: string; key: string }[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (key === "@type") continue;
    const field = fieldByKey(desc, key);
    if (!field) {
      findings.warnings.push({ at: [...at, key], message: notAField(key, desc) });
      continue;
    }
    if (METADATA.has(field.name) || value === null) continue;
    if (field.name === rule.holds) holding = { at: [...at, key], value };
    else if (field.name === "active_state" && isRecord(value) && isRecord(value.listener)) {
      holding = { at: [...at, key, "listener"], value: value.listener };
    } else states.push({ state: field.name, key });
  }
  if (rule.state === "warming") {
    if (kind === "secrets" && holding) {
      secretNote(holding.value, holding.at, findings);
      return;
    }
    findings.warnings.push({
      at,
      message: `not imported: a warming ${what}${named} is not serving traffic yet (Envoy is waiting for what it needs, such as its endpoints or secrets); the dump's active ${kind} are imported`,
    });
    return;
  }
  for (const { state, key } of states) {
    const refused = state === "error_state";
    const label =
      state === "warming_state"
        ? "its update is warming (not serving traffic yet)"
        : state === "draining_state"
          ? "a previous version of it is draining (being removed)"
          : refused
            ? `Envoy refused an update of it${failureDetails(entry[key])}`
            : `its ${state}`;
    findings[holding ? "infos" : "warnings"].push({
      at: [...at, key],
      message: holding
        ? `${what}${named}: ${label}; the active version is imported, not this one`
        : `not imported: ${what}${named} has no active version: ${label}`,
    });
  }
  if (!holding) return;
  if (kind === "secrets") {
    secretNote(holding.value, holding.at, findings);
    return;
  }
  gathered.taken.push({
    kind,
    json: holding.value,
    at: holding.at,
    state: rule.state === "listener states" ? "active" : rule.state,
  });
}
