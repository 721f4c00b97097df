/** `npm run bench`: runs every benchmark, prints a markdown table, writes bench/results/*.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { configBench, type Figure } from "./config.bench.js";
import { consoleBench } from "./console.bench.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function table(figures: readonly Figure[]): string {
  const rows = figures.map(
    (f) => `| ${f.name} | ${f.value.toFixed(0)} ${f.unit} | ${f.target ?? ""} |`,
  );
  return ["| measure | result | target |", "|---|---:|---|", ...rows].join("\n");
}

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const started = new Date();
const suites: ReadonlyArray<readonly [string, string, () => Promise<Figure[]>]> = [
  ["config", "Config: validate, compile, publish", () => configBench()],
  ["console", "Console: pages and live status with a fleet connected", () => consoleBench()],
];
// `npm run bench -- console` runs only the named suites.
const only = process.argv.slice(2);
mkdirSync(path.join(root, "bench", "results"), { recursive: true });
// The console benchmark runs Next.js in this process, which swallows uncaught errors: a failed
// suite must end the run itself.
process.on("unhandledRejection", (error) => {
  console.error(error);
  process.exit(1);
});
for (const [id, title, run] of suites) {
  if (only.length > 0 && !only.includes(id)) continue;
  const figures = await run().catch((error: unknown) => {
    console.error(`benchmark "${id}" failed:`, error);
    process.exit(1);
  });
  const markdown = `## ${title}\n\n${started.toISOString().slice(0, 10)}, ${machine}\n\n${table(figures)}\n`;
  process.stdout.write(`\n${markdown}\n`);
  writeFileSync(
    path.join(root, "bench", "results", `${id}.json`),
    `${JSON.stringify({ date: started.toISOString(), machine, figures }, null, 2)}\n`,
  );
  writeFileSync(path.join(root, "bench", "results", `${id}.md`), markdown);
}
// Nothing else may keep the process alive (Next.js leaves timers behind).
process.exit(0);
