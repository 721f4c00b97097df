import {
  ChangeType,
  type Issue,
  type ObjectChange,
  ResourceKind,
  Severity,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { resourceKindLabels, resourceKindName } from "./resource-kinds";

/** The console page of one stored object, or `undefined` for kinds that have none (node groups). */
export function objectHref(kind: ResourceKind, name: string): string | undefined {
  const n = encodeURIComponent(name);
  switch (kind) {
    case ResourceKind.CLUSTER:
      return `/clusters/${n}`;
    case ResourceKind.LISTENER:
      return `/listeners/${n}`;
    case ResourceKind.ROUTE_CONFIGURATION:
      return `/routes/${n}`;
    case ResourceKind.RUNTIME_LAYER:
      return `/runtime/${n}`;
    case ResourceKind.SECRET:
      return `/secrets/${n}`;
    default:
      return undefined;
  }
}

/** "cluster", "route configuration" (resource-kinds.ts); "object" for UNSPECIFIED, newer kinds. */
export function kindLabel(kind: ResourceKind): string {
  const name = resourceKindName(kind);
  return name === undefined ? "object" : resourceKindLabels[name];
}

export type ChangeVerb = "added" | "modified" | "removed";

export function changeVerb(change: ChangeType): ChangeVerb {
  if (change === ChangeType.ADDED) return "added";
  if (change === ChangeType.REMOVED) return "removed";
  return "modified";
}

export interface ChangeCounts {
  readonly added: number;
  readonly modified: number;
  readonly removed: number;
  readonly total: number;
}

export function countChanges(changes: readonly ObjectChange[]): ChangeCounts {
  const counts = { added: 0, modified: 0, removed: 0 };
  for (const c of changes) counts[changeVerb(c.change)]++;
  return { ...counts, total: changes.length };
}

/** "2 added, 1 modified" (kinds with no change left out); "no changes" when empty. */
export function describeCounts(counts: Omit<ChangeCounts, "total">): string {
  const parts = (["added", "modified", "removed"] as const)
    .filter((k) => counts[k] > 0)
    .map((k) => `${counts[k]} ${k}`);
  return parts.length > 0 ? parts.join(", ") : "no changes";
}

/** A stable key for one object, e.g. for React lists and element ids: `cluster:backend`. */
export function changeKey(change: Pick<ObjectChange, "kind" | "name">): string {
  return `${kindLabel(change.kind).replace(/ /g, "-")}:${change.name}`;
}

/** The model's collection name in issue paths, per kind (see validate-path in @switchyard/snapshot). */
const pathCollections: Record<string, ResourceKind> = {
  clusters: ResourceKind.CLUSTER,
  listeners: ResourceKind.LISTENER,
  routeConfigurations: ResourceKind.ROUTE_CONFIGURATION,
  nodeGroups: ResourceKind.NODE_GROUP,
};

/**
 * The object a validation issue is about, from its path (`routeConfigurations["edge"].virtualHosts…`),
 * or `undefined` when the path names no single object.
 */
export function issueObject(path: string): { kind: ResourceKind; name: string } | undefined {
  const m = /^(\w+)\["((?:[^"\\]|\\.)*)"\]/.exec(path);
  if (!m) return undefined;
  const kind = pathCollections[m[1] ?? ""];
  if (kind === undefined) return undefined;
  return { kind, name: (m[2] ?? "").replace(/\\(.)/g, "$1") };
}

export interface IssueGroups {
  readonly errors: readonly Issue[];
  readonly warnings: readonly Issue[];
  readonly notes: readonly Issue[];
}

export function groupIssues(issues: readonly Issue[]): IssueGroups {
  return {
    errors: issues.filter((i) => i.severity === Severity.ERROR),
    warnings: issues.filter((i) => i.severity === Severity.WARNING),
    notes: issues.filter((i) => i.severity !== Severity.ERROR && i.severity !== Severity.WARNING),
  };
}

/** The issues that concern one changed object, so they can be shown next to its diff. */
export function issuesFor(
  issues: readonly Issue[],
  change: Pick<ObjectChange, "kind" | "name">,
): Issue[] {
  return issues.filter((i) => {
    const o = issueObject(i.path);
    return o?.kind === change.kind && o.name === change.name;
  });
}

const kindOrder: readonly ResourceKind[] = [
  ResourceKind.LISTENER,
  ResourceKind.ROUTE_CONFIGURATION,
  ResourceKind.CLUSTER,
  ResourceKind.NODE_GROUP,
];

/** Changes in reading order: by kind from the edge inwards (listener → routes → cluster), then name. */
export function sortChanges(changes: readonly ObjectChange[]): ObjectChange[] {
  const rank = (k: ResourceKind) => {
    const i = kindOrder.indexOf(k);
    return i === -1 ? kindOrder.length : i;
  };
  return [...changes].sort((a, b) => rank(a.kind) - rank(b.kind) || a.name.localeCompare(b.name));
}
