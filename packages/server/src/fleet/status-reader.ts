import type { Prisma, PrismaClient, TransactionClient } from "@switchyard/db";
import type { HeldBackResource } from "@switchyard/status";

/**
 * Reads node status as persisted by StatusWriter, for the console API. Everything comes from the
 * database, which every replica writes, so any replica answers for every node. Times are ms since
 * the epoch.
 */

export type TypeStatusName = "NACKED" | "NOT_SENT" | "SYNCED" | "PENDING" | "STALE";

export interface NodeTypeRecord {
  readonly typeUrl: string;
  /** As written, except that a PENDING type whose staleAt has passed reads as STALE. */
  readonly status: TypeStatusName;
  readonly staleAt: number | undefined;
  readonly sent:
    | { readonly version: string; readonly nonce: string; readonly at: number }
    | undefined;
  readonly acked:
    | { readonly version: string; readonly nonce: string | undefined; readonly at: number }
    | undefined;
  /** The latest NACK, kept after a later ACK (then `status` is no longer NACKED). */
  readonly lastNack:
    | {
        readonly errorDetail: string;
        readonly version: string;
        readonly nonce: string | undefined;
        readonly at: number;
        /** The resources it rejected, as the client named them; empty: the whole response. */
        readonly rejected: readonly string[];
      }
    | undefined;
  /** What of its snapshot the node is not sent because of its NACKs (HeldBackResource). */
  readonly heldBack: readonly HeldBackResource[];
  /**
   * Resource name → version (null when the transport did not report it). Read only when asked
   * for (`held: true`, and by getNode); otherwise empty. Nodes holding the same set share one
   * object: do not alter it.
   */
  readonly held: Readonly<Record<string, string | null>>;
  /** The XdsHeldSet of `held` ("" when the node holds nothing). */
  readonly heldKey: string;
  readonly resourceVersionsKnown: boolean;
  /** Subscribed to the whole set (TypeLedger.wildcard): only then is all of it wanted. */
  readonly wildcard: boolean;
  /**
   * The names it subscribes to besides `*` (TypeLedger.requested), sorted. Read with `held`;
   * otherwise empty.
   */
  readonly requested: readonly string[];
  /** The XdsHeldSet of `requested` ("" when none). */
  readonly requestedKey: string;
  readonly updatedAt: number;
}

export interface NodeRecord {
  readonly id: string;
  readonly cluster: string;
  readonly locality: unknown;
  readonly metadata: unknown;
  readonly userAgent: { readonly name: string; readonly version: string | undefined };
  readonly clientFeatures: readonly string[];
  readonly connection:
    | { readonly t: "connected"; readonly since: number; readonly openStreams: number }
    | { readonly t: "disconnected"; readonly since: number; readonly connectedSince: number };
  /** The replica serving (or that last served) the node, and its latest stream. */
  readonly replicaId: string;
  readonly variant: string;
  readonly remoteAddress: string;
  /** The credential of the latest stream on the xDS port; "" when none was required. */
  readonly authenticatedAs: string;
  readonly updatedAt: number;
  /** Sorted by type URL. */
  readonly types: readonly NodeTypeRecord[];
}

export interface NodeEventRecord {
  readonly id: string;
  readonly nodeId: string;
  readonly kind: string;
  readonly at: number;
  readonly replicaId: string;
  readonly typeUrl: string | undefined;
  readonly detail: unknown;
}

export interface NodeDetail extends NodeRecord {
  /** Newest first. */
  readonly events: readonly NodeEventRecord[];
}

export interface NodeFilters {
  /** Only these nodes. */
  readonly ids?: readonly string[];
  /** Only nodes whose id sorts after this one (paging). */
  readonly afterId?: string;
  /** Only nodes whose id contains this text (case-sensitive). */
  readonly idContains?: string;
  /** Only nodes with at least one type in this status. */
  readonly status?: TypeStatusName;
  readonly connected?: boolean;
  readonly cluster?: string;
  readonly replicaId?: string;
  /** At most this many nodes, by id. Default 1,000. */
  readonly limit?: number;
  /** The instant STALE is judged at (ms); default now. */
  readonly at?: number;
  /** Read what each node holds (NodeTypeRecord.held); default false. */
  readonly held?: boolean;
}

const NOTHING_HELD: Readonly<Record<string, string | null>> = Object.freeze({});

