import type { PrismaClient } from "@switchyard/db";
import {
  type CompiledGroup,
  type NodeSelector,
  selectNodeGroup,
  storedNameOf,
} from "@switchyard/snapshot";
import { type DurationSummary, summarizeDurations } from "@switchyard/status";
import { listNodes, type NodeRecord, type NodeTypeRecord } from "./status-reader.js";

/**
 * Convergence of a published version, derived from persisted state only (the Snapshot row, its
 * manifest blobs, and the node status every replica writes), so any replica answers for the whole
 * fleet. `classifyConvergence` is the pure part; `readConvergence` loads its input.
 */

/** One node group of a version, as the reader needs it: selector and typeUrl → name → version. */
export interface GroupManifest {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  readonly resources: { readonly [typeUrl: string]: ReadonlyMap<string, string> };
}

export interface VersionManifests {
  readonly version: number;
  /** Ms since the epoch. */
  readonly publishedAt: number;
  readonly groups: readonly GroupManifest[];
}

export type TypeConvergenceState = "IN_SYNC" | "BEHIND" | "NACKED" | "UNKNOWN";
export type NodeConvergenceState = "ACKED" | "NACKED" | "PENDING";

export interface TypeConvergence {
  readonly typeUrl: string;
  readonly state: TypeConvergenceState;
  readonly acked: { readonly version: string; readonly at: number } | undefined;
  /** NACKED only. */
  readonly nack: { readonly errorDetail: string; readonly at: number } | undefined;
}

export interface NodeConvergence {
  readonly nodeId: string;
  readonly cluster: string;
  readonly group: string;
  readonly state: NodeConvergenceState;
  /** ACKED only: publish → latest ACK, 0 when the node already held the version. */
  readonly ackMs: number | undefined;
  /**
   * Whether the node's connection opened after the publish (it connected, or reconnected, later):
   * its ACK time then measures when it came, not how fast the version reached it, and is left out
   * of the percentiles (ConvergenceResult.connectedLater).
   */
  readonly connectedAfterPublish: boolean;
  /** NACKED only: the first NACKED type by type URL. */
  readonly nack: { readonly typeUrl: string; readonly errorDetail: string } | undefined;
  /** Sorted by type URL. */
  readonly types: readonly TypeConvergence[];
}

export interface ConvergenceResult {
  readonly version: number;
  readonly publishedAt: number;
  readonly targeted: number;
  readonly acked: number;
  readonly nacked: number;
  readonly pending: number;
  /**
   * Publish → ACK times of the ACKED nodes that were connected when the version was published;
   * nodes that connected later are counted in `connectedLater` instead.
   */
  readonly durations: DurationSummary;
  /** ACKED nodes whose connection opened after the publish: not in `durations`. */
  readonly connectedLater: number;
  /** Sorted by node id. */
  readonly nodes: readonly NodeConvergence[];
}

/** The version does not exist. */
export class UnknownVersionError extends Error {
  override readonly name = "UnknownVersionError";
  constructor(readonly version: number) {
    super(`version ${version} does not exist (see switchyard history)`);
  }
}

