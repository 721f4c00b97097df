import { timestampMs } from "@bufbuild/protobuf/wkt";
import type { Rollout, RolloutGates } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { Card } from "@/components/ui/card";
import { StatusPill } from "@/components/ui/status-pill";
import { ackProgress, compareCluster, formatPoints, type Tone } from "@/lib/rollouts";
import { clock } from "./clock";

const gateState: Record<string, { text: string; tone: Tone }> = {
  waiting: { text: "Waiting", tone: "warning" },
  passed: { text: "Passed", tone: "success" },
  failed: { text: "Failed", tone: "danger" },
};

/** The current wave's gates, live: its nodes' ACKs, and its traffic against the previous version's. */
export function RolloutGatesCard({ rollout, gates }: { rollout: Rollout; gates: RolloutGates }) {
  const plan = rollout.plan?.waves[gates.wave - 1];
  return (
    <Card
      id="gates-title"
      title={`Wave ${gates.wave} gates`}
      aside={
        gates.bakeEndTime ? `Bake ends at ${clock(timestampMs(gates.bakeEndTime))}` : undefined
      }
    >
      <div className="grid gap-6 p-5 lg:grid-cols-[minmax(0,1fr)_minmax(0,1.6fr)]">
        <AckGate gates={gates} />
        {plan?.traffic ? (
          <TrafficGate gates={gates} rollout={rollout} />
        ) : (
          <section aria-label="Traffic gate">
            <h3 className="text-sm font-semibold text-fg">Traffic</h3>
            <p className="mt-2 text-fg-muted">This wave is judged by its ACKs alone.</p>
          </section>
        )}
      </div>
    </Card>
  );
}

function AckGate({ gates }: { gates: RolloutGates }) {
  const progress = ackProgress(gates);
  const state = gateState[gates.ack] ?? { text: gates.ack, tone: "muted" as Tone };
  const share = (n: number) => (progress.total === 0 ? 0 : (n / progress.total) * 100);
  return (
    <section aria-label="ACK gate" className="flex flex-col gap-2">
      <h3 className="flex items-center gap-2 text-sm font-semibold text-fg">
        ACKs <StatusPill tone={state.tone}>{state.text}</StatusPill>
      </h3>
      <div
        // The figures are in the line under it.
        aria-hidden="true"
        className="flex h-2.5 w-full overflow-hidden rounded-full bg-surface-muted"
      >
        <div className="bg-success" style={{ width: `${share(progress.acked)}%` }} />
        <div className="bg-danger" style={{ width: `${share(progress.nacked)}%` }} />
      </div>
      <p className="text-xs text-fg-muted tabular-nums">{progress.text}</p>
      {gates.ackDeadline && (
        <p className="text-xs text-fg-muted">
          The pending nodes must ACK by {clock(timestampMs(gates.ackDeadline))}.
        </p>
      )}
    </section>
  );
}

function TrafficGate({ gates, rollout }: { gates: RolloutGates; rollout: Rollout }) {
  const state =
    gates.traffic === ""
      ? { text: "After the ACKs", tone: "muted" as Tone }
      : (gateState[gates.traffic] ?? { text: gates.traffic, tone: "muted" as Tone });
  const rows = gates.clusters.map((c) =>
    compareCluster(c, gates.maxErrorIncrease, gates.minRequests),
  );
  return (
    <section aria-label="Traffic gate" className="flex flex-col gap-2">
      <h3 className="flex items-center gap-2 text-sm font-semibold text-fg">
        Traffic <StatusPill tone={state.tone}>{state.text}</StatusPill>
      </h3>
      <p className="text-xs text-fg-muted">
        The error ratio of the wave's nodes may be at most {gates.maxErrorIncrease} point
        {gates.maxErrorIncrease === 1 ? "" : "s"} above the nodes still on version{" "}
        {rollout.fromVersion.toString()}, per touched cluster, once each side has{" "}
        {gates.minRequests} requests.
        {gates.traffic === "" && " It is judged while the wave bakes."}
      </p>
      {rows.length === 0 ? (
        <p className="text-fg-muted">
          {rollout.clusters.length === 0
            ? "The version touches no cluster."
            : `No load reported yet for ${rollout.clusters.join(", ")}.`}
        </p>
      ) : (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Error ratio per touched cluster</caption>
          <thead className="border-b text-xs text-fg-subtle">
            <tr>
              <th scope="col" className="py-2 pr-4 font-medium">
                Cluster
              </th>
              <th scope="col" className="py-2 pr-4 text-right font-medium">
                Wave's nodes
              </th>
              <th scope="col" className="py-2 pr-4 text-right font-medium">
                Previous version
              </th>
              <th scope="col" className="py-2 text-right font-medium">
                Increase
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.cluster} className="border-b last:border-0">
                <th scope="row" className="py-2 pr-4 font-mono text-xs font-normal text-fg">
                  {row.cluster}
                </th>
                <td className="py-2 pr-4 text-right tabular-nums">{row.canary.text}</td>
                <td className="py-2 pr-4 text-right tabular-nums">{row.control.text}</td>
                <td
                  className={`py-2 text-right tabular-nums ${row.over ? "font-medium text-danger" : ""}`}
                >
                  {row.increase === undefined
                    ? "—"
                    : `${formatPoints(row.increase)}${row.enough ? "" : " (too few requests)"}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
