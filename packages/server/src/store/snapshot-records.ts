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
import type { SecretKeyring } from "../secrets-key.js";

/** Postgres NOTIFY channel: payload is the new version. */
export const SNAPSHOT_CHANNEL = "switchyard_snapshot";

export interface StoredGroup {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
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
  readonly resources: { readonly [typeUrl: string]: ManifestRef };
}

export function manifestBlob(map: NameMap): { key: string; json: string } {
  const json = canonicalJson(map);
  return { key: `manifest:${createHash("sha256").update(json).digest("hex")}`, json };
}

/** Expands a snapshot row's manifest references into maps. */
export async function expandManifests(
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

export function resourceKey(resource: XdsResource): string {
  return `${resource.typeUrl}@${resource.version}`;
}

export function storedGroups(config: CompiledConfig): StoredGroup[] {
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

/** The inverse of sealedBlob: an encoded Secret starts with a field tag, never with "sy1.". */
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

/** Rebuilds the compiled config of a stored snapshot, sharing one XdsResource per blob. */
export async function configOf(
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
