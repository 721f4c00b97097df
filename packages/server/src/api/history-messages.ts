import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type GetNodeHistoryRequest,
  type ListNodesAtRequest,
  type ListNodesAtResponse,
  ListNodesAtResponseSchema,
  type ListVersionConvergenceRequest,
  type ListVersionConvergenceResponse,
  ListVersionConvergenceResponseSchema,
  type NodeHeldAt,
  NodeHeldAtSchema,
  type NodeHistory,
  NodeHistorySchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  DEFAULT_HISTORY_LIMIT,
  MAX_HISTORY_LIMIT,
  readFleetHeldAt,
  readNodeHeldAt,
  readNodeHistory,
} from "../fleet/history-reader.js";
import type { HeldAt } from "../fleet/node-history.js";
import {
  DEFAULT_TIMELINE_VERSIONS,
  MAX_TIMELINE_VERSIONS,
  readVersionConvergence,
} from "../fleet/version-convergence.js";

/**
 * StatusService.GetNodeHistory and ListNodesAt (fleet/history-reader.ts), and
 * ListVersionConvergence (fleet/version-convergence.ts).
 */

const time = (ms: number | null): Timestamp | undefined =>
  ms === null ? undefined : timestampFromMs(ms);

function limitOf(limit: number): number {
  if (limit > MAX_HISTORY_LIMIT)
    throw new ConnectError(`limit ${limit} is over ${MAX_HISTORY_LIMIT}`, Code.InvalidArgument);
  return limit === 0 ? DEFAULT_HISTORY_LIMIT : limit;
}

export function heldAtMessage(nodeId: string, held: HeldAt): NodeHeldAt {
  return create(NodeHeldAtSchema, {
    nodeId,
    at: timestampFromMs(held.at),
    ...(held.connected === null ? {} : { connected: held.connected }),
    connectionSince: time(held.connectionSince),
    types: held.types.map((type) => ({
      typeUrl: type.typeUrl,
      state: type.state,
      ackedVersion: type.ackedVersion ?? "",
      ackedAt: time(type.ackedAt),
      sentVersion: type.sentVersion ?? "",
      sentAt: time(type.sentAt),
      nackVersion: type.nack?.version ?? "",
      nackErrorDetail: type.nack?.errorDetail ?? "",
      nackAt: time(type.nack?.at ?? null),
    })),
  });
}

export async function nodeHistoryOf(
  prisma: PrismaClient,
  request: GetNodeHistoryRequest,
): Promise<NodeHistory> {
  if (request.nodeId === "")
    throw new ConnectError("a node id is required (node_id)", Code.InvalidArgument);
  const since = request.since === undefined ? undefined : timestampMs(request.since);
  const until = request.until === undefined ? undefined : timestampMs(request.until);
  if (since !== undefined && until !== undefined && since > until)
    throw new ConnectError("since is after until", Code.InvalidArgument);
  const { entries, truncated } = await readNodeHistory(prisma, request.nodeId, {
    since,
    until,
    limit: limitOf(request.limit),
  });
  const held =
    request.at === undefined
      ? undefined
      : await readNodeHeldAt(prisma, request.nodeId, timestampMs(request.at));
  return create(NodeHistorySchema, {
    entries: entries.map((entry) => ({
      kind: entry.kind,
      at: timestampFromMs(entry.at),
      typeUrl: entry.typeUrl ?? "",
      version: entry.version ?? "",
      nonce: entry.nonce ?? "",
      errorDetail: entry.errorDetail ?? "",
    })),
    truncated,
    ...(held === undefined ? {} : { heldAt: heldAtMessage(request.nodeId, held) }),
  });
}

export async function nodesAtOf(
  prisma: PrismaClient,
  request: ListNodesAtRequest,
): Promise<ListNodesAtResponse> {
  if (request.at === undefined) throw new ConnectError("at is required", Code.InvalidArgument);
  const { nodes, truncated } = await readFleetHeldAt(prisma, timestampMs(request.at), {
    idContains: request.idContains,
    limit: limitOf(request.limit),
  });
  return create(ListNodesAtResponseSchema, {
    nodes: nodes.map(({ nodeId, held }) => heldAtMessage(nodeId, held)),
    truncated,
  });
}

export async function versionConvergenceOf(
  prisma: PrismaClient,
  request: ListVersionConvergenceRequest,
): Promise<ListVersionConvergenceResponse> {
  if (request.limit > MAX_TIMELINE_VERSIONS)
    throw new ConnectError(
      `limit ${request.limit} is over ${MAX_TIMELINE_VERSIONS} versions`,
      Code.InvalidArgument,
    );
  if (request.beforeVersion > BigInt(2 ** 31 - 1))
    throw new ConnectError(
      `before_version ${request.beforeVersion} is not a version number`,
      Code.InvalidArgument,
    );
  const versions = await readVersionConvergence(prisma, {
    limit: request.limit === 0 ? DEFAULT_TIMELINE_VERSIONS : request.limit,
    beforeVersion: request.beforeVersion === 0n ? undefined : Number(request.beforeVersion),
  });
  return create(ListVersionConvergenceResponseSchema, {
    versions: versions.map((v) => ({
      version: BigInt(v.version),
      publishTime: timestampFromMs(v.publishedAt),
      targeted: v.targeted,
      converged: v.converged,
      alreadyHeld: v.alreadyHeld,
      nacked: v.nacked,
      nackedEver: v.nackedEver,
      firstNackTime: time(v.firstNackAt ?? null),
      ...(v.msTo50 === undefined ? {} : { msTo50: v.msTo50 }),
      ...(v.msTo99 === undefined ? {} : { msTo99: v.msTo99 }),
      ...(v.msTo100 === undefined ? {} : { msTo100: v.msTo100 }),
      replicas: v.replicas,
      updateTime: time(v.updatedAt ?? null),
    })),
  });
}
