import type { NodeRecord, NodeTypeRecord, TypeStatusName } from "./status-reader.js";

/** A type record in `status`, optionally with a NACK (test fixture). */
export const typeRecord = (
  status: TypeStatusName,
  nack?: { text: string; at: number },
): NodeTypeRecord => ({
  typeUrl: `type-${status}-${nack?.at ?? 0}`,
  status,
  staleAt: undefined,
  sent: undefined,
  acked: undefined,
  lastNack: nack && { errorDetail: nack.text, version: "v", nonce: "n", at: nack.at, rejected: [] },
  heldBack: [],
  held: {},
  heldKey: "",
  requested: [],
  requestedKey: "",
  resourceVersionsKnown: true,
  wildcard: true,
  updatedAt: 0,
});

/** A node record (test fixture); `overrides` replace any field. */
export const nodeRecord = (
  id: string,
  types: NodeTypeRecord[],
  connected = true,
  overrides: Partial<NodeRecord> = {},
): NodeRecord => ({
  id,
  cluster: "edge",
  locality: null,
  metadata: null,
  userAgent: { name: "envoy", version: undefined },
  clientFeatures: [],
  connection: connected
    ? { t: "connected", since: 0, openStreams: 1 }
    : { t: "disconnected", since: 1, connectedSince: 0 },
  replicaId: "r",
  variant: "ads-sotw",
  remoteAddress: "",
  authenticatedAs: "",
  updatedAt: 0,
  types,
  ...overrides,
});