/** Top-level string values of a node's metadata (the only ones a selector can match). */
export function stringMetadata(metadata: unknown): Record<string, string> {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return {};
  return Object.fromEntries(
    Object.entries(metadata).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
}

/**
 * Whether a node holding `held` (name → version) holds what `want` gives it: every held name is
 * in `want` at its version and, when it subscribes to the whole set (`wildcard`: Envoy's CDS
 * and LDS), nothing of `want` is missing. A subscription by name (EDS, RDS, and gRPC's CDS and
 * LDS) holds what it asked for, which is not all of `want`.
 */
export function heldMatches(
  wildcard: boolean,
  held: Iterable<readonly [string, string | null | undefined]>,
  want: ReadonlyMap<string, string>,
): boolean {
  let count = 0;
  for (const [name, version] of held) {
    // A resource held under its xdstp:// name is the stored one it names, at the same version
    // (@switchyard/snapshot xdstp-projection.ts).
    if (want.get(storedNameOf(name)) !== version) return false;
    count += 1;
  }
  return !wildcard || count === want.size;
}

/**
 * heldMatches, once per held set and wanted set: nodes in sync share one held set (by key), so a
 * fleet of a thousand compares a few sets, not a thousand.
 */
type MatchMemo = Map<string, boolean>;

function typeConvergence(
  type: NodeTypeRecord,
  group: GroupManifest,
  publishedAt: number,
  memo: MatchMemo,
): TypeConvergence {
  const want = group.resources[type.typeUrl];
  const acked = type.acked && { version: type.acked.version, at: type.acked.at };
  const base = { typeUrl: type.typeUrl, acked, nack: undefined };
  if (want === undefined) return { ...base, state: "IN_SYNC" };
  if (type.acked !== undefined) {
    if (!type.resourceVersionsKnown) return { ...base, state: "UNKNOWN" };
    const key = `${group.name}\n${type.typeUrl}\n${type.wildcard}\n${type.heldKey}`;
    let matches = memo.get(key);
    if (matches === undefined) {
      matches = heldMatches(type.wildcard, Object.entries(type.held), want);
      memo.set(key, matches);
    }
    if (matches) return { ...base, state: "IN_SYNC" };
  }
  const nack = type.lastNack;
  if (nack !== undefined && nack.at >= publishedAt && (acked === undefined || nack.at >= acked.at))
    return { ...base, state: "NACKED", nack: { errorDetail: nack.errorDetail, at: nack.at } };
  return { ...base, state: "BEHIND" };
}

/** The node group a version gives `node`, as the xDS server chooses it. */
export function groupFor(manifests: VersionManifests, node: NodeRecord): GroupManifest {
  // selectNodeGroup reads only the selector, isDefault and order of the groups.
  return selectNodeGroup(manifests.groups as unknown as readonly CompiledGroup[], {
    id: node.id,
    cluster: node.cluster,
    metadata: stringMetadata(node.metadata),
  }) as unknown as GroupManifest;
}

function nodeConvergence(
  node: NodeRecord,
  manifests: VersionManifests,
  memo: MatchMemo,
): NodeConvergence {
  const group = groupFor(manifests, node);
  const types = [...node.types]
    .sort((a, b) => (a.typeUrl < b.typeUrl ? -1 : a.typeUrl > b.typeUrl ? 1 : 0))
    .map((type) => typeConvergence(type, group, manifests.publishedAt, memo));
  const base = {
    nodeId: node.id,
    cluster: node.cluster,
    group: group.name,
    types,
    connectedAfterPublish: connectedAfter(node, manifests.publishedAt),
  };
  // A node that requested no type yet holds nothing: pending, not vacuously in sync.
  if (types.length > 0 && types.every((t) => t.state === "IN_SYNC")) {
    const lastAck = Math.max(...types.map((t) => t.acked?.at ?? Number.NEGATIVE_INFINITY));
    return {
      ...base,
      state: "ACKED",
      ackMs: Math.max(0, lastAck - manifests.publishedAt),
      nack: undefined,
    };
  }
  const nacked = types.find((t) => t.state === "NACKED");
  if (nacked?.nack !== undefined)
    return {
      ...base,
      state: "NACKED",
      ackMs: undefined,
      nack: { typeUrl: nacked.typeUrl, errorDetail: nacked.nack.errorDetail },
    };
  return { ...base, state: "PENDING", ackMs: undefined, nack: undefined };
}

/** Whether `node`'s connection (the one open now, or the last) opened after `publishedAt`. */
function connectedAfter(node: NodeRecord, publishedAt: number): boolean {
  const since =
    node.connection.t === "connected" ? node.connection.since : node.connection.connectedSince;
  return since > publishedAt;
}

/**
 * Pure: classifies `nodes` (the connected ones) against a version's manifests. The percentiles
 * to ACK count only the nodes connected when the version was published: a node that connected
 * later ACKs when it comes, and its time from the publish says nothing of how fast the version
 * spread (issue 46). Those are counted apart, in `connectedLater`.
 */
export function classifyConvergence(
  manifests: VersionManifests,
  nodes: readonly NodeRecord[],
): ConvergenceResult {
  const memo: MatchMemo = new Map();
  const results = [...nodes]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((node) => nodeConvergence(node, manifests, memo));
  const count = (state: NodeConvergenceState) => results.filter((n) => n.state === state).length;
  return {
    version: manifests.version,
    publishedAt: manifests.publishedAt,
    targeted: results.length,
    acked: count("ACKED"),
    nacked: count("NACKED"),
    pending: count("PENDING"),
    durations: summarizeDurations(
      results.flatMap((n) => (n.ackMs === undefined || n.connectedAfterPublish ? [] : [n.ackMs])),
    ),
    connectedLater: results.filter((n) => n.state === "ACKED" && n.connectedAfterPublish).length,
    nodes: results,
  };
}

/** A stored manifest reference: a blob key ("manifest:<sha256>") or, in old rows, the map. */
type ManifestRef = string | { readonly [name: string]: string };

interface StoredGroupRef {
  readonly name: string;
  readonly isDefault: boolean;
  readonly priority: number;
  readonly selector: NodeSelector;
  readonly resources: { readonly [typeUrl: string]: ManifestRef };
}

/** A resource blob key is `<typeUrl>@<version>`. */
const versionOfKey = (key: string): string => key.slice(key.lastIndexOf("@") + 1);

/** Versions are immutable: their manifests are kept for the few most recently read. */
const MANIFEST_CACHE_SIZE = 4;
const manifestCache = new WeakMap<PrismaClient, Map<number, Promise<VersionManifests>>>();

/** The node groups of a published version with name → resource version per type. */
export function readVersionManifests(
  prisma: PrismaClient,
  version: number,
): Promise<VersionManifests> {
  let cache = manifestCache.get(prisma);
  if (cache === undefined) {
    cache = new Map();
    manifestCache.set(prisma, cache);
  }
  const cached = cache.get(version);
  if (cached !== undefined) {
    // Most recently used last.
    cache.delete(version);
    cache.set(version, cached);
    return cached;
  }
  const read = readManifests(prisma, version);
  cache.set(version, read);
  // A failed read (unknown version, database away) is not kept.
  read.catch(() => cache.delete(version));
  for (const oldest of cache.keys()) {
    if (cache.size <= MANIFEST_CACHE_SIZE) break;
    cache.delete(oldest);
  }
  return read;
}

async function readManifests(prisma: PrismaClient, version: number): Promise<VersionManifests> {
  const row = await prisma.snapshot.findUnique({
    where: { version },
    select: { version: true, createdAt: true, groups: true },
  });
  if (row === null) throw new UnknownVersionError(version);
  const groupRefs = row.groups as unknown as StoredGroupRef[];
  const keys = [
    ...new Set(
      groupRefs
        .flatMap((g) => Object.values(g.resources))
        .filter((ref): ref is string => typeof ref === "string"),
    ),
  ];
  const blobs =
    keys.length === 0
      ? []
      : await prisma.snapshotBlob.findMany({
          where: { key: { in: keys } },
          select: { key: true, body: true },
        });
  const maps = new Map(
    blobs.map((blob) => [
      blob.key,
      JSON.parse(Buffer.from(blob.body).toString("utf8")) as { [name: string]: string },
    ]),
  );
  const expand = (ref: ManifestRef): ReadonlyMap<string, string> => {
    const map = typeof ref === "string" ? maps.get(ref) : ref;
    if (map === undefined)
      throw new Error(`snapshot blob ${String(ref)} missing from the database`);
    return new Map(Object.entries(map).map(([name, key]) => [name, versionOfKey(key)]));
  };
  return {
    version: row.version,
    publishedAt: row.createdAt.getTime(),
    groups: groupRefs.map((group) => ({
      name: group.name,
      isDefault: group.isDefault,
      priority: group.priority,
      selector: group.selector,
      resources: Object.fromEntries(
        Object.entries(group.resources).map(([typeUrl, ref]) => [typeUrl, expand(ref)]),
      ),
    })),
  };
}

/** Every connected node's progress towards `version`; UnknownVersionError when there is none. */
export async function readConvergence(
  prisma: PrismaClient,
  version: number,
): Promise<ConvergenceResult> {
  const manifests = await readVersionManifests(prisma, version);
  const nodes = await listNodes(prisma, { connected: true, limit: 100_000, held: true });
  return classifyConvergence(manifests, nodes);
}
