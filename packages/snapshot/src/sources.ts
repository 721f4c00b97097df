import { createHash } from "node:crypto";
import type {
  ClusterSpec,
  ConfigSpec,
  JsonValue,
  ListenerSpec,
  NodeGroupSpec,
  RouteConfigurationSpec,
  RuntimeLayerSpec,
  SecretSpec,
} from "./model.js";

/**
 * The stored objects of a config as content-addressed source objects: what a snapshot records of
 * the draft it was published from, what diffs compare, and what a rollback restores.
 */

export const SOURCE_KINDS = [
  "cluster",
  "listener",
  "routeConfiguration",
  "nodeGroup",
  "runtimeLayer",
  "secret",
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The kinds Envoy documents hold: what imports and applies write (node groups are ours alone). */
export const ENVOY_KINDS = [
  "cluster",
  "listener",
  "routeConfiguration",
  "runtimeLayer",
  "secret",
] as const satisfies readonly SourceKind[];

/** The ConfigSpec field holding each kind's objects. */
export const SPEC_FIELD = {
  cluster: "clusters",
  listener: "listeners",
  routeConfiguration: "routeConfigurations",
  nodeGroup: "nodeGroups",
  runtimeLayer: "runtimeLayers",
  secret: "secrets",
} as const satisfies Record<SourceKind, keyof ConfigSpec>;

/** How messages name an object of each kind: `route configuration "edge"`. */
export const KIND_LABEL: Readonly<Record<SourceKind, string>> = {
  cluster: "cluster",
  listener: "listener",
  routeConfiguration: "route configuration",
  nodeGroup: "node group",
  runtimeLayer: "runtime layer",
  secret: "secret",
};

/** The kind whose objects a ConfigSpec field holds (SPEC_FIELD read backwards). */
export const KIND_OF_FIELD: Readonly<Record<string, SourceKind>> = Object.fromEntries(
  Object.entries(SPEC_FIELD).map(([kind, field]) => [field, kind as SourceKind]),
);

/** The ConfigSpec fields of the Envoy kinds. */
export type EnvoyKindFields = Pick<ConfigSpec, (typeof SPEC_FIELD)[(typeof ENVOY_KINDS)[number]]>;

/** The objects of `spec`'s Envoy kinds (ENVOY_KINDS) for which `keep(kind, name)` holds. */
export function envoyObjectsWhere(
  spec: ConfigSpec,
  keep: (kind: (typeof ENVOY_KINDS)[number], name: string) => boolean,
): EnvoyKindFields {
  return Object.fromEntries(
    ENVOY_KINDS.map((kind) => [
      SPEC_FIELD[kind],
      (spec[SPEC_FIELD[kind]] as readonly { readonly name: string }[]).filter((object) =>
        keep(kind, object.name),
      ),
    ]),
  ) as unknown as EnvoyKindFields;
}

export interface SourceObject {
  readonly kind: SourceKind;
  readonly name: string;
  /** Canonical JSON of the spec (object keys sorted): equal content, equal text. */
  readonly json: string;
  /** `source:<sha256 of json>`: the object's identity across versions and replicas. */
  readonly key: string;
}

/** kind → name → source key. */
export type SourceManifest = { readonly [K in SourceKind]: { readonly [name: string]: string } };

export const EMPTY_MANIFEST: SourceManifest = {
  cluster: {},
  listener: {},
  routeConfiguration: {},
  nodeGroup: {},
  runtimeLayer: {},
  secret: {},
};

/** JSON with object keys sorted at every level, so equal values serialize identically. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/**
 * Fields added to the model after source objects were first stored, with the value every object
 * stored before had. A source leaves such a field out while it holds that value, so an object that
 * did not change keeps its source key (and is not a change in the next diff) when the model grows;
 * `specFromSources` puts the value back.
 */
const ADDED_CHAIN_FIELDS = { networkFilters: [], networkOnly: false, isDefault: false } as const;

function atAddedDefault(key: string, value: unknown): boolean {
  if (!(key in ADDED_CHAIN_FIELDS)) return false;
  const initial = ADDED_CHAIN_FIELDS[key as keyof typeof ADDED_CHAIN_FIELDS];
  return Array.isArray(initial) ? Array.isArray(value) && value.length === 0 : value === initial;
}

function listenerSource(listener: ListenerSpec): unknown {
  return {
    ...listener,
    filterChains: listener.filterChains.map((chain) =>
      Object.fromEntries(
        Object.entries(chain).filter(([key, value]) => !atAddedDefault(key, value)),
      ),
    ),
  };
}

function listenerFromSource(value: ListenerSpec): ListenerSpec {
  return {
    ...value,
    filterChains: value.filterChains.map((chain) => ({ ...ADDED_CHAIN_FIELDS, ...chain })),
  };
}

/** A secret's `values` (generic secrets, session ticket keys) came after TLS secrets were stored. */
function secretSource(secret: SecretSpec): unknown {
  const { values, ...rest } = secret;
  return values === undefined || values.length === 0 ? rest : secret;
}

function secretFromSource(value: SecretSpec): SecretSpec {
  return { ...value, values: value.values ?? [] };
}

/** The JSON a source object holds of `spec`: without the added fields at their old value. */
function sourceForm(kind: SourceKind, spec: unknown): unknown {
  if (kind === "listener") return listenerSource(spec as ListenerSpec);
  if (kind === "secret") return secretSource(spec as SecretSpec);
  return spec;
}

/** One object as a source object (see `sourceObjects`). */
export function sourceObject(kind: SourceKind, name: string, spec: unknown): SourceObject {
  const json = canonicalJson(sourceForm(kind, spec));
  return { kind, name, json, key: `source:${createHash("sha256").update(json).digest("hex")}` };
}

/** Every stored object of `spec` as a source object, in kind then name order. */
export function sourceObjects(spec: ConfigSpec): SourceObject[] {
  const byName = <T extends { name: string }>(items: readonly T[]) =>
    [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return [
    ...byName(spec.clusters).map((c) => sourceObject("cluster", c.name, c)),
    ...byName(spec.listeners).map((l) => sourceObject("listener", l.name, l)),
    ...byName(spec.routeConfigurations).map((r) => sourceObject("routeConfiguration", r.name, r)),
    ...byName(spec.nodeGroups).map((g) => sourceObject("nodeGroup", g.name, g)),
    ...byName(spec.runtimeLayers).map((r) => sourceObject("runtimeLayer", r.name, r)),
    // A secret's source holds its private key and values sealed, never in the clear (model.ts
    // SecretSpec).
    ...byName(spec.secrets).map((s) => sourceObject("secret", s.name, s)),
  ];
}

export function sourceManifest(objects: readonly SourceObject[]): SourceManifest {
  const manifest: Record<SourceKind, Record<string, string>> = {
    cluster: {},
    listener: {},
    routeConfiguration: {},
    nodeGroup: {},
    runtimeLayer: {},
    secret: {},
  };
  for (const object of objects) manifest[object.kind][object.name] = object.key;
  return manifest;
}

/**
 * A short identifier of a draft's whole content. A reviewer's diff carries it; a publish that
 * passes it is refused when the draft changed after the review. A kind with no object is left
 * out, so adding a kind to the model does not change the revision of drafts without it (and so
 * does not make open review requests out of date).
 */
export function draftRevision(manifest: SourceManifest): string {
  const present = Object.fromEntries(
    Object.entries(manifest).filter(
      ([kind, names]) => !ADDED_KINDS.has(kind) || Object.keys(names).length > 0,
    ),
  );
  return createHash("sha256").update(canonicalJson(present)).digest("hex").slice(0, 16);
}

/** Kinds added after draft revisions were first handed out (see draftRevision). */
const ADDED_KINDS: ReadonlySet<string> = new Set<SourceKind>(["runtimeLayer", "secret"]);

/**
 * The spec object a source object's JSON holds (the inverse of `sourceObject`): fields the source
 * leaves out at their default (ADDED_CHAIN_FIELDS, a secret's empty `values`) are put back. The caller knows the kind's type.
 */
export function specOfSource(kind: SourceKind, json: string): unknown {
  const value = JSON.parse(json) as unknown;
  if (kind === "listener") return listenerFromSource(value as ListenerSpec);
  if (kind === "secret") return secretFromSource(value as SecretSpec);
  return value;
}

/** Rebuilds a spec from source objects' JSON (the inverse of `sourceObjects`). */
export function specFromSources(objects: Iterable<{ kind: SourceKind; json: string }>): ConfigSpec {
  const clusters: ClusterSpec[] = [];
  const listeners: ListenerSpec[] = [];
  const routeConfigurations: RouteConfigurationSpec[] = [];
  const nodeGroups: NodeGroupSpec[] = [];
  const runtimeLayers: RuntimeLayerSpec[] = [];
  const secrets: SecretSpec[] = [];
  for (const object of objects) {
    const value = specOfSource(object.kind, object.json) as JsonValue;
    switch (object.kind) {
      case "cluster":
        clusters.push(value as unknown as ClusterSpec);
        break;
      case "listener":
        listeners.push(value as unknown as ListenerSpec);
        break;
      case "routeConfiguration":
        routeConfigurations.push(value as unknown as RouteConfigurationSpec);
        break;
      case "nodeGroup":
        nodeGroups.push(value as unknown as NodeGroupSpec);
        break;
      case "runtimeLayer":
        runtimeLayers.push(value as unknown as RuntimeLayerSpec);
        break;
      case "secret":
        secrets.push(value as unknown as SecretSpec);
        break;
    }
  }
  const byName = (a: { name: string }, b: { name: string }) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  return {
    clusters: clusters.sort(byName),
    listeners: listeners.sort(byName),
    routeConfigurations: routeConfigurations.sort(byName),
    nodeGroups: nodeGroups.sort(byName),
    runtimeLayers: runtimeLayers.sort(byName),
    secrets: secrets.sort(byName),
  };
}

export type ChangeKind = "added" | "modified" | "removed";

export interface SourceChange {
  readonly kind: SourceKind;
  readonly name: string;
  readonly change: ChangeKind;
  /** Source key before the change (absent when added). */
  readonly before?: string;
  /** Source key after the change (absent when removed). */
  readonly after?: string;
}

/** The objects that differ between two manifests, in kind then name order. */
export function diffManifests(before: SourceManifest, after: SourceManifest): SourceChange[] {
  const changes: SourceChange[] = [];
  for (const kind of SOURCE_KINDS) {
    // A manifest stored before a kind existed lacks it.
    const names = [
      ...new Set([...Object.keys(before[kind] ?? {}), ...Object.keys(after[kind] ?? {})]),
    ].sort();
    for (const name of names) {
      const was = before[kind]?.[name];
      const is = after[kind]?.[name];
      if (was === is) continue;
      if (was === undefined && is !== undefined)
        changes.push({ kind, name, change: "added", after: is });
      else if (is === undefined && was !== undefined)
        changes.push({ kind, name, change: "removed", before: was });
      else if (was !== undefined && is !== undefined)
        changes.push({ kind, name, change: "modified", before: was, after: is });
    }
  }
  return changes;
}
