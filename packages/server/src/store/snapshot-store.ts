import { createHash } from "node:crypto";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type CompiledConfig,
  type CompiledGroup,
  type CompileMemo,
  type ConfigSpec,
  type ConfigSpecFragment,
  canonicalJson,
  compile,
  diffManifests,
  draftRevision,
  EMPTY_MANIFEST,
  ENVOY_KINDS,
  envoyObjectsWhere,
  isSealed,
  type NodeSelector,
  ResourceSnapshot,
  SOURCE_KINDS,
  type SourceChange,
  type SourceKind,
  type SourceManifest,
  type SourceObject,
  SPEC_FIELD,
  sourceManifest,
  sourceObject,
  sourceObjects,
  specFromSources,
  specOfSource,
  TYPE_ORDER,
  TypeUrl,
  type ValidationIssue,
  type ValidationReport,
  validate,
  type XdsResource,
} from "@switchyard/snapshot";
import type { SecretKeyring } from "../secrets-key.js";
import {
  draftClusterOwners,
  publishedClusterOwners,
  restoreClusterOwners,
} from "./cluster-owners.js";
import { DraftCache, type DraftRead } from "./draft-cache.js";
import { deleteObject, replaceDraft, writeObjects } from "./draft-store.js";

/** Serializes publishes across every replica sharing the database. */
const PUBLISH_LOCK = 0x53_57_59_44; // "SWYD"
/** Postgres NOTIFY channel: payload is the new version. */
export const SNAPSHOT_CHANNEL = "switchyard_snapshot";

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
      | "conflict",
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
  ) {
    super(message);
  }
}

interface StoredGroup {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  /** typeUrl → name → blob key */
  readonly resources: { readonly [typeUrl: string]: { readonly [name: string]: string } };
}

/** name → blob key: one manifest per kind of source and per node group and type. */
type NameMap = { readonly [name: string]: string };

/**
 * How a snapshot row refers to its manifests: each name→key map is a blob of its own
 * ("manifest:<sha256>"), shared by every version in which it did not change, so a one-route
 * publish writes two small manifests instead of the whole fleet's. Rows written before manifests
 * were blobs hold the maps inline; both read the same.
 */
type ManifestRef = string | NameMap;

interface StoredGroupRef {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  readonly resources: { readonly [typeUrl: string]: ManifestRef };
}

function manifestBlob(map: NameMap): { key: string; json: string } {
  const json = canonicalJson(map);
  return { key: `manifest:${createHash("sha256").update(json).digest("hex")}`, json };
}

/** Expands a snapshot row's manifest references into maps. */
async function expandManifests(
  db: TransactionClient,
  row: { sources: unknown; groups: unknown },
): Promise<{ sources: SourceManifest; groups: StoredGroup[] }> {
  const sourceRefs = row.sources as { [kind: string]: ManifestRef };
  const groupRefs = row.groups as unknown as StoredGroupRef[];
  const keys = [
    ...Object.values(sourceRefs),
    ...groupRefs.flatMap((g) => Object.values(g.resources)),
  ].filter((ref): ref is string => typeof ref === "string");
  const blobs = await loadBlobs(db, keys);
  const expand = (ref: ManifestRef): NameMap =>
    typeof ref === "string"
      ? (JSON.parse(
          Buffer.from(blobs.get(ref)?.body ?? new Uint8Array()).toString("utf8"),
        ) as NameMap)
      : ref;
  const sources = Object.fromEntries(
    Object.entries(sourceRefs).map(([kind, ref]) => [kind, expand(ref)]),
  ) as unknown as SourceManifest;
  const groups = groupRefs.map((group) => ({
    ...group,
    resources: Object.fromEntries(
      Object.entries(group.resources).map(([typeUrl, ref]) => [typeUrl, expand(ref)]),
    ),
  }));
  return { sources: { ...EMPTY_MANIFEST, ...sources }, groups };
}

