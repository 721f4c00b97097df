"use client";

import { useQuery } from "@connectrpc/connect-query";
import { RolloutService } from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { Route } from "next";
import { Link } from "@/components/ui/link";
import { StatusPill } from "@/components/ui/status-pill";
import { phaseLabel, rolloutHref } from "@/lib/rollouts";

/** How often the Overview asks whether a rollout runs. */
const REFRESH_MS = 3_000;

/**
 * The rollouts running now (ListRollouts, active only), each with its summary and a link to its
 * page; nothing while none runs.
 */
export function RunningRollouts() {
  const list = useQuery(
    RolloutService.method.listRollouts,
    { activeOnly: true, limit: 5 },
    { refetchInterval: REFRESH_MS },
  );
  const running = list.data?.rollouts ?? [];
  if (running.length === 0) return null;
  return (
    <section aria-labelledby="running-rollouts-title" className="flex flex-col gap-2">
      <h2 id="running-rollouts-title" className="sr-only">
        Running rollouts
      </h2>
      {running.map((r) => {
        const phase = phaseLabel[r.phase];
        return (
          <div
            key={r.id.toString()}
            className="flex flex-wrap items-center gap-3 rounded-lg border border-accent/40 bg-accent-soft px-4 py-3"
          >
            <StatusPill tone={phase.tone} dot="still">
              {phase.text}
            </StatusPill>
            <p className="min-w-0 flex-1 text-fg">
              <span className="font-medium">
                Rollout {r.id.toString()}: version {r.toVersion.toString()} to group {r.group}
              </span>
              <span className="text-fg-muted"> · {r.summary}</span>
            </p>
            <Link
              href={rolloutHref(r.id) as Route}
              className="text-sm font-medium text-accent hover:underline"
            >
              Follow the rollout →
            </Link>
          </div>
        );
      })}
    </section>
  );
}
