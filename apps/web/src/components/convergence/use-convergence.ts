"use client";

import { ConnectError, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { useCallback, useEffect, useMemo, useState } from "react";
import { type ConvergenceFeed, isUnimplemented } from "@/lib/convergence";

/**
 * Follows one published version's convergence through the server-streaming
 * StatusService.WatchConvergence: every message replaces the view. The stream is cancelled when
 * the component unmounts or the version changes.
 *
 * A server without the streaming call (Unimplemented) gets one GetConvergence read instead, and
 * `refresh` reads again on demand: the view says it is not live rather than polling.
 */
export function useConvergence(version: bigint): {
  feed: ConvergenceFeed;
  refresh: () => void;
} {
  const transport = useTransport();
  const client = useMemo(() => createClient(StatusService, transport), [transport]);
  const [feed, setFeed] = useState<ConvergenceFeed>({ t: "connecting" });
  // Bumped to re-open the watch (or re-read the snapshot).
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    // `attempt` only re-runs the effect.
    void attempt;
    const abort = new AbortController();
    let latest: ConvergenceFeed = { t: "connecting" };
    const set = (next: ConvergenceFeed) => {
      latest = next;
      if (!abort.signal.aborted) setFeed(next);
    };
    const lastSeen = () =>
      latest.t === "live" || latest.t === "snapshot" || latest.t === "failed"
        ? latest.convergence
        : undefined;

    const readOnce = async () => {
      try {
        const convergence = await client.getConvergence({ version }, { signal: abort.signal });
        set({ t: "snapshot", convergence, at: new Date() });
      } catch (error) {
        if (abort.signal.aborted) return;
        set({ t: "failed", error: ConnectError.from(error), convergence: lastSeen() });
      }
    };

    (async () => {
      try {
        for await (const convergence of client.watchConvergence(
          { version },
          { signal: abort.signal },
        )) {
          set({ t: "live", convergence });
        }
        // The server ended the stream (it is shutting down): say so, keep what was seen.
        if (!abort.signal.aborted)
          set({
            t: "failed",
            error: new ConnectError("the server closed the live feed"),
            convergence: lastSeen(),
          });
      } catch (error) {
        if (abort.signal.aborted) return;
        if (isUnimplemented(error)) await readOnce();
        else set({ t: "failed", error: ConnectError.from(error), convergence: lastSeen() });
      }
    })();

    return () => abort.abort();
  }, [client, version, attempt]);

  const refresh = useCallback(() => setAttempt((n) => n + 1), []);
  return { feed, refresh };
}
