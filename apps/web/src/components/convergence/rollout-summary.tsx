import { AlertTriangleIcon, CheckIcon } from "@/components/ui/icons";
import type { RolloutSummary } from "@/lib/convergence";

const headlineTone: Record<RolloutSummary["state"], string> = {
  "no-nodes": "text-fg-muted",
  converged: "text-success",
  nacked: "text-danger",
  converging: "text-fg",
};

/** The rollout in one sentence ("All 3 nodes run version 7"), announced as it changes. */
export function RolloutHeadline({
  summary,
  className = "",
}: {
  summary: RolloutSummary;
  className?: string;
}) {
  return (
    <p
      className={`flex items-center gap-2 font-medium ${headlineTone[summary.state]} ${className}`}
    >
      {summary.state === "converged" && <CheckIcon className="size-4" />}
      {summary.state === "nacked" && <AlertTriangleIcon className="size-4" />}
      <span role="status">{summary.headline}</span>
    </p>
  );
}

/** Acked / rejected / pending shares of the targeted nodes as one bar; nothing when none is targeted. */
export function RolloutBar({
  summary,
  pulsePending = false,
}: {
  summary: RolloutSummary;
  pulsePending?: boolean;
}) {
  if (summary.targeted === 0) return null;
  return (
    <div
      role="img"
      aria-label={`${summary.acked} acknowledged, ${summary.nacked} rejected, ${summary.pending} pending of ${summary.targeted} nodes`}
      className="flex h-2 overflow-hidden rounded-full bg-surface-muted"
    >
      <div
        className="bg-success transition-[width] duration-500"
        style={{ width: `${summary.percent.acked}%` }}
      />
      <div
        className="bg-danger transition-[width] duration-500"
        style={{ width: `${summary.percent.nacked}%` }}
      />
      <div
        className={`bg-fg-subtle/40 transition-[width] duration-500 ${pulsePending ? "motion-safe:animate-pulse-late" : ""}`}
        style={{ width: `${summary.percent.pending}%` }}
      />
    </div>
  );
}

/** One figure of a rollout in a `<dl>`: "p50 to ACK 120 ms". */
export function RolloutStat({
  label,
  value,
  tone = "text-fg",
  size = "text-base",
  note,
}: {
  label: string;
  value: number | string;
  tone?: string;
  /** A line under the figure saying what it leaves out ("and 2 nodes that connected later"). */
  note?: string | undefined;
  /** The figure's type size: the rollout panel shows larger figures than the Overview. */
  size?: "text-base" | "text-lg tracking-tight";
}) {
  return (
    <div className="rounded-lg border bg-surface-muted px-3 py-2">
      <dt className="text-xs text-fg-subtle">{label}</dt>
      <dd className={`mt-0.5 ${size} font-semibold tabular-nums ${tone}`}>{value}</dd>
      {note === undefined ? null : <dd className="text-xs text-fg-subtle">{note}</dd>}
    </div>
  );
}
