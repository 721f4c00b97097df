import { create, equals, type JsonObject } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type Convergence,
  ConvergenceSchema,
  type FleetSummary,
  FleetSummarySchema,
  HeldBackResourceSchema,
  type HeldResources,
  HeldResourcesSchema,
  NodeConvergenceState,
  type NodeDetail,
  NodeDetailSchema,
  type NodeEvent,
  NodeEventSchema,
  type NodeSummary,
  NodeSummarySchema,
  NodeTypeStatus,
  type StatusService,
  TypeConvergenceState,
  type TypeStatus,
  TypeStatusSchema,
  type WatchNodesResponse,
  WatchNodesResponseSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { storedNameOf } from "@switchyard/snapshot";
import {
  type ConvergenceResult,
  type GroupManifest,
  groupFor,
  readConvergence,
  readVersionManifests,
  UnknownVersionError,
} from "../fleet/convergence-reader.js";
import { FeedCache } from "../fleet/feed-cache.js";
import { type Fleet, fleetSummary } from "../fleet/fleet-summary.js";
import {
  getNode,
  listNodes,
  type NodeDetail as NodeDetailRecord,
  type NodeEventRecord,
  type NodeRecord,
  type NodeTypeRecord,
  type TypeStatusName,
} from "../fleet/index.js";
import { type NodePageQuery, nodePage, nodePageQuery } from "../fleet/node-page.js";
import type { StatusFeed } from "../fleet/status-feed.js";
import { latestVersion } from "../store/snapshot-records.js";

const statusOf: Record<TypeStatusName, NodeTypeStatus> = {
  SYNCED: NodeTypeStatus.SYNCED,
  NOT_SENT: NodeTypeStatus.NOT_SENT,
  PENDING: NodeTypeStatus.PENDING,
  STALE: NodeTypeStatus.STALE,
  NACKED: NodeTypeStatus.NACKED,
};

const statusName: Partial<Record<NodeTypeStatus, TypeStatusName>> = Object.fromEntries(
  Object.entries(statusOf).map(([name, value]) => [value, name as TypeStatusName]),
);

const time = (ms: number | undefined): Timestamp | undefined =>
  ms === undefined ? undefined : timestampFromMs(ms);

function typeStatus(type: NodeTypeRecord): TypeStatus {
  return create(TypeStatusSchema, {
    typeUrl: type.typeUrl,
    status: statusOf[type.status] ?? NodeTypeStatus.UNSPECIFIED,
    sentVersion: type.sent?.version ?? "",
    sentTime: time(type.sent?.at),
    ackedVersion: type.acked?.version ?? "",
    ackedTime: time(type.acked?.at),
    nackMessage: type.lastNack?.errorDetail ?? "",
    nackVersion: type.lastNack?.version ?? "",
    nackTime: time(type.lastNack?.at),
    staleTime: type.status === "PENDING" ? time(type.staleAt) : undefined,
    nackRejected: [...(type.lastNack?.rejected ?? [])],
    heldBack: type.heldBack.map(({ name, version, reason }) =>
      create(HeldBackResourceSchema, {
        name,
        version,
        reason:
          reason.t === "rejected"
            ? { case: "rejected", value: reason.errorDetail }
            : { case: "needs", value: { typeUrl: reason.typeUrl, name: reason.name } },
      }),
    ),
  });
}

export function nodeSummary(node: NodeRecord): NodeSummary {
  const { connection } = node;
  return create(NodeSummarySchema, {
    id: node.id,
    cluster: node.cluster,
    connected: connection.t === "connected",
    connectedSince: time(
      connection.t === "connected" ? connection.since : connection.connectedSince,
    ),
    disconnectedAt: connection.t === "disconnected" ? time(connection.since) : undefined,
    replica: node.replicaId,
    variant: node.variant,
    userAgentName: node.userAgent.name,
    userAgentVersion: node.userAgent.version ?? "",
    remoteAddress: node.remoteAddress,
    authenticatedAs: node.authenticatedAs,
    openStreams: connection.t === "connected" ? connection.openStreams : 0,
    types: node.types.map(typeStatus),
    updateTime: time(node.updatedAt),
  });
}

