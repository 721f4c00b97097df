/**
 * What a team may use: references are authorized, not only objects (README, "Access control").
 * A member's object may name only what their team may use: the team's own clusters and secrets,
 * and objects an admin shared with the team (Share rows). Listeners and route configurations
 * belong to admins: a team may name one only when it is shared with the team. Where the request
 * picks the cluster (cluster_header, a cluster specifier plugin) a route could reach any cluster
 * of the proxy, so only an admin may write one.
 *
 * Pure: the API layer loads the grants (loadGrants) in the transaction of the change they judge.
 * The references come from the one table compile and validation read (object-references.ts in
 * @switchyard/snapshot); every kind of it is decided here, so a new kind must be decided before
 * it compiles.
 */
import { createHash } from "node:crypto";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type ClusterSpec,
  clusterReferences,
  type ModelReference,
  type ReferenceKind,
  type RouteConfigurationSpec,
  routeConfigurationReferences,
  type SecretReferrer,
} from "@switchyard/snapshot";
import type { Decision } from "./authorize.js";
import { routeConfigurationChanges } from "./ownership.js";

/** Who may use each object: its owner team and the teams it is shared with. */
export interface Grants {
  /** The names of each kind in the draft, with their owner team (null: an admin's). */
  readonly owners: Readonly<Record<ReferenceKind, ReadonlyMap<string, string | null>>>;
  /** `kind\0name` → the teams it is shared with. */
  readonly shares: ReadonlyMap<string, ReadonlySet<string>>;
  /** Team id → name, for messages. */
  readonly teamNames: ReadonlyMap<string, string>;
}

const shareKey = (kind: ReferenceKind, name: string) => `${kind}\u0000${name}`;

/**
 * A digest of everything in `grants`, in an order of its own (not the rows'): equal for equal
 * grants, so a result computed from them (the draft's validation report, snapshot-store.ts) is
 * reused only while they are unchanged.
 */
export function grantsRevision(grants: Grants): string {
  const hash = createHash("sha256");
  const entries = <V>(map: ReadonlyMap<string, V>): [string, V][] =>
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const kind of Object.keys(grants.owners).sort() as ReferenceKind[])
    hash.update(JSON.stringify([kind, entries(grants.owners[kind])]));
  hash.update(
    JSON.stringify(entries(grants.shares).map(([key, teams]) => [key, [...teams].sort()])),
  );
  hash.update(JSON.stringify(entries(grants.teamNames)));
  return hash.digest("base64url");
}

/**
 * Whether objects of the kind have an owner team. Exhaustive over ReferenceKind: a new kind of
 * reference fails to compile until it is decided here.
 */
function ownedByTeams(kind: ReferenceKind): boolean {
  switch (kind) {
    case "cluster":
    case "secret":
      return true;
    case "listener":
    case "routeConfiguration":
      return false;
  }
}

/** Whether team `teamId` may name `name` of `kind`: its own, or shared with it. */
export function mayUse(grants: Grants, teamId: string, kind: ReferenceKind, name: string): boolean {
  if (ownedByTeams(kind) && grants.owners[kind].get(name) === teamId) return true;
  return grants.shares.get(shareKey(kind, name))?.has(teamId) ?? false;
}

/**
 * What a publish serves secrets for (compile's maySecretServe): an admin's object (a listener, a
 * cluster no team owns) any secret; a team's cluster the secrets its team may use.
 */
export function secretServing(grants: Grants) {
  return (secret: string, referrer: SecretReferrer): boolean => {
    if (referrer.kind === "listener") return true;
    const owner = grants.owners.cluster.get(referrer.name) ?? null;
    return owner === null || mayUse(grants, owner, "secret", secret);
  };
}

const KIND_WORDS: Readonly<Record<ReferenceKind, string>> = {
  cluster: "cluster",
  secret: "secret",
  listener: "internal listener",
  routeConfiguration: "route configuration",
};

const SHARE_KIND: Readonly<Record<ReferenceKind, string>> = {
  cluster: "cluster",
  secret: "secret",
  listener: "listener",
  routeConfiguration: "route-configuration",
};

