/**
 * Published snapshots as stored: a row per version (SnapshotRecord) whose manifests name
 * content-addressed blobs (manifest blobs, encoded Envoy resources, Secret resources sealed with
 * the secrets key), and how a version's compiled config is read back from them. What writes
 * them, under the publish lock, is snapshot-store.ts.
 */

import { createHash } from "node:crypto";
import type { PrismaClient, TransactionClient } from "@switchyard/db";
import {
  type CompiledConfig,
  type CompiledGroup,
  type ConfigSpec,
  canonicalJson,
  EMPTY_MANIFEST,
  isSealed,
  type NodeSelector,
  ResourceSnapshot,
  type SourceChange,
  type SourceManifest,
  TYPE_ORDER,
  TypeUrl,
  type ValidationIssue,
  type XdsResource,
} from "@switchyard/snapshot";
import type { RolloutServingRow } from "../rollouts/rollout-rows.js";
import type { SecretKeyring } from "../secrets-key.js";

/** Postgres NOTIFY channel: payload is the new version. */
export const SNAPSHOT_CHANNEL = "switchyard_snapshot";

export interface StoredGroup {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  /** The group's own response limit (NodeGroupSpec.maxResponseBytes); absent: the server's. */
  readonly maxResponseBytes?: number;
  /** typeUrl → name → blob key */
  readonly resources: { readonly [typeUrl: string]: { readonly [name: string]: string } };
}

/** name → blob key: one manifest per kind of source and per node group and type. */
export type NameMap = { readonly [name: string]: string };

/**
 * How a snapshot row refers to its manifests: each name→key map is a blob of its own
 * ("manifest:<sha256>"), shared by every version in which it did not change, so a one-route
 * publish writes two small manifests instead of the whole fleet's. Rows written before manifests
 * were blobs hold the maps inline; both read the same.
 */
export type ManifestRef = string | NameMap;

export interface StoredGroupRef {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  readonly maxResponseBytes?: number;
  readonly resources: { readonly [typeUrl: string]: ManifestRef };
}

export function manifestBlob(map: NameMap): { key: string; json: string } {
  const json = canonicalJson(map);
  const key = `manifest:${createHash("sha256").update(json).digest("hex")}`;
  remember(map, key);
  return { key, json };
}

/**
 * The blob key and entry count of each manifest map read or written (a map is never changed once
 * built): a publish keeps the latest version's map where nothing of it changed, and finds its
 * blob here rather than by canonical JSON and a hash (~5 ms for a map of 10,000 names).
 */
const stored = new WeakMap<NameMap, { readonly key: string; readonly size: number }>();

function remember(map: NameMap, key: string): void {
  stored.set(map, { key, size: Object.keys(map).length });
}

/** What `map` is stored as, when it was read or written (see `stored`). */
export function storedManifest(
  map: NameMap,
): { readonly key: string; readonly size: number } | undefined {
  return stored.get(map);
}

/**
 * Expands a snapshot row's manifest references into maps; `known` maps (by blob key) are not read
 * again. `manifests` holds every map the row refers to, by key, for the next call's `known`.
 */
