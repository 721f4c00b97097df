/**
 * The chart of the fleet benchmark: convergence time against node count, the server's and the
 * replay floor's, drawn by Vega-Lite as an SVG with no browser.
 */
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { ConvergencePoint } from "./fleet.bench.js";

export async function convergenceChart(
  series: Readonly<Record<string, readonly ConvergencePoint[]>>,
  subtitle: string,
): Promise<string> {
  const values = Object.entries(series).flatMap(([who, points]) =>
    points.flatMap((point) =>
      (["p50", "p99"] as const).map((q) => ({
        nodes: point.nodes,
        ms: Math.round(point.latency[q]),
        who,
        percentile: q,
      })),
    ),
  );
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: "A one-route change: publish → every node's ACK", subtitle },
    width: 560,
    height: 300,
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: {
        field: "nodes",
        type: "quantitative",
        title: "connected nodes (half SotW, half Delta ADS)",
        scale: { type: "log" },
        axis: { values: [...new Set(values.map((v) => v.nodes))] },
      },
      y: { field: "ms", type: "quantitative", title: "ms after the publish" },
      color: { field: "who", type: "nominal", title: null },
      strokeDash: { field: "percentile", type: "nominal", title: null },
    },
  };
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