function heldResources(type: NodeTypeRecord): HeldResources {
  return create(HeldResourcesSchema, {
    typeUrl: type.typeUrl,
    resources: Object.fromEntries(
      Object.entries(type.held).map(([name, version]) => [name, version ?? ""]),
    ),
    versionsKnown: type.resourceVersionsKnown,
  });
}

/** One line for people from an event's stored detail (see status-rows.ts eventRow). */
function eventText(event: NodeEventRecord): string {
  const detail = (
    typeof event.detail === "object" && event.detail !== null ? event.detail : {}
  ) as Record<string, unknown>;
  const text = (key: string) => (typeof detail[key] === "string" ? (detail[key] as string) : "");
  switch (event.kind) {
    case "connect":
      return `${text("variant")} stream ${String(detail.streamId ?? "")} from ${text("remoteAddress")}`.trim();
    case "disconnect":
      return detail.nodeDisconnected === true
        ? "last stream closed"
        : `stream ${String(detail.streamId ?? "")} closed`;
    case "nack":
      return `version ${text("rejectedVersion")} rejected: ${text("errorDetail")}`;
    case "recovered":
      return `version ${text("versionInfo")} accepted`;
    default:
      return JSON.stringify(event.detail ?? {});
  }
}

function nodeEvent(event: NodeEventRecord): NodeEvent {
  return create(NodeEventSchema, {
    kind: event.kind,
    time: time(event.at),
    typeUrl: event.typeUrl ?? "",
    detail: eventText(event),
    replica: event.replicaId,
  });
}

const nodeConvergenceState = {
  ACKED: NodeConvergenceState.ACKED,
  NACKED: NodeConvergenceState.NACKED,
  PENDING: NodeConvergenceState.PENDING,
} as const;

const typeConvergenceState = {
  IN_SYNC: TypeConvergenceState.IN_SYNC,
  BEHIND: TypeConvergenceState.BEHIND,
  NACKED: TypeConvergenceState.NACKED,
  UNKNOWN: TypeConvergenceState.UNKNOWN,
} as const;

export function convergenceMessage(result: ConvergenceResult): Convergence {
  return create(ConvergenceSchema, {
    version: BigInt(result.version),
    publishTime: time(result.publishedAt),
    summary: {
      targeted: result.targeted,
      acked: result.acked,
      nacked: result.nacked,
      pending: result.pending,
      ...(result.durations.p50 === undefined ? {} : { p50Ms: result.durations.p50 }),
      ...(result.durations.p99 === undefined ? {} : { p99Ms: result.durations.p99 }),
      ...(result.durations.max === undefined ? {} : { maxMs: result.durations.max }),
    },
    nodes: result.nodes.map((node) => ({
      nodeId: node.nodeId,
      cluster: node.cluster,
      group: node.group,
      state: nodeConvergenceState[node.state],
      ...(node.ackMs === undefined ? {} : { ackMs: node.ackMs }),
      nackTypeUrl: node.nack?.typeUrl ?? "",
      nackMessage: node.nack?.errorDetail ?? "",
      types: node.types.map((type) => ({
        typeUrl: type.typeUrl,
        state: typeConvergenceState[type.state],
        ackedVersion: type.acked?.version ?? "",
        ackedTime: time(type.acked?.at),
        nackMessage: type.nack?.errorDetail ?? "",
        nackTime: time(type.nack?.at),
      })),
    })),
  });
}

/** The filters of ListNodes and WatchNodes, checked. */
interface NodeQuery {
  readonly status: TypeStatusName | undefined;
  readonly connectedOnly: boolean;
  readonly idContains: string;
}

function nodeQuery(request: {
  status?: NodeTypeStatus | undefined;
  connectedOnly: boolean;
  idContains: string;
}): NodeQuery {
  let status: TypeStatusName | undefined;
  if (request.status !== undefined && request.status !== NodeTypeStatus.UNSPECIFIED) {
    status = statusName[request.status];
    if (status === undefined)
      throw new ConnectError(`unknown node status ${request.status}`, Code.InvalidArgument);
  }
  return { status, connectedOnly: request.connectedOnly, idContains: request.idContains };
}

