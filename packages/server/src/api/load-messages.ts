/** StatusService.GetLoad: the request checked, the load read (load/load-store.ts) as series. */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import type { PrismaClient } from "@switchyard/db";
import {
  type GetLoadRequest,
  type Load,
  LoadBreakdown,
  LoadPointSchema,
  LoadSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { type LoadDimension, readLoad } from "../load/load-store.js";

const DEFAULT_WINDOW_S = 300;
const MAX_WINDOW_S = 86_400;

const dimensions: Record<LoadBreakdown, LoadDimension> = {
  [LoadBreakdown.UNSPECIFIED]: "cluster",
  [LoadBreakdown.CLUSTER]: "cluster",
  [LoadBreakdown.LOCALITY]: "locality",
  [LoadBreakdown.ENDPOINT]: "endpoint",
  [LoadBreakdown.NODE]: "node",
};

export async function loadOf(
  prisma: PrismaClient,
  request: GetLoadRequest,
  now: number = Date.now(),
): Promise<Load> {
  const windowS = request.windowSeconds || DEFAULT_WINDOW_S;
  if (windowS > MAX_WINDOW_S)
    throw new ConnectError(
      `window_seconds: ${windowS} is more than the ${MAX_WINDOW_S} s load is kept`,
      Code.InvalidArgument,
    );
  const by = dimensions[request.by];
  if (by === undefined)
    throw new ConnectError(`by: ${request.by} is not a LoadBreakdown`, Code.InvalidArgument);
  const points = await readLoad(prisma, {
    ...(request.cluster === "" ? {} : { cluster: request.cluster }),
    ...(request.nodeId === "" ? {} : { nodeId: request.nodeId }),
    by,
    since: now - windowS * 1000,
  });
  const series = new Map<string, Load["series"][number]["points"]>();
  for (const point of points) {
    const list = series.get(point.series) ?? [];
    list.push(
      create(LoadPointSchema, {
        start: timestampFromMs(point.bucket),
        widthSeconds: point.widthS,
        successful: BigInt(point.successful),
        errored: BigInt(point.errored),
        issued: BigInt(point.issued),
        inProgress: BigInt(point.inProgress),
        dropped: BigInt(point.dropped),
      }),
    );
    series.set(point.series, list);
  }
  return create(LoadSchema, {
    series: [...series]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, list]) => ({ name, points: list })),
  });
}