/** The first reference of `references` team `teamId` may not make, as a denial; null if none. */
function firstUnusable(
  grants: Grants,
  team: { readonly id: string; readonly name: string },
  object: string,
  references: readonly ModelReference[],
  created: ReadonlyMap<string, string>,
): Decision | null {
  for (const reference of references) {
    const at = `${object} (${reference.path})`;
    if (reference.chosenByRequest) {
      return {
        t: "deny",
        message: `${at}: the request picks the cluster here, so it could reach any cluster of the proxy, another team's too; only an admin may write it. Name team ${team.name}'s clusters instead`,
      };
    }
    const { kind, name } = reference;
    const words = KIND_WORDS[kind];
    if (kind === "cluster" && created.get(name) === team.id) continue;
    const owners = grants.owners[kind];
    if (!owners.has(name) && !(kind === "cluster" && created.has(name))) {
      return {
        t: "deny",
        message: `${at} names ${words} ${name}, which does not exist: a member may name only what their team may use, so create it first (in the same apply, for a cluster)`,
      };
    }
    if (mayUse(grants, team.id, kind, name)) continue;
    const owner = owners.get(name) ?? created.get(name) ?? null;
    const whose =
      owner === null ? "an admin's" : `team ${grants.teamNames.get(owner) ?? "(another)"}'s`;
    return {
      t: "deny",
      message: `${at} names ${words} ${name}, which is ${whose} and not shared with team ${team.name}: ask an admin to share it (switchyard share ${SHARE_KIND[kind]} ${name} --team ${team.name})`,
    };
  }
  return null;
}

/** One object a member's change writes: its stored spec (null if new) and the new one. */
export interface ReferencingWrite {
  readonly kind: string;
  readonly name: string;
  readonly before: unknown;
  readonly after: unknown;
}

/**
 * The references a write adds or keeps in what it changes: every reference of a cluster; of a
 * route configuration, those of the virtual hosts it adds or changes, and of its own fields when
 * they are new or changed. What it leaves as it was is its owners' to answer for.
 */
export function referencesOfWrite(write: ReferencingWrite): readonly ModelReference[] {
  if (write.after === null) return [];
  if (write.kind === "cluster") return clusterReferences(write.after as ClusterSpec);
  if (write.kind !== "routeConfiguration") return [];
  const before = write.before as RouteConfigurationSpec | null;
  const after = write.after as RouteConfigurationSpec;
  const changes = routeConfigurationChanges(before, after);
  const changed = new Set(
    changes.virtualHosts.filter((vh) => vh.after !== null).map((vh) => vh.name),
  );
  const ownFields = before === null || changes.ownFieldsChanged;
  return routeConfigurationReferences(after).filter((reference) =>
    reference.virtualHost === undefined ? ownFields : changed.has(reference.virtualHost),
  );
}

/**
 * Whether team `team` may make the references of `writes`: each names an object that exists (in
 * the draft, or a cluster the same writes create for the team: `created`, name → owner team) and
 * that the team may use. Admins are not asked.
 */
export function referencesDecision(
  grants: Grants,
  team: { readonly id: string; readonly name: string },
  writes: readonly ReferencingWrite[],
  created: ReadonlyMap<string, string> = new Map(),
): Decision {
  for (const write of writes) {
    const object = `${write.kind === "cluster" ? "cluster" : "route configuration"} ${write.name}`;
    const denial = firstUnusable(grants, team, object, referencesOfWrite(write), created);
    if (denial !== null) return denial;
  }
  return { t: "allow" };
}

/** The draft's grants: every object's owner, the shares, the team names. A few small queries. */
export async function loadGrants(db: PrismaClient | TransactionClient): Promise<Grants> {
  const [clusters, secrets, listeners, routeConfigurations, shares, teams] = await Promise.all([
    db.cluster.findMany({ select: { name: true, ownerTeamId: true } }),
    db.secret.findMany({ select: { name: true, ownerTeamId: true } }),
    db.listener.findMany({ select: { name: true } }),
    db.routeConfiguration.findMany({ select: { name: true } }),
    db.share.findMany({ select: { kind: true, name: true, teamId: true } }),
    db.team.findMany({ select: { id: true, name: true } }),
  ]);
  const byKey = new Map<string, Set<string>>();
  for (const share of shares) {
    const key = `${share.kind}\u0000${share.name}`;
    byKey.set(key, (byKey.get(key) ?? new Set()).add(share.teamId));
  }
  const unowned = (rows: readonly { name: string }[]) =>
    new Map(rows.map((row) => [row.name, null] as const));
  return {
    owners: {
      cluster: new Map(clusters.map((c) => [c.name, c.ownerTeamId])),
      secret: new Map(secrets.map((s) => [s.name, s.ownerTeamId])),
      listener: unowned(listeners),
      routeConfiguration: unowned(routeConfigurations),
    },
    shares: byKey,
    teamNames: new Map(teams.map((t) => [t.id, t.name])),
  };
}
