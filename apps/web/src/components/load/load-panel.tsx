"use client";

import { useQuery } from "@connectrpc/connect-query";
import { LoadBreakdown, StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import dynamic from "next/dynamic";
import { type ReactNode, useState } from "react";
import { Card } from "@/components/ui/card";
import { formatRate, formatRatio, loadChart, loadTotals, sumTotals } from "@/lib/load";

/** The chart's code (recharts) loads with the first panel that draws one. */
const LoadChart = dynamic(() => import("./load-chart").then((m) => m.LoadChart), {
  ssr: false,
  loading: () => <div className="h-56 w-full" aria-busy="true" />,
});

/** The window shown, and how often it is read again (the proxies report every 10 s). */
const WINDOW_SECONDS = 300;
const REFRESH_MS = 5_000;

const BREAKDOWN_LABELS: Record<LoadBreakdown, string> = {
  [LoadBreakdown.UNSPECIFIED]: "cluster",
  [LoadBreakdown.CLUSTER]: "cluster",
  [LoadBreakdown.LOCALITY]: "locality",
  [LoadBreakdown.ENDPOINT]: "endpoint",
  [LoadBreakdown.NODE]: "node",
};

/**
 * Traffic the proxies reported over LRS, live: requests per second per series as a chart, and
 * per series over the last five minutes the requests, their rate and the error ratio as a table.
 * `breakdowns` are the ways it can be split (the first is shown first); `total` adds a row
 * summing every series (the fleet's).
 */
export function LoadPanel({
  id,
  title,
  cluster = "",
  nodeId = "",
  breakdowns,
  total,
  empty,
}: {
  id: string;
  title: string;
  cluster?: string;
  nodeId?: string;
  breakdowns: readonly LoadBreakdown[];
  total?: string;
  empty: ReactNode;
}) {
  const [by, setBy] = useState(breakdowns[0] ?? LoadBreakdown.CLUSTER);
  const query = useQuery(
    StatusService.method.getLoad,
    { cluster, nodeId, by, windowSeconds: WINDOW_SECONDS },
    { refetchInterval: REFRESH_MS },
  );
  const label = BREAKDOWN_LABELS[by];
  const load = query.data;
  const totals = load ? loadTotals(load, WINDOW_SECONDS) : [];
  const rows = total ? [...totals, sumTotals(total, totals, WINDOW_SECONDS)] : totals;
  const aside =
    breakdowns.length > 1 ? (
      <label className="flex items-center gap-2">
        <span aria-hidden="true">By</span>
        <select
          aria-label={`${title} by`}
          value={by}
          onChange={(event) => setBy(Number(event.target.value) as LoadBreakdown)}
          className="rounded-md border bg-surface px-2 py-1 text-xs text-fg"
        >
          {breakdowns.map((b) => (
            <option key={b} value={b}>
              {BREAKDOWN_LABELS[b]}
            </option>
          ))}
        </select>
      </label>
    ) : (
      "last 5 minutes, live"
    );
  return (
    <Card id={id} title={title} aside={aside}>
      <div className="flex flex-col gap-4 p-5">
        {query.error ? (
          <p role="alert" className="text-sm text-danger">
            The load could not be read: {query.error.message}
          </p>
        ) : query.isPending ? (
          <div className="h-56 w-full animate-pulse rounded-lg bg-surface-muted" aria-busy="true" />
        ) : totals.length === 0 ? (
          <div className="text-sm text-fg-muted">
            {by === LoadBreakdown.ENDPOINT
              ? "No load reported by endpoint in the last 5 minutes. Envoy reports each endpoint; proxyless gRPC clients report per locality only."
              : empty}
          </div>
        ) : (
          <>
            <LoadChart
              rows={load ? loadChart(load) : []}
              series={totals.map((t) => t.name)}
              label={`${title}: requests per second by ${label}`}
            />
            <table className="w-full text-left text-sm">
              <caption className="sr-only">{`${title} by ${label}, last 5 minutes`}</caption>
              <thead className="border-b text-xs text-fg-subtle">
                <tr>
                  <th scope="col" className="py-2 pr-4 font-medium">
                    {label[0]?.toUpperCase()}
                    {label.slice(1)}
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Requests
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Rate
                  </th>
                  <th scope="col" className="py-2 pr-4 text-right font-medium">
                    Errors
                  </th>
                  <th scope="col" className="py-2 text-right font-medium">
                    Error ratio
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.name} className="border-b last:border-0">
                    <th scope="row" className="py-2 pr-4 font-mono text-xs font-normal text-fg">
                      {row.name || "(no locality)"}
                    </th>
                    <td className="py-2 pr-4 text-right tabular-nums">{row.requests}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{formatRate(row.rps)}</td>
                    <td className="py-2 pr-4 text-right tabular-nums">{row.errors}</td>
                    <td
                      className={`py-2 text-right tabular-nums ${row.errorRatio > 0.01 ? "text-danger" : ""}`}
                    >
                      {formatRatio(row.errorRatio)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </div>
    </Card>
  );
}
