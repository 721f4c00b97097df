import {
  ChangeType,
  type ObjectChange,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type HeldResources,
  type NodeConvergence,
  TypeConvergenceState,
} from "@switchyard/proto/switchyard/v1/status_pb";

const CDS = "type.googleapis.com/envoy.config.cluster.v3.Cluster";
const EDS = "type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment";
const LDS = "type.googleapis.com/envoy.config.listener.v3.Listener";
const RDS = "type.googleapis.com/envoy.config.route.v3.RouteConfiguration";

/**
 * The xDS types a stored object becomes. A cluster is a Cluster and its ClusterLoadAssignment of
 * the same name (a cluster with its own eds service_name is matched by cluster name only: the API
 * does not say the service name). Node groups are no xDS resource.
 */
const typesOfKind: Readonly<Partial<Record<ResourceKind, readonly string[]>>> = {
  [ResourceKind.CLUSTER]: [CDS, EDS],
  [ResourceKind.LISTENER]: [LDS],
  [ResourceKind.ROUTE_CONFIGURATION]: [RDS],
};

/** What the latest published version did to a resource, compared with the one before it. */
export type LatestChange = "unchanged" | "added" | "modified" | "removed";

/**
 * One resource, held vs intended:
 * - `current`: held, and the node's type is in sync with the latest version (or the latest
 *   publish did not touch it).
 * - `outdated`: held, changed by the latest publish, and the type is not in sync yet: the node
 *   still runs the previous content.
 * - `missing`: added by the latest publish, not held, and the type is not in sync: on its way (or
 *   rejected).
 * - `to-remove`: removed by the latest publish and still held.
 * - `not-for-node`: added by the latest publish, not held, and the type is in sync: the node's
 *   group does not give it (or the node did not ask for it).
 * - `unknown`: the server cannot tell whether the type is in sync (versions not reported), or
 *   there is no published version to compare with.
 */
export type ResourceVerdict =
  | "current"
  | "outdated"
  | "missing"
  | "to-remove"
  | "not-for-node"
  | "unknown";

export interface ResourceRow {
  readonly name: string;
  /** The version the node ACKed ("" when the transport does not report versions); undefined: not held. */
  readonly heldVersion: string | undefined;
  readonly latest: LatestChange;
  readonly verdict: ResourceVerdict;
}

export type TypeSyncState = "in-sync" | "behind" | "nacked" | "unknown";

export interface TypeComparison {
  readonly typeUrl: string;
  /** Undefined when there is no published version, or the node is not among its targets. */
  readonly state: TypeSyncState | undefined;
  readonly versionsKnown: boolean;
  /** Sorted by name. */
  readonly rows: readonly ResourceRow[];
}

const syncState: Record<TypeConvergenceState, TypeSyncState> = {
  [TypeConvergenceState.UNSPECIFIED]: "unknown",
  [TypeConvergenceState.IN_SYNC]: "in-sync",
  [TypeConvergenceState.BEHIND]: "behind",
  [TypeConvergenceState.NACKED]: "nacked",
  [TypeConvergenceState.UNKNOWN]: "unknown",
};

const changeOf: Record<ChangeType, LatestChange> = {
  [ChangeType.UNSPECIFIED]: "unchanged",
  [ChangeType.ADDED]: "added",
  [ChangeType.MODIFIED]: "modified",
  [ChangeType.REMOVED]: "removed",
};

function verdict(
  held: boolean,
  latest: LatestChange,
  state: TypeSyncState | undefined,
): ResourceVerdict {
  if (state === undefined || state === "unknown")
    return held && latest === "unchanged" ? "current" : "unknown";
  if (state === "in-sync") return held ? "current" : "not-for-node";
  if (!held) return "missing";
  if (latest === "removed") return "to-remove";
  if (latest === "modified") return "outdated";
  return "current";
}

/**
 * Resource by resource, what the node holds (its latest ACK of each type, from NodeDetail.held)
 * against the latest published version: the node's per-type state in that version's convergence
 * (`node`), and the objects that version added, modified or removed (`changes`, from GetSnapshot).
 * The server compares full resource versions; the console only sees which objects the publish
 * touched, so a resource untouched by it is `current` once held.
 */
export function compareHeld(
  held: readonly HeldResources[],
  node: NodeConvergence | undefined,
  changes: readonly ObjectChange[],
): TypeComparison[] {
  const changed = new Map<string, Map<string, LatestChange>>();
  for (const change of changes) {
    for (const typeUrl of typesOfKind[change.kind] ?? []) {
      const byName = changed.get(typeUrl) ?? new Map<string, LatestChange>();
      byName.set(change.name, changeOf[change.change]);
      changed.set(typeUrl, byName);
    }
  }
  return held.map((h) => {
    const t = node?.types.find((x) => x.typeUrl === h.typeUrl);
    const state = t === undefined ? undefined : syncState[t.state];
    const touched = changed.get(h.typeUrl) ?? new Map<string, LatestChange>();
    const names = new Set([...Object.keys(h.resources), ...touched.keys()]);
    const rows: ResourceRow[] = [];
    for (const name of [...names].sort()) {
      const heldVersion = Object.hasOwn(h.resources, name) ? h.resources[name] : undefined;
      const latest = touched.get(name) ?? "unchanged";
      // A removal the node never held is no news for it.
      if (heldVersion === undefined && latest === "removed") continue;
      rows.push({
        name,
        heldVersion,
        latest,
        verdict: verdict(heldVersion !== undefined, latest, state),
      });
    }
    return { typeUrl: h.typeUrl, state, versionsKnown: h.versionsKnown, rows };
  });
}
