"use client";

import { useSearchParams } from "next/navigation";
import { LiveBadge } from "@/components/nodes/live-badge";
import { buttonClass } from "@/components/ui/button";
import { WavesIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RecentRollouts } from "./recent-rollouts";
import { RolloutDetail } from "./rollout-detail";
import { useRolloutFeed } from "./use-rollout-feed";

function parseId(value: string | null): bigint {
  return value !== null && /^[1-9]\d{0,18}$/.test(value) ? BigInt(value) : 0n;
}

/**
 * The Rollouts page: the running rollout first (`/rollouts`, following the next one as it
 * starts), or the one the URL names (`/rollouts?id=12`), live; the recent rollouts below.
 */
export function RolloutsView() {
  const id = parseId(useSearchParams().get("id"));
  // A new id is a new feed: nothing of the previous rollout is shown meanwhile.
  return <RolloutPage key={id.toString()} id={id} />;
}

function RolloutPage({ id }: { id: bigint }) {
  const { feed, state, reconnectNow, replace } = useRolloutFeed(id);
  const shown = feed?.t === "rollout" ? feed.rollout : undefined;
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Rollouts"
        eyebrow={
          id === 0n ? undefined : (
            <Link href="/rollouts" className="text-accent hover:underline">
              ← The running rollout
            </Link>
          )
        }
        description="A published version reaching a node group in waves, each gated on its nodes' ACKs and their traffic, promoted or rolled back by the server."
        actions={<LiveBadge state={state} onReconnect={reconnectNow} />}
      />
      {feed === undefined ? (
        state.t === "ended" ? (
          <p role="alert" className="rounded-lg border border-danger-border bg-danger-soft p-4">
            {state.error.rawMessage}
          </p>
        ) : (
          <LoadingBlock label="Loading the rollout…" rows={6} />
        )
      ) : feed.t === "none" ? (
        <EmptyState
          icon={<WavesIcon className="size-5" />}
          title="No rollout has run yet"
          actions={
            <Link href="/changes" className={buttonClass("primary")}>
              Publish as a rollout
            </Link>
          }
        >
          A publish goes out as a rollout when it names a plan, or when the admins set a default
          plan. This page shows it as it happens.
        </EmptyState>
      ) : (
        <RolloutDetail rollout={feed.rollout} onChanged={replace} />
      )}
      <RecentRollouts selected={shown?.id} shownPhase={shown?.phase} />
    </div>
  );
}
