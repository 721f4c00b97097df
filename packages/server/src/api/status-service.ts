import { create } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type Convergence,
  ConvergenceSchema,
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
} from "@switchyard/proto/switchyard/v1/status_pb";
import {
  type ConvergenceResult,
  readConvergence,
  UnknownVersionError,
} from "../status/convergence-reader.js";
import {
  getNode,
  listNodes,
  type NodeEventRecord,
  type NodeRecord,
  type NodeTypeRecord,
  type TypeStatusName,
} from "../status/index.js";

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

/**
 * switchyard.v1.StatusService: the xDS nodes and their per-type sync status, read from the
 * database (status-reader.ts), which every replica writes: any replica answers for every node.
 */
export function createStatusService(
  prisma: PrismaClient,
): Partial<ServiceImpl<typeof StatusService>> {
  return {
    async listNodes(request) {
      let status: TypeStatusName | undefined;
      if (request.status !== undefined && request.status !== NodeTypeStatus.UNSPECIFIED) {
        status = statusName[request.status];
        if (status === undefined)
          throw new ConnectError(`unknown node status ${request.status}`, Code.InvalidArgument);
      }
      const nodes = await listNodes(prisma, {
        ...(status === undefined ? {} : { status }),
        ...(request.connectedOnly ? { connected: true } : {}),
      });
      return {
        nodes: nodes
          .filter((node) => request.idContains === "" || node.id.includes(request.idContains))
          .map(nodeSummary),
      };
    },

    async getNode(request): Promise<NodeDetail> {
      if (request.id === "") throw new ConnectError("a node id is required", Code.InvalidArgument);
      const node = await getNode(prisma, request.id);
      if (node === undefined)
        throw new ConnectError(
          `node "${request.id}" is unknown: no replica has seen it connect (see ListNodes)`,
          Code.NotFound,
        );
      return create(NodeDetailSchema, {
        summary: nodeSummary(node),
        held: node.types.map(heldResources),
        events: node.events.map(nodeEvent),
      });
    },

    async getConvergence(request): Promise<Convergence> {
      if (request.version === 0n)
        throw new ConnectError("a published version is required", Code.InvalidArgument);
      // Versions are 32-bit in the database: a larger one cannot exist.
      if (request.version > 2_147_483_647n)
        throw new ConnectError(
          new UnknownVersionError(Number(request.version)).message,
          Code.NotFound,
        );
      try {
        return convergenceMessage(await readConvergence(prisma, Number(request.version)));
      } catch (error) {
        if (error instanceof UnknownVersionError)
          throw new ConnectError(error.message, Code.NotFound);
        throw error;
      }
    },
  };
}