/** Held sets are immutable (content-addressed): the most recently read are kept here. */
const HELD_CACHE_SIZE = 512;
const heldCache = new Map<string, Readonly<Record<string, string | null>>>();

/** The bodies of held sets by key; a key no longer stored reads as nothing held. */
async function loadHeldSets(
  prisma: PrismaClient | TransactionClient,
  keys: Iterable<string>,
): Promise<Map<string, Readonly<Record<string, string | null>>>> {
  const found = new Map<string, Readonly<Record<string, string | null>>>();
  const missing: string[] = [];
  for (const key of new Set(keys)) {
    if (key === "") continue;
    const cached = heldCache.get(key);
    if (cached === undefined) missing.push(key);
    else found.set(key, cached);
  }
  if (missing.length > 0) {
    const rows = await prisma.xdsHeldSet.findMany({
      where: { key: { in: missing } },
      select: { key: true, body: true },
    });
    for (const row of rows) {
      const body = Object.freeze(row.body as Record<string, string | null>);
      found.set(row.key, body);
      heldCache.set(row.key, body);
      if (heldCache.size > HELD_CACHE_SIZE) {
        const oldest = heldCache.keys().next().value;
        if (oldest !== undefined) heldCache.delete(oldest);
      }
    }
  }
  return found;
}

/** `nodes` with what each holds read from the held sets. */
async function withHeld<N extends NodeRecord>(
  prisma: PrismaClient | TransactionClient,
  nodes: N[],
): Promise<N[]> {
  const sets = await loadHeldSets(
    prisma,
    nodes.flatMap((node) => node.types.flatMap((type) => [type.heldKey, type.requestedKey])),
  );
  return nodes.map((node) => ({
    ...node,
    types: node.types.map((type) => ({
      ...type,
      held: sets.get(type.heldKey) ?? NOTHING_HELD,
      requested: Object.keys(sets.get(type.requestedKey) ?? NOTHING_HELD),
    })),
  }));
}

export const DEFAULT_NODE_LIMIT = 1_000;
export const DEFAULT_EVENT_LIMIT = 50;

type TypeWhere = Prisma.XdsNodeTypeWhereInput;

/** The rows whose effective status is `status` at `at` (PENDING turns STALE at staleAt). */
function typeStatusWhere(status: TypeStatusName, at: Date): TypeWhere {
  switch (status) {
    case "STALE":
      return {
        OR: [{ status: "STALE" }, { status: "PENDING", staleAt: { lte: at } }],
      };
    case "PENDING":
      return { status: "PENDING", staleAt: { gt: at } };
    default:
      return { status };
  }
}

/**
 * `text` matched literally by Prisma's `contains`, which becomes a LIKE pattern unescaped
 * (prisma/prisma#19506): Postgres' default escape character before `\`, `%` and `_`.
 */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listNodes(
  prisma: PrismaClient | TransactionClient,
  filters: NodeFilters = {},
): Promise<NodeRecord[]> {
  const at = filters.at ?? Date.now();
  const where: Prisma.XdsNodeWhereInput = {
    id: {
      ...(filters.ids === undefined ? {} : { in: [...filters.ids] }),
      ...(filters.afterId === undefined ? {} : { gt: filters.afterId }),
      ...(filters.idContains === undefined || filters.idContains === ""
        ? {}
        : { contains: likeLiteral(filters.idContains) }),
    },
    ...(filters.status === undefined
      ? {}
      : { types: { some: typeStatusWhere(filters.status, new Date(at)) } }),
    ...(filters.connected === undefined
      ? {}
      : { disconnectedAt: filters.connected ? null : { not: null } }),
    ...(filters.cluster === undefined ? {} : { cluster: filters.cluster }),
    ...(filters.replicaId === undefined ? {} : { replicaId: filters.replicaId }),
  };
  const rows = await prisma.xdsNode.findMany({
    where,
    include: { types: { orderBy: { typeUrl: "asc" } } },
    orderBy: { id: "asc" },
    take: filters.limit ?? DEFAULT_NODE_LIMIT,
  });
  const nodes = rows.map((row) => nodeRecord(row, at));
  return filters.held === true ? withHeld(prisma, nodes) : nodes;
}

/** What names a connected node to a node group and a rollout wave: no types, no status. */
export type NodeIdentity = Pick<NodeRecord, "id" | "cluster" | "locality" | "metadata">;

