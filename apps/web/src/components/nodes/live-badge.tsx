"use client";

import { useEffect, useState } from "react";
import { StatusPill } from "@/components/ui/status-pill";
import type { LiveStreamState } from "@/lib/live-stream";

/** Seconds until `at`, kept current each second while it is in the future. */
function useSecondsUntil(at: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === undefined) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [at]);
  return at === undefined ? 0 : Math.max(0, Math.ceil((at - now) / 1_000));
}

/**
 * Whether a view is live: "Live" while its server stream delivers, "Reconnecting" (with a way to
 * try at once) after the stream broke, "Not live" when the server refused it.
 */
export function LiveBadge({
  state,
  onReconnect,
}: {
  state: LiveStreamState;
  onReconnect: () => void;
}) {
  const seconds = useSecondsUntil(state.t === "reconnecting" ? state.retryAt : undefined);
  return (
    <span role="status" className="inline-flex items-center gap-2">
      {state.t === "live" && (
        <StatusPill tone="success" dot="still">
          Live
        </StatusPill>
      )}
      {state.t === "connecting" && (
        <StatusPill tone="muted" dot="pulse">
          Connecting
        </StatusPill>
      )}
      {state.t === "reconnecting" && (
        <>
          <StatusPill tone="warning" dot="still" title={state.error.rawMessage}>
            Reconnecting{seconds > 0 ? ` in ${seconds} s` : "…"}
          </StatusPill>
          <button
            type="button"
            onClick={onReconnect}
            className="rounded text-xs font-medium text-accent underline-offset-2 hover:underline"
          >
            Retry now
          </button>
        </>
      )}
      {state.t === "ended" && (
        <StatusPill tone="muted" title={state.error.rawMessage}>
          Not live
        </StatusPill>
      )}
    </span>
  );
}
