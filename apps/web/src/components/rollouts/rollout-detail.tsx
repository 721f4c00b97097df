"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Rollout,
  type RolloutFailure,
  RolloutPhase,
} from "@switchyard/proto/switchyard/v1/rollout_pb";
import type { Route } from "next";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusPill } from "@/components/ui/status-pill";
import { nodeHref } from "@/lib/node-list";
import { phaseLabel } from "@/lib/rollouts";
import { RolloutControls } from "./rollout-controls";
import { RolloutGatesCard } from "./rollout-gates";
import { RolloutNodes } from "./rollout-nodes";
import { RolloutTrafficCard } from "./rollout-traffic-chart";
import { WaveTimeline } from "./wave-timeline";

const historyHref = (version: bigint) => `/history?version=${version}` as Route;

/**
 * One rollout: what it rolls out where, where it is (its summary, why it failed), the buttons
 * that steer it, its waves, the current wave's gates with their figures, the traffic windows
 * the traffic gate counted, and which node runs which version.
 */
export function RolloutDetail({
  rollout,
  onChanged,
}: {
  rollout: Rollout;
  onChanged: (rollout: Rollout) => void;
}) {
  const phase = phaseLabel[rollout.phase];
  return (
    <div className="flex flex-col gap-6">
      <section
        aria-labelledby="rollout-title"
        className="flex flex-col gap-4 rounded-xl border bg-surface p-5 shadow-xs"
      >
        <header className="flex flex-wrap items-start justify-between gap-4">
          <div className="min-w-0">
            <h2
              id="rollout-title"
              className="flex items-center gap-3 text-lg font-semibold tracking-tight text-fg"
            >
              Rollout {rollout.id.toString()}
              <StatusPill tone={phase.tone} dot="still">
                {phase.text}
              </StatusPill>
            </h2>
            <p className="mt-1 text-fg">
              Version{" "}
              <Link
                href={historyHref(rollout.toVersion)}
                className="font-medium text-accent hover:underline"
              >
                {rollout.toVersion.toString()}
              </Link>{" "}
              to node group <span className="font-mono text-[13px]">{rollout.group}</span>, which
              ran version{" "}
              <Link
                href={historyHref(rollout.fromVersion)}
                className="font-medium text-accent hover:underline"
              >
                {rollout.fromVersion.toString()}
              </Link>
              {rollout.message && <span className="text-fg-muted"> · “{rollout.message}”</span>}
            </p>
            <p className="mt-1 text-xs text-fg-muted">
              {rollout.planName ? (
                <>
                  Plan <span className="font-medium text-fg">{rollout.planName}</span>
                </>
              ) : (
                "A plan given with the publish"
              )}
              {rollout.plan?.summary && <>: {rollout.plan.summary}</>}
              {" · "}published by <span className="font-medium text-fg">{rollout.createdBy}</span>
              {rollout.startTime && (
                <>
                  {" "}
                  <RelativeTime date={timestampDate(rollout.startTime)} />
                </>
              )}
            </p>
          </div>
          <RolloutControls rollout={rollout} onChanged={onChanged} />
        </header>
        <p className="text-[15px] font-medium text-fg">
          <span className="sr-only">Summary: </span>
          {rollout.summary}
        </p>
        {rollout.failure && <FailureNote rollout={rollout} failure={rollout.failure} />}
        {rollout.supersededBy > 0n && (
          <p className="text-fg-muted">
            Superseded by version{" "}
            <Link
              href={historyHref(rollout.supersededBy)}
              className="font-medium text-accent hover:underline"
            >
              {rollout.supersededBy.toString()}
            </Link>
            , published over it.
          </p>
        )}
        {rollout.unconfirmed.length > 0 && (
          <p className="text-warning">
            Sent version {rollout.fromVersion.toString()} back but not confirmed (no ACK yet):{" "}
            <span className="font-mono text-xs">{rollout.unconfirmed.join(", ")}</span>
          </p>
        )}
      </section>
      <WaveTimeline rollout={rollout} />
      {rollout.gates && <RolloutGatesCard rollout={rollout} gates={rollout.gates} />}
      <RolloutTrafficCard rollout={rollout} />
      <RolloutNodes rollout={rollout} />
    </div>
  );
}

function failureTitle(rollout: Rollout, failure: RolloutFailure): string {
  switch (rollout.phase) {
    case RolloutPhase.PAUSED:
      return `Wave ${failure.wave} failed its gates: the rollout is paused`;
    case RolloutPhase.ROLLING_BACK:
      return `Wave ${failure.wave} failed: rolling back to version ${rollout.fromVersion}`;
    case RolloutPhase.ABORTED:
      return `Aborted after wave ${failure.wave} failed`;
    default:
      return `Wave ${failure.wave} failed: rolled back to version ${rollout.fromVersion}`;
  }
}

/** Why the rollout failed (or is paused on a failure): the server's sentence and its figures. */
function FailureNote({ rollout, failure }: { rollout: Rollout; failure: RolloutFailure }) {
  return (
    <div
      role="alert"
      aria-label="Why it failed"
      className="flex flex-col gap-2 rounded-lg border border-danger-border bg-danger-soft px-4 py-3 text-fg"
    >
      <p className="flex items-center gap-2 font-medium">
        <AlertTriangleIcon className="size-4 shrink-0 text-danger" />
        {failureTitle(rollout, failure)}
      </p>
      <p className="[overflow-wrap:anywhere]">{failure.message}</p>
      {failure.nodeIds.length > 0 && (
        <p className="text-xs text-fg-muted">
          {failure.nodeIds.length === 1 ? "Node " : "Nodes "}
          {failure.nodeIds.map((id, i) => (
            <span key={id}>
              {i > 0 && ", "}
              <Link
                href={nodeHref(id)}
                className="font-mono font-medium text-fg hover:text-accent hover:underline"
              >
                {id}
              </Link>
            </span>
          ))}
        </p>
      )}
      {failure.nackDetail && (
        <pre className="max-h-40 overflow-auto rounded-md bg-surface px-3 py-2 font-mono text-xs whitespace-pre-wrap text-danger [overflow-wrap:anywhere]">
          {failure.nackDetail}
        </pre>
      )}
      {(rollout.phase === RolloutPhase.FAILED || rollout.phase === RolloutPhase.ROLLING_BACK) && (
        <p className="text-xs text-fg-muted">
          The draft still holds the change: fix it on{" "}
          <Link href="/changes" className="font-medium text-accent hover:underline">
            Changes
          </Link>{" "}
          and publish again.
        </p>
      )}
    </div>
  );
}
