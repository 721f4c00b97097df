import type { NodeStatus, StatusEvent, TypeView } from "@switchyard/status";

/**
 * The rows of XdsNode, XdsNodeType and XdsNodeEvent (prisma/schema.prisma) built from what a
 * NodeStatusTracker hands out. Pure: times are ms since the epoch, as the tracker keeps them.
 */

export interface NodeRow {
  readonly id: string;
  readonly cluster: string;
  readonly locality: unknown;
  readonly metadata: unknown;
  readonly userAgentName: string;
  readonly userAgentVersion: string | null;
  readonly clientFeatures: readonly string[];
  readonly replicaId: string;
  readonly variant: string;
  readonly remoteAddress: string;
  readonly openStreams: number;
  readonly connectedSince: number;
  readonly disconnectedAt: number | null;
  readonly updatedAt: number;
}

export interface TypeRow {
  readonly nodeId: string;
  readonly typeUrl: string;
  readonly status: TypeView["status"]["t"];
  readonly staleAt: number | null;
  readonly sentVersion: string | null;
  readonly sentNonce: string | null;
  readonly sentAt: number | null;
  readonly ackedVersion: string | null;
  readonly ackedNonce: string | null;
  readonly ackedAt: number | null;
  readonly nackErrorDetail: string | null;
  readonly nackVersion: string | null;
  readonly nackNonce: string | null;
  readonly nackAt: number | null;
  /** Resource name → version (null when unknown). */
  readonly held: Readonly<Record<string, string | null>>;
  readonly resourceVersionsKnown: boolean;
  readonly updatedAt: number;
}

export interface EventRow {
  readonly nodeId: string;
  readonly kind: StatusEvent["t"];
  readonly at: number;
  readonly replicaId: string;
  readonly typeUrl: string | null;
  readonly detail: Readonly<Record<string, unknown>>;
}

/**
 * A node's row. Connection fields come from its latest open stream, or from the stream that
 * closed last once it is disconnected.
 */
export function nodeRow(status: NodeStatus, updatedAt: number): NodeRow {
  const { identity, connection } = status;
  const stream = connection.t === "connected" ? connection.streams.at(-1) : connection.lastStream;
  return {
    id: identity.id,
    cluster: identity.cluster,
    locality: identity.locality ?? null,
    metadata: identity.metadata ?? null,
    userAgentName: identity.userAgent.name,
    userAgentVersion: identity.userAgent.version ?? null,
    clientFeatures: identity.clientFeatures,
    replicaId: stream?.replicaId ?? "",
    variant: stream?.variant ?? "",
    remoteAddress: stream?.remoteAddress ?? "",
    openStreams: connection.t === "connected" ? connection.streams.length : 0,
    connectedSince: connection.t === "connected" ? connection.since : (stream?.connectedAt ?? 0),
    disconnectedAt: connection.t === "disconnected" ? connection.since : null,
    updatedAt,
  };
}

export function typeRow(nodeId: string, view: TypeView, updatedAt: number): TypeRow {
  const { status, sent, acked, nack } = view;
  return {
    nodeId,
    typeUrl: view.typeUrl,
    status: status.t,
    staleAt: status.t === "PENDING" || status.t === "STALE" ? status.staleAt : null,
    sentVersion: sent?.versionInfo ?? null,
    sentNonce: sent?.nonce ?? null,
    sentAt: sent?.at ?? null,
    ackedVersion: acked?.versionInfo ?? null,
    ackedNonce: acked?.nonce ?? null,
    ackedAt: acked?.at ?? null,
    nackErrorDetail: nack?.errorDetail ?? null,
    nackVersion: nack?.rejectedVersion ?? null,
    nackNonce: nack?.nonce ?? null,
    nackAt: nack?.at ?? null,
    held: Object.fromEntries(
      [...(acked?.held ?? new Map<string, string | undefined>())].map(([name, version]) => [
        name,
        version ?? null,
      ]),
    ),
    resourceVersionsKnown: acked?.resourceVersionsKnown ?? false,
    updatedAt,
  };
}

/** An event's row; `replicaId` is the replica whose tracker recorded it. */
export function eventRow(event: StatusEvent, replicaId: string): EventRow {
  const { t, seq: _seq, at, nodeId, ...rest } = event;
  const { typeUrl, ...detail } = rest as { typeUrl?: string } & Record<string, unknown>;
  return { nodeId, kind: t, at, replicaId, typeUrl: typeUrl ?? null, detail };
}
