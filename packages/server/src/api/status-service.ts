import { create, equals } from "@bufbuild/protobuf";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type Convergence,
  ConvergenceSchema,
  type FleetSummary,
  FleetSummarySchema,
  type Load,
  type NodeDetail,
  NodeDetailSchema,
  type NodeSummary,
  type RolloutTraffic,
  type StatusService,
  type WatchNodesResponse,
  WatchNodesResponseSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { type ConvergenceResult, readConvergence } from "../fleet/convergence-reader.js";
import { FeedCache } from "../fleet/feed-cache.js";
import { fleetSummary } from "../fleet/fleet-summary.js";
import { getNode, listNodes, type NodeRecord } from "../fleet/index.js";
import { type NodePageQuery, nodePage, nodePageQuery } from "../fleet/node-page.js";
import type { StatusFeed } from "../fleet/status-feed.js";
import { latestVersion } from "../store/snapshot-records.js";
import { sleepUnlessAborted } from "./abortable-sleep.js";
import { nodeActivityOf } from "./activity-messages.js";
import { nodeHistoryOf, nodesAtOf, versionConvergenceOf } from "./history-messages.js";
import { loadOf } from "./load-messages.js";
import {
  listPageSize,
  nodeBatches,
  nodesWithinBytes,
  pageMessages,
  pageTokenAfter,
  pageTokenId,
} from "./node-answers.js";
import { RolloutTrafficReader } from "./rollout-traffic.js";
import {
  convergenceOf,
  fleetMessage,
  isNewer,
  matchesQuery,
  type NodeQuery,
  nodeDetail,
  nodeQuery,
  nodeSummary,
  queryNodes,
  requestedVersion,
  unknownNode,
} from "./status-messages.js";

/** How many nodes a WatchNodes stream starts with, at most. */
const WATCH_NODE_LIMIT = 10_000;
/** A convergence watch re-reads at most this often (it reads every connected node). */
const CONVERGENCE_MIN_INTERVAL_MS = 250;

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
  const rolloutTraffic = new RolloutTrafficReader(prisma);
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
          // The page in messages of at most 4 MiB (node-answers.ts), the first a reset.
          yield* pageMessages(next);
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
      const query = nodeQuery(request);
      const pageSize = listPageSize(request.pageSize);
      const afterId = pageTokenId(request.pageToken);
      // One more than the page: whether a next page exists without counting every node.
      const read = await queryNodes(prisma, query, pageSize + 1, afterId);
      const page = read.slice(0, pageSize).map(nodeSummary);
      const nodes = page.slice(0, nodesWithinBytes(page));
      const last = nodes.at(-1);
      const more = nodes.length < page.length || read.length > pageSize;
      return {
        nodes,
        nextPageToken: more && last !== undefined ? pageTokenAfter(last.id) : "",
      };
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

    async getLoad(request): Promise<Load> {
      return loadOf(prisma, request);
    },

    async getNodeHistory(request) {
      return nodeHistoryOf(prisma, request);
    },

    async listNodesAt(request) {
      return nodesAtOf(prisma, request);
    },

    async listVersionConvergence(request) {
      return versionConvergenceOf(prisma, request);
    },

    async getNodeActivity(request) {
      return nodeActivityOf(prisma, request);
    },

    async getRolloutTraffic(request): Promise<RolloutTraffic> {
      return rolloutTraffic.read(request);
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
        // Every matching node, a bounded message at a time (node-answers.ts): the first replaces
        // what the client holds, the rest add to it.
        for (const [i, batch] of nodeBatches([...sent.values()], []).entries())
          yield create(WatchNodesResponseSchema, { reset: i === 0, nodes: batch.nodes });
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
          for (const batch of nodeBatches(nodes, removedIds.sort()))
            yield create(WatchNodesResponseSchema, batch);
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
            await sleepUnlessAborted(CONVERGENCE_MIN_INTERVAL_MS, context.signal);
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
