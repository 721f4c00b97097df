"use client";

import { formatRelativeTime } from "@/lib/relative-time";
import { useNow } from "./use-now";

const absolute = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "long" });

/** "3 minutes ago", kept current; the exact time is in the tooltip and the `datetime` attribute. */
export function RelativeTime({ date, className }: { date: Date; className?: string }) {
  const now = useNow();
  return (
    <time dateTime={date.toISOString()} title={absolute.format(date)} className={className}>
      {formatRelativeTime(date, new Date(now))}
    </time>
  );
}