async function queryNodes(
  prisma: PrismaClient,
  query: NodeQuery,
  limit?: number,
): Promise<NodeRecord[]> {
  const nodes = await listNodes(prisma, {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.connectedOnly ? { connected: true } : {}),
    ...(limit === undefined ? {} : { limit }),
  });
  return nodes.filter((node) => matchesQuery(node, query));
}

/** What listNodes' filters select, for a record read by the feed. */
function matchesQuery(node: NodeRecord, query: NodeQuery): boolean {
  return (
    (query.idContains === "" || node.id.includes(query.idContains)) &&
    (!query.connectedOnly || node.connection.t === "connected") &&
    (query.status === undefined || node.types.some((type) => type.status === query.status))
  );
}

function intendedOf(
  type: NodeTypeRecord,
  group: GroupManifest | undefined,
): { [name: string]: string } {
  const all = group?.resources[type.typeUrl];
  if (all === undefined) return {};
  const names = type.wildcard ? [...all.keys()] : Object.keys(type.held);
  return Object.fromEntries(
    names.flatMap((name) => {
      const version = all.get(storedNameOf(name));
      return version === undefined ? [] : [[name, version]];
    }),
  );
}

function localityOf(value: unknown): { region: string; zone: string; subZone: string } {
  const record = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const text = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : "");
  return {
    region: text("region"),
    zone: text("zone"),
    subZone: text("subZone") || text("sub_zone"),
  };
}

function metadataOf(value: unknown): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}

/** A node's detail, with what the latest published version gives it. */
async function nodeDetail(prisma: PrismaClient, node: NodeDetailRecord): Promise<NodeDetail> {
  const latest = await latestVersion(prisma);
  const manifests = latest === undefined ? undefined : await readVersionManifests(prisma, latest);
  const group = manifests === undefined ? undefined : groupFor(manifests, node);
  return create(NodeDetailSchema, {
    summary: nodeSummary(node),
    held: node.types.map((type) => ({ ...heldResources(type), intended: intendedOf(type, group) })),
    events: node.events.map(nodeEvent),
    locality: localityOf(node.locality),
    metadata: metadataOf(node.metadata),
    clientFeatures: [...node.clientFeatures],
    intendedVersion: BigInt(latest ?? 0),
    intendedGroup: group?.name ?? "",
  });
}

function unknownNode(id: string): ConnectError {
  return new ConnectError(
    `node "${id}" is unknown: no replica has seen it connect (see ListNodes)`,
    Code.NotFound,
  );
}

/** A published version from a request, as stored (32-bit); NotFound beyond that range. */
function requestedVersion(version: bigint): number {
  if (version === 0n)
    throw new ConnectError("a published version is required", Code.InvalidArgument);
  // Versions are 32-bit in the database: a larger one cannot exist.
  if (version > 2_147_483_647n)
    throw new ConnectError(new UnknownVersionError(Number(version)).message, Code.NotFound);
  return Number(version);
}

async function convergenceOf(
  read: (version: number) => Promise<ConvergenceResult>,
  version: number,
  summaryOnly: boolean,
): Promise<Convergence> {
  try {
    const result = await read(version);
    return convergenceMessage(
      summaryOnly
        ? { ...result, nodes: result.nodes.filter((node) => node.state === "NACKED") }
        : result,
    );
  } catch (error) {
    if (error instanceof UnknownVersionError) throw new ConnectError(error.message, Code.NotFound);
    throw error;
  }
}

/** How many nodes a WatchNodes stream starts with, at most. */
const WATCH_NODE_LIMIT = 10_000;
/** A convergence watch re-reads at most this often (it reads every connected node). */
const CONVERGENCE_MIN_INTERVAL_MS = 250;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export interface StatusServiceOptions {
  readonly prisma: PrismaClient;
  /** Pushes node changes written by any replica to the Watch* streams. */
  readonly feed: StatusFeed;
}

/**
 * switchyard.v1.StatusService: the xDS nodes and their per-type sync status, read from the
 * database (status-reader.ts), which every replica writes: any replica answers for every node.
 * The Watch* streams start with a read like their unary twin, then wait on the StatusFeed and
 * send only what changed (status-feed.ts); a client slow to read gets merged, latest-state
 * updates, never a backlog.
 */
