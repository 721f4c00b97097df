/**
 * Authorization and audit of configuration writes, publishes and rollbacks, against the objects as
 * stored (auth/index.ts, steps 3 and 4). Every function runs inside the transaction of the change
 * it guards: the check reads what the change will overwrite, and the audit event commits or rolls
 * back with the change.
 */
import type { TransactionClient } from "@switchyard/db";
import {
  type ClusterSpec,
  type ConfigSpec,
  clusterLocalSources,
  type ListenerSpec,
  listenerLocalSources,
  type ModelLocalSource,
  type RouteConfigurationSpec,
  routeConfigurationLocalSources,
  type SecretSpec,
  type SourceChange,
  type SourceKind,
  sealedMarker,
} from "@switchyard/snapshot";
import { loadGrants, referencesDecision } from "../auth/grants.js";
import {
  assertAllowed,
  auditActor,
  authorize,
  type Decision,
  type DomainOwnership,
  type DraftChange,
  loadDomainOwnership,
  type Principal,
  recordAudits,
} from "../auth/index.js";
import { localSourcesDecision } from "../auth/local-sources.js";
import {
  type ClusterOwners,
  type OwnedKind,
  publishedClusterOwners,
  publishedOwners,
} from "../store/cluster-owners.js";
import { latestManifests, specOfVersion } from "../store/publish-transaction.js";

/** One object written to the draft: its stored spec (null if new) and the new one (null if deleted). */
export interface ObjectWrite {
  readonly kind: SourceKind;
  readonly name: string;
  readonly before: unknown;
  readonly after: unknown;
}

const changeOf = (write: ObjectWrite) =>
  write.before === null ? "added" : write.after === null ? "removed" : "modified";

/** The team owning a cluster a change touches, or null (an admin's). */
type OwnerOf = (name: string, change: "added" | "modified" | "removed") => Promise<string | null>;

async function draftRowOwner(tx: TransactionClient, name: string) {
  const row = await tx.cluster.findUnique({ where: { name }, select: { ownerTeamId: true } });
  return row === null ? undefined : row.ownerTeamId;
}

/**
 * The owner a cluster or secret the draft adds gets: a name the latest version holds stays its
 * owner's (an admin's, when no team owned it there) until a published version deletes it, so a
 * draft deletion never frees it for another team; a new cluster's name is its author's team's
 * (an admin's own), a new secret's an admin's. README, "Access control".
 */
function addedOwner(tx: TransactionClient, principal: Principal) {
  let latest: ReturnType<typeof latestManifests> | undefined;
  const published = new Map<OwnedKind, Promise<ClusterOwners>>();
  return async (kind: OwnedKind, name: string): Promise<string | null> => {
    latest ??= latestManifests(tx, undefined);
    const version = await latest;
    if (version?.sources[kind][name] !== undefined) {
      let owners = published.get(kind);
      if (owners === undefined) {
        owners = publishedOwners(tx, version.version, kind);
        published.set(kind, owners);
      }
      return (await owners)[name] ?? null;
    }
    return kind === "cluster" && principal.role === "MEMBER" ? (principal.team?.id ?? null) : null;
  };
}

/**
 * A write to the draft: a new cluster will be the owner addedOwner says (claimNewOwners); any
 * other is its row's.
 */
function writeOwner(tx: TransactionClient, principal: Principal): OwnerOf {
  const added = addedOwner(tx, principal);
  return async (name, change) =>
    change === "added" ? added("cluster", name) : ((await draftRowOwner(tx, name)) ?? null);
}

/**
 * A publish (or rollback) of the draft: the owner is the draft row's, whoever published it
 * first; a deleted cluster's is the one the latest version recorded (cluster-owners.ts). Never
 * the caller's by assumption.
 */
async function publishOwner(tx: TransactionClient, latestVersion: number): Promise<OwnerOf> {
  const published = await publishedClusterOwners(tx, latestVersion);
  return async (name) => {
    const row = await draftRowOwner(tx, name);
    return row !== undefined ? row : (published[name] ?? null);
  };
}

async function draftChangeOf(write: ObjectWrite, ownerOf: OwnerOf): Promise<DraftChange> {
  const change = changeOf(write);
  switch (write.kind) {
    case "cluster":
      return {
        kind: "cluster",
        name: write.name,
        change,
        ownerTeamId: await ownerOf(write.name, change),
      };
    case "routeConfiguration":
      return {
        kind: "routeConfiguration",
        name: write.name,
        before: write.before as RouteConfigurationSpec | null,
        after: write.after as RouteConfigurationSpec | null,
      };
    case "listener":
    case "nodeGroup":
    case "runtimeLayer":
    case "secret":
      return { kind: write.kind, name: write.name, change };
  }
}

/** What a write may hold beyond its author's role (auth/local-sources.ts). */
export interface WritePolicy {
  /** Directories under which members may make proxies read files. */
  readonly memberFileDirs: readonly string[];
}

export const DEFAULT_WRITE_POLICY: WritePolicy = { memberFileDirs: [] };

