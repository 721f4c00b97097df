"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  type Rollout,
  RolloutPhase,
  RolloutService,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { Route } from "next";
import { useMemo } from "react";
import { Link } from "@/components/ui/link";
import { rolloutHref } from "@/lib/rollouts";

/** The rollouts History marks its versions with: the latest, enough for the versions it lists. */
const MARKED_ROLLOUTS = 500;

/** The recent rollouts by the version they rolled out (one per node group it changed). */
export function useRolloutsByVersion(): ReadonlyMap<bigint, readonly Rollout[]> {
  const list = useQuery(
    RolloutService.method.listRollouts,
    { limit: MARKED_ROLLOUTS },
    { refetchInterval: 10_000 },
  );
  return useMemo(() => {
    const byVersion = new Map<bigint, Rollout[]>();
    for (const r of list.data?.rollouts ?? []) {
      const rows = byVersion.get(r.toVersion) ?? [];
      rows.push(r);
      byVersion.set(r.toVersion, rows);
    }
    return byVersion;
  }, [list.data]);
}

const outcome: Record<RolloutPhase, { text: string; className: string }> = {
  [RolloutPhase.UNSPECIFIED]: { text: "unknown", className: "text-fg-muted" },
  [RolloutPhase.APPLYING]: { text: "running", className: "text-warning" },
  [RolloutPhase.BAKING]: { text: "running", className: "text-warning" },
  [RolloutPhase.PAUSED]: { text: "paused", className: "text-warning" },
  [RolloutPhase.ROLLING_BACK]: { text: "rolling back", className: "text-danger" },
  [RolloutPhase.COMPLETED]: { text: "completed", className: "text-success" },
  [RolloutPhase.FAILED]: { text: "failed, rolled back", className: "text-danger" },
  [RolloutPhase.ABORTED]: { text: "aborted", className: "text-danger" },
};

/** "Rollout 3 (group default): completed", each linking to the rollout's page. */
export function RolloutMarks({
  rollouts,
  className = "",
}: {
  rollouts: readonly Rollout[] | undefined;
  className?: string;
}) {
  if (rollouts === undefined || rollouts.length === 0) return null;
  return (
    <ul aria-label="Went out as rollouts" className={`flex flex-col gap-0.5 text-xs ${className}`}>
      {rollouts.map((r) => {
        const o = outcome[r.phase];
        return (
          <li key={r.id.toString()}>
            {/* Above the row's own link, which covers the row (version-table.tsx). */}
            <Link
              href={rolloutHref(r.id) as Route}
              className="relative z-[1] font-medium text-accent hover:underline"
            >
              Rollout {r.id.toString()}
            </Link>{" "}
            <span className="text-fg-subtle">(group {r.group}):</span>{" "}
            <span className={o.className}>{o.text}</span>
          </li>
        );
      })}
    </ul>
  );
}