export function createStatusService({
  prisma,
  feed,
}: StatusServiceOptions): ServiceImpl<typeof StatusService> {
  const readNow = (version: number) => readConvergence(prisma, version);
  // The watches share reads, refreshed by the feed that wakes them; GetConvergence reads now
  // (a caller may have just seen a write the feed has not delivered yet).
  const shared = new FeedCache<number, ConvergenceResult>({ feed, load: readNow });
  // Every node (no held sets), shared by the watches' first reads (the Overview's counts, the
  // Nodes page): read once per change the feed reports, not once per page opened.
  const everyNode = new FeedCache<"all", NodeRecord[]>({
    feed,
    load: async () => {
      const nodes = await listNodes(prisma, { limit: WATCH_NODE_LIMIT });
      feed.observe(nodes);
      return nodes;
    },
  });
  /** The nodes `query` selects for a watch's first read: from every node, when that is all. */
  async function watchedNodes(query: NodeQuery): Promise<NodeRecord[]> {
    const all = await everyNode.read("all");
    if (all.length < WATCH_NODE_LIMIT) return all.filter((node) => matchesQuery(node, query));
    return queryNodes(prisma, query, WATCH_NODE_LIMIT);
  }
  /**
   * WatchNodes with paging: every matching node's record is kept here from the feed, and the
   * requested page (node-page.ts) is sent whole whenever it, the total or the counts change.
   */
  async function* watchNodePages(
    query: NodeQuery,
    paging: NodePageQuery,
    signal: AbortSignal,
  ): AsyncGenerator<WatchNodesResponse> {
    const inbox = feed.open();
    try {
      const nodes = new Map<string, NodeRecord>();
      for (const node of await watchedNodes(query)) nodes.set(node.id, node);
      let last: WatchNodesResponse | undefined;
      for (;;) {
        const page = nodePage(nodes.values(), paging);
        const next = create(WatchNodesResponseSchema, {
          reset: true,
          nodes: page.nodes.map(nodeSummary),
          total: page.total,
          page: page.page,
          counts: page.counts,
        });
        if (last === undefined || !equals(WatchNodesResponseSchema, last, next)) {
          last = next;
          yield next;
        }
        const changes = await inbox.take(signal);
        if (changes === undefined) return;
        for (const [id, record] of changes.nodes) {
          const known = nodes.get(id);
          // A change already in the first read comes again from the feed: keep the newer.
          if (record !== null && known !== undefined && known.updatedAt > record.updatedAt)
            continue;
          if (record !== null && matchesQuery(record, query)) nodes.set(id, record);
          else nodes.delete(id);
        }
      }
    } finally {
      inbox.close();
    }
  }

  return {
    async listNodes(request) {
      const nodes = await queryNodes(prisma, nodeQuery(request));
      return { nodes: nodes.map(nodeSummary) };
    },

    async getNode(request): Promise<NodeDetail> {
      if (request.id === "") throw new ConnectError("a node id is required", Code.InvalidArgument);
      const node = await getNode(prisma, request.id);
      if (node === undefined) throw unknownNode(request.id);
      return nodeDetail(prisma, node);
    },

    async getConvergence(request): Promise<Convergence> {
      return convergenceOf(readNow, requestedVersion(request.version), request.summaryOnly);
    },

    async *watchNodes(request, context): AsyncGenerator<WatchNodesResponse> {
      const query = nodeQuery(request);
      if (request.pageSize > 0) {
        yield* watchNodePages(query, nodePageQuery(request), context.signal);
        return;
      }
      // Open before the first read, so nothing written in between is missed; a change already in
      // the first read is recognised by its updateTime and not sent twice.
      const inbox = feed.open();
      try {
        const initial = await watchedNodes(query);
        const sent = new Map<string, NodeSummary>();
        for (const node of initial) sent.set(node.id, nodeSummary(node));
        yield create(WatchNodesResponseSchema, { reset: true, nodes: [...sent.values()] });
        for (;;) {
          const changes = await inbox.take(context.signal);
          if (changes === undefined) return;
          const nodes: NodeSummary[] = [];
          const removedIds: string[] = [];
          for (const [id, record] of changes.nodes) {
            const previous = sent.get(id);
            if (record !== null && matchesQuery(record, query)) {
              const summary = nodeSummary(record);
              if (previous !== undefined && !isNewer(summary, previous)) continue;
              sent.set(id, summary);
              nodes.push(summary);
            } else if (previous !== undefined) {
              sent.delete(id);
              removedIds.push(id);
            }
          }
          if (nodes.length === 0 && removedIds.length === 0) continue;
          nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          yield create(WatchNodesResponseSchema, { nodes, removedIds: removedIds.sort() });
        }
      } finally {
        inbox.close();
      }
    },

    async *watchNode(request, context): AsyncGenerator<NodeDetail> {
      const { id } = request;
      if (id === "") throw new ConnectError("a node id is required", Code.InvalidArgument);
      const inbox = feed.open();
      try {
        const first = await getNode(prisma, id);
        if (first === undefined) throw unknownNode(id);
        feed.observe([first]);
        let last = await nodeDetail(prisma, first);
        yield last;
        for (;;) {
          const changes = await inbox.take(context.signal);
          if (changes === undefined) return;
          if (!changes.nodes.has(id)) continue;
          const node = changes.nodes.get(id) === null ? undefined : await getNode(prisma, id);
          if (node === undefined)
            throw new ConnectError(
              `node "${id}" is no longer stored: it was disconnected for longer than the retention`,
              Code.NotFound,
            );
          const next = await nodeDetail(prisma, node);
          if (equals(NodeDetailSchema, last, next)) continue;
          last = next;
          yield next;
        }
      } finally {
        inbox.close();
      }
    },

    async *watchFleet(request, context): AsyncGenerator<FleetSummary> {
      const limit = request.recentNacks === 0 ? 5 : Math.min(request.recentNacks, 50);
      const inbox = feed.open();
      try {
        // Every node's record, kept up to date from the feed (no held sets: counts only).
        const nodes = new Map<string, NodeRecord>();
        for (const node of await everyNode.read("all")) nodes.set(node.id, node);
        let last: FleetSummary | undefined;
        for (;;) {
          const next = fleetMessage(fleetSummary(nodes.values(), limit));
          if (last === undefined || !equals(FleetSummarySchema, last, next)) {
            last = next;
            yield next;
          }
          const changes = await inbox.take(context.signal);
          if (changes === undefined) return;
          for (const [id, record] of changes.nodes) {
            if (record === null) nodes.delete(id);
            else nodes.set(id, record);
          }
        }
      } finally {
        inbox.close();
      }
    },

    async *watchConvergence(request, context): AsyncGenerator<Convergence> {
      // 0 follows the latest version, moving to each new one as it is published.
      const follow = request.version === 0n;
      const inbox = feed.open();
      try {
        let version = follow ? await latestVersion(prisma) : requestedVersion(request.version);
        let last: Convergence | undefined;
        for (;;) {
          if (version !== undefined) {
            const next = await convergenceOf((v) => shared.read(v), version, request.summaryOnly);
            if (last === undefined || !equals(ConvergenceSchema, last, next)) {
              last = next;
              yield next;
            }
            await sleep(CONVERGENCE_MIN_INTERVAL_MS, context.signal);
          }
          const changes = await inbox.take(context.signal);
          if (changes === undefined) return;
          if (follow && changes.published !== undefined && changes.published > (version ?? 0))
            version = changes.published;
        }
      } finally {
        inbox.close();
      }
    },
  };
}

function fleetMessage(fleet: Fleet): FleetSummary {
  return create(FleetSummarySchema, {
    counts: fleet.counts,
    recentNacks: fleet.recentNacks.map((nack) => ({
      nodeId: nack.nodeId,
      typeUrl: nack.typeUrl,
      message: nack.message,
      version: nack.version,
      time: timestampFromMs(nack.at),
      current: nack.current,
    })),
  });
}

/** Whether `next` should replace `previous`: written later, or the same write read differently. */
function isNewer(next: NodeSummary, previous: NodeSummary): boolean {
  const at = (summary: NodeSummary) =>
    summary.updateTime === undefined ? 0 : timestampMs(summary.updateTime);
  if (at(next) < at(previous)) return false;
  return !equals(NodeSummarySchema, next, previous);
}
