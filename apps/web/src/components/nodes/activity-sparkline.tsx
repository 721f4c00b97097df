"use client";

import { skipToken, useQuery } from "@connectrpc/connect-query";
import { type NodeActivity, StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { keepPreviousData } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useMemo, useRef } from "react";
import { Bar, BarChart, YAxis } from "recharts";
import { activityLabel, sparkBars, sparkMax } from "@/lib/node-activity";

/** The window each sparkline covers: the last hour, in twelve five-minute buckets. */
export const ACTIVITY_WINDOW_SECONDS = 3_600;
const ACTIVITY_BUCKETS = 12;
/** How often the shown rows' activity is read again while nothing visible changes. */
const REFRESH_MS = 30_000;
/** A change to a shown node reads the activity again, at most this often. */
const CHANGE_REFRESH_MS = 5_000;

const ACK = "#0072B2";
const CONNECTION = "#9ca3af";
/** The console's danger colour: a NACK stands out from every other change. */
const NACK = "#dc2626";

type Activity =
  | { readonly t: "loading" }
  | { readonly t: "failed"; readonly message: string }
  | { readonly t: "read"; readonly nodes: ReadonlyMap<string, NodeActivity> };

const ActivityContext = createContext<Activity>({ t: "loading" });

/**
 * The activity of the rows on screen (`nodeIds`, one page of the table), read in one
 * GetNodeActivity request for them all, again every REFRESH_MS and soon after `changed` (a mark
 * of the shown nodes' latest status change) moves; the sparklines below read it.
 */
export function NodeActivityProvider({
  nodeIds,
  changed,
  children,
}: {
  nodeIds: readonly string[];
  changed: number;
  children: ReactNode;
}) {
  // Sorted, so the same rows in another order are the same request (and the same cache entry).
  const ids = useMemo(() => [...new Set(nodeIds)].sort(), [nodeIds]);
  const query = useQuery(
    StatusService.method.getNodeActivity,
    ids.length === 0
      ? skipToken
      : { nodeIds: ids, windowSeconds: ACTIVITY_WINDOW_SECONDS, buckets: ACTIVITY_BUCKETS },
    { refetchInterval: REFRESH_MS, placeholderData: keepPreviousData },
  );
  const { refetch, dataUpdatedAt } = query;
  const seen = useRef(changed);
  // A shown node changed since: read again, but not sooner than CHANGE_REFRESH_MS after a read.
  useEffect(() => {
    if (changed === seen.current) return;
    const timer = setTimeout(
      () => {
        seen.current = changed;
        void refetch();
      },
      Math.max(0, dataUpdatedAt + CHANGE_REFRESH_MS - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [changed, refetch, dataUpdatedAt]);
  const activity: Activity = useMemo(() => {
    if (query.data !== undefined)
      return { t: "read", nodes: new Map(query.data.nodes.map((n) => [n.nodeId, n])) };
    if (query.error) return { t: "failed", message: query.error.rawMessage };
    return { t: "loading" };
  }, [query.data, query.error]);
  return <ActivityContext.Provider value={activity}>{children}</ActivityContext.Provider>;
}

/**
 * A node's changes over the last hour: a tiny stacked bar per five minutes (ACKs blue,
 * connections grey, NACKs red on top), no axes; its accessible name says the totals in words.
 */
export function ActivitySparkline({ nodeId }: { nodeId: string }) {
  const activity = useContext(ActivityContext);
  if (activity.t === "loading")
    return (
      <span className="text-xs text-fg-subtle">
        <span aria-hidden="true">…</span>
        <span className="sr-only">Reading the recent activity</span>
      </span>
    );
  if (activity.t === "failed")
    return (
      <span
        className="text-xs text-fg-subtle"
        title={`The recent activity could not be read: ${activity.message}`}
      >
        —
      </span>
    );
  const buckets = activity.nodes.get(nodeId)?.buckets ?? [];
  const label = activityLabel(buckets, ACTIVITY_WINDOW_SECONDS);
  const bars = sparkBars(buckets);
  return (
    <div
      role="img"
      aria-label={label}
      title={label}
      data-nacks={bars.some((b) => b.nacks > 0) ? "yes" : "no"}
      className="h-6 w-24 border-b border-border"
    >
      <BarChart
        width={96}
        height={24}
        data={bars}
        margin={{ top: 1, right: 0, bottom: 0, left: 0 }}
        barCategoryGap={1}
        accessibilityLayer={false}
      >
        <YAxis hide domain={[0, sparkMax(bars)]} />
        <Bar dataKey="acks" stackId="a" fill={ACK} isAnimationActive={false} />
        <Bar dataKey="connections" stackId="a" fill={CONNECTION} isAnimationActive={false} />
        <Bar
          dataKey="nacks"
          stackId="a"
          fill={NACK}
          className="sparkline-nack"
          isAnimationActive={false}
        />
      </BarChart>
    </div>
  );
}