export async function expandManifests(
  db: TransactionClient,
  row: { sources: unknown; groups: unknown },
  known: ReadonlyMap<string, NameMap> = new Map(),
): Promise<{
  sources: SourceManifest;
  groups: StoredGroup[];
  manifests: ReadonlyMap<string, NameMap>;
}> {
  const sourceRefs = row.sources as { [kind: string]: ManifestRef };
  const groupRefs = row.groups as unknown as StoredGroupRef[];
  const keys = [
    ...Object.values(sourceRefs),
    ...groupRefs.flatMap((g) => Object.values(g.resources)),
  ].filter((ref): ref is string => typeof ref === "string");
  const blobs = await loadBlobs(
    db,
    keys.filter((key) => !known.has(key)),
  );
  const manifests = new Map<string, NameMap>();
  const expand = (ref: ManifestRef): NameMap => {
    if (typeof ref !== "string") return ref;
    let map = manifests.get(ref) ?? known.get(ref);
    if (map === undefined) {
      map = JSON.parse(
        Buffer.from(blobs.get(ref)?.body ?? new Uint8Array()).toString("utf8"),
      ) as NameMap;
      remember(map, ref);
    }
    manifests.set(ref, map);
    return map;
  };
  const sources = Object.fromEntries(
    Object.entries(sourceRefs).map(([kind, ref]) => [kind, expand(ref)]),
  ) as unknown as SourceManifest;
  const groups = groupRefs.map((group) => ({
    ...group,
    resources: Object.fromEntries(
      Object.entries(group.resources).map(([typeUrl, ref]) => [typeUrl, expand(ref)]),
    ),
  }));
  return { sources: { ...EMPTY_MANIFEST, ...sources }, groups, manifests };
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

/**
 * A warning a publish hook gives of a publish it lets through, for the publish's answer beside
 * validation's (a route test that already failed on the latest version, route-test-gate.ts).
 */
export interface PublishNote {
  readonly severity: "warning";
  readonly code: string;
  readonly path: string;
  readonly message: string;
  readonly hint?: string;
}

export interface PublishedSnapshot {
  readonly record: SnapshotRecord;
  /** What proxies get: the compiled node groups, as loaded into the xDS cache. */
  readonly config: CompiledConfig;
  /** Validation's warnings, then the publish hooks' notes. */
  readonly warnings: readonly (ValidationIssue | PublishNote)[];
  /**
   * The content of the previous version (undefined: none) and of this one, when the store holds
   * both in memory (the usual case: the previous version was its own latest), so the answer to
   * the publish needs no further reads; absent otherwise.
   */
  readonly sides?: { readonly before: ConfigSpec | undefined; readonly after: ConfigSpec };
  /** The ids of the rollouts the publish started (one per node group it changes), if any. */
  readonly rollouts?: readonly number[];
  /**
   * The rollouts running once it was written, read in its transaction (a publish made by this
   * process): serving them needs no read before the version is installed.
   */
  readonly running?: readonly RolloutServingRow[];
}

export function resourceKey(resource: XdsResource): string {
  return `${resource.typeUrl}@${resource.version}`;
}

export function toRecord(row: {
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

export async function latestRow(db: TransactionClient) {
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
export async function loadBlobs(
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
export function sealedBlob(
  body: Uint8Array,
  keyring: SecretKeyring | undefined,
): Buffer<ArrayBuffer> {
  if (keyring?.keyId === undefined) return Buffer.from(body);
  return Buffer.from(keyring.seal(Buffer.from(body).toString("base64")));
}

/**
 * The inverse of sealedBlob: an encoded Secret starts with a field tag, never with "sy2." (nor
 * "sy1.", the older form, which still opens).
 */
export function openedBlob(body: Uint8Array, keyring: SecretKeyring | undefined): Uint8Array {
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

/** How configOf finds a resource it already holds: its blob key and its name. */
const heldKey = (key: string, name: string) => `${key}\u0000${name}`;

/**
 * Rebuilds the compiled config of a stored snapshot, sharing one XdsResource per blob. Resources
 * in `known` (by `heldKey`) are reused as they are, their blobs not read again.
 */
export async function configOf(
  db: TransactionClient,
  groups: readonly StoredGroup[],
  keyring: SecretKeyring | undefined,
  known: ReadonlyMap<string, XdsResource> = new Map(),
): Promise<CompiledConfig> {
  const keys = groups.flatMap((g) =>
    Object.values(g.resources).flatMap((byName) =>
      Object.entries(byName)
        .filter(([name, key]) => !known.has(heldKey(key, name)))
        .map(([, key]) => key),
    ),
  );
  const blobs = await loadBlobs(db, keys);
  const shared = new Map<string, XdsResource>();
  const compiledGroups: CompiledGroup[] = groups.map((group) => {
    const resources: XdsResource[] = [];
    for (const [typeUrl, byName] of Object.entries(group.resources)) {
      for (const [name, key] of Object.entries(byName)) {
        const sharedKey = heldKey(key, name);
        let resource = shared.get(sharedKey) ?? known.get(sharedKey);
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
        }
        shared.set(sharedKey, resource);
        resources.push(resource);
      }
    }
    return {
      name: group.name,
      isDefault: group.isDefault,
      priority: group.priority,
      selector: group.selector,
      snapshot: new ResourceSnapshot(resources).withMaxResponseBytes(group.maxResponseBytes),
    };
  });
  return { groups: compiledGroups, issues: [] };
}

/**
 * Reads the latest published snapshot again and again, as a replica following publishes does
 * (every xDS worker process follows every publish): blobs are content-addressed (a resource's
 * key is its type and content hash, a manifest's the hash of its JSON), so what the last read
 * found, or the config served since (`remember`), is reused rather than read and decoded again.
 * A one-route publish costs a follower the changed route configuration's blob and the manifests
 * that name it, not the whole config; unchanged resources stay the same objects from version to
 * version. Holds one version's manifests and the resources of the config last read or served.
 */
export class SnapshotReader {
  readonly #prisma: PrismaClient;
  readonly #keyring: SecretKeyring | undefined;
  /** The config whose resources the next read reuses (indexed by that read, not before). */
  #held: CompiledConfig | undefined;
  #manifests: ReadonlyMap<string, NameMap> = new Map();

  constructor(prisma: PrismaClient, keyring?: SecretKeyring) {
    this.#prisma = prisma;
    this.#keyring = keyring;
  }

  /**
   * The next read reuses `config`'s resources (the config now served, wherever it came from).
   * Cheap: a process that publishes itself seldom reads, and a publish's answer must not wait.
   */
  remember(config: CompiledConfig): void {
    this.#held = config;
  }

  /** The resources of the config remembered, by `heldKey`. */
  #known(): Map<string, XdsResource> {
    const resources = new Map<string, XdsResource>();
    for (const group of this.#held?.groups ?? [])
      for (const typeUrl of TYPE_ORDER)
        for (const resource of group.snapshot.resources(typeUrl).values())
          resources.set(heldKey(resourceKey(resource), resource.name), resource);
    return resources;
  }

  /**
   * Published version `version` (undefined: there is none), read beside the latest: a node group
   * held by a rollout is served the version it ran before. What the next `latest` reuses is left
   * as it was.
   */
  at(version: number): Promise<PublishedSnapshot | undefined> {
    return this.#prisma.$transaction(
      async (tx) => {
        const row = await tx.snapshot.findUnique({ where: { version } });
        if (!row) return undefined;
        const { groups } = await expandManifests(tx, row, this.#manifests);
        const config = await configOf(tx, groups, this.#keyring, this.#known());
        return { record: toRecord(row), config, warnings: [] };
      },
      { isolationLevel: "RepeatableRead" },
    );
  }

  /** The latest published snapshot, or undefined before the first publish. */
  latest(): Promise<PublishedSnapshot | undefined> {
    return this.#prisma.$transaction(
      async (tx) => {
        const row = await latestRow(tx);
        if (!row) return undefined;
        const { groups, manifests } = await expandManifests(tx, row, this.#manifests);
        const config = await configOf(tx, groups, this.#keyring, this.#known());
        this.#manifests = manifests;
        this.remember(config);
        return { record: toRecord(row), config, warnings: [] };
      },
      { isolationLevel: "RepeatableRead" },
    );
  }
}