/** The files and environment variables a written object would make proxies read. */
function localSourcesOf(write: ObjectWrite): readonly ModelLocalSource[] {
  if (write.after === null) return [];
  switch (write.kind) {
    case "cluster":
      return clusterLocalSources(write.after as ClusterSpec);
    case "routeConfiguration":
      return routeConfigurationLocalSources(write.after as RouteConfigurationSpec);
    case "listener":
      return listenerLocalSources(write.after as ListenerSpec);
    default:
      return [];
  }
}

/**
 * Throws PermissionDenied unless `principal` may make every one of `writes` (clusters by their
 * stored owner, virtual hosts by the domains their team owns, files and environment variables
 * proxies would read by `policy`), then, for a member, makes the clusters they create their
 * team's. Call after reading the stored objects and before committing.
 */
export async function authorizeWrites(
  tx: TransactionClient,
  principal: Principal,
  writes: readonly ObjectWrite[],
  policy: WritePolicy = DEFAULT_WRITE_POLICY,
): Promise<void> {
  const ownerOf = writeOwner(tx, principal);
  await authorizeEdits(tx, principal, writes, ownerOf, (write) => {
    if (principal.role !== "ADMIN") {
      assertAllowed(localSourcesDecision(principal, localSourcesOf(write), policy.memberFileDirs));
    }
  });
  await authorizeReferences(tx, principal, writes, ownerOf);
}

/**
 * Throws PermissionDenied unless a member may make every reference `writes` add or keep in what
 * they change (auth/grants.ts): each names an object of their team's, or one shared with it.
 * The clusters the writes add count as the owner `ownerOf` gives them.
 */
async function authorizeReferences(
  tx: TransactionClient,
  principal: Principal,
  writes: readonly ObjectWrite[],
  ownerOf: OwnerOf,
): Promise<void> {
  if (principal.role === "ADMIN" || principal.team === null) return;
  const referencing = writes.filter(
    (w) => w.after !== null && (w.kind === "cluster" || w.kind === "routeConfiguration"),
  );
  if (referencing.length === 0) return;
  const created = new Map<string, string>();
  for (const write of writes) {
    if (write.kind !== "cluster" || changeOf(write) !== "added") continue;
    const owner = await ownerOf(write.name, "added");
    if (owner !== null) created.set(write.name, owner);
  }
  assertAllowed(referencesDecision(await loadGrants(tx), principal.team, referencing, created));
}

/**
 * Throws PermissionDenied unless `principal` may edit each object `writes` touches: clusters by
 * the owner `ownerOf` says, virtual hosts by the domains their team owns; `also` adds a check.
 */
async function authorizeEdits(
  tx: TransactionClient,
  principal: Principal,
  writes: readonly ObjectWrite[],
  ownerOf: OwnerOf,
  also: (write: ObjectWrite) => void = () => undefined,
): Promise<void> {
  let ownership: DomainOwnership | undefined;
  for (const write of writes) {
    const change = await draftChangeOf(write, ownerOf);
    if (change.kind === "routeConfiguration") {
      ownership ??= await loadDomainOwnership(tx);
      assertAllowed(authorize(principal, "write", { ...change, ownership }));
    } else assertAllowed(authorize(principal, "write", change));
    also(write);
  }
}

/**
 * After the writes: each cluster and secret they added gets its owner (addedOwner): the one the
 * latest version recorded for its name, else a member author's team (auth/index.ts, step 4).
 */
export async function claimNewOwners(
  tx: TransactionClient,
  principal: Principal,
  writes: readonly ObjectWrite[],
): Promise<void> {
  const ownerOf = addedOwner(tx, principal);
  for (const kind of ["cluster", "secret"] as const) {
    const byOwner = new Map<string, string[]>();
    for (const write of writes) {
      if (write.kind !== kind || write.before !== null || write.after === null) continue;
      const owner = await ownerOf(kind, write.name);
      if (owner !== null) byOwner.set(owner, [...(byOwner.get(owner) ?? []), write.name]);
    }
    for (const [ownerTeamId, names] of byOwner) {
      const where = { name: { in: names } };
      if (kind === "cluster") await tx.cluster.updateMany({ where, data: { ownerTeamId } });
      else await tx.secret.updateMany({ where, data: { ownerTeamId } });
    }
  }
}

const VERB = { added: "create", modified: "update", removed: "delete" } as const;

/**
 * An object as the audit log keeps it: a secret's sealed private key and values are replaced by
 * markers of which sealed text each was (so a change shows), never the sealed text itself
 * (model.ts SecretSpec: secret material is never shown back, not even encrypted).
 */
function shownInAudit(kind: SourceKind, object: unknown): unknown {
  if (kind !== "secret" || object === null) return object;
  const secret = object as SecretSpec;
  return {
    ...secret,
    privateKey: secret.privateKey === null ? null : sealedMarker(secret.privateKey),
    values: (secret.values ?? []).map((value) => sealedMarker(value, "value")),
  };
}

