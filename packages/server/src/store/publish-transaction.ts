/**
 * One publish (or rollback) as one transaction under a lock shared by every replica: the draft
 * checked against what the author reviewed, validated and compiled; the changed blobs, manifests
 * and the version row written; NOTIFY sent. SnapshotStore (snapshot-store.ts) drives it.
 */
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type CompiledConfig,
  type CompileMemo,
  type ConfigSpec,
  type ConfigSpecFragment,
  compile,
  diffManifests,
  draftRevision,
  EMPTY_MANIFEST,
  ENVOY_KINDS,
  issuesAbout,
  SOURCE_KINDS,
  type SourceChange,
  type SourceKind,
  type SourceManifest,
  type SourceObject,
  SPEC_FIELD,
  sourceManifest,
  sourceObject,
  specFromSources,
  specOfSource,
  TYPE_ORDER,
  TypeUrl,
  type ValidationIssue,
  validate,
} from "@switchyard/snapshot";
import { loadGrants, secretServing } from "../auth/grants.js";
import { rolloutServing } from "../rollouts/rollout-rows.js";
import type { SecretKeyring } from "../secrets-key.js";
import { draftOwners } from "./cluster-owners.js";
import type { DraftRead } from "./draft-cache.js";
import {
  type RejectionGate,
  rejectionRefusalText,
  rejectionsOf,
  rejectionVerdict,
} from "./rejection-gate.js";
import {
  expandManifests,
  loadBlobs,
  type ManifestRef,
  manifestBlob,
  type NameMap,
  type PublishedSnapshot,
  type PublishNote,
  resourceKey,
  SNAPSHOT_CHANNEL,
  type SnapshotRecord,
  type StoredGroup,
  type StoredGroupRef,
  sealedBlob,
  storedManifest,
  toRecord,
} from "./snapshot-records.js";

/** Serializes publishes across every replica sharing the database. */
const PUBLISH_LOCK = 0x53_57_59_44; // "SWYD"

/** Why a publish (or rollback) was refused. Nothing was written. */
export class PublishError extends Error {
  override readonly name = "PublishError";
  constructor(
    readonly code:
      | "stale-base"
      | "draft-changed"
      | "invalid"
      | "no-changes"
      | "not-found"
      | "conflict"
      | "predicted-rejection",
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
  ) {
    super(message);
  }
}

/** Throws to refuse a publish; may give notes (warnings) for the answer of one it lets through. */
export type PublishHook = (
  tx: TransactionClient,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  latestVersion: number,
) => Promise<undefined | readonly PublishNote[]>;

export interface PublishInput {
  readonly message: string;
  readonly author: string;
  /** The version the author reviewed against; 0 or undefined skips the check. */
  readonly baseVersion?: number | undefined;
  /** The draft revision the author reviewed; undefined skips the check. */
  readonly draftRevision?: string | undefined;
  /**
   * Access control, inside the publish transaction once the changes are known: throws to refuse.
   * `draft` is what is about to be published, `latestVersion` what it replaces.
   */
  readonly authorize?: PublishHook | undefined;
  /** Records the publish (audit) in the publish transaction, once the snapshot row is written. */
  readonly audit?: ((tx: TransactionClient, record: SnapshotRecord) => Promise<void>) | undefined;
  /** Rollouts of the version (RolloutHook), once the snapshot row is written. */
  readonly rollouts?: RolloutHook | undefined;
  /**
   * The predicted-rejection gate (rejection-gate.ts): refuses a publish that adds a predicted
   * rejection unless `accept`. Undefined: not gated (a rollback restores what ran).
   */
  readonly rejections?: RejectionGate | undefined;
}

/** What #publish's work gives: the version written, and the content it holds. */
export interface Written {
  readonly published: PublishedSnapshot;
  readonly manifests: LatestManifests;
  readonly content: DraftRead;
}

/**
 * `base` with the objects of `fragment` in place of (or beside) those of the same name, and the
 * `removed` ones gone. An object whose content is unchanged stays the same instance, with its
 * source object: only what changed is serialized, and compiled (CompileMemo).
 */
