/**
 * Load reporting (LRS) from the terminal: `switchyard report-load CLUSTER on|off` turns a
 * cluster's report-load switch in the draft, and `switchyard load` prints what the proxies
 * reported (StatusService.GetLoad) per cluster, locality, endpoint or node.
 */
import { toJson } from "@bufbuild/protobuf";
import { type Load, LoadBreakdown, LoadSchema } from "@switchyard/proto/switchyard/v1/status_pb";
import { CliError, type ConfigClient } from "./client.js";
import { type Output, outputFormat, table } from "./output.js";
import { parseDuration, type StatusClient } from "./status-commands.js";

/**
 * `switchyard report-load CLUSTER on|off`: the cluster asks the proxies for its load (or stops)
 * once the draft is published.
 */
export async function reportLoad(
  client: ConfigClient,
  output: Output,
  name: string,
  onOff: string,
): Promise<void> {
  if (onOff !== "on" && onOff !== "off")
    throw new CliError(`"${onOff}": use on or off (switchyard report-load CLUSTER on|off)`);
  const wanted = onOff === "on";
  const cluster = await client.getCluster({ name });
  if (cluster.reportLoad === wanted) {
    output.out(
      `cluster ${name} ${wanted ? "already reports" : "already does not report"} load in the draft: nothing changed\n`,
    );
    return;
  }
  await client.updateCluster({ ...cluster, reportLoad: wanted });
  output.out(
    `cluster ${name} ${wanted ? "reports" : "no longer reports"} load in the draft; publish to apply it (switchyard publish -m MESSAGE)\n`,
  );
}

const breakdowns: Record<string, LoadBreakdown> = {
  cluster: LoadBreakdown.CLUSTER,
  locality: LoadBreakdown.LOCALITY,
  endpoint: LoadBreakdown.ENDPOINT,
  node: LoadBreakdown.NODE,
};

export interface LoadOptions {
  readonly cluster?: string;
  readonly node?: string;
  readonly by?: string;
  readonly window?: string;
  readonly output?: string;
}

/** `switchyard load [--cluster C] [--node N] [--by ...] [--window 5m] [-o json]`. */
export async function load(
  client: StatusClient,
  output: Output,
  options: LoadOptions,
): Promise<void> {
  const format = outputFormat(options.output, ["table", "json"], "table");
  const by = breakdowns[options.by ?? "cluster"];
  if (by === undefined)
    throw new CliError(`--by "${options.by}": use cluster, locality, endpoint or node`);
  const windowMs = parseDuration(options.window ?? "5m");
  if (windowMs < 1000 || windowMs % 1000 !== 0)
    throw new CliError(`--window "${options.window}": use whole seconds, e.g. 30s, 5m, 1h`);
  const windowSeconds = windowMs / 1000;
  const answer = await client.getLoad({
    cluster: options.cluster ?? "",
    nodeId: options.node ?? "",
    by,
    windowSeconds,
  });
  if (format === "json") {
    output.out(`${JSON.stringify(toJson(LoadSchema, answer), null, 2)}\n`);
    return;
  }
  output.out(loadTable(answer, windowSeconds, options.by ?? "cluster"));
}

/** One row per series: completed requests, their rate, errors and their ratio, drops. */
export function loadTable(answer: Load, windowSeconds: number, by: string): string {
  if (answer.series.length === 0)
    return `no load reported in the last ${windowSeconds} s (clusters report it when their report-load switch is on)\n`;
  const rows = answer.series.map((series) => {
    let successful = 0n;
    let errored = 0n;
    let dropped = 0n;
    for (const point of series.points) {
      successful += point.successful;
      errored += point.errored;
      dropped += point.dropped;
    }
    const requests = successful + errored;
    return [
      series.name || "-",
      String(requests),
      `${(Number(requests) / windowSeconds).toFixed(2)}/s`,
      String(errored),
      requests === 0n ? "-" : `${((Number(errored) / Number(requests)) * 100).toFixed(1)}%`,
      String(dropped),
    ];
  });
  return table([by.toUpperCase(), "REQUESTS", "RATE", "ERRORS", "ERROR RATIO", "DROPPED"], rows);
}