/** One audit event per written object: "cluster.update" on "cluster/payments", with the diff. */
export async function auditWrites(
  tx: TransactionClient,
  principal: Principal,
  ip: string,
  writes: readonly ObjectWrite[],
  detail: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  await recordAudits(
    tx,
    writes.map((write) => ({
      ...auditActor(principal),
      action: `${write.kind}.${VERB[changeOf(write)]}`,
      target: `${write.kind}/${write.name}`,
      ip,
      detail: {
        ...detail,
        diff: {
          before: shownInAudit(write.kind, write.before),
          after: shownInAudit(write.kind, write.after),
        },
      },
    })),
  );
}

function specsByName(spec: ConfigSpec | undefined, kind: SourceKind): Map<string, unknown> {
  const list: readonly { name: string }[] =
    spec === undefined
      ? []
      : kind === "cluster"
        ? spec.clusters
        : kind === "listener"
          ? spec.listeners
          : kind === "routeConfiguration"
            ? spec.routeConfigurations
            : kind === "runtimeLayer"
              ? spec.runtimeLayers
              : kind === "secret"
                ? spec.secrets
                : spec.nodeGroups;
  return new Map(list.map((item) => [item.name, item]));
}

/** The writes a set of source changes makes between two specs. */
export function writesBetween(
  changes: readonly SourceChange[],
  before: ConfigSpec | undefined,
  after: ConfigSpec,
): ObjectWrite[] {
  const cache = new Map<string, Map<string, unknown>>();
  const lookup = (side: "b" | "a", kind: SourceKind, name: string) => {
    const key = `${side}:${kind}`;
    let byName = cache.get(key);
    if (byName === undefined) {
      byName = specsByName(side === "b" ? before : after, kind);
      cache.set(key, byName);
    }
    return byName.get(name) ?? null;
  };
  return changes.map((change) => ({
    kind: change.kind,
    name: change.name,
    before: change.change === "added" ? null : lookup("b", change.kind, change.name),
    after: change.change === "removed" ? null : lookup("a", change.kind, change.name),
  }));
}

/**
 * The writes a discard makes: each of the draft's `changes` (published → draft) undone, from the
 * draft's object to the published one.
 */
export function discardWrites(
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  published: ConfigSpec,
): ObjectWrite[] {
  const undo = { added: "removed", removed: "added", modified: "modified" } as const;
  return writesBetween(
    changes.map((change) => ({ ...change, change: undo[change.change] })),
    draft,
    published,
  );
}

/**
 * Throws PermissionDenied unless `principal` may make each of a discard's `writes`, as an edit of
 * that object: clusters by their owner (the draft row's, or for one the draft deleted, the owner
 * the latest version recorded: a member never brings back another team's cluster), route
 * configurations by the domains their team owns. What a discard writes back was published, so
 * the files and variables it names are not checked again.
 */
export async function authorizeDiscard(
  tx: TransactionClient,
  principal: Principal,
  writes: readonly ObjectWrite[],
  latestVersion: number,
): Promise<void> {
  if (principal.role === "ADMIN") return;
  await authorizeEdits(tx, principal, writes, await publishOwner(tx, latestVersion));
}

/**
 * Throws unless `principal` may publish (or roll back to) `draft`: every change must be theirs,
 * and their team must not require review (a "review" decision is refused with FailedPrecondition:
 * an admin publishes it; README, "Access control"). Admins may publish anything (authorize.ts),
 * so their publishes skip loading the previous version.
 */
export async function authorizePublish(
  tx: TransactionClient,
  principal: Principal,
  action: "publish" | "rollback",
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  latestVersion: number,
): Promise<void> {
  assertAllowed(await publishDecision(tx, principal, action, changes, draft, latestVersion));
}

/**
 * The decision on `principal` publishing (or rolling back to) `draft`, without throwing: a review
 * request accepts "review" (and "allow": anyone who may publish may also ask for a review).
 */
export async function publishDecision(
  tx: TransactionClient,
  principal: Principal,
  action: "publish" | "rollback",
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  latestVersion: number,
): Promise<Decision> {
  if (principal.role === "ADMIN") {
    return authorize(principal, action, {
      kind: "draft",
      changes: [],
      ownership: { exact: new Map(), wildcard: new Map() },
    });
  }
  const before = latestVersion === 0 ? undefined : await specOfVersion(tx, latestVersion);
  const writes = writesBetween(changes, before, draft);
  const ownerOf = await publishOwner(tx, latestVersion);
  const draftChanges: DraftChange[] = [];
  for (const write of writes) draftChanges.push(await draftChangeOf(write, ownerOf));
  const decision = authorize(principal, action, {
    kind: "draft",
    changes: draftChanges,
    ownership: await loadDomainOwnership(tx),
  });
  if (decision.t === "deny" || principal.team === null) return decision;
  // What the changes name must still be the team's to use: an admin may have stopped sharing it
  // since it was written.
  const references = referencesDecision(await loadGrants(tx), principal.team, writes);
  return references.t === "deny"
    ? {
        t: "deny",
        message: `${action === "publish" ? "the draft" : "the rollback"} names what team ${principal.team.name} may not use: ${references.message}`,
      }
    : decision;
}
