"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { type RolloutPhase, RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { Route } from "next";
import { useEffect } from "react";
import { Card } from "@/components/ui/card";
import { Link } from "@/components/ui/link";
import { Bar } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusPill } from "@/components/ui/status-pill";
import { phaseLabel, rolloutHref } from "@/lib/rollouts";

/** How often the list is read again (the shown rollout's changes also refresh it). */
const REFRESH_MS = 5_000;

/** The latest rollouts, newest first (ListRollouts); each links to its page. */
export function RecentRollouts({
  selected,
  shownPhase,
}: {
  selected: bigint | undefined;
  /** The shown rollout's phase: a change of it is read again at once. */
  shownPhase: RolloutPhase | undefined;
}) {
  const list = useQuery(
    RolloutService.method.listRollouts,
    { limit: 50 },
    { refetchInterval: REFRESH_MS },
  );
  const { refetch } = list;
  useEffect(() => {
    if (shownPhase !== undefined) void refetch();
  }, [shownPhase, refetch]);
  const rollouts = list.data?.rollouts ?? [];
  return (
    <Card id="recent-rollouts-title" title="Recent rollouts">
      {list.error && !list.data ? (
        <p role="alert" className="p-5 text-fg-muted">
          Couldn’t list the rollouts: {list.error.rawMessage}
        </p>
      ) : !list.data ? (
        <div aria-busy="true" className="flex flex-col gap-3 p-5">
          <Bar className="h-3 w-1/2" />
          <Bar className="h-3 w-2/3" />
        </div>
      ) : rollouts.length === 0 ? (
        <p className="p-5 text-fg-muted">No rollout yet.</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full min-w-[760px] text-left">
            <caption className="sr-only">Recent rollouts, newest first</caption>
            <thead className="border-b bg-surface-muted text-xs text-fg-subtle">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  Rollout
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Node group
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Versions
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  State
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Started
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Summary
                </th>
              </tr>
            </thead>
            <tbody className="divide-y">
              {rollouts.map((r) => {
                const phase = phaseLabel[r.phase];
                return (
                  <tr
                    key={r.id.toString()}
                    className={r.id === selected ? "bg-accent-soft" : undefined}
                  >
                    <th scope="row" className="px-4 py-2.5 font-normal whitespace-nowrap">
                      <Link
                        href={rolloutHref(r.id) as Route}
                        aria-current={r.id === selected ? "true" : undefined}
                        className="font-mono text-[13px] font-semibold text-fg hover:text-accent hover:underline"
                      >
                        Rollout {r.id.toString()}
                      </Link>
                    </th>
                    <td className="px-4 py-2.5 font-mono text-xs">{r.group}</td>
                    <td className="px-4 py-2.5 text-xs tabular-nums whitespace-nowrap">
                      v{r.fromVersion.toString()} → v{r.toVersion.toString()}
                    </td>
                    <td className="px-4 py-2.5">
                      <StatusPill tone={phase.tone}>{phase.text}</StatusPill>
                    </td>
                    <td className="px-4 py-2.5 text-xs whitespace-nowrap text-fg-muted">
                      {r.startTime ? <RelativeTime date={timestampDate(r.startTime)} /> : "—"}
                    </td>
                    <td className="px-4 py-2.5 text-xs text-fg-muted">{r.summary}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