/**
 * The connected nodes' identities, by id, at most `limit`: what a rollout starts with, read in
 * the publish's transaction without the status of every type of every node.
 */
export async function listConnectedIdentities(
  prisma: PrismaClient | TransactionClient,
  limit: number,
): Promise<NodeIdentity[]> {
  return prisma.xdsNode.findMany({
    where: { disconnectedAt: null },
    select: { id: true, cluster: true, locality: true, metadata: true },
    orderBy: { id: "asc" },
    take: limit,
  });
}

/** One node with its types and its newest events; undefined when no replica ever wrote it. */
export async function getNode(
  prisma: PrismaClient,
  id: string,
  options: { readonly eventLimit?: number; readonly at?: number } = {},
): Promise<NodeDetail | undefined> {
  const [row, events] = await Promise.all([
    prisma.xdsNode.findUnique({
      where: { id },
      include: { types: { orderBy: { typeUrl: "asc" } } },
    }),
    prisma.xdsNodeEvent.findMany({
      where: { nodeId: id },
      orderBy: { id: "desc" },
      take: options.eventLimit ?? DEFAULT_EVENT_LIMIT,
    }),
  ]);
  if (row === null) return undefined;
  const [node] = await withHeld(prisma, [nodeRecord(row, options.at ?? Date.now())]);
  return {
    ...(node as NodeRecord),
    events: events.map((e) => ({
      id: e.id.toString(),
      nodeId: e.nodeId,
      kind: e.kind,
      at: e.at.getTime(),
      replicaId: e.replicaId,
      typeUrl: e.typeUrl ?? undefined,
      detail: e.detail,
    })),
  };
}

type NodeWithTypes = Prisma.XdsNodeGetPayload<{ include: { types: true } }>;
type TypeRowRead = NodeWithTypes["types"][number];

function nodeRecord(row: NodeWithTypes, at: number): NodeRecord {
  return {
    id: row.id,
    cluster: row.cluster,
    locality: row.locality,
    metadata: row.metadata,
    userAgent: { name: row.userAgentName, version: row.userAgentVersion ?? undefined },
    clientFeatures: row.clientFeatures,
    connection:
      row.disconnectedAt === null
        ? { t: "connected", since: row.connectedSince.getTime(), openStreams: row.openStreams }
        : {
            t: "disconnected",
            since: row.disconnectedAt.getTime(),
            connectedSince: row.connectedSince.getTime(),
          },
    replicaId: row.replicaId,
    variant: row.variant,
    remoteAddress: row.remoteAddress,
    authenticatedAs: row.authenticatedAs,
    updatedAt: row.updatedAt.getTime(),
    types: row.types.map((t) => typeRecord(t, at)),
  };
}

/** The held-back list as written (status-rows.ts); anything else reads as nothing held back. */
function heldBackOf(json: unknown): readonly HeldBackResource[] {
  return Array.isArray(json) ? (json as HeldBackResource[]) : [];
}

function typeRecord(row: TypeRowRead, at: number): NodeTypeRecord {
  const staleAt = row.staleAt?.getTime();
  const status = row.status as TypeStatusName;
  return {
    typeUrl: row.typeUrl,
    status: status === "PENDING" && staleAt !== undefined && staleAt <= at ? "STALE" : status,
    staleAt,
    sent:
      row.sentVersion !== null && row.sentNonce !== null && row.sentAt !== null
        ? { version: row.sentVersion, nonce: row.sentNonce, at: row.sentAt.getTime() }
        : undefined,
    acked:
      row.ackedVersion !== null && row.ackedAt !== null
        ? {
            version: row.ackedVersion,
            nonce: row.ackedNonce ?? undefined,
            at: row.ackedAt.getTime(),
          }
        : undefined,
    lastNack:
      row.nackErrorDetail !== null && row.nackVersion !== null && row.nackAt !== null
        ? {
            errorDetail: row.nackErrorDetail,
            version: row.nackVersion,
            nonce: row.nackNonce ?? undefined,
            at: row.nackAt.getTime(),
            rejected: row.nackRejected ?? [],
          }
        : undefined,
    heldBack: heldBackOf(row.heldBack),
    held: NOTHING_HELD,
    heldKey: row.heldKey,
    resourceVersionsKnown: row.resourceVersionsKnown,
    wildcard: row.wildcard,
    requested: [],
    requestedKey: row.requestedKey,
    updatedAt: row.updatedAt.getTime(),
  };
}
