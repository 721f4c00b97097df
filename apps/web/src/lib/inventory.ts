import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ResourceKind, type ResourceSummary } from "@switchyard/proto/switchyard/v1/config_pb";
import { type ResourceKindName, resourceKindLabels, resourceKinds } from "./resource-kinds";

/** How the console names one kind of stored object. */
export interface KindInfo {
  /** `undefined` for the catch-all group of kinds this console does not know yet. */
  readonly kind: ResourceKind | undefined;
  /** Used in element ids and URL fragments: `#clusters`, `#cluster-backend`. */
  readonly slug: string;
  readonly singularSlug: string;
  readonly title: string;
  readonly singular: string;
}

/** How the inventory names each kind (its label in sentences is resource-kinds.ts's). */
const kindNames: Record<ResourceKindName, Omit<KindInfo, "kind" | "singular">> = {
  CLUSTER: { slug: "clusters", singularSlug: "cluster", title: "Clusters" },
  LISTENER: { slug: "listeners", singularSlug: "listener", title: "Listeners" },
  ROUTE_CONFIGURATION: {
    slug: "route-configurations",
    singularSlug: "route-configuration",
    title: "Route configurations",
  },
  NODE_GROUP: { slug: "node-groups", singularSlug: "node-group", title: "Node groups" },
  RUNTIME_LAYER: { slug: "runtime-layers", singularSlug: "runtime-layer", title: "Runtime layers" },
  SECRET: { slug: "secrets", singularSlug: "secret", title: "Secrets" },
};

/**
 * The known kinds: every ResourceKind, in proto order, which is the order the API sorts them
 * (config.proto: "Sorted by kind, then name").
 */
export const knownKinds: readonly KindInfo[] = resourceKinds.map((name) => ({
  kind: ResourceKind[name],
  ...kindNames[name],
  singular: resourceKindLabels[name],
}));

/**
 * Objects of a kind added to the API after this console was built (or left unspecified) are
 * still shown, under this group, rather than silently dropped.
 */
export const otherKind: KindInfo = {
  kind: undefined,
  slug: "other",
  singularSlug: "other",
  title: "Other",
  singular: "object",
};

/** Where a reference points: the row of the stored object with that name, if there is one. */
export type ReferenceTarget =
  | {
      readonly t: "stored";
      readonly name: string;
      readonly anchor: string;
      readonly kind: KindInfo;
    }
  | { readonly t: "missing"; readonly name: string };

export interface InventoryRow {
  readonly name: string;
  readonly description: string;
  readonly references: readonly ReferenceTarget[];
  readonly updated: Date | undefined;
  /** The row's element id, so references elsewhere can link to it. */
  readonly anchor: string;
}

export interface InventoryGroup {
  readonly kind: KindInfo;
  readonly rows: readonly InventoryRow[];
}

export interface Inventory {
  /** Every known kind, in display order, even when empty; then "Other" if anything is in it. */
  readonly groups: readonly InventoryGroup[];
  readonly total: number;
}

export function kindInfo(kind: ResourceKind): KindInfo {
  return knownKinds.find((k) => k.kind === kind) ?? otherKind;
}

export function rowAnchor(kind: KindInfo, name: string): string {
  return `${kind.singularSlug}-${name}`;
}

/**
 * Groups a ListResources answer by kind and resolves each reference to the stored object it
 * names. A reference is matched by name, preferring an object of another kind (a listener names
 * a route configuration, a route configuration names clusters); one that matches nothing is
 * reported as missing rather than hidden, since a dangling reference is worth seeing.
 */
export function buildInventory(resources: readonly ResourceSummary[]): Inventory {
  const byName = new Map<string, { kind: KindInfo; name: string }[]>();
  for (const r of resources) {
    const entry = { kind: kindInfo(r.kind), name: r.name };
    const same = byName.get(r.name);
    if (same) same.push(entry);
    else byName.set(r.name, [entry]);
  }

  const resolve = (own: KindInfo, name: string): ReferenceTarget => {
    const candidates = byName.get(name) ?? [];
    const target = candidates.find((c) => c.kind !== own) ?? candidates[0];
    return target
      ? { t: "stored", name, kind: target.kind, anchor: rowAnchor(target.kind, name) }
      : { t: "missing", name };
  };

  const rowsByKind = new Map<KindInfo, InventoryRow[]>();
  for (const r of resources) {
    const kind = kindInfo(r.kind);
    const row: InventoryRow = {
      name: r.name,
      description: r.description,
      // The same name can be referenced twice (two routes to one cluster); list it once.
      references: [...new Set(r.references)].map((ref) => resolve(kind, ref)),
      updated: r.updateTime ? timestampDate(r.updateTime) : undefined,
      anchor: rowAnchor(kind, r.name),
    };
    const rows = rowsByKind.get(kind);
    if (rows) rows.push(row);
    else rowsByKind.set(kind, [row]);
  }

  const groups: InventoryGroup[] = knownKinds.map((kind) => ({
    kind,
    rows: rowsByKind.get(kind) ?? [],
  }));
  const other = rowsByKind.get(otherKind);
  if (other) groups.push({ kind: otherKind, rows: other });

  return { groups, total: resources.length };
}
