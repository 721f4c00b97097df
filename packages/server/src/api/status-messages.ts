/**
 * StatusService's messages and queries: node status, events, convergence and the fleet summary
 * mapped from the records the fleet/ readers return, and the node queries the handlers run. The
 * handlers, with their watches, are in status-service.ts.
 */
import { create, equals, type JsonObject } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
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
  TypeConvergenceState,
  type TypeStatus,
  TypeStatusSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { versionFor } from "@switchyard/rollout";
import { storedNameOf, truncateUtf8 } from "@switchyard/snapshot";
import {
  type ConvergenceResult,
  type GroupManifest,
  groupFor,
  readVersionManifests,
  UnknownVersionError,
} from "../fleet/convergence-reader.js";
import type { Fleet } from "../fleet/fleet-summary.js";
import {
  listNodes,
  type NodeDetail as NodeDetailRecord,
  type NodeEventRecord,
  type NodeRecord,
  type NodeTypeRecord,
  type TypeStatusName,
} from "../fleet/index.js";
import { listRollouts } from "../rollouts/rollout-rows.js";
import { latestVersion } from "../store/snapshot-records.js";

export const statusOf: Record<TypeStatusName, NodeTypeStatus> = {
  SYNCED: NodeTypeStatus.SYNCED,
  NOT_SENT: NodeTypeStatus.NOT_SENT,
  PENDING: NodeTypeStatus.PENDING,
  STALE: NodeTypeStatus.STALE,
  NACKED: NodeTypeStatus.NACKED,
};

export const statusName: Partial<Record<NodeTypeStatus, TypeStatusName>> = Object.fromEntries(
  Object.entries(statusOf).map(([name, value]) => [value, name as TypeStatusName]),
);

/**
 * A NACK's text where it is repeated: in each held-back resource's reason and in each event line.
 * TypeStatus.nack_message carries it once as stored (cut to 16 KiB where it entered,
 * packages/xds client-bounds.ts); a NACK that holds back a thousand resources would otherwise
 * repeat those 16 KiB a thousand times in every ListNodes and WatchNodes answer.
 */
export const REPEATED_NACK_TEXT_BYTES = 1024;
const repeatedNackText = (text: string) => truncateUtf8(text, REPEATED_NACK_TEXT_BYTES);

export const time = (ms: number | undefined): Timestamp | undefined =>
  ms === undefined ? undefined : timestampFromMs(ms);

export function typeStatus(type: NodeTypeRecord): TypeStatus {
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
            ? { case: "rejected", value: repeatedNackText(reason.errorDetail) }
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

export function heldResources(type: NodeTypeRecord): HeldResources {
  return create(HeldResourcesSchema, {
    typeUrl: type.typeUrl,
    resources: Object.fromEntries(
      Object.entries(type.held).map(([name, version]) => [name, version ?? ""]),
    ),
    versionsKnown: type.resourceVersionsKnown,
  });
}

/** One line for people from an event's stored detail (see status-rows.ts eventRow). */
export function eventText(event: NodeEventRecord): string {
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
      return `version ${text("rejectedVersion")} rejected: ${repeatedNackText(text("errorDetail"))}`;
    case "recovered":
      return `version ${text("versionInfo")} accepted`;
    default:
      return JSON.stringify(event.detail ?? {});
  }
}

export function nodeEvent(event: NodeEventRecord): NodeEvent {
  return create(NodeEventSchema, {
    kind: event.kind,
    time: time(event.at),
    typeUrl: event.typeUrl ?? "",
    detail: eventText(event),
    replica: event.replicaId,
  });
}

export const nodeConvergenceState = {
  ACKED: NodeConvergenceState.ACKED,
  NACKED: NodeConvergenceState.NACKED,
  PENDING: NodeConvergenceState.PENDING,
} as const;

