"use client";

import { useEffect, useState } from "react";
import type { LiveStreamState } from "@/lib/live-stream";

const base =
  "inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset";

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
        <span className={`${base} bg-success/10 text-success ring-success/30`}>
          <span
            aria-hidden="true"
            className="size-1.5 rounded-full bg-success motion-safe:animate-pulse"
          />
          Live
        </span>
      )}
      {state.t === "connecting" && (
        <span className={`${base} bg-surface-muted text-fg-muted ring-border`}>
          <span
            aria-hidden="true"
            className="size-1.5 rounded-full bg-fg-subtle motion-safe:animate-pulse"
          />
          Connecting
        </span>
      )}
      {state.t === "reconnecting" && (
        <>
          <span
            className={`${base} bg-warning-soft text-warning ring-warning-border`}
            title={state.error.rawMessage}
          >
            <span aria-hidden="true" className="size-1.5 rounded-full bg-warning" />
            Reconnecting{seconds > 0 ? ` in ${seconds} s` : "…"}
          </span>
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
        <span
          className={`${base} bg-surface-muted text-fg-muted ring-border`}
          title={state.error.rawMessage}
        >
          Not live
        </span>
      )}
    </span>
  );
}
