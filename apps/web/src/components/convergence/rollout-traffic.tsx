"use client";

import { useQuery } from "@connectrpc/connect-query";
import { StatusService } from "@switchyard/proto/switchyard/v1/status_pb";
import { useId } from "react";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { trafficRows } from "@/lib/rollout-traffic";

/** How often the traffic is read again (the proxies report every 10 s by default). */
const REFRESH_MS = 5_000;

/**
 * The error ratio of the clusters a published version touched, in the five minutes before its
 * publish and since (StatusService.GetRolloutTraffic), read again every few seconds: a route that
 * sends requests to a failing backend shows here although every proxy ACKed it.
 */
export function RolloutTraffic({ version }: { version: bigint }) {
  const titleId = useId();
  const query = useQuery(
    StatusService.method.getRolloutTraffic,
    { version },
    { refetchInterval: REFRESH_MS },
  );
  const traffic = query.data;
  const rows = traffic ? trafficRows(traffic) : [];
  const worse = rows.filter((r) => r.worse && r.cluster !== "All touched clusters");
  return (
    <section aria-labelledby={titleId} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline gap-x-3">
        <h3 id={titleId} className="text-sm font-semibold text-fg">
          Traffic of the clusters this version touched
        </h3>
        <span className="text-xs text-fg-subtle">
          errors before the publish (5 minutes) and after it
          {traffic?.totalAfter ? ` (${traffic.totalAfter.seconds} s)` : ""}, as the proxies report
          them (load reporting)
        </span>
      </div>
      {query.error ? (
        <p role="alert" className="text-sm text-danger">
          The traffic could not be read: {query.error.message}
        </p>
      ) : query.isPending ? (
        <div className="h-16 animate-pulse rounded-lg bg-surface-muted" aria-busy="true" />
      ) : rows.length === 0 ? (
        <p className="text-sm text-fg-muted">This version touched no cluster.</p>
      ) : (
        <>
          {worse.length > 0 && (
            <p role="alert" className="flex items-center gap-2 text-sm font-medium text-danger">
              <AlertTriangleIcon className="size-4 shrink-0" />
              More errors since the publish: {worse.map((r) => r.cluster).join(", ")}
            </p>
          )}
          <table className="w-full text-left text-sm">
            <caption className="sr-only">
              Error ratio of the touched clusters before and after the publish
            </caption>
            <thead className="border-b text-xs text-fg-subtle">
              <tr>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Cluster
                </th>
                <th scope="col" className="py-2 pr-4 font-medium">
                  Why
                </th>
                <th scope="col" className="py-2 pr-4 text-right font-medium">
                  Errors before
                </th>
                <th scope="col" className="py-2 text-right font-medium">
                  Errors after
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.cluster} className="border-b last:border-0">
                  <th scope="row" className="py-2 pr-4 font-mono text-xs font-normal text-fg">
                    {row.cluster}
                  </th>
                  <td className="py-2 pr-4 text-xs text-fg-muted">{row.why}</td>
                  {row.reportsLoad ? (
                    <>
                      <td className="py-2 pr-4 text-right tabular-nums">{row.before.text}</td>
                      <td
                        className={`py-2 text-right tabular-nums ${row.worse ? "font-medium text-danger" : ""}`}
                      >
                        {row.after.text}
                      </td>
                    </>
                  ) : (
                    <td colSpan={2} className="py-2 text-right text-xs text-fg-subtle">
                      Does not report load
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {traffic && traffic.omitted > 0 && (
            <p className="text-xs text-fg-subtle">
              And {traffic.omitted} more touched clusters, counted in the total.
            </p>
          )}
        </>
      )}
    </section>
  );
}
