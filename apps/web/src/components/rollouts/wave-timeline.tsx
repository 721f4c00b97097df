import type { Rollout } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { Card } from "@/components/ui/card";
import { StatusPill } from "@/components/ui/status-pill";
import { type TimelineWave, type Tone, timeline } from "@/lib/rollouts";
import { clock } from "./clock";

function waveState(wave: TimelineWave, rollout: Rollout): { text: string; tone: Tone } {
  if (wave.state === "planned") return { text: "Not started", tone: "muted" };
  if (wave.state === "current")
    return {
      text: rollout.gates?.wave === wave.wave && wave.bakedAt ? "Baking" : "Running",
      tone: "warning",
    };
  switch (wave.ended) {
    case "passed":
      return { text: "Passed", tone: "success" };
    case "promoted":
      return { text: "Promoted", tone: "success" };
    case "":
      return { text: "Stopped", tone: "muted" };
    default:
      return {
        text: wave.ended.charAt(0).toUpperCase() + wave.ended.slice(1),
        tone: wave.ended === "paused" ? "muted" : "danger",
      };
  }
}

/** The plan's waves in order: each one's share, the nodes it sent, when it started, baked and ended. */
export function WaveTimeline({ rollout }: { rollout: Rollout }) {
  const waves = timeline(rollout);
  return (
    <Card id="waves-title" title="Waves">
      <ol aria-label="Waves" className="grid gap-3 p-5 sm:grid-cols-2 xl:grid-cols-4">
        {waves.map((wave) => {
          const state = waveState(wave, rollout);
          return (
            <li
              key={wave.wave}
              aria-label={`Wave ${wave.wave}`}
              aria-current={wave.state === "current" ? "step" : undefined}
              className={`flex flex-col gap-1.5 rounded-lg border p-3 ${
                wave.state === "current"
                  ? "border-accent bg-accent-soft"
                  : wave.state === "planned"
                    ? "border-dashed"
                    : ""
              }`}
            >
              <p className="flex items-center justify-between gap-2">
                <span className="font-semibold text-fg">
                  Wave {wave.wave}
                  <span className="font-normal text-fg-muted"> · {wave.share}</span>
                </span>
                <StatusPill tone={state.tone}>{state.text}</StatusPill>
              </p>
              {wave.state !== "planned" && (
                <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
                  <dt className="text-fg-subtle">Sent to</dt>
                  <dd className="tabular-nums text-fg">
                    {wave.sent} node{wave.sent === 1 ? "" : "s"}
                  </dd>
                  <dt className="text-fg-subtle">Started</dt>
                  <dd className="tabular-nums text-fg">{clock(wave.startedAt)}</dd>
                  <dt className="text-fg-subtle">Baked from</dt>
                  <dd className="tabular-nums text-fg">
                    {wave.bakedAt === undefined ? "—" : clock(wave.bakedAt)}
                  </dd>
                  <dt className="text-fg-subtle">Ended</dt>
                  <dd className="tabular-nums text-fg">
                    {wave.endedAt === undefined ? "—" : `${clock(wave.endedAt)}, ${wave.ended}`}
                  </dd>
                </dl>
              )}
            </li>
          );
        })}
      </ol>
    </Card>
  );
}
