import type { TransactionClient } from "@switchyard/db";
import type { Prune } from "@switchyard/proto/switchyard/v1/config_pb";
import {
  type ConfigSpec,
  type ConfigSpecFragment,
  ENVOY_KINDS,
  envoyObjectsWhere,
  SPEC_FIELD,
} from "@switchyard/snapshot";
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
  fragment: Partial<ConfigSpecFragment>,
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
    // Only admins write these: they belong to no team.
    ...(["listener", "runtimeLayer", "secret"] as const).flatMap((kind) =>
      stored[SPEC_FIELD[kind]].map((o) => ({ kind, name: o.name, team: null })),
    ),
  ];
  const kept = new Set(
    ENVOY_KINDS.flatMap((kind) =>
      ((fragment[SPEC_FIELD[kind]] ?? []) as readonly { readonly name: string }[]).map(
        (o) => `${kind}/${o.name}`,
      ),
    ),
  );
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
  return { ...spec, ...envoyObjectsWhere(spec, (kind, name) => !gone.has(`${kind}/${name}`)) };
}
