import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type NodeSummary,
  NodeSummarySchema,
  NodeTypeStatus,
  type TypeStatus,
  TypeStatusSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { TypeUrl } from "@switchyard/proto/type-url";

export const TYPE = {
  CDS: TypeUrl.Cluster,
  EDS: TypeUrl.ClusterLoadAssignment,
  LDS: TypeUrl.Listener,
  RDS: TypeUrl.RouteConfiguration,
} as const;

/** A type's status as the server reports it; SYNCED unless told. */
export function typeStatus(
  typeUrl: string,
  init: { status?: NodeTypeStatus; nack?: string; nackAt?: Date } = {},
): TypeStatus {
  return create(TypeStatusSchema, {
    typeUrl,
    status: init.status ?? NodeTypeStatus.SYNCED,
    nackMessage: init.nack ?? "",
    ...(init.nackAt ? { nackTime: timestampFromDate(init.nackAt) } : {}),
  });
}

/** A connected node, SYNCED on the four core types unless `types` says otherwise. */
export function nodeSummary(
  id: string,
  init: { connected?: boolean; cluster?: string; types?: TypeStatus[]; userAgent?: string } = {},
): NodeSummary {
  return create(NodeSummarySchema, {
    id,
    cluster: init.cluster ?? "",
    connected: init.connected ?? true,
    userAgentName: init.userAgent ?? "envoy",
    types: init.types ?? Object.values(TYPE).map((t) => typeStatus(t)),
  });
}
