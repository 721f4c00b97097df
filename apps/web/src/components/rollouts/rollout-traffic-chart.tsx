"use client";

import type { Rollout } from "@switchyard/proto/switchyard/v1/rollout_pb";
import {
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { Card } from "@/components/ui/card";
import { formatRatio } from "@/lib/load";
import { type TrafficChartRow, trafficChart } from "@/lib/rollouts";
import { clock } from "./clock";

/** Okabe–Ito blue and vermillion: the wave's nodes against the previous version's. */
const CANARY = "#D55E00";
const CONTROL = "#0072B2";

const percent = (value: number | null) =>
  value === null ? "no requests" : formatRatio(value / 100);

/**
 * The error ratio of each touched cluster over time, window by window as the traffic gate
 * counted them (Rollout.traffic): the wave's nodes against the nodes still on the previous
 * version. A table under each chart has the same figures, with the requests.
 */
export function RolloutTrafficCard({ rollout }: { rollout: Rollout }) {
  const charts = trafficChart(rollout);
  if (charts.length === 0) return null;
  return (
    <Card
      id="traffic-title"
      title="Error ratio over time"
      aside="each window as load reporting counted it"
    >
      <div className="flex flex-col gap-6 p-5">
        {charts.map(({ cluster, rows }) => (
          <ClusterChart key={cluster} cluster={cluster} rows={rows} from={rollout.fromVersion} />
        ))}
      </div>
    </Card>
  );
}

function ClusterChart({
  cluster,
  rows,
  from,
}: {
  cluster: string;
  rows: TrafficChartRow[];
  from: bigint;
}) {
  const label = `Error ratio of cluster ${cluster}: the wave's nodes and the previous version's`;
  return (
    <figure aria-label={label} className="flex flex-col gap-2">
      <figcaption className="text-sm font-medium text-fg">
        <span className="font-mono text-[13px]">{cluster}</span>
      </figcaption>
      <div className="h-52 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
            <XAxis
              dataKey="at"
              type="number"
              domain={["dataMin", "dataMax"]}
              tickFormatter={(at: number) => clock(at)}
              fontSize={11}
            />
            <YAxis
              tickFormatter={(v: number) => `${v}%`}
              width={48}
              fontSize={11}
              domain={[0, "auto"]}
            />
            <Tooltip
              labelFormatter={(at) => clock(Number(at))}
              formatter={(value) => percent(value === null ? null : Number(value))}
            />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              dataKey="canary"
              name="Wave's nodes (new version)"
              stroke={CANARY}
              dot
              isAnimationActive={false}
              connectNulls
            />
            <Line
              dataKey="control"
              name={`Nodes on version ${from}`}
              stroke={CONTROL}
              dot
              isAnimationActive={false}
              connectNulls
            />
          </LineChart>
        </ResponsiveContainer>
      </div>
      <table className="sr-only">
        <caption>Traffic windows of cluster {cluster}</caption>
        <thead>
          <tr>
            <th scope="col">Window end</th>
            <th scope="col">Wave</th>
            <th scope="col">Wave's nodes</th>
            <th scope="col">Previous version</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.at}>
              <th scope="row">{clock(row.at)}</th>
              <td>{row.wave}</td>
              <td>
                {percent(row.canary)} of {row.canaryRequests}
              </td>
              <td>
                {percent(row.control)} of {row.controlRequests}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