export interface SnapshotRecord {
  readonly version: number;
  readonly createdAt: Date;
  readonly author: string;
  readonly message: string;
  readonly previousVersion: number;
  readonly rolledBackFrom: number | null;
  readonly changes: readonly SourceChange[];
}

export interface PublishedSnapshot {
  readonly record: SnapshotRecord;
  /** What proxies get: the compiled node groups, as loaded into the xDS cache. */
  readonly config: CompiledConfig;
  readonly warnings: readonly ValidationIssue[];
  /**
   * The content of the previous version (undefined: none) and of this one, when the store holds
   * both in memory (the usual case: the previous version was its own latest), so the answer to
   * the publish needs no further reads; absent otherwise.
   */
  readonly sides?: { readonly before: ConfigSpec | undefined; readonly after: ConfigSpec };
}

function resourceKey(resource: XdsResource): string {
  return `${resource.typeUrl}@${resource.version}`;
}

function storedGroups(config: CompiledConfig): StoredGroup[] {
  return config.groups.map((group) => {
    const resources: Record<string, Record<string, string>> = {};
    for (const typeUrl of TYPE_ORDER) {
      const byName: Record<string, string> = {};
      for (const resource of group.snapshot.resources(typeUrl).values())
        byName[resource.name] = resourceKey(resource);
      resources[typeUrl] = byName;
    }
    return {
      name: group.name,
      isDefault: group.isDefault,
      priority: group.priority,
      selector: group.selector,
      resources,
    };
  });
}

function toRecord(row: {
  version: number;
  createdAt: Date;
  author: string;
  message: string;
  previousVersion: number;
  rolledBackFrom: number | null;
  changes: unknown;
}): SnapshotRecord {
  return {
    version: row.version,
    createdAt: row.createdAt,
    author: row.author,
    message: row.message,
    previousVersion: row.previousVersion,
    rolledBackFrom: row.rolledBackFrom,
    changes: row.changes as SourceChange[],
  };
}

async function latestRow(db: TransactionClient) {
  return db.snapshot.findFirst({ orderBy: { version: "desc" } });
}

/** The latest published version number; undefined when nothing was published. */
export async function latestVersion(db: TransactionClient): Promise<number | undefined> {
  const latest = await db.snapshot.findFirst({
    orderBy: { version: "desc" },
    select: { version: true },
  });
  return latest?.version;
}

/** Loads blobs by key; fails loudly if one is missing (a snapshot is never partially served). */
async function loadBlobs(
  db: TransactionClient,
  keys: readonly string[],
): Promise<Map<string, { body: Uint8Array; references: string[] }>> {
  const unique = [...new Set(keys)];
  const rows =
    unique.length === 0 ? [] : await db.snapshotBlob.findMany({ where: { key: { in: unique } } });
  const blobs = new Map(
    rows.map((row) => [row.key, { body: new Uint8Array(row.body), references: row.references }]),
  );
  const missing = unique.filter((key) => !blobs.has(key));
  if (missing.length > 0)
    throw new Error(`snapshot blobs missing from the database: ${missing.slice(0, 5).join(", ")}`);
  return blobs;
}

/**
 * A Secret resource's blob as stored: sealed with the secrets key (a TLS certificate's body holds
 * its private key, which is never stored in the clear). Without a key only validation contexts
 * compile (a TLS certificate's key cannot be opened), and those are stored as they are.
 */
function sealedBlob(body: Uint8Array, keyring: SecretKeyring | undefined): Buffer<ArrayBuffer> {
  if (keyring?.keyId === undefined) return Buffer.from(body);
  return Buffer.from(keyring.seal(Buffer.from(body).toString("base64")));
}