export function appliedContent(
  base: DraftRead,
  fragment: Partial<ConfigSpecFragment>,
  removed: readonly { readonly kind: SourceKind; readonly name: string }[],
): DraftRead {
  const keyOf = (kind: SourceKind, name: string) => `${kind}/${name}`;
  const sources = new Map(base.objects.map((o) => [keyOf(o.kind, o.name), o]));
  const spec: Record<string, unknown[]> = {};
  const replaced = new Map<string, SourceObject>();
  for (const kind of ENVOY_KINDS) {
    const field = SPEC_FIELD[kind];
    const byName = new Map<string, unknown>(base.spec[field].map((o) => [o.name, o]));
    for (const object of (fragment[field] ?? []) as readonly { readonly name: string }[]) {
      const source = sourceObject(kind, object.name, object);
      if (sources.get(keyOf(kind, object.name))?.key === source.key) continue;
      replaced.set(keyOf(kind, object.name), source);
      byName.set(object.name, specOfSource(kind, source.json));
    }
    for (const object of removed) if (object.kind === kind) byName.delete(object.name);
    spec[field] = [...byName.values()];
  }
  const gone = new Set(removed.map((o) => keyOf(o.kind, o.name)));
  const objects = [
    ...base.objects
      .filter((o) => !gone.has(keyOf(o.kind, o.name)))
      .map((o) => replaced.get(keyOf(o.kind, o.name)) ?? o),
    ...[...replaced.values()].filter((o) => !sources.has(keyOf(o.kind, o.name))),
  ].sort(
    (a, b) =>
      SOURCE_KINDS.indexOf(a.kind) - SOURCE_KINDS.indexOf(b.kind) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return { spec: { ...base.spec, ...spec } as ConfigSpec, objects };
}

/**
 * What an apply's dry run found, thrown to roll its transaction back: the changes it would
 * publish, the specs before and after, and the validation's warnings and the publish hooks' notes.
 */
export class ApplyDryRun extends Error {
  override readonly name = "ApplyDryRun";
  constructor(
    readonly changes: readonly SourceChange[],
    readonly before: ConfigSpec,
    readonly after: ConfigSpec,
    readonly issues: readonly (ValidationIssue | PublishNote)[],
  ) {
    super("dry run");
  }
}

/** Referrers before what they refer to (replaceDraft's order). */
export const DELETE_ORDER: readonly SourceKind[] = [
  "nodeGroup",
  "listener",
  "routeConfiguration",
  "cluster",
  "runtimeLayer",
  "secret",
];

/**
 * The changes to the objects `only` names; one that names an object without an unpublished
 * change is refused, naming it.
 */
export function selectChanges(
  changes: readonly SourceChange[],
  only: readonly { readonly kind: SourceKind; readonly name: string }[],
): SourceChange[] {
  const byObject = new Map(changes.map((c) => [`${c.kind}/${c.name}`, c]));
  const unchanged = only.filter((o) => !byObject.has(`${o.kind}/${o.name}`));
  if (unchanged.length > 0)
    throw new PublishError(
      "not-found",
      `${unchanged.map((o) => `${o.kind} "${o.name}"`).join(", ")} ${unchanged.length === 1 ? "has" : "have"} no unpublished change to discard (see switchyard diff)`,
    );
  return [...new Set(only.map((o) => byObject.get(`${o.kind}/${o.name}`)))].filter(
    (c): c is SourceChange => c !== undefined,
  );
}

/** What the latest snapshot holds, as publish needs it (kept in memory between publishes). */
export interface LatestManifests {
  readonly version: number;
  readonly sources: SourceManifest;
  readonly groups: readonly StoredGroup[];
  /** Keys of the manifest blobs the version refers to (already stored). */
  readonly keys: ReadonlySet<string>;
}

function manifestKeysOf(row: { sources: unknown; groups: unknown }): Set<string> {
  const refs = [
    ...Object.values(row.sources as { [kind: string]: ManifestRef }),
    ...(row.groups as unknown as StoredGroupRef[]).flatMap((g) => Object.values(g.resources)),
  ];
  return new Set(refs.filter((ref): ref is string => typeof ref === "string"));
}

export async function latestManifests(
  tx: TransactionClient,
  cached: LatestManifests | undefined,
): Promise<LatestManifests | undefined> {
  const [head] = await tx.$queryRawUnsafe<Array<{ version: number }>>(
    `SELECT max("version") AS version FROM "Snapshot"`,
  );
  const version = head?.version ?? null;
  if (version === null) return undefined;
  if (cached?.version === version) return cached;
  const row = await tx.snapshot.findUniqueOrThrow({
    where: { version },
    select: { sources: true, groups: true },
  });
  const expanded = await expandManifests(tx, row);
  return { version, ...expanded, keys: manifestKeysOf(row) };
}

/** A version just written, as the rollout hook reads it (api/rollout-start.ts). */
export interface WrittenVersion {
  readonly record: SnapshotRecord;
  readonly config: CompiledConfig;
  /** What was published (the draft, a rollback's or an apply's content). */
  readonly draft: ConfigSpec;
  /** The version's node groups, with their manifests (type → name → blob key). */
  readonly groups: readonly StoredGroup[];
  /** The previous version's manifests, by group. */
  readonly previous: ReadonlyMap<string, StoredGroup["resources"]>;
  /** An earlier version's manifests, by group. */
  readonly groupsOf: (
    tx: TransactionClient,
    version: number,
  ) => Promise<ReadonlyMap<string, StoredGroup["resources"]>>;
}

/**
 * Refuses or supersedes the rollouts under way the version touches and starts its own, in the
 * publish transaction once the version row is written; answers the ids of those started.
 */
export type RolloutHook = (
  tx: TransactionClient,
  written: WrittenVersion,
) => Promise<readonly number[]>;

export interface WriteInput extends PublishInput {
  readonly rolledBackFrom?: number;
}

/** Each node group of a stored version with its manifests. */
async function groupsOfVersion(
  tx: TransactionClient,
  version: number,
): Promise<ReadonlyMap<string, StoredGroup["resources"]>> {
  const row = await tx.snapshot.findUniqueOrThrow({
    where: { version },
    select: { sources: true, groups: true },
  });
  const expanded = await expandManifests(tx, row);
  return new Map(expanded.groups.map((group) => [group.name, group.resources]));
}

/**
 * What a publish checks before it writes anything: the base version and draft revision the
 * author reviewed, that there is a change, access (`input.authorize`), and validation. Throws
 * PublishError (or the hook's error) to refuse.
 */
export async function checkDraft(
  tx: TransactionClient,
  draft: DraftRead,
  latest: LatestManifests | undefined,
  memo: CompileMemo | undefined,
  input: PublishInput,
  keyring: SecretKeyring | undefined,
) {
  const latestVersion = latest?.version ?? 0;
  if (input.baseVersion && input.baseVersion !== latestVersion) {
    throw new PublishError(
      "stale-base",
      `version ${latestVersion} was published after the version you reviewed (${input.baseVersion}): review the changes again (switchyard diff) and publish on top of ${latestVersion}`,
    );
  }
  const { objects, spec } = draft;
  const manifest = sourceManifest(objects);
  if (input.draftRevision !== undefined && input.draftRevision !== draftRevision(manifest)) {
    throw new PublishError(
      "draft-changed",
      "the draft changed after you reviewed it: review the changes again (switchyard diff) before publishing",
    );
  }
  const changes = diffManifests(latest?.sources ?? EMPTY_MANIFEST, manifest);
  const compileDraft = async () =>
    compile(spec, {
      ...(memo ? { memo } : {}),
      ...(keyring ? { openSecret: keyring.open } : {}),
      // A secret is served only for an object that may use it (auth/grants.ts).
      maySecretServe: secretServing(await loadGrants(tx)),
    });
  // With no object changed, what is served may still have: an admin shared a secret, or gave a
  // cluster another owner. Only when that is the same too is there nothing to publish.
  const unchanged = changes.length === 0 ? await compileDraft() : undefined;
  if (unchanged !== undefined && !servedDiffers(unchanged, latest)) {
    throw new PublishError(
      "no-changes",
      `nothing to publish: the draft is identical to version ${latestVersion}`,
    );
  }
  const notes = (await input.authorize?.(tx, changes, spec, latestVersion)) ?? [];
  const config = unchanged ?? (await compileDraft());
  const report = validate(spec, {
    compiled: config,
    ...(keyring ? { openSecret: keyring.open } : {}),
  });
  if (!report.ok) {
    const errors = report.issues.filter((issue) => issue.severity === "error");
    throw new PublishError(
      "invalid",
      `the draft has ${errors.length} error${errors.length === 1 ? "" : "s"}: fix ${errors.length === 1 ? "it" : "them"} and publish again`,
      report.issues,
    );
  }
  if (input.rejections === undefined)
    return { latestVersion, manifest, changes, config, report, notes };
  const gate = input.rejections;
  const verdict = await rejectionVerdict(report.issues, async () => {
    if (gate.published) return gate.published(tx, latestVersion);
    return rejectionsOf(
      latestVersion === 0 ? undefined : await specOfVersion(tx, latestVersion),
      keyring,
    );
  });
  if (verdict.fresh.length > 0 && !gate.accept) {
    throw new PublishError(
      "predicted-rejection",
      rejectionRefusalText(verdict.fresh, latestVersion),
      verdict.issues.filter((issue) => issue.rejection?.alreadyPublished === false),
    );
  }
  return {
    latestVersion,
    manifest,
    changes,
    config,
    report: { ...report, issues: verdict.issues },
    notes,
  };
}

/**
 * Writes the draft read `draft` as a new immutable snapshot inside transaction `tx` (which holds
 * the publish lock): validates, compiles, stores new blobs and the snapshot row, and notifies
 * replicas. The spec compiled is exactly the canonical source the snapshot records (object keys
 * sorted): the database returns JSON keys in its own order, and map order reaches the encoded
 * bytes (a Struct inside an Any), so versions are identical whether a config comes from the draft
 * or a rollback.
 */
export async function writeSnapshot(
  tx: TransactionClient,
  draft: DraftRead,
  latest: LatestManifests | undefined,
  memo: CompileMemo | undefined,
  input: WriteInput,
  keyring: SecretKeyring | undefined,
): Promise<{ published: PublishedSnapshot; manifests: LatestManifests }> {
  const { objects } = draft;
  const { latestVersion, manifest, changes, config, report, notes } = await checkDraft(
    tx,
    draft,
    latest,
    memo,
    input,
    keyring,
  );
  // New blobs: the source objects and compiled resources the latest version does not hold under
  // the same name. One it holds under another name is written again, and the insert skips it on
  // conflict; looking names up costs nothing like gathering every key the latest holds.
  const blobs = new Map<
    string,
    { key: string; body: Uint8Array<ArrayBuffer>; references: string[] }
  >();
  const before = latest?.sources ?? EMPTY_MANIFEST;
  for (const object of objects) {
    if (before[object.kind][object.name] !== object.key)
      blobs.set(object.key, { key: object.key, body: Buffer.from(object.json), references: [] });
  }
  // Each group's manifests (type → name → blob key): where the latest version holds every
  // resource of a type under the same name and no other, its map is kept, and with it its blob.
  const latestGroups = new Map(latest?.groups.map((group) => [group.name, group.resources]));
  const groups: StoredGroup[] = config.groups.map((group) => {
    const held = latestGroups.get(group.name);
    const resources: Record<string, NameMap> = {};
    for (const typeUrl of TYPE_ORDER) {
      const previous = held?.[typeUrl];
      const byName: Record<string, string> = {};
      let kept = 0;
      const current = group.snapshot.resources(typeUrl);
      for (const resource of current.values()) {
        const key = resourceKey(resource);
        byName[resource.name] = key;
        if (previous?.[resource.name] === key) {
          kept += 1;
          continue;
        }
        blobs.set(key, {
          key,
          body:
            typeUrl === TypeUrl.Secret
              ? sealedBlob(resource.body, keyring)
              : Buffer.from(resource.body),
          references: [...resource.references],
        });
      }
      const unchanged =
        previous !== undefined && kept === current.size && storedManifest(previous)?.size === kept;
      resources[typeUrl] = unchanged ? previous : byName;
    }
    const { name, isDefault, priority, selector } = group;
    const limit = group.snapshot.maxResponseBytes;
    return {
      name,
      isDefault,
      priority,
      selector,
      ...(limit === undefined ? {} : { maxResponseBytes: limit }),
      resources,
    };
  });
  // A kind of source with no change keeps the latest version's map likewise.
  const changedKinds = new Set(changes.map((change) => change.kind));
  const sources = Object.fromEntries(
    SOURCE_KINDS.map((kind) => {
      const previous = latest?.sources[kind];
      const same =
        previous !== undefined && !changedKinds.has(kind) && storedManifest(previous) !== undefined;
      return [kind, same ? previous : manifest[kind]];
    }),
  ) as unknown as SourceManifest;
  // The manifests themselves, as blobs shared with every version where they are unchanged.
  const storeManifest = (map: NameMap): string => {
    const known = storedManifest(map);
    if (known !== undefined && latest?.keys.has(known.key)) return known.key;
    const { key, json } = manifestBlob(map);
    if (!latest?.keys.has(key)) blobs.set(key, { key, body: Buffer.from(json), references: [] });
    return key;
  };
  const sourceRefs = Object.fromEntries(
    SOURCE_KINDS.map((kind) => [kind, storeManifest(sources[kind])]),
  );
  const groupRefs: StoredGroupRef[] = groups.map((group) => ({
    ...group,
    resources: Object.fromEntries(
      Object.entries(group.resources).map(([typeUrl, byName]) => [typeUrl, storeManifest(byName)]),
    ),
  }));
  const pending = [...blobs.values()];
  for (let i = 0; i < pending.length; i += 5_000) {
    await tx.snapshotBlob.createMany({ data: pending.slice(i, i + 5_000), skipDuplicates: true });
  }
  const row = await tx.snapshot.create({
    data: {
      version: latestVersion + 1,
      author: input.author,
      message: input.message,
      previousVersion: latestVersion,
      rolledBackFrom: input.rolledBackFrom ?? null,
      sources: sourceRefs,
      groups: groupRefs as unknown as object,
      changes: changes as unknown as object,
      clusterOwners: await draftOwners(tx, "cluster"),
      secretOwners: await draftOwners(tx, "secret"),
    },
  });
  await endSharesOfDeleted(tx, changes);
  const rollouts =
    (await input.rollouts?.(tx, {
      record: toRecord(row),
      config,
      draft: draft.spec,
      groups,
      previous: new Map(latest?.groups.map((group) => [group.name, group.resources])),
      groupsOf: groupsOfVersion,
    })) ?? [];
  await input.audit?.(tx, toRecord(row));
  const running = await rolloutServing(tx, [], row.version);
  await tx.$executeRawUnsafe(`NOTIFY ${SNAPSHOT_CHANNEL}, '${row.version}'`);
  return {
    published: {
      record: toRecord(row),
      config,
      // The warnings about what this version changes (or names: a reference to an object it
      // deletes), not every standing one: an untouched object's warning is said where that object
      // is edited and on the Changes page (Validate), not in every publish's answer.
      warnings: [
        ...issuesAbout(
          report.issues.filter((issue) => issue.severity === "warning"),
          changes,
        ),
        ...notes,
      ],
      ...(rollouts.length > 0 ? { rollouts } : {}),
      running,
    },
    manifests: {
      version: row.version,
      sources,
      groups,
      keys: new Set([
        ...Object.values(sourceRefs),
        ...groupRefs.flatMap((g) => Object.values(g.resources) as string[]),
      ]),
    },
  };
}

/** Whether any node group of `config` is served other resources than in `latest`. */
function servedDiffers(config: CompiledConfig, latest: LatestManifests | undefined): boolean {
  if (latest === undefined) return true;
  const held = new Map(latest.groups.map((group) => [group.name, group.resources]));
  if (held.size !== config.groups.length) return true;
  return config.groups.some((group) => {
    const resources = held.get(group.name);
    if (resources === undefined) return true;
    return TYPE_ORDER.some((typeUrl) => {
      const previous = resources[typeUrl] ?? {};
      const current = group.snapshot.resources(typeUrl);
      if (Object.keys(previous).length !== current.size) return true;
      for (const resource of current.values()) {
        if (previous[resource.name] !== resourceKey(resource)) return true;
      }
      return false;
    });
  });
}

/**
 * A published deletion ends the object's shares (auth/grants.ts): its name is free again, and
 * whoever creates it next decides who may use it.
 */
async function endSharesOfDeleted(
  tx: TransactionClient,
  changes: readonly { kind: string; name: string; change: string }[],
): Promise<void> {
  const removed = changes.filter(
    (c) =>
      c.change === "removed" &&
      (c.kind === "cluster" ||
        c.kind === "secret" ||
        c.kind === "listener" ||
        c.kind === "routeConfiguration"),
  );
  if (removed.length === 0) return;
  await tx.share.deleteMany({
    where: { OR: removed.map((c) => ({ kind: c.kind, name: c.name })) },
  });
}

export function inPublishTransaction<T>(
  prisma: PrismaClient,
  work: (tx: TransactionClient) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PUBLISH_LOCK})`;
      return work(tx);
    },
    { isolationLevel: "ReadCommitted", timeout: 60_000, maxWait: 10_000 },
  );
}

/** Loads the source objects of a version as a spec. */
export async function specOfVersion(db: TransactionClient, version: number): Promise<ConfigSpec> {
  const row = await db.snapshot.findUnique({ where: { version } });
  if (!row)
    throw new PublishError(
      "not-found",
      `version ${version} does not exist (see switchyard history)`,
    );
  const manifest = (await expandManifests(db, row)).sources;
  const entries = Object.entries(manifest).flatMap(([kind, byName]) =>
    Object.values(byName).map((key) => ({ kind: kind as SourceKind, key })),
  );
  const blobs = await loadBlobs(
    db,
    entries.map((e) => e.key),
  );
  return specFromSources(
    entries.map((e) => ({
      kind: e.kind,
      json: Buffer.from(blobs.get(e.key)?.body ?? new Uint8Array()).toString("utf8"),
    })),
  );
}