export const typeConvergenceState = {
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
      connectedLater: result.connectedLater,
    },
    nodes: result.nodes.map((node) => ({
      nodeId: node.nodeId,
      cluster: node.cluster,
      group: node.group,
      state: nodeConvergenceState[node.state],
      ...(node.ackMs === undefined ? {} : { ackMs: node.ackMs }),
      connectedAfterPublish: node.connectedAfterPublish,
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
export interface NodeQuery {
  readonly status: TypeStatusName | undefined;
  readonly connectedOnly: boolean;
  readonly idContains: string;
}

export function nodeQuery(request: {
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

/** The nodes `query` selects, by id, at most `limit` of them, after `afterId` when given. */
export async function queryNodes(
  prisma: PrismaClient,
  query: NodeQuery,
  limit?: number,
  afterId?: string,
): Promise<NodeRecord[]> {
  return listNodes(prisma, {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.connectedOnly ? { connected: true } : {}),
    ...(limit === undefined ? {} : { limit }),
    ...(afterId === undefined ? {} : { afterId }),
    idContains: query.idContains,
  });
}

/** What listNodes' filters select, for a record read by the feed. */
export function matchesQuery(node: NodeRecord, query: NodeQuery): boolean {
  return (
    (query.idContains === "" || node.id.includes(query.idContains)) &&
    (!query.connectedOnly || node.connection.t === "connected") &&
    (query.status === undefined || node.types.some((type) => type.status === query.status))
  );
}

export function intendedOf(
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

export function localityOf(value: unknown): { region: string; zone: string; subZone: string } {
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

export function metadataOf(value: unknown): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : {};
}

/** A node's detail, with what the latest published version gives it. */
export async function nodeDetail(
  prisma: PrismaClient,
  node: NodeDetailRecord,
): Promise<NodeDetail> {
  const latest = await latestVersion(prisma);
  const latestManifests =
    latest === undefined ? undefined : await readVersionManifests(prisma, latest);
  const latestGroup = latestManifests === undefined ? undefined : groupFor(latestManifests, node);
  // While a rollout runs in the group, the node is to run the version its wave has reached.
  const [rollout] =
    latestGroup === undefined
      ? []
      : await listRollouts(prisma, { limit: 1, activeOnly: true, group: latestGroup.name });
  const intended = rollout === undefined ? latest : versionFor(rollout.state, node.id);
  const manifests =
    intended === undefined || intended === latest
      ? latestManifests
      : await readVersionManifests(prisma, intended);
  const group = manifests === undefined ? undefined : groupFor(manifests, node);
  return create(NodeDetailSchema, {
    summary: nodeSummary(node),
    held: node.types.map((type) => ({ ...heldResources(type), intended: intendedOf(type, group) })),
    events: node.events.map(nodeEvent),
    locality: localityOf(node.locality),
    metadata: metadataOf(node.metadata),
    clientFeatures: [...node.clientFeatures],
    intendedVersion: BigInt(intended ?? 0),
    intendedGroup: group?.name ?? "",
    rolloutId: BigInt(rollout?.id ?? 0),
  });
}

export function unknownNode(id: string): ConnectError {
  return new ConnectError(
    `node "${id}" is unknown: no replica has seen it connect (see ListNodes)`,
    Code.NotFound,
  );
}

/** A published version from a request, as stored (32-bit); NotFound beyond that range. */
export function requestedVersion(version: bigint): number {
  if (version === 0n)
    throw new ConnectError("a published version is required", Code.InvalidArgument);
  // Versions are 32-bit in the database: a larger one cannot exist.
  if (version > 2_147_483_647n)
    throw new ConnectError(new UnknownVersionError(Number(version)).message, Code.NotFound);
  return Number(version);
}

export async function convergenceOf(
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

export function fleetMessage(fleet: Fleet): FleetSummary {
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
export function isNewer(next: NodeSummary, previous: NodeSummary): boolean {
  const at = (summary: NodeSummary) =>
    summary.updateTime === undefined ? 0 : timestampMs(summary.updateTime);
  if (at(next) < at(previous)) return false;
  return !equals(NodeSummarySchema, next, previous);
}
