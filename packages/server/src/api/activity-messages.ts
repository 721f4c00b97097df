/** StatusService.GetNodeActivity: the request checked, the counts read (fleet/activity-reader.ts). */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { PrismaClient } from "@switchyard/db";
import {
  type GetNodeActivityRequest,
  type GetNodeActivityResponse,
  GetNodeActivityResponseSchema,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { activityWindow, readNodeActivity } from "../fleet/activity-reader.js";
import { invalidArgument } from "./errors.js";

export const MAX_ACTIVITY_NODES = 500;
export const DEFAULT_ACTIVITY_WINDOW_S = 3_600;
export const MIN_ACTIVITY_WINDOW_S = 60;
export const MAX_ACTIVITY_WINDOW_S = 86_400;
export const DEFAULT_ACTIVITY_BUCKETS = 12;
export const MAX_ACTIVITY_BUCKETS = 120;
/** As MAX_NODE_ID_BYTES on the xDS streams: no longer id is ever stored. */
const MAX_NODE_ID_BYTES = 1_024;

const refused = (path: string, message: string) =>
  invalidArgument(message, [{ severity: "error", code: "invalid-request", path, message }]);

/**
 * The distinct ids, in the request's order; refused with the first bad one's place (the message
 * counts from 1, the path from 0).
 */
function nodeIdsOf(ids: readonly string[]): string[] {
  if (ids.length === 0)
    throw refused("node_ids", "node_ids: name at least one node to count the activity of");
  if (ids.length > MAX_ACTIVITY_NODES)
    throw refused(
      "node_ids",
      `node_ids: ${ids.length} ids are more than the ${MAX_ACTIVITY_NODES} one request counts; ask for the nodes shown, in batches`,
    );
  for (const [i, id] of ids.entries()) {
    if (id === "") throw refused(`node_ids[${i}]`, `node_ids: id ${i + 1} is empty`);
    const bytes = Buffer.byteLength(id);
    if (bytes > MAX_NODE_ID_BYTES)
      throw refused(
        `node_ids[${i}]`,
        `node_ids: id ${i + 1} is ${bytes} bytes long, more than a node id can be (${MAX_NODE_ID_BYTES})`,
      );
  }
  return [...new Set(ids)];
}

function windowOf(request: GetNodeActivityRequest): { windowS: number; buckets: number } {
  const windowS = request.windowSeconds || DEFAULT_ACTIVITY_WINDOW_S;
  if (windowS < MIN_ACTIVITY_WINDOW_S || windowS > MAX_ACTIVITY_WINDOW_S)
    throw refused(
      "window_seconds",
      `window_seconds: ${windowS} is outside ${MIN_ACTIVITY_WINDOW_S} to ${MAX_ACTIVITY_WINDOW_S} (a minute to a day); 0 means ${DEFAULT_ACTIVITY_WINDOW_S}`,
    );
  const buckets = request.buckets || DEFAULT_ACTIVITY_BUCKETS;
  if (buckets > MAX_ACTIVITY_BUCKETS)
    throw refused(
      "buckets",
      `buckets: ${buckets} is more than ${MAX_ACTIVITY_BUCKETS}; 0 means ${DEFAULT_ACTIVITY_BUCKETS}`,
    );
  if (buckets > windowS)
    throw refused(
      "buckets",
      `buckets: ${buckets} buckets of a ${windowS} s window would be shorter than a second each; ask for at most ${windowS}`,
    );
  return { windowS, buckets };
}

export async function nodeActivityOf(
  prisma: PrismaClient,
  request: GetNodeActivityRequest,
  now: number = Date.now(),
): Promise<GetNodeActivityResponse> {
  const ids = nodeIdsOf(request.nodeIds);
  const { windowS, buckets } = windowOf(request);
  const window = activityWindow(now, windowS * 1_000, buckets);
  const nodes = await readNodeActivity(prisma, ids, window);
  return create(GetNodeActivityResponseSchema, {
    start: timestampFromMs(window.start),
    end: timestampFromMs(window.end),
    bucketMs: window.bucketMs,
    bucketCount: window.count,
    nodes: nodes.map(({ nodeId, buckets: counts }) => ({
      nodeId,
      buckets: counts.map((c, i) => ({
        start: timestampFromMs(window.start + i * window.bucketMs),
        ...c,
      })),
    })),
  });
}
