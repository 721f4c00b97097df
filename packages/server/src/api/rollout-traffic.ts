/**
 * StatusService.GetRolloutTraffic: the load (LRS) of the clusters a published version touched
 * (load/touched-clusters.ts), in the window before its publish and the window after. A version
 * never changes, so which clusters it touched is worked out once (both of its specs read) and
 * kept for the most recent versions asked about; the load is read on every call.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type ClusterTraffic,
  ClusterTrafficSchema,
  type GetRolloutTrafficRequest,
  type RolloutTraffic,
  RolloutTrafficSchema,
  TouchReason,
  type TrafficTotals,
  TrafficTotalsSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { readLoadAround, type SideTotals } from "../load/load-store.js";
import { type TouchedCluster, touchedClusters } from "../load/touched-clusters.js";
import { getSnapshot } from "../store/snapshot-store.js";
import { translated } from "./errors.js";
import { specsAroundVersion } from "./publishing.js";
import { requestedVersion } from "./status-messages.js";

const DEFAULT_WINDOW_S = 300;
const MAX_WINDOW_S = 3_600;
/** Clusters listed at most; the totals count every touched cluster. */
export const MAX_TRAFFIC_CLUSTERS = 100;
/** Versions whose touched clusters are kept. */
const CACHED_VERSIONS = 16;

const reasonOf = {
  cluster: TouchReason.CLUSTER_CHANGED,
  route: TouchReason.ROUTE_CHANGED,
  listener: TouchReason.LISTENER_CHANGED,
} as const;

interface VersionTouch {
  readonly publishedAt: number;
  readonly clusters: readonly TouchedCluster[];
}

export class RolloutTrafficReader {
  readonly #prisma: PrismaClient;
  readonly #versions = new Map<number, Promise<VersionTouch>>();

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async read(request: GetRolloutTrafficRequest, now: number = Date.now()): Promise<RolloutTraffic> {
    const windowS = request.windowSeconds || DEFAULT_WINDOW_S;
    if (windowS > MAX_WINDOW_S)
      throw new ConnectError(
        `window_seconds: ${windowS} is more than the ${MAX_WINDOW_S} s a side may span`,
        Code.InvalidArgument,
      );
    const version = requestedVersion(request.version);
    const touch = await this.#touch(version);
    const windowMs = windowS * 1000;
    const reporting = touch.clusters.filter((c) => c.reportsLoad).map((c) => c.name);
    const load = await readLoadAround(this.#prisma, {
      clusters: reporting,
      at: touch.publishedAt,
      windowMs,
    });
    const afterMs = Math.max(0, Math.min(windowMs, now - touch.publishedAt));
    const none: SideTotals = { successful: 0, errored: 0, dropped: 0 };
    const listed = [...touch.clusters]
      .sort((a, b) => Number(b.reportsLoad) - Number(a.reportsLoad))
      .slice(0, MAX_TRAFFIC_CLUSTERS);
    const clusters: ClusterTraffic[] = listed.map((cluster) => {
      const sides = load.get(cluster.name);
      return create(ClusterTrafficSchema, {
        cluster: cluster.name,
        reasons: [...cluster.reasons].map((r) => reasonOf[r]).sort((a, b) => a - b),
        touchedBy: [...cluster.touchedBy].sort(),
        reportsLoad: cluster.reportsLoad,
        ...(cluster.reportsLoad
          ? {
              before: totals(sides?.before ?? none, windowMs),
              after: totals(sides?.after ?? none, afterMs),
            }
          : {}),
      });
    });
    const sum = (side: "before" | "after") =>
      [...load.values()].reduce(
        (total, sides) => ({
          successful: total.successful + sides[side].successful,
          errored: total.errored + sides[side].errored,
          dropped: total.dropped + sides[side].dropped,
        }),
        none,
      );
    return create(RolloutTrafficSchema, {
      version: BigInt(version),
      publishTime: timestampFromMs(touch.publishedAt),
      beforeStart: timestampFromMs(touch.publishedAt - windowMs),
      afterEnd: timestampFromMs(touch.publishedAt + afterMs),
      clusters,
      omitted: touch.clusters.length - listed.length,
      totalBefore: totals(sum("before"), windowMs),
      totalAfter: totals(sum("after"), afterMs),
    });
  }

  /** The version's publish time and touched clusters, read once. */
  #touch(version: number): Promise<VersionTouch> {
    let touch = this.#versions.get(version);
    if (touch === undefined) {
      touch = translated(async () => {
        const record = await getSnapshot(this.#prisma, version);
        const [before, after] = await specsAroundVersion(this.#prisma, record);
        return {
          publishedAt: record.createdAt.getTime(),
          clusters: touchedClusters(before, after, record.changes),
        };
      });
      // A failed read (an unknown version, the database away) is not kept.
      touch.catch(() => this.#versions.delete(version));
      this.#versions.set(version, touch);
      while (this.#versions.size > CACHED_VERSIONS) {
        const oldest = this.#versions.keys().next().value;
        if (oldest === undefined) break;
        this.#versions.delete(oldest);
      }
    }
    return touch;
  }
}

function totals(side: SideTotals, spanMs: number): TrafficTotals {
  const completed = side.successful + side.errored;
  return create(TrafficTotalsSchema, {
    successful: BigInt(side.successful),
    errored: BigInt(side.errored),
    dropped: BigInt(side.dropped),
    ...(completed > 0 ? { errorRatio: side.errored / completed } : {}),
    seconds: Math.round(spanMs / 1000),
  });
}
