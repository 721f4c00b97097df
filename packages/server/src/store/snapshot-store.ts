/**
 * SnapshotStore: publish, apply, discard and rollback under the publish lock, and the draft's
 * validation and diffs; then the history reads. Long because the class's operations share its
 * caches of the latest version (updated only once a transaction commits), so they stay one class.
 */
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import { schemaGeneration } from "@switchyard/proto";
import {
  type ConfigSpec,
  type ConfigSpecFragment,
  compile,
  diffManifests,
  draftRevision,
  EMPTY_MANIFEST,
  envoyObjectsWhere,
  markPublishedRejections,
  predictedRejections,
  type RejectionEntry,
  type SourceChange,
  type SourceKind,
  type SourceManifest,
  SPEC_FIELD,
  sourceManifest,
  sourceObjects,
  specFromSources,
  type ValidationIssue,
  type ValidationReport,
  validate,
} from "@switchyard/snapshot";
import { grantsRevision, loadGrants, secretServing } from "../auth/grants.js";
import type { SecretKeyring } from "../secrets-key.js";
import { restoreOwnersOf } from "./cluster-owners.js";
import { DraftCache, type DraftRead } from "./draft-cache.js";
import { deleteObject, replaceDraft, writeObjects } from "./draft-store.js";
import {
  ApplyDryRun,
  appliedContent,
  checkDraft,
  DELETE_ORDER,
  inPublishTransaction,
  type LatestManifests,
  latestManifests,
  PublishError,
  type PublishHook,
  type PublishInput,
  type RolloutHook,
  selectChanges,
  specOfVersion,
  type WriteInput,
  type Written,
  writeSnapshot,
} from "./publish-transaction.js";
import { type RejectionGate, rejectionsOf } from "./rejection-gate.js";
import {
  expandManifests,
  latestVersion,
  type PublishedSnapshot,
  type SnapshotRecord,
  toRecord,
} from "./snapshot-records.js";

