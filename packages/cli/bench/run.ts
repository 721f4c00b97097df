/** `npm run bench`: runs every benchmark, prints a markdown table, writes bench/results/*.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { convergenceChart } from "./chart.js";
import { configBench, type Figure } from "./config.bench.js";
import { consoleBench } from "./console.bench.js";
import { fleetBench } from "./fleet.bench.js";
import { importBench } from "./import.bench.js";
import { rolloutBench } from "./rollout.bench.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** A figure's value: whole numbers, but one decimal below 10 (a ratio, a share, a small time). */
const shown = (value: number) =>
  Math.abs(value) < 10 ? value.toFixed(1) : Math.round(value).toLocaleString("en");

function table(figures: readonly Figure[]): string {
  const notes = figures.some((f) => f.note !== undefined);
  const rows = figures.map(
    (f) =>
      `| ${f.name} | ${shown(f.value)} ${f.unit} | ${f.target ?? ""} |${notes ? ` ${f.note ?? ""} |` : ""}`,
  );
  const head = notes
    ? ["| measure | result | target | note |", "|---|---:|---|---|"]
    : ["| measure | result | target |", "|---|---:|---|"];
  return [...head, ...rows].join("\n");
}

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const started = new Date();
/** What a suite measured, and any files it drew (name under bench/results → content). */
interface SuiteResult {
  readonly figures: readonly Figure[];
  readonly data?: unknown;
  readonly files?: Readonly<Record<string, string>>;
}
const resultsDir = path.join(root, "bench", "results");
const suites: ReadonlyArray<
  readonly [string, string, () => Promise<readonly Figure[] | SuiteResult>]
> = [
  ["config", "Config: validate, compile, publish", () => configBench()],
  ["import", "Import: what reading a large document costs the event loop", () => importBench()],
  [
    "fleet",
    "Fleet: convergence, CPU, memory and bytes against the replay floor",
    async () => {
      const results = await fleetBench();
      const chart = await convergenceChart(
        { Switchyard: results.switchyard, "replay floor": results.floor },
        `${started.toISOString().slice(0, 10)}, ${machine}`,
      );
      return {
        figures: results.figures,
        data: { switchyard: results.switchyard, floor: results.floor },
        files: { "convergence.svg": chart },
      };
    },
  ],
  ["rollout", "Rollout: two waves at 10,000 nodes against the replay floor", () => rolloutBench()],
  ["console", "Console: pages and live status with a fleet connected", () => consoleBench()],
];
// `npm run bench -- console` runs only the named suites.
const only = process.argv.slice(2);
mkdirSync(resultsDir, { recursive: true });
// The console benchmark runs Next.js in this process, which swallows uncaught errors: a failed
// suite must end the run itself.
process.on("unhandledRejection", (error) => {
  console.error(error);
  process.exit(1);
});
for (const [id, title, run] of suites) {
  if (only.length > 0 && !only.includes(id)) continue;
  const suiteStart = performance.now();
  const outcome = await run().catch((error: unknown) => {
    console.error(`benchmark "${id}" failed:`, error);
    process.exit(1);
  });
  const result: SuiteResult = Array.isArray(outcome)
    ? { figures: outcome }
    : (outcome as SuiteResult);
  const seconds = ((performance.now() - suiteStart) / 1000).toFixed(0);
  const markdown = `## ${title}\n\n${started.toISOString().slice(0, 10)}, ${machine}; the suite took ${seconds} s\n\n${table(result.figures)}\n`;
  process.stdout.write(`\n${markdown}\n`);
  writeFileSync(
    path.join(resultsDir, `${id}.json`),
    `${JSON.stringify({ date: started.toISOString(), machine, figures: result.figures, data: result.data }, null, 2)}\n`,
  );
  writeFileSync(path.join(resultsDir, `${id}.md`), markdown);
  for (const [name, content] of Object.entries(result.files ?? {}))
    writeFileSync(path.join(resultsDir, name), content);
}
// Nothing else may keep the process alive (Next.js leaves timers behind).
process.exit(0);
