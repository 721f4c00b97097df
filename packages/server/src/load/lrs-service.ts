/**
 * Load reporting (LRS: envoy.service.load_stats.v3.LoadReportingService) on the xDS port.
 * A proxy opens the stream with its node; Switchyard answers with the clusters of the node's
 * group whose load it wants (those with `report_load`, compiled with `lrs_server: self`; to a
 * gRPC client, "all", see asksForAll), the
 * interval to report at, and endpoint granularity; the proxy then reports each interval what
 * its requests to them did (lrs.proto). A publish that changes the set is told to the proxy
 * with its next report. Reports go to the LoadWriter; callers authenticate as on the xDS port
 * (`--xds-auth`), and a credential limited to node groups may report only for a node of them.
 * What a report names of its own is bounded before it is kept (report-bounds.ts).
 */
import { create } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { ClusterSchema } from "@switchyard/proto/envoy/config/cluster/v3/cluster_pb";
import { ConfigSourceSchema } from "@switchyard/proto/envoy/config/core/v3/config_source_pb";
import {
  LoadReportingService,
  LoadStatsResponseSchema,
} from "@switchyard/proto/envoy/service/load_stats/v3/lrs_pb";
import { type NodeIdentity, type ResourceSnapshot, TypeUrl } from "@switchyard/snapshot";
import { LoadReportError, type LoadRow, loadRowsOf } from "@switchyard/status";
import { ANY_NODE_GROUP, callerIdentity, type Served } from "@switchyard/xds";
import { stringMetadata } from "../fleet/convergence-reader.js";
import type { Metrics } from "../metrics.js";
import { FINE_WIDTH_S } from "./load-store.js";
import type { LoadWriter } from "./load-writer.js";
import { boundedLoadRow, checkedNodeId } from "./report-bounds.js";

export interface LrsOptions {
  /**
   * What a node is served now (SnapshotCache.servedTo: a node of a group held by a rollout
   * reports the clusters of its own version); undefined before the first version is loaded.
   */
  readonly served: (node: NodeIdentity) => Served | undefined;
  /** The interval proxies are asked to report at (load_reporting_interval). */
  readonly intervalMs: number;
  readonly writer: LoadWriter;
  readonly metrics: Metrics;
  readonly now?: () => number;
}

const LRS_SERVER = ClusterSchema.fields.find((f) => f.name === "lrs_server")?.number ?? 42;
const SELF = ConfigSourceSchema.fields.find((f) => f.name === "self")?.number ?? 5;

/** Whether an encoded Cluster has `lrs_server: { self: {} }`, read without decoding the rest. */
export function reportsLoadToSelf(body: Uint8Array): boolean {
  const reader = new BinaryReader(body);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field !== LRS_SERVER || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const source = new BinaryReader(reader.bytes());
    while (source.pos < source.len) {
      const [inner, innerType] = source.tag();
      if (inner === SELF) return true;
      source.skip(innerType);
    }
  }
  return false;
}

/** The clusters a node is asked to report: their names (sorted), and those joined, to compare. */
interface Reporting {
  readonly names: ReadonlySet<string>;
  readonly key: string;
}

const NOTHING_REPORTED: Reporting = { names: new Set(), key: "" };

/** Per snapshot (immutable), its clusters that report load: taken once, not per report. */
const reporting = new WeakMap<ResourceSnapshot, Reporting>();

function clustersReportingLoad(snapshot: ResourceSnapshot): Reporting {
  let known = reporting.get(snapshot);
  if (known === undefined) {
    const names = [...snapshot.resources(TypeUrl.Cluster).values()]
      .filter((cluster) => reportsLoadToSelf(cluster.body))
      .map((cluster) => cluster.name)
      .sort();
    known = { names: new Set(names), key: names.join("\n") };
    reporting.set(snapshot, known);
  }
  return known;
}

/**
 * Whether to answer `send_all_clusters` rather than only name the clusters. A proxyless gRPC
 * client keeps load only for the clusters it was sent with `lrs_server` (gRFC A27), which are
 * exactly the ones Switchyard wants, so "all" is the same set for it; and @grpc/grpc-js-xds
 * 1.14 skips the first cluster a list names (it tests `clusters.indexOf(name) > 0`). Envoy keeps
 * load for every cluster, so it is only ever sent the list.
 */
function asksForAll(node: { userAgentName: string; clientFeatures: readonly string[] }): boolean {
  return (
    node.userAgentName !== "envoy" &&
    node.clientFeatures.includes("envoy.lrs.supports_send_all_clusters")
  );
}

/** Registers the service on a Connect router (the xDS server's `services`). */
export function loadReportingService(options: LrsOptions): (router: ConnectRouter) => void {
  const now = options.now ?? Date.now;
  return (router) =>
    router.service(LoadReportingService, {
      streamLoadStats: async function* (requests, context) {
        const identity = callerIdentity(context);
        let node: { id: string; cluster: string; metadata: Record<string, string> } | undefined;
        let sendAll = false;
        let sent: Reporting | undefined;
        for await (const request of requests) {
          if (node === undefined) {
            if (request.node === undefined || request.node.id === "")
              throw new ConnectError(
                "node.id: the first LoadStatsRequest must identify its node (lrs.proto)",
                Code.InvalidArgument,
              );
            node = {
              id: checkedNodeId(request.node.id),
              cluster: request.node.cluster,
              metadata: stringMetadata(request.node.metadata),
            };
            sendAll = asksForAll(request.node);
          }
          const served = options.served(node);
          if (
            served !== undefined &&
            identity.t !== "anonymous" &&
            !identity.nodeGroups.includes(ANY_NODE_GROUP) &&
            !identity.nodeGroups.includes(served.group)
          )
            throw new ConnectError(
              `node "${node.id}" selects node group "${served.group}", which its credential may not report for`,
              Code.PermissionDenied,
            );
          const wanted =
            served === undefined ? NOTHING_REPORTED : clustersReportingLoad(served.snapshot);
          if (request.clusterStats.length > 0) {
            let rows: LoadRow[];
            try {
              rows = loadRowsOf(request.clusterStats, node.id, now(), FINE_WIDTH_S);
            } catch (error) {
              if (error instanceof LoadReportError)
                throw new ConnectError(error.message, Code.InvalidArgument);
              throw error;
            }
            // Only the clusters the node is asked for (now, or in the answer before a publish
            // changed them) are kept: what it reports of others is dropped, so no proxy can fill
            // the database or /metrics with names of its own.
            const kept = rows
              .filter(
                (row) => wanted.names.has(row.cluster) || sent?.names.has(row.cluster) === true,
              )
              .map(boundedLoadRow);
            if (kept.length > 0) {
              options.writer.add(kept);
              options.metrics.onLoadReport(kept);
            }
          }
          if (wanted.key === sent?.key) continue;
          sent = wanted;
          yield create(LoadStatsResponseSchema, {
            clusters: [...wanted.names],
            sendAllClusters: sendAll,
            loadReportingInterval: durationFromMs(options.intervalMs),
            reportEndpointGranularity: true,
          });
        }
      },
    });
}
