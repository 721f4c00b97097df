import type { TransactionClient } from "@switchyard/db";
import type { Prune } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ConfigSpec, ConfigSpecFragment } from "@switchyard/snapshot";
import { loadDomainOwnership, type Principal, virtualHostOwner } from "../auth/index.js";
import { draftClusterOwners, publishedClusterOwners } from "../store/cluster-owners.js";
import { sourceKindOf } from "./object-changes.js";
import {
  assertListed,
  callerSelector,
  type PruneCandidate,
  parseSelector,
  prunedObjects,
} from "./prune.js";

/**
 * The objects of `stored` an apply of `fragment` with `prune` deletes (none without `prune`), in
 * deletion order, read with the owners of `stored` as they stand in this transaction: a
 * cluster's is its draft row's (or, for one the draft deleted, the owner `version` recorded), a
 * route configuration's the team owning every one of its virtual hosts. Refused (before anything
 * is written) when the selector cannot be read, names another team for a member, or the prune
 * would delete what the caller did not list.
 */
export async function pruneDeletions(
  tx: TransactionClient,
  caller: Principal,
  stored: ConfigSpec,
  version: number,
  fragment: ConfigSpecFragment,
  prune: Prune | undefined,
): Promise<PruneCandidate[]> {
  if (prune === undefined) return [];
  const selector = callerSelector(parseSelector(prune.selector), caller);
  const teams = new Map(
    (await tx.team.findMany({ select: { id: true, name: true } })).map((t) => [t.id, t.name]),
  );
  const owners = {
    ...(await publishedClusterOwners(tx, version)),
    ...(await draftClusterOwners(tx)),
  };
  const ownership = await loadDomainOwnership(tx);
  const routeOwner = (rc: ConfigSpec["routeConfigurations"][number]): string | null => {
    const vhostTeams = new Set(
      rc.virtualHosts.map((vh) => virtualHostOwner(vh, ownership)?.teamName),
    );
    const [team] = vhostTeams;
    return vhostTeams.size === 1 && team !== undefined ? team : null;
  };
  const candidates: PruneCandidate[] = [
    ...stored.clusters.map((c) => {
      const teamId = owners[c.name];
      return {
        kind: "cluster" as const,
        name: c.name,
        team: teamId === undefined ? null : (teams.get(teamId) ?? null),
      };
    }),
    ...stored.routeConfigurations.map((rc) => ({
      kind: "routeConfiguration" as const,
      name: rc.name,
      team: routeOwner(rc),
    })),
    ...stored.listeners.map((l) => ({ kind: "listener" as const, name: l.name, team: null })),
    ...stored.runtimeLayers.map((r) => ({
      kind: "runtimeLayer" as const,
      name: r.name,
      team: null,
    })),
    ...stored.secrets.map((s) => ({ kind: "secret" as const, name: s.name, team: null })),
  ];
  const kept = new Set<string>();
  const keep = (kind: string, objects: readonly { readonly name: string }[] | undefined) => {
    for (const object of objects ?? []) kept.add(`${kind}/${object.name}`);
  };
  keep("cluster", fragment.clusters);
  keep("routeConfiguration", fragment.routeConfigurations);
  keep("listener", fragment.listeners);
  keep("runtimeLayer", fragment.runtimeLayers);
  keep("secret", fragment.secrets);
  const pruned = prunedObjects(candidates, kept, selector);
  if (prune.listed)
    assertListed(
      pruned,
      prune.deletions.map((ref) => ({ kind: sourceKindOf(ref.kind), name: ref.name })),
    );
  return pruned;
}

/** `spec` without the pruned objects. */
export function withoutPruned(spec: ConfigSpec, pruned: readonly PruneCandidate[]): ConfigSpec {
  if (pruned.length === 0) return spec;
  const gone = new Set(pruned.map((object) => `${object.kind}/${object.name}`));
  const keep = <T extends { readonly name: string }>(kind: string, objects: readonly T[]) =>
    objects.filter((object) => !gone.has(`${kind}/${object.name}`));
  return {
    ...spec,
    clusters: keep("cluster", spec.clusters),
    routeConfigurations: keep("routeConfiguration", spec.routeConfigurations),
    listeners: keep("listener", spec.listeners),
    runtimeLayers: keep("runtimeLayer", spec.runtimeLayers),
    secrets: keep("secret", spec.secrets),
  };
}
