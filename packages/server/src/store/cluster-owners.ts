/**
 * Which team owns each cluster, as published. A cluster's owner lives on its draft row; a publish
 * records every owner in the snapshot, so that a change whose row is gone (a deletion to publish,
 * a cluster a rollback brings back) is still authorized against its real owner, never assumed to
 * be the caller's.
 */
import type { TransactionClient } from "@switchyard/db";

/** Cluster name → owning team id; clusters without an owner are absent. */
export type ClusterOwners = Readonly<Record<string, string>>;

/** The owners the draft's cluster rows have now. */
export async function draftClusterOwners(tx: TransactionClient): Promise<ClusterOwners> {
  const rows = await tx.cluster.findMany({
    where: { ownerTeamId: { not: null } },
    select: { name: true, ownerTeamId: true },
  });
  return Object.fromEntries(rows.map((row) => [row.name, row.ownerTeamId as string]));
}

/** The owners recorded with `version` (none for version 0, or a version from before records). */
export async function publishedClusterOwners(
  tx: TransactionClient,
  version: number,
): Promise<ClusterOwners> {
  if (version === 0) return {};
  const row = await tx.snapshot.findUnique({
    where: { version },
    select: { clusterOwners: true },
  });
  const owners = row?.clusterOwners;
  return typeof owners === "object" && owners !== null && !Array.isArray(owners)
    ? (owners as ClusterOwners)
    : {};
}

/**
 * Gives the clusters `names` (rows just re-created, e.g. by a rollback) the owners `owners`
 * records, for teams that still exist.
 */
export async function restoreClusterOwners(
  tx: TransactionClient,
  owners: ClusterOwners,
  names: readonly string[],
): Promise<void> {
  const byTeam = new Map<string, string[]>();
  for (const name of names) {
    const team = owners[name];
    if (team !== undefined) byTeam.set(team, [...(byTeam.get(team) ?? []), name]);
  }
  if (byTeam.size === 0) return;
  const teams = await tx.team.findMany({ where: { id: { in: [...byTeam.keys()] } } });
  for (const { id } of teams) {
    await tx.cluster.updateMany({
      where: { name: { in: byTeam.get(id) ?? [] } },
      data: { ownerTeamId: id },
    });
  }
}
