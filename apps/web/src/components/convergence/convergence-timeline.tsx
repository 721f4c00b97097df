"use client";

import { useQuery } from "@connectrpc/connect-query";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import type { Route } from "next";
import dynamic from "next/dynamic";
import { Card } from "@/components/ui/card";
import { Link } from "@/components/ui/link";
import { convergenceLine, timelinePoints } from "@/lib/version-convergence";

/** The chart's code (recharts) loads with the panel. */
const ConvergenceTimelineChart = dynamic(
  () => import("./convergence-timeline-chart").then((m) => m.ConvergenceTimelineChart),
  { ssr: false, loading: () => <div className="h-56 w-full" aria-busy="true" /> },
);

/** How many versions the chart shows, how many the list names, and how often both are read. */
const VERSIONS = 30;
const LISTED = 5;
const REFRESH_MS = 5_000;

/**
 * The Overview's NACK and convergence timeline (ListVersionConvergence): for each of the latest
 * versions, how long until half, 99% and every node connected at its publish held it, and how
 * many NACKed it; the latest few in words, each linking to its History entry.
 */
export function ConvergenceTimeline() {
  const query = useQuery(
    StatusService.method.listVersionConvergence,
    { limit: VERSIONS },
    { refetchInterval: REFRESH_MS },
  );
  const versions = query.data?.versions ?? [];
  const points = timelinePoints(versions);
  return (
    <Card id="convergence-timeline" title="Convergence by version" aside="time to 50/99/100% held">
      <div className="flex flex-col gap-4 p-5">
        {query.error ? (
          <p role="alert" className="text-sm text-danger">
            The convergence of published versions could not be read: {query.error.message}
          </p>
        ) : query.isPending ? (
          <div className="h-56 w-full animate-pulse rounded-lg bg-surface-muted" aria-busy="true" />
        ) : points.length === 0 ? (
          <p className="text-sm text-fg-muted">
            No version has been published to connected nodes yet. Each publish appears here with how
            long its nodes took to hold it, and how many rejected it.
          </p>
        ) : (
          <>
            <ConvergenceTimelineChart
              points={points}
              label="Seconds to 50%, 99% and 100% of nodes holding each version, and nodes NACKing it"
            />
            <ol aria-label="Convergence of the latest versions" className="flex flex-col gap-1.5">
              {versions.slice(0, LISTED).map((v) => (
                <li key={v.version.toString()} className="flex gap-3 text-sm">
                  <Link
                    href={`/history?version=${v.version}` as Route}
                    className="w-12 shrink-0 font-mono text-[13px] font-semibold text-fg tabular-nums hover:text-accent"
                  >
                    v{v.version.toString()}
                  </Link>
                  <span className={v.nackedEver > 0 ? "text-danger" : "text-fg-muted"}>
                    {convergenceLine(v)}
                  </span>
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
    </Card>
  );
}
