"use client";

import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  WatchNodesRequestSchema,
  WatchNodesResponse,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { useCallback, useState } from "react";
import type { LiveStreamState } from "@/lib/live-stream";
import { useLiveStream } from "./use-live-stream";
import { useStatusClient } from "./use-status-client";

export type NodePageRequest = MessageInitShape<typeof WatchNodesRequestSchema>;

/**
 * One page of the nodes, kept current by StatusService.WatchNodes with paging: the server
 * filters, sorts and counts, and sends the page whole whenever it changes, so the page costs the
 * same with ten nodes or ten thousand. Undefined until the first message; a new `request` (a
 * filter, a sort, another page) opens a new stream, and the previous page stays shown until the
 * new one arrives. `key` must change exactly when the request does. A page too large for one
 * message (past about 4 MiB) comes as a reset and messages adding the rest of its nodes.
 */
export function useNodePage(
  request: NodePageRequest,
  key: string,
): {
  page: WatchNodesResponse | undefined;
  /** Whether `page` answers `request` (false while a new request's first page is on its way). */
  current: boolean;
  state: LiveStreamState;
  reconnectNow: () => void;
} {
  const client = useStatusClient();
  const [received, setReceived] = useState<Tagged | undefined>(undefined);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for `request`
  const open = useCallback(
    (signal: AbortSignal) => tagged(key, client.watchNodes(request, { signal })),
    [client, key],
  );
  const onMessage = useCallback(
    (next: Tagged) => setReceived((previous) => withMessage(previous, next)),
    [],
  );
  const { state, reconnectNow } = useLiveStream(open, onMessage);
  return { page: received?.message, current: received?.key === key, state, reconnectNow };
}

interface Tagged {
  readonly key: string;
  readonly message: WatchNodesResponse;
}

/** The page after `next`: a reset replaces it, a message that is not adds its nodes. */
function withMessage(previous: Tagged | undefined, next: Tagged): Tagged {
  if (next.message.reset || previous?.key !== next.key) return next;
  return {
    key: next.key,
    message: { ...previous.message, nodes: [...previous.message.nodes, ...next.message.nodes] },
  };
}

/** Each message with the request it answers, so a late one is never taken for the new page's. */
async function* tagged(
  key: string,
  stream: AsyncIterable<WatchNodesResponse>,
): AsyncGenerator<Tagged> {
  for await (const message of stream) yield { key, message };
}
