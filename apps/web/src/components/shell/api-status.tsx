"use client";

import { type Query, useQueryClient } from "@tanstack/react-query";
import { useCallback, useSyncExternalStore } from "react";
import { apiAnswered } from "@/lib/classify-error";

type ApiStatusValue = "connecting" | "connected" | "failing" | "unreachable";

/** The outcome of the most recent API call that finished, whichever page made it. */
function statusOf(queries: readonly Query[]): ApiStatusValue {
  let latest: { at: number; status: ApiStatusValue } | undefined;
  for (const { state } of queries) {
    if (state.dataUpdatedAt > (latest?.at ?? 0)) {
      latest = { at: state.dataUpdatedAt, status: "connected" };
    }
    if (state.error && state.errorUpdatedAt > (latest?.at ?? 0)) {
      const status = apiAnswered(state.error) ? "failing" : "unreachable";
      latest = { at: state.errorUpdatedAt, status };
    }
  }
  return latest?.status ?? "connecting";
}

const presentation: Record<ApiStatusValue, { label: string; dot: string }> = {
  connecting: { label: "Connecting", dot: "bg-fg-subtle motion-safe:animate-pulse-late" },
  connected: { label: "API connected", dot: "bg-success" },
  failing: { label: "API error", dot: "bg-warning" },
  unreachable: { label: "API unreachable", dot: "bg-danger" },
};

/** A small indicator in the top bar: can the console talk to the Switchyard API right now? */
export function ApiStatus() {
  const cache = useQueryClient().getQueryCache();
  const subscribe = useCallback((onChange: () => void) => cache.subscribe(onChange), [cache]);
  const status = useSyncExternalStore(
    subscribe,
    () => statusOf(cache.getAll()),
    () => "connecting" as const,
  );
  const { label, dot } = presentation[status];
  return (
    <div
      role="status"
      className="flex items-center gap-2 rounded-full border bg-surface px-2.5 py-1 text-xs font-medium text-fg-muted"
    >
      <span aria-hidden="true" className={`size-1.5 rounded-full ${dot}`} />
      {label}
    </div>
  );
}
