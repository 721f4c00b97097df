"use client";

import type {
  Convergence,
  FleetSummary,
  NodeDetail,
  WatchNodesResponse,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { useCallback, useState } from "react";
import type { LiveStreamState } from "@/lib/live-stream";
import { useLiveStream } from "./use-live-stream";
import { useStatusClient } from "./use-status-client";

/** One node's detail, replaced by each WatchNode message; the stream ends NotFound for an unknown id. */
export function useNode(id: string): {
  node: NodeDetail | undefined;
  state: LiveStreamState;
  reconnectNow: () => void;
} {
  const client = useStatusClient();
  const [node, setNode] = useState<NodeDetail | undefined>(undefined);
  const open = useCallback(
    (signal: AbortSignal) => client.watchNode({ id }, { signal }),
    [client, id],
  );
  const { state, reconnectNow } = useLiveStream(open, setNode);
  return { node, state, reconnectNow };
}

/**
 * Calls `onSeen` once a node with exactly this id is stored (it connected, to any replica):
 * follows WatchNodes for ids containing it, so an unknown node's page comes alive by itself.
 */
export function useWhenNodeSeen(id: string, onSeen: () => void): void {
  const client = useStatusClient();
  const open = useCallback(
    (signal: AbortSignal) => client.watchNodes({ idContains: id, pageSize: 20 }, { signal }),
    [client, id],
  );
  useLiveStream(
    open,
    useCallback(
      (message: WatchNodesResponse) => {
        if (message.nodes.some((node) => node.id === id)) onSeen();
      },
      [id, onSeen],
    ),
  );
}

/**
 * The latest published version's convergence, following each new publish (WatchConvergence with
 * version 0). Nothing arrives while no version was ever published: `convergence` stays undefined
 * with the stream live-but-silent, so callers learn "nothing published" from ListSnapshots.
 * Summary only (`summary_only`): the counts and the NACKED nodes, not a row per node, so each
 * message stays small whatever the fleet size.
 */
export function useLatestConvergenceSummary(): {
  convergence: Convergence | undefined;
  state: LiveStreamState;
  reconnectNow: () => void;
} {
  const client = useStatusClient();
  const [convergence, setConvergence] = useState<Convergence | undefined>(undefined);
  const open = useCallback(
    (signal: AbortSignal) =>
      client.watchConvergence({ version: 0n, summaryOnly: true }, { signal }),
    [client],
  );
  const { state, reconnectNow } = useLiveStream(open, setConvergence);
  return { convergence, state, reconnectNow };
}

/**
 * The fleet at a glance (WatchFleet): counts by health and the latest NACKs, computed by the
 * server, so each message stays small whatever the number of nodes. Undefined until the first.
 */
export function useFleet(recentNacks: number): {
  fleet: FleetSummary | undefined;
  state: LiveStreamState;
  reconnectNow: () => void;
} {
  const client = useStatusClient();
  const [fleet, setFleet] = useState<FleetSummary | undefined>(undefined);
  const open = useCallback(
    (signal: AbortSignal) => client.watchFleet({ recentNacks }, { signal }),
    [client, recentNacks],
  );
  const { state, reconnectNow } = useLiveStream(open, setFleet);
  return { fleet, state, reconnectNow };
}
