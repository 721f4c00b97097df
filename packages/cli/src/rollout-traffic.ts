/**
 * The traffic of a rollout as `switchyard wait --watch` prints it and `--max-error-ratio` judges
 * it: the clusters the version touched (StatusService.GetRolloutTraffic), each with its error
 * ratio before the publish and after it, as the proxies reported over LRS.
 */
import {
  type RolloutTraffic,
  TouchReason,
  type TrafficTotals,
} from "@switchyard/proto/switchyard/v1/status_pb";
import { CliError } from "./client.js";
import { table } from "./output.js";

/** Completed requests after the publish a cluster needs before its error ratio is judged. */
export const MIN_JUDGED_REQUESTS = 10;

const reasonWord: Record<TouchReason, string> = {
  [TouchReason.UNSPECIFIED]: "changed",
  [TouchReason.CLUSTER_CHANGED]: "cluster changed",
  [TouchReason.ROUTE_CHANGED]: "routes changed",
  [TouchReason.LISTENER_CHANGED]: "listener changed",
};

function completed(side: TrafficTotals | undefined): number {
  return side === undefined ? 0 : Number(side.successful + side.errored);
}

/** "2.5% of 400", "no requests". */
export function ratioText(side: TrafficTotals | undefined): string {
  const requests = completed(side);
  if (side?.errorRatio === undefined || requests === 0) return "no requests";
  return `${(side.errorRatio * 100).toFixed(1)}% of ${requests}`;
}

/** "0--1" → a ratio; a percentage ("5%") is accepted too. */
export function parseErrorRatio(text: string): number {
  const percent = text.endsWith("%");
  const value = Number(percent ? text.slice(0, -1) : text);
  const ratio = percent ? value / 100 : value;
  if (text.trim() === "" || !Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new CliError(
      `invalid error ratio "${text}": use a number from 0 to 1 (0.05) or a percentage (5%)`,
    );
  return ratio;
}

/** "errors of the clusters version 7 touched, ... (12 s after):", the line over trafficTable. */
export function trafficHeading(traffic: RolloutTraffic): string {
  return `errors of the clusters version ${traffic.version} touched, before and after its publish (${traffic.totalAfter?.seconds ?? 0} s after):\n`;
}

/** The touched clusters as a table: why, and the error ratio before and after the publish. */
export function trafficTable(traffic: RolloutTraffic): string {
  if (traffic.clusters.length === 0)
    return `version ${traffic.version} touched no cluster: no traffic to compare\n`;
  const rows = traffic.clusters.map((cluster) => [
    cluster.cluster,
    [
      ...cluster.reasons.map((r) => reasonWord[r]),
      ...cluster.touchedBy.map((by) => `(${by})`),
    ].join(" "),
    cluster.reportsLoad ? ratioText(cluster.before) : "does not report load",
    cluster.reportsLoad ? ratioText(cluster.after) : "-",
  ]);
  if (traffic.clusters.filter((c) => c.reportsLoad).length > 1)
    rows.push(["(all)", "", ratioText(traffic.totalBefore), ratioText(traffic.totalAfter)]);
  const omitted =
    traffic.omitted > 0 ? `  and ${traffic.omitted} more cluster(s) not listed\n` : "";
  return `${table(["CLUSTER", "WHY", "BEFORE", "AFTER"], rows)}${omitted}`;
}

/**
 * The touched clusters whose error ratio after the publish is above `max`, over at least
 * MIN_JUDGED_REQUESTS completed requests, as the CliError `wait` ends with; undefined when none.
 */
export function errorRatioBreach(traffic: RolloutTraffic, max: number): CliError | undefined {
  const above = traffic.clusters.filter(
    (c) =>
      c.reportsLoad &&
      completed(c.after) >= MIN_JUDGED_REQUESTS &&
      (c.after?.errorRatio ?? 0) > max,
  );
  if (above.length === 0) return undefined;
  const lines = [
    `version ${traffic.version}: ${above.length} touched cluster(s) above the ${(max * 100).toFixed(1)}% error ratio allowed:`,
    ...above.map(
      (c) =>
        `  ${c.cluster}: ${ratioText(c.after)} after the publish, ${ratioText(c.before)} before`,
    ),
  ];
  return new CliError(lines.join("\n"));
}
