/**
 * Which team owns each cluster and each secret, as published. An owner lives on its draft row; a
 * publish records every owner in the snapshot, so that a change whose row is gone (a deletion to
 * publish, an object a discard or rollback brings back, a name the draft deleted and re-created)
 * is still authorized against its real owner, never assumed to be the caller's.
 */
import type { TransactionClient } from "@switchyard/db";

/** Object name → owning team id; objects without an owner are absent. */
export type ClusterOwners = Readonly<Record<string, string>>;

/** The kinds of object a team owns by its row. */
export type OwnedKind = "cluster" | "secret";

async function ownedRows(tx: TransactionClient, kind: OwnedKind) {
  const where = { ownerTeamId: { not: null } };
  const select = { name: true, ownerTeamId: true } as const;
  return kind === "cluster"
    ? tx.cluster.findMany({ where, select })
    : tx.secret.findMany({ where, select });
}

/** The owners the draft's rows of `kind` have now. */
export async function draftOwners(tx: TransactionClient, kind: OwnedKind): Promise<ClusterOwners> {
  const rows = await ownedRows(tx, kind);
  return Object.fromEntries(rows.map((row) => [row.name, row.ownerTeamId as string]));
}

/** The owners the draft's cluster rows have now. */
export const draftClusterOwners = (tx: TransactionClient) => draftOwners(tx, "cluster");

/**
 * The owners of `kind` recorded with `version` (none for version 0, or a version from before
 * they were recorded).
 */
export async function publishedOwners(
  tx: TransactionClient,
  version: number,
  kind: OwnedKind,
): Promise<ClusterOwners> {
  if (version === 0) return {};
  const row = await tx.snapshot.findUnique({
    where: { version },
    select: { clusterOwners: true, secretOwners: true },
  });
  const owners = kind === "cluster" ? row?.clusterOwners : row?.secretOwners;
  return typeof owners === "object" && owners !== null && !Array.isArray(owners)
    ? (owners as ClusterOwners)
    : {};
}

/** The cluster owners recorded with `version`. */
export const publishedClusterOwners = (tx: TransactionClient, version: number) =>
  publishedOwners(tx, version, "cluster");

/**
 * Gives the objects `names` of `kind` (rows just re-created, e.g. by a rollback) the owners
 * `owners` records, for teams that still exist.
 */
export async function restoreOwners(
  tx: TransactionClient,
  kind: OwnedKind,
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
    const where = { name: { in: byTeam.get(id) ?? [] } };
    const data = { ownerTeamId: id };
    if (kind === "cluster") await tx.cluster.updateMany({ where, data });
    else await tx.secret.updateMany({ where, data });
  }
}

/** The objects a draft change re-creates get the owners `version` recorded, clusters and secrets. */
export async function restoreOwnersOf(
  tx: TransactionClient,
  version: number,
  names: Readonly<Record<OwnedKind, readonly string[]>>,
): Promise<void> {
  for (const kind of ["cluster", "secret"] as const) {
    if (names[kind].length > 0)
      await restoreOwners(tx, kind, await publishedOwners(tx, version, kind), names[kind]);
  }
}
