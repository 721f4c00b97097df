"use client";

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
import { formatRate, type LoadChartRow } from "@/lib/load";

/** Distinct, colour-blind-friendly line colours (Okabe–Ito), reused past eight series. */
const COLOURS = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#CC79A7",
  "#56B4E9",
  "#D55E00",
  "#F0E442",
  "#000000",
];

const clock = (at: number) =>
  new Date(at).toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });

/** Requests per second of each series over time (recharts). The table beside it has the figures. */
export function LoadChart({
  rows,
  series,
  label,
}: {
  rows: readonly LoadChartRow[];
  series: readonly string[];
  label: string;
}) {
  return (
    <figure aria-label={label} className="h-56 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={[...rows]} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis
            dataKey="at"
            type="number"
            domain={["dataMin", "dataMax"]}
            tickFormatter={clock}
            fontSize={11}
          />
          <YAxis tickFormatter={(v: number) => formatRate(v)} width={56} fontSize={11} />
          <Tooltip
            labelFormatter={(at) => clock(Number(at))}
            formatter={(value) => formatRate(Number(value))}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {series.map((name, i) => (
            <Line
              key={name}
              dataKey={name}
              name={name || "(no locality)"}
              stroke={COLOURS[i % COLOURS.length] ?? "#0072B2"}
              dot={false}
              isAnimationActive={false}
              connectNulls
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </figure>
  );
}
