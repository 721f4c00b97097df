"use client";

import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { TimelinePoint } from "@/lib/version-convergence";

/** Okabe–Ito, as the traffic chart; NACKs in vermilion. */
const LINES = [
  { key: "to50", name: "50% held", colour: "#56B4E9" },
  { key: "to99", name: "99% held", colour: "#0072B2" },
  { key: "to100", name: "100% held", colour: "#000000" },
] as const;
const NACK_COLOUR = "#D55E00";

/**
 * Per version (oldest left): seconds from publish until 50/99/100% of the nodes held it, as
 * lines, and the nodes that NACKed it, as bars on their own axis (recharts). The list beside it
 * has the figures in words.
 */
export function ConvergenceTimelineChart({
  points,
  label,
}: {
  points: readonly TimelinePoint[];
  label: string;
}) {
  return (
    <figure aria-label={label} className="h-56 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={[...points]} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} />
          <XAxis dataKey="version" fontSize={11} />
          <YAxis
            yAxisId="seconds"
            width={48}
            fontSize={11}
            tickFormatter={(v: number) => `${v} s`}
          />
          <YAxis
            yAxisId="nacks"
            orientation="right"
            width={32}
            fontSize={11}
            allowDecimals={false}
          />
          <Tooltip
            formatter={(value, name) =>
              name === "NACKed" ? String(value) : `${Number(value).toFixed(2)} s`
            }
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar
            yAxisId="nacks"
            dataKey="nackedEver"
            name="NACKed"
            fill={NACK_COLOUR}
            fillOpacity={0.8}
            maxBarSize={16}
            isAnimationActive={false}
          />
          {LINES.map((line) => (
            <Line
              key={line.key}
              yAxisId="seconds"
              dataKey={line.key}
              name={line.name}
              stroke={line.colour}
              isAnimationActive={false}
              connectNulls={false}
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
    </figure>
  );
}