/** What a discard undoes: the draft's changes, the draft and the published spec. */
export type DiscardHook = (
  tx: TransactionClient,
  discarded: {
    readonly changes: readonly SourceChange[];
    readonly draft: ConfigSpec;
    readonly published: ConfigSpec;
  },
) => Promise<void>;

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
  /** The predicted rejections of the latest version, by version (markRejections). */
  #publishedRejections:
    | { readonly version: number; readonly entries: readonly RejectionEntry[] }
    | undefined;
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
    const written = await writeSnapshot(
      tx,
      content,
      latest,
      this.draft.memo,
      this.#gated(input),
      this.keyring,
    );
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
          this.#gated(input),
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
        this.#gated({ ...input, message: "", author: "" }),
        this.keyring,
      );
      return record(tx, checked);
    });
  }

  /**
   * The draft's validation report, as a publish judges it: read through the draft cache and
   * compiled with its memo (an unchanged object is not encoded again). The report is reused while
   * the draft's content (its revision), the grants it was judged with (which team may use which
   * secret: owners and shares, grantsRevision) and the Envoy APIs installed are unchanged, for up
   * to VALIDATION_REUSE_MS: certificate expiry warnings depend on the time.
   */
  async validateDraft(): Promise<ValidationReport> {
    const [draft, grants] = await this.#prisma.$transaction(
      async (tx) => [await this.draft.read(tx), await loadGrants(tx)] as const,
      { isolationLevel: "RepeatableRead" },
    );
    // The Envoy APIs installed are part of what the report says (schema-handlers.ts), and so are
    // the grants (a secret withheld from a team's cluster is warned of).
    const revision = `${draftRevision(sourceManifest(draft.objects))}/${grantsRevision(grants)}/${schemaGeneration()}`;
    const now = Date.now();
    const last = this.#validated;
    if (last?.revision === revision && now - last.at < VALIDATION_REUSE_MS) return last.report;
    const compiled = compile(draft.spec, {
      memo: this.draft.memo,
      ...(this.keyring ? { openSecret: this.keyring.open } : {}),
      maySecretServe: secretServing(grants),
    });
    const report = validate(draft.spec, {
      compiled,
      now,
      ...(this.keyring ? { openSecret: this.keyring.open } : {}),
    });
    this.#validated = { revision, at: now, report };
    return report;
  }

  /**
   * `issues` (a validation of a configuration to publish: the draft's, a dry run's) with each
   * predicted rejection's `alreadyPublished` said against the latest version, as the publish's
   * rejection gate would judge it (rejection-gate.ts). The latest version's rejections are
   * worked out once per version, and only when `issues` has a predicted rejection.
   */
  async markRejections(issues: readonly ValidationIssue[]): Promise<readonly ValidationIssue[]> {
    if (predictedRejections(issues).length === 0) return issues;
    const published = await this.#prisma.$transaction(
      async (tx) => this.#rejectionsAt(tx, (await latestVersion(tx)) ?? 0),
      { isolationLevel: "RepeatableRead", timeout: 60_000, maxWait: 10_000 },
    );
    return markPublishedRejections(issues, published);
  }

  /** The predicted rejections of published version `version`, worked out once per version. */
  async #rejectionsAt(tx: TransactionClient, version: number): Promise<readonly RejectionEntry[]> {
    const cached = this.#publishedRejections;
    if (cached?.version === version) return cached.entries;
    const spec = version === 0 ? undefined : (await this.#latestRead(tx, version)).spec;
    const entries = rejectionsOf(spec, this.keyring);
    this.#publishedRejections = { version, entries };
    return entries;
  }

  /** `input` with its rejection gate reading the published rejections from this store's cache. */
  #gated<T extends { readonly rejections?: RejectionGate | undefined }>(input: T): T {
    if (input.rejections === undefined) return input;
    return {
      ...input,
      rejections: { ...input.rejections, published: (tx, v) => this.#rejectionsAt(tx, v) },
    };
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
    readonly rollouts?: RolloutHook;
    /** The predicted-rejection gate (PublishInput.rejections). */
    readonly rejections?: RejectionGate | undefined;
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
          rollouts: input.rollouts,
          rejections: this.#gated(input).rejections,
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
          throw new ApplyDryRun(changes, base, result, [
            ...checked.report.issues,
            ...checked.notes,
          ]);
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
      // A cluster or secret the draft had deleted comes back as its owner's, as that version
      // recorded.
      const recreated = (kind: "cluster" | "secret") =>
        changes.filter((c) => c.kind === kind && c.change === "removed").map((c) => c.name);
      await restoreOwnersOf(tx, version, {
        cluster: recreated("cluster"),
        secret: recreated("secret"),
      });
      await input.audit(tx, discarded);
      return { version, changes };
    });
  }

  /**
   * Takes a version's changes back (a rollout that failed or was aborted): publishes the latest
   * version with every object `to` changed (against `from`) as it was in `from`, leaving the
   * draft as it is, so that the change is still there to fix and publish again. Objects later
   * versions changed that `to` did not keep their content. `afterWrite` runs in the same
   * transaction once the version is written. PublishError "no-changes" when the latest version
   * already holds those objects as `from` did.
   */
  revert(input: {
    readonly from: number;
    readonly to: number;
    readonly author: string;
    readonly message: string;
    readonly afterWrite: (tx: TransactionClient, record: SnapshotRecord) => Promise<void>;
  }): Promise<PublishedSnapshot> {
    return this.#timed("rollback", () =>
      this.#publish(async (tx, latest) => {
        const base = await this.#latestRead(tx, latest?.version ?? 0);
        const manifestOf = async (version: number) =>
          (
            await expandManifests(
              tx,
              await tx.snapshot.findUniqueOrThrow({
                where: { version },
                select: { sources: true, groups: true },
              }),
            )
          ).sources;
        const changes = diffManifests(await manifestOf(input.from), await manifestOf(input.to));
        const before = await specOfVersion(tx, input.from);
        const fragment: Record<string, unknown[]> = {};
        const removed: { kind: SourceKind; name: string }[] = [];
        for (const change of changes) {
          if (change.change === "added") {
            removed.push({ kind: change.kind, name: change.name });
            continue;
          }
          const field = SPEC_FIELD[change.kind];
          const object = (before[field] as readonly { readonly name: string }[]).find(
            (o) => o.name === change.name,
          );
          if (object !== undefined) fragment[field] = [...(fragment[field] ?? []), object];
        }
        const content = appliedContent(base, fragment as Partial<ConfigSpecFragment>, removed);
        return this.#writeContent(tx, content, latest, {
          author: input.author,
          message: input.message,
          rolledBackFrom: input.from,
          audit: input.afterWrite,
        });
      }),
    );
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
    readonly rollouts?: RolloutHook;
  }): Promise<PublishedSnapshot> {
    return this.#timed("rollback", () =>
      this.#publish(async (tx, latest) => {
        const spec = await specOfVersion(tx, input.version);
        const [clusters, secrets] = await Promise.all([
          tx.cluster.findMany({ select: { name: true } }),
          tx.secret.findMany({ select: { name: true } }),
        ]);
        const existing = new Set([
          ...clusters.map((row) => `cluster/${row.name}`),
          ...secrets.map((row) => `secret/${row.name}`),
        ]);
        await replaceDraft(tx, spec);
        // Clusters and secrets the rollback brings back are their owners' again, as that version
        // recorded.
        const brought = (kind: string, names: readonly { name: string }[]) =>
          names.map((o) => o.name).filter((name) => !existing.has(`${kind}/${name}`));
        await restoreOwnersOf(tx, input.version, {
          cluster: brought("cluster", spec.clusters),
          secret: brought("secret", spec.secrets),
        });
        const objects = sourceObjects(spec);
        return this.#writeContent(tx, { spec: specFromSources(objects), objects }, latest, {
          author: input.author,
          message: input.message || `Roll back to version ${input.version}`,
          baseVersion: input.baseVersion,
          rolledBackFrom: input.version,
          authorize: input.authorize,
          audit: input.audit,
          rollouts: input.rollouts,
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
