"use client";

import type { NodeSummary } from "@switchyard/proto/switchyard/v1/status_pb";
import { useCallback, useMemo, useState } from "react";
import type { LiveStreamState } from "@/lib/live-stream";
import { applyNodesMessage, type NodeIndex, sortedNodes } from "@/lib/node-list";
import { useLiveStream } from "./use-live-stream";
import { useStatusClient } from "./use-status-client";

/**
 * Every node any replica has seen, kept current by StatusService.WatchNodes: undefined until the
 * first (reset) message, then folded message by message (node-list.ts).
 */
export function useNodes(): {
  nodes: readonly NodeSummary[] | undefined;
  state: LiveStreamState;
  reconnectNow: () => void;
} {
  const client = useStatusClient();
  const [index, setIndex] = useState<NodeIndex | undefined>(undefined);
  const open = useCallback((signal: AbortSignal) => client.watchNodes({}, { signal }), [client]);
  const { state, reconnectNow } = useLiveStream(open, (message) =>
    setIndex((current) => applyNodesMessage(current, message)),
  );
  const nodes = useMemo(() => (index ? sortedNodes(index) : undefined), [index]);
  return { nodes, state, reconnectNow };
}