/** The inverse of sealedBlob: an encoded Secret starts with a field tag, never with "sy1.". */
function openedBlob(body: Uint8Array, keyring: SecretKeyring | undefined): Uint8Array {
  const text = Buffer.from(body).toString("latin1");
  if (!isSealed(text)) return body;
  if (!keyring) throw new Error("a published secret is sealed, and no secrets key was given");
  try {
    return new Uint8Array(Buffer.from(keyring.open(text), "base64"));
  } catch (error) {
    throw new Error(
      `cannot open a published secret: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Rebuilds the compiled config of a stored snapshot, sharing one XdsResource per blob. */
async function configOf(
  db: TransactionClient,
  groups: readonly StoredGroup[],
  keyring: SecretKeyring | undefined,
): Promise<CompiledConfig> {
  const keys = groups.flatMap((g) =>
    Object.values(g.resources).flatMap((byName) => Object.values(byName)),
  );
  const blobs = await loadBlobs(db, keys);
  const shared = new Map<string, XdsResource>();
  const compiledGroups: CompiledGroup[] = groups.map((group) => {
    const resources: XdsResource[] = [];
    for (const [typeUrl, byName] of Object.entries(group.resources)) {
      for (const [name, key] of Object.entries(byName)) {
        const sharedKey = `${key}\u0000${name}`;
        let resource = shared.get(sharedKey);
        if (!resource) {
          const blob = blobs.get(key);
          if (!blob) throw new Error(`blob ${key} missing`);
          resource = {
            typeUrl: typeUrl as TypeUrl,
            name,
            version: key.slice(key.lastIndexOf("@") + 1),
            body: typeUrl === TypeUrl.Secret ? openedBlob(blob.body, keyring) : blob.body,
            references: blob.references,
          };
          shared.set(sharedKey, resource);
        }
        resources.push(resource);
      }
    }
    return {
      name: group.name,
      isDefault: group.isDefault,
      priority: group.priority,
      selector: group.selector,
      snapshot: new ResourceSnapshot(resources),
    };
  });
  return { groups: compiledGroups, issues: [] };
}

/** The latest published snapshot with its compiled config, or undefined before the first publish. */
export async function loadLatestSnapshot(
  prisma: PrismaClient,
  keyring?: SecretKeyring,
): Promise<PublishedSnapshot | undefined> {
  return prisma.$transaction(
    async (tx) => {
      const row = await latestRow(tx);
      if (!row) return undefined;
      return {
        record: toRecord(row),
        config: await configOf(tx, (await expandManifests(tx, row)).groups, keyring),
        warnings: [],
      };
    },
    { isolationLevel: "RepeatableRead" },
  );
}

interface PublishInput {
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
}

export type PublishHook = (
  tx: TransactionClient,
  changes: readonly SourceChange[],
  draft: ConfigSpec,
  latestVersion: number,
) => Promise<void>;

/** What #publish's work gives: the version written, and the content it holds. */
interface Written {
  readonly published: PublishedSnapshot;
  readonly manifests: LatestManifests;
  readonly content: DraftRead;
}

/**
 * `base` with the objects of `fragment` in place of (or beside) those of the same name, and the
 * `removed` ones gone. An object whose content is unchanged stays the same instance, with its
 * source object: only what changed is serialized, and compiled (CompileMemo).
 */
function appliedContent(
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
 * publish, the specs before and after, and the validation's warnings.
 */
export class ApplyDryRun extends Error {
  override readonly name = "ApplyDryRun";
  constructor(
    readonly changes: readonly SourceChange[],
    readonly before: ConfigSpec,
    readonly after: ConfigSpec,
    readonly issues: readonly ValidationIssue[],
  ) {
    super("dry run");
  }
}

/** What a discard undoes: the draft's changes, the draft and the published spec. */
export type DiscardHook = (
  tx: TransactionClient,
  discarded: {
    readonly changes: readonly SourceChange[];
    readonly draft: ConfigSpec;
    readonly published: ConfigSpec;
  },
) => Promise<void>;

/** Referrers before what they refer to (replaceDraft's order). */
const DELETE_ORDER: readonly SourceKind[] = [
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
function selectChanges(
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
interface LatestManifests {
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

async function latestManifests(
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

interface WriteInput extends PublishInput {
  readonly rolledBackFrom?: number;
}

/**
 * What a publish checks before it writes anything: the base version and draft revision the
 * author reviewed, that there is a change, access (`input.authorize`), and validation. Throws
 * PublishError (or the hook's error) to refuse.
 */
async function checkDraft(
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
  if (changes.length === 0) {
    throw new PublishError(
      "no-changes",
      `nothing to publish: the draft is identical to version ${latestVersion}`,
    );
  }
  await input.authorize?.(tx, changes, spec, latestVersion);
  const config = compile(spec, {
    ...(memo ? { memo } : {}),
    ...(keyring ? { openSecret: keyring.open } : {}),
  });
  const report = validate(spec, { compiled: config });
  if (!report.ok) {
    const errors = report.issues.filter((issue) => issue.severity === "error");
    throw new PublishError(
      "invalid",
      `the draft has ${errors.length} error${errors.length === 1 ? "" : "s"}: fix ${errors.length === 1 ? "it" : "them"} and publish again`,
      report.issues,
    );
  }
  return { latestVersion, manifest, changes, config, report };
}

/**
 * Writes the draft read `draft` as a new immutable snapshot inside transaction `tx` (which holds
 * the publish lock): validates, compiles, stores new blobs and the snapshot row, and notifies
 * replicas. The spec compiled is exactly the canonical source the snapshot records (object keys
 * sorted): the database returns JSON keys in its own order, and map order reaches the encoded
 * bytes (a Struct inside an Any), so versions are identical whether a config comes from the draft
 * or a rollback.
 */
async function writeSnapshot(
  tx: TransactionClient,
  draft: DraftRead,
  latest: LatestManifests | undefined,
  memo: CompileMemo | undefined,
  input: WriteInput,
  keyring: SecretKeyring | undefined,
): Promise<{ published: PublishedSnapshot; manifests: LatestManifests }> {
  const { objects } = draft;
  const { latestVersion, manifest, changes, config, report } = await checkDraft(
    tx,
    draft,
    latest,
    memo,
    input,
    keyring,
  );
  const groups = storedGroups(config);

  // Only blobs the latest snapshot does not hold can be new (older ones are skipped on conflict).
  const known = new Set<string>();
  for (const group of latest?.groups ?? []) {
    for (const byName of Object.values(group.resources))
      for (const key of Object.values(byName)) known.add(key);
  }
  for (const byName of Object.values(latest?.sources ?? EMPTY_MANIFEST))
    for (const key of Object.values(byName)) known.add(key);
  const blobs = new Map<
    string,
    { key: string; body: Uint8Array<ArrayBuffer>; references: string[] }
  >();
  for (const object of objects) {
    if (!known.has(object.key))
      blobs.set(object.key, { key: object.key, body: Buffer.from(object.json), references: [] });
  }
  for (const group of config.groups) {
    for (const typeUrl of TYPE_ORDER) {
      for (const resource of group.snapshot.resources(typeUrl).values()) {
        const key = resourceKey(resource);
        if (!known.has(key))
          blobs.set(key, {
            key,
            body:
              typeUrl === TypeUrl.Secret
                ? sealedBlob(resource.body, keyring)
                : Buffer.from(resource.body),
            references: [...resource.references],
          });
      }
    }
  }
  // The manifests themselves, as blobs shared with every version where they are unchanged.
  const storeManifest = (map: NameMap): string => {
    const { key, json } = manifestBlob(map);
    if (!latest?.keys.has(key)) blobs.set(key, { key, body: Buffer.from(json), references: [] });
    return key;
  };
  const sourceRefs = Object.fromEntries(
    SOURCE_KINDS.map((kind) => [kind, storeManifest(manifest[kind])]),
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
      clusterOwners: await draftClusterOwners(tx),
    },
  });
  await input.audit?.(tx, toRecord(row));
  await tx.$executeRawUnsafe(`NOTIFY ${SNAPSHOT_CHANNEL}, '${row.version}'`);
  return {
    published: {
      record: toRecord(row),
      config,
      warnings: report.issues.filter((issue) => issue.severity === "warning"),
    },
    manifests: {
      version: row.version,
      sources: manifest,
      groups,
      keys: new Set([
        ...Object.values(sourceRefs),
        ...groupRefs.flatMap((g) => Object.values(g.resources) as string[]),
      ]),
    },
  };
}

function inPublishTransaction<T>(
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

/** How long a draft's validation report is reused while the draft is unchanged. */
const VALIDATION_REUSE_MS = 60_000;

/**
 * Publishing: the draft (read through a per-process cache, so a one-object change on a
 * fleet-sized config costs one object's read and compile) and rollbacks, one at a time across all
 * replicas. One instance per server process.
 */
export class SnapshotStore {
  readonly draft = new DraftCache();
  #latest: LatestManifests | undefined;
  /**
   * The latest version's content as applies build on it, kept once committed: its objects are
   * the same instances from one apply to the next, so an apply compiles only what it changed.
   */
  #latestContent: { readonly version: number; readonly read: DraftRead } | undefined;
  /** The last draft validated (validateDraft), by the draft's revision. */
  #validated:
    | { readonly revision: string; readonly at: number; readonly report: ValidationReport }
    | undefined;
  readonly #prisma: PrismaClient;
  /** Times each publish transaction (metrics); runs `work` as is by default. */
  readonly #timed: <T>(operation: "publish" | "rollback", work: () => Promise<T>) => Promise<T>;

  /** Seals and opens secrets' private keys (publish compiles and stores them sealed). */
  readonly keyring: SecretKeyring | undefined;

  constructor(
    prisma: PrismaClient,
    options: {
      readonly timed?: <T>(operation: "publish" | "rollback", work: () => Promise<T>) => Promise<T>;
      readonly keyring?: SecretKeyring;
    } = {},
  ) {
    this.#prisma = prisma;
    this.keyring = options.keyring;
    this.#timed = options.timed ?? ((_operation, work) => work());
  }

  async #publish(
    work: (tx: TransactionClient, latest: LatestManifests | undefined) => Promise<Written>,
  ): Promise<PublishedSnapshot> {
    const earlier = this.#latestContent;
    const { published, manifests, content } = await inPublishTransaction(this.#prisma, async (tx) =>
      work(tx, await latestManifests(tx, this.#latest)),
    );
    // Only once committed: the caches must never hold a version that was rolled back.
    this.#latest = manifests;
    this.#latestContent = { version: manifests.version, read: content };
    const { previousVersion } = published.record;
    if (previousVersion === 0)
      return { ...published, sides: { before: undefined, after: content.spec } };
    if (earlier?.version === previousVersion)
      return { ...published, sides: { before: earlier.read.spec, after: content.spec } };
    return published;
  }

  /** The latest version's content (none: version 0), from the cache when it is that version. */
  async #latestRead(tx: TransactionClient, version: number): Promise<DraftRead> {
    if (version === 0) return { spec: specFromSources([]), objects: [] };
    const cached = this.#latestContent;
    if (cached?.version === version) return cached.read;
    const objects = sourceObjects(await specOfVersion(tx, version));
    return { spec: specFromSources(objects), objects };
  }

  /**
   * Writes `content` (not the draft: a rollback's, an apply's) as the next version, compiled with
   * the draft's memo: objects that are the same instances as last time are not encoded again.
   */
  async #writeContent(
    tx: TransactionClient,
    content: DraftRead,
    latest: LatestManifests | undefined,
    input: WriteInput,
  ): Promise<Written> {
    const written = await writeSnapshot(tx, content, latest, this.draft.memo, input, this.keyring);
    return { ...written, content };
  }

  /**
   * Publishes the draft as the next version, in one transaction: either the whole snapshot is
   * written or nothing is (a failed publish changes nothing).
   */
  publishDraft(input: PublishInput): Promise<PublishedSnapshot> {
    return this.#timed("publish", () =>
      this.#publish(async (tx, latest) => {
        const content = await this.draft.read(tx);
        const written = await writeSnapshot(
          tx,
          content,
          latest,
          this.draft.memo,
          input,
          this.keyring,
        );
        return { ...written, content };
      }),
    );
  }

  /**
   * Checks the draft exactly as publishDraft would (base version, draft revision, access,
   * validation) without publishing, then runs `record` in the same transaction with the changes
   * checked: a review request pins a draft that a publish would have accepted.
   */
  checkDraft<T>(
    input: Omit<PublishInput, "audit" | "message" | "author">,
    record: (
      tx: TransactionClient,
      checked: { readonly changes: readonly SourceChange[]; readonly latestVersion: number },
    ) => Promise<T>,
  ): Promise<T> {
    return inPublishTransaction(this.#prisma, async (tx) => {
      const latest = await latestManifests(tx, this.#latest);
      const checked = await checkDraft(
        tx,
        await this.draft.read(tx),
        latest,
        this.draft.memo,
        { ...input, message: "", author: "" },
        this.keyring,
      );
      return record(tx, checked);
    });
  }

  /**
   * The draft's validation report, as a publish judges it: read through the draft cache and
   * compiled with its memo (an unchanged object is not encoded again). The report is reused while
   * the draft's content (its revision) is unchanged, for up to VALIDATION_REUSE_MS: certificate
   * expiry warnings depend on the time.
   */
  async validateDraft(): Promise<ValidationReport> {
    const draft = await this.#prisma.$transaction((tx) => this.draft.read(tx), {
      isolationLevel: "RepeatableRead",
    });
    const revision = draftRevision(sourceManifest(draft.objects));
    const now = Date.now();
    const last = this.#validated;
    if (last?.revision === revision && now - last.at < VALIDATION_REUSE_MS) return last.report;
    const compiled = compile(draft.spec, {
      memo: this.draft.memo,
      ...(this.keyring ? { openSecret: this.keyring.open } : {}),
    });
    const report = validate(draft.spec, { compiled, now });
    this.#validated = { revision, at: now, report };
    return report;
  }

  /**
   * The difference between two versions, or between a version (default: the latest) and the
   * draft. Version 0 is the empty configuration.
   */
  diff(from: number | undefined, to: number | undefined): Promise<DraftDiff> {
    return this.#prisma.$transaction(
      async (tx) => {
        const latest = await latestManifests(tx, this.#latest);
        const fromVersion = from ?? latest?.version ?? 0;
        const manifestOf = async (version: number): Promise<SourceManifest> => {
          if (version === 0) return EMPTY_MANIFEST;
          if (version === latest?.version) return latest.sources;
          const row = await tx.snapshot.findUnique({
            where: { version },
            select: { sources: true, groups: true },
          });
          if (!row)
            throw new PublishError(
              "not-found",
              `version ${version} does not exist (see switchyard history)`,
            );
          return (await expandManifests(tx, row)).sources;
        };
        const before = await manifestOf(fromVersion);
        const after =
          to === undefined
            ? sourceManifest((await this.draft.read(tx)).objects)
            : await manifestOf(to);
        return {
          fromVersion,
          toVersion: to ?? 0,
          changes: diffManifests(before, after),
          draftRevision: to === undefined ? draftRevision(after) : undefined,
        };
      },
      { isolationLevel: "RepeatableRead" },
    );
  }

  /**
   * Applies objects on top of the latest published version and publishes the result as the next
   * version, in one transaction under the publish lock: either the version is published and the
   * objects are in the draft, or nothing changed. Someone's pending draft is neither published
   * nor disturbed; only an object both touch is a conflict, refused naming it.
   *
   * `prepare` gives the objects to apply (a fragment of a spec), knowing the latest version's
   * spec, and `remove` the objects it deletes (a prune's); `afterWrite` runs once the objects are
   * written to the draft (the removed ones still there, then deleted), with the writes made there
   * (authorization of each object, new clusters' owners, the audit of the edits), before the
   * version is checked (publish authorization, validation) and written.
   */
  apply(input: {
    readonly author: string;
    readonly message: string;
    readonly prepare: (
      tx: TransactionClient,
      latest: ConfigSpec,
    ) => Promise<Partial<ConfigSpecFragment>>;
    /** The objects of the latest version the apply deletes (a prune's), given what it writes. */
    readonly remove?: (
      tx: TransactionClient,
      latest: ConfigSpec,
      version: number,
      fragment: Partial<ConfigSpecFragment>,
    ) => Promise<readonly { readonly kind: SourceKind; readonly name: string }[]>;
    /** Check everything a publish checks, then roll back: throws ApplyDryRun with the result. */
    readonly dryRun?: boolean;
    readonly afterWrite: (
      tx: TransactionClient,
      applied: {
        readonly changes: readonly SourceChange[];
        readonly before: ConfigSpec;
        readonly after: ConfigSpec;
      },
    ) => Promise<void>;
    readonly authorize?: PublishHook;
    readonly audit?: (tx: TransactionClient, record: SnapshotRecord) => Promise<void>;
  }): Promise<PublishedSnapshot> {
    return this.#timed("publish", () =>
      this.#publish(async (tx, latest) => {
        const version = latest?.version ?? 0;
        const baseRead = await this.#latestRead(tx, version);
        const base = baseRead.spec;
        const draft = await this.draft.read(tx);
        const fragment = await input.prepare(tx, base);
        const removed = (await input.remove?.(tx, base, version, fragment)) ?? [];
        const content = appliedContent(baseRead, fragment, removed);
        const result = content.spec;
        const changes = diffManifests(
          sourceManifest(baseRead.objects),
          sourceManifest(content.objects),
        );
        if (changes.length === 0)
          throw new PublishError(
            "no-changes",
            `nothing to apply: version ${version} already holds every object`,
          );
        const pending = new Set(
          diffManifests(latest?.sources ?? EMPTY_MANIFEST, sourceManifest(draft.objects)).map(
            (c) => `${c.kind}/${c.name}`,
          ),
        );
        const both = changes.filter((c) => pending.has(`${c.kind}/${c.name}`));
        if (both.length > 0)
          throw new PublishError(
            "conflict",
            `the draft has unpublished changes to ${both.map((c) => `${c.kind} "${c.name}"`).join(", ")}, which this apply changes too: publish or discard them first (switchyard diff, switchyard discard)`,
          );
        const touched = new Set(changes.map((c) => `${c.kind}/${c.name}`));
        await writeObjects(
          tx,
          envoyObjectsWhere(result, (kind, name) => touched.has(`${kind}/${name}`)),
        );
        await input.afterWrite(tx, { changes, before: base, after: result });
        // Deleted once afterWrite authorized them: the check reads a cluster's owner from its row.
        for (const kind of DELETE_ORDER)
          for (const object of removed)
            if (object.kind === kind) await deleteObject(tx, object.kind, object.name);
        const write = {
          author: input.author,
          message: input.message,
          authorize: input.authorize,
          audit: input.audit,
        };
        if (input.dryRun) {
          const checked = await checkDraft(
            tx,
            content,
            latest,
            this.draft.memo,
            write,
            this.keyring,
          );
          throw new ApplyDryRun(changes, base, result, checked.report.issues);
        }
        return this.#writeContent(tx, content, latest, write);
      }),
    );
  }

  /**
   * Undoes the draft's unpublished changes (of every object, or of those `only` names), returning
   * them to the latest published version, in one transaction under the publish lock (a discard
   * never interleaves with a publish). `authorize` sees the changes undone, the draft and the
   * published spec before anything is written, and may refuse; `audit` records them after.
   * Returns the changes undone (as the draft had them: published → draft) and the version.
   */
  discard(input: {
    readonly only?: readonly { readonly kind: SourceKind; readonly name: string }[];
    readonly authorize: DiscardHook;
    readonly audit: DiscardHook;
  }): Promise<{ readonly version: number; readonly changes: readonly SourceChange[] }> {
    return inPublishTransaction(this.#prisma, async (tx) => {
      const latest = await latestManifests(tx, this.#latest);
      const version = latest?.version ?? 0;
      const draft = await this.draft.read(tx);
      const all = diffManifests(latest?.sources ?? EMPTY_MANIFEST, sourceManifest(draft.objects));
      const changes = input.only === undefined ? all : selectChanges(all, input.only);
      if (changes.length === 0) return { version, changes };
      const published = version === 0 ? specFromSources([]) : await specOfVersion(tx, version);
      const discarded = { changes, draft: draft.spec, published };
      await input.authorize(tx, discarded);
      const restored = new Set(
        changes.filter((c) => c.change !== "added").map((c) => `${c.kind}/${c.name}`),
      );
      // Objects the draft added go (referrers first); the others get their published content.
      for (const kind of DELETE_ORDER) {
        for (const change of changes) {
          if (change.kind === kind && change.change === "added")
            await deleteObject(tx, change.kind, change.name);
        }
      }
      await writeObjects(
        tx,
        specFromSources(
          sourceObjects(published).filter((o) => restored.has(`${o.kind}/${o.name}`)),
        ),
      );
      // A cluster the draft had deleted comes back as its owner's, as that version recorded.
      const recreated = changes.filter((c) => c.kind === "cluster" && c.change === "removed");
      if (recreated.length > 0 && version > 0)
        await restoreClusterOwners(
          tx,
          await publishedClusterOwners(tx, version),
          recreated.map((c) => c.name),
        );
      await input.audit(tx, discarded);
      return { version, changes };
    });
  }

  /**
   * Publishes an older version's content as a new version, and makes the draft that content, in
   * one transaction.
   */
  rollback(input: {
    readonly version: number;
    readonly author: string;
    readonly message?: string;
    readonly baseVersion?: number;
    readonly authorize?: PublishHook;
    readonly audit?: (tx: TransactionClient, record: SnapshotRecord) => Promise<void>;
  }): Promise<PublishedSnapshot> {
    return this.#timed("rollback", () =>
      this.#publish(async (tx, latest) => {
        const spec = await specOfVersion(tx, input.version);
        const existing = new Set(
          (await tx.cluster.findMany({ select: { name: true } })).map((row) => row.name),
        );
        await replaceDraft(tx, spec);
        // Clusters the rollback brings back are their owners' again, as that version recorded.
        await restoreClusterOwners(
          tx,
          await publishedClusterOwners(tx, input.version),
          spec.clusters.map((cluster) => cluster.name).filter((name) => !existing.has(name)),
        );
        const objects = sourceObjects(spec);
        return this.#writeContent(tx, { spec: specFromSources(objects), objects }, latest, {
          author: input.author,
          message: input.message || `Roll back to version ${input.version}`,
          baseVersion: input.baseVersion,
          rolledBackFrom: input.version,
          authorize: input.authorize,
          audit: input.audit,
        });
      }),
    );
  }
}

/** The columns a SnapshotRecord needs (not the manifests). */
const recordSelect = {
  version: true,
  createdAt: true,
  author: true,
  message: true,
  previousVersion: true,
  rolledBackFrom: true,
  changes: true,
} as const;

export async function listSnapshots(
  prisma: PrismaClient,
  options: { limit: number; beforeVersion?: number },
): Promise<SnapshotRecord[]> {
  const rows = await prisma.snapshot.findMany({
    where: options.beforeVersion ? { version: { lt: options.beforeVersion } } : {},
    orderBy: { version: "desc" },
    take: options.limit,
    select: recordSelect,
  });
  return rows.map(toRecord);
}

export async function getSnapshot(prisma: PrismaClient, version: number): Promise<SnapshotRecord> {
  const row = await prisma.snapshot.findUnique({
    where: { version },
    select: recordSelect,
  });
  if (!row)
    throw new PublishError(
      "not-found",
      `version ${version} does not exist (see switchyard history)`,
    );
  return toRecord(row);
}

export interface DraftDiff {
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly changes: readonly SourceChange[];
  /** The draft's revision, when the diff's "to" side is the draft. */
  readonly draftRevision: string | undefined;
}
