"use client";

import { type Client, Code, ConnectError } from "@connectrpc/connect";
import type { Rollout, RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { useCallback, useState } from "react";
import { useLiveStream } from "@/components/nodes/use-live-stream";
import type { LiveStreamState } from "@/lib/live-stream";
import { useRolloutClient } from "./use-rollout-client";

/** The nodes a rollout's page lists, at most (the server's default is 100). */
export const ROLLOUT_NODE_LIMIT = 200;
/** How often the page looks for a rollout to start, once the one shown has ended (or none ran). */
const NEXT_ROLLOUT_POLL_MS = 2_000;

/**
 * What the page shows: a rollout, or that none has run yet. A tagged union, so the first message
 * of a (re)opened feed always sets the whole state.
 */
export type RolloutFeed =
  | { readonly t: "rollout"; readonly rollout: Rollout }
  | { readonly t: "none" };

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * The running rollout, followed (WatchRollout with id 0: the running one, else the latest). The
 * server ends a watch once its rollout has ended; the feed then keeps showing it and asks
 * ListRollouts every few seconds for one that runs, and follows that one as it starts.
 */
async function* followRunning(
  client: Client<typeof RolloutService>,
  signal: AbortSignal,
): AsyncGenerator<RolloutFeed> {
  let shown: bigint | undefined;
  while (!signal.aborted) {
    try {
      for await (const rollout of client.watchRollout(
        { id: 0n, nodeLimit: ROLLOUT_NODE_LIMIT },
        { signal },
      )) {
        shown = rollout.id;
        yield { t: "rollout", rollout };
      }
    } catch (error) {
      // NotFound: no rollout has run yet (a server stream's refusal, not an HTTP error).
      if (signal.aborted || ConnectError.from(error).code !== Code.NotFound) throw error;
      yield { t: "none" };
    }
    for (;;) {
      await sleep(NEXT_ROLLOUT_POLL_MS, signal);
      if (signal.aborted) return;
      const { rollouts } = await client.listRollouts({ activeOnly: true, limit: 1 }, { signal });
      if (rollouts.some((r) => r.id !== shown)) break;
    }
  }
}

/** One rollout, followed until it ends, then shown as it ended. */
async function* followOne(
  client: Client<typeof RolloutService>,
  id: bigint,
  signal: AbortSignal,
): AsyncGenerator<RolloutFeed> {
  for await (const rollout of client.watchRollout(
    { id, nodeLimit: ROLLOUT_NODE_LIMIT },
    { signal },
  ))
    yield { t: "rollout", rollout };
  // Ended: nothing more will change; the feed stays open (not reconnecting for nothing) until
  // the page leaves.
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve()));
}

/**
 * The rollout of the page, live: `id` 0 follows the running one (and the next, as it starts);
 * another id that rollout. `replace` puts a command's answer in place until the watch says more.
 */
export function useRolloutFeed(id: bigint): {
  feed: RolloutFeed | undefined;
  state: LiveStreamState;
  reconnectNow: () => void;
  replace: (rollout: Rollout) => void;
} {
  const client = useRolloutClient();
  const [feed, setFeed] = useState<RolloutFeed | undefined>(undefined);
  const open = useCallback(
    (signal: AbortSignal) =>
      id === 0n ? followRunning(client, signal) : followOne(client, id, signal),
    [client, id],
  );
  const { state, reconnectNow } = useLiveStream(open, setFeed);
  const replace = useCallback((rollout: Rollout) => {
    setFeed((current) =>
      current?.t === "rollout" && current.rollout.id !== rollout.id
        ? current
        : { t: "rollout", rollout },
    );
  }, []);
  return { feed, state, reconnectNow, replace };
}
